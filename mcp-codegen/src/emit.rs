//! The emitter: one server module from a fixture.
//!
//! ```text
//! pub mod <alias> {
//!     pub const FIXTURE_HASH, ALIAS, TOOL_NAMES;
//!     pub struct Client { session }            // one async fn (+ `_with`) per tool
//!     pub mod <tool> {                         // one module per tool
//!         pub const NAME, INPUT_SCHEMA, OUTPUT_SCHEMA, OPENAI_FUNCTION, …;
//!         pub struct Args { … }                // typify's types for this tool only
//!         pub mod output { pub struct Output { … } }  pub use self::output::Output;
//!     }
//!     pub mod prompts {                        // Client::prompts(): one async fn per prompt
//!         pub mod <prompt> { pub const NAME; pub struct Args { … } }  // string arguments
//!     }
//! }
//! ```
//!
//! **Argument style.** Arguments are plain structs with public fields (required fields
//! plain, optional ones `Option<T>`), built with a struct literal: argument names are
//! visible at the call site and a missing, misspelled or mistyped argument is a compile
//! error. `Default` is derived only when every field is optional, so
//! `Args { owner: …, ..Default::default() }` compiles exactly when nothing required is
//! left out. (typify's builders would move those errors to run time.)

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use crate::fixture::{Fixture, Tool};
use crate::naming::{self, did_you_mean};
use crate::normalize::{self, Problem, Request, Role};
use crate::tokens::{self, Rewrite, doc_lines, ident, opt_str, safe_doc};
use crate::typify_driver::{self, TypifyInput};
use crate::warning::{Warning, WarningKind};
use crate::{Error, Result, openai};

/// What to generate: tool selection, renames and type overrides (the macro's options).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Generate only these tools (original names); `None` = all.
    pub only: Option<Vec<String>>,
    /// Leave these tools out (original names).
    pub skip: Vec<String>,
    /// `"tool"` → new function name; `"tool.arg"` → new field name.
    pub rename: BTreeMap<String, String>,
    /// `"tool.arg"` → Rust type used for that argument (`u64`, `std::num::NonZeroU8`,
    /// `crate::Sha`); `*` in a key matches any run of characters (`"*.issue_number"`).
    pub types: BTreeMap<String, String>,
}

impl Options {
    /// Generate only these tools.
    pub fn with_only<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.only = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Leave these tools out.
    pub fn with_skip<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.skip.extend(tools.into_iter().map(Into::into));
        self
    }

    /// Renames a tool's function (`"tool"`) or an argument's field (`"tool.arg"`).
    pub fn with_rename(mut self, from: impl Into<String>, to: impl Into<String>) -> Self {
        self.rename.insert(from.into(), to.into());
        self
    }

    /// Uses the Rust type `rust_type` for argument `"tool.arg"` (a glob such as
    /// `"*.issue_number"` names that argument of every tool that has it).
    pub fn with_type(mut self, target: impl Into<String>, rust_type: impl Into<String>) -> Self {
        self.types.insert(target.into(), rust_type.into());
        self
    }
}

/// How much of a tool got Rust types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typing {
    /// Typed by the generated types.
    Typed,
    /// The tool takes no arguments (the function has none).
    NoArgs,
    /// Untyped JSON (`serde_json::Value` arguments / `ToolOutput` result), with the reason.
    Untyped(String),
}

/// Per-tool outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolReport {
    /// Original tool name.
    pub name: String,
    /// The Rust function name (as written, e.g. `r#type`).
    pub function: String,
    /// Arguments.
    pub args: Typing,
    /// Result: `None` when the tool has no `outputSchema`.
    pub output: Option<Typing>,
}

impl ToolReport {
    /// Arguments typed (or none) and, when an `outputSchema` exists, the result typed.
    pub fn fully_typed(&self) -> bool {
        !matches!(self.args, Typing::Untyped(_)) && !matches!(self.output, Some(Typing::Untyped(_)))
    }

    /// The reasons this tool is not fully typed.
    pub fn reasons(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Typing::Untyped(r) = &self.args {
            out.push(format!("arguments untyped: {r}"));
        }
        if let Some(Typing::Untyped(r)) = &self.output {
            out.push(format!("output untyped: {r}"));
        }
        out
    }
}

/// Counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Tools generated.
    pub tools: usize,
    /// Fully typed tools (see [`ToolReport::fully_typed`]).
    pub typed: usize,
    /// Tools with untyped arguments or result.
    pub fallback: usize,
    /// Tools without arguments.
    pub no_args: usize,
    /// Tools with a typed result.
    pub typed_outputs: usize,
}

/// The generated module and what happened on the way.
#[derive(Debug, Clone)]
pub struct Generated {
    /// `pub mod <alias> { … }`.
    pub tokens: TokenStream,
    /// Fallbacks and notes, per tool, in tool order.
    pub warnings: Vec<Warning>,
    /// Counts.
    pub stats: Stats,
    /// One report per generated tool, in fixture order.
    pub tools: Vec<ToolReport>,
}

/// Generates the module for `fixture` under `alias` (the macro's and xtask's entry point).
///
/// Tools that cannot be typed fall back individually (see [`Generated::warnings`]); errors
/// are reserved for what the user must fix: unknown names in `options`, two tools or two
/// arguments mapping to one Rust name.
pub fn generate(fixture: &Fixture, alias: &str, options: &Options) -> Result<Generated> {
    let plan = plan(fixture, alias, options)?;
    if let Some((_, err)) = plan.errors.into_iter().next() {
        return Err(err);
    }
    Ok(plan.generated)
}

/// [`generate`], formatted with prettyplease (what `cargo xtask expand` prints).
pub fn expand_to_string(fixture: &Fixture, alias: &str, options: &Options) -> Result<String> {
    let generated = generate(fixture, alias, options)?;
    format_tokens(alias, generated.tokens)
}

/// Formats a token stream as a Rust file with prettyplease.
pub fn format_tokens(alias: &str, tokens: TokenStream) -> Result<String> {
    let file: syn::File = syn::parse2(tokens).map_err(|e| Error::InvalidOption {
        alias: alias.to_string(),
        entry: None,
        message: format!("internal error: generated code does not parse: {e}"),
    })?;
    Ok(prettyplease::unparse(&file))
}

/// The outcome of planning: what was generated, plus per-tool errors (tool name, error).
pub(crate) struct Plan {
    pub generated: Generated,
    pub errors: Vec<(String, Error)>,
}

#[derive(Default)]
struct ToolOptions {
    fn_rename: Option<String>,
    arg_renames: BTreeMap<String, String>,
    arg_types: BTreeMap<String, String>,
}

/// Splits `"tool.arg"` into a known tool and the rest (tool names may contain dots).
fn split_target<'a>(key: &'a str, tools: &BTreeSet<&str>) -> Option<(&'a str, Option<&'a str>)> {
    if tools.contains(key) {
        return Some((key, None));
    }
    key.char_indices()
        .filter(|(_, c)| *c == '.')
        .map(|(i, _)| (&key[..i], &key[i + 1..]))
        .find(|(tool, arg)| tools.contains(tool) && !arg.is_empty())
        .map(|(tool, arg)| (tool, Some(arg)))
}

/// The `types` option with every glob key (`"*.issue_number"`, `"list_*.page"`: `*` matches
/// any run of characters) replaced by the `"tool.argument"` keys it matches among the
/// top-level arguments of the fixture's tools. A plain key wins over a glob; two globs that
/// give one argument different types, or a glob that matches nothing, are errors.
fn expand_type_globs(
    fixture: &Fixture,
    alias: &str,
    types: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>> {
    let mut out: BTreeMap<String, String> = types
        .iter()
        .filter(|(k, _)| !k.contains('*'))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut from_glob: BTreeMap<String, &str> = BTreeMap::new();
    for (pattern, rust_type) in types.iter().filter(|(k, _)| k.contains('*')) {
        let mut matched = false;
        for tool in &fixture.tools {
            let properties = tool
                .input_schema
                .get("properties")
                .and_then(Value::as_object);
            for property in properties.into_iter().flat_map(|p| p.keys()) {
                let key = format!("{}.{property}", tool.name);
                if !naming::glob_match(pattern, &key) {
                    continue;
                }
                matched = true;
                if types.contains_key(&key) {
                    continue;
                }
                if let Some(other) = from_glob.get(&key)
                    && out.get(&key) != Some(rust_type)
                {
                    return Err(Error::InvalidOption {
                        alias: alias.to_string(),
                        entry: Some(("types", pattern.clone())),
                        message: format!(
                            "types: \"{pattern}\" and \"{other}\" both match \"{key}\" with different types; name it exactly"
                        ),
                    });
                }
                from_glob.insert(key.clone(), pattern);
                out.insert(key, rust_type.clone());
            }
        }
        if !matched {
            return Err(Error::InvalidOption {
                alias: alias.to_string(),
                entry: Some(("types", pattern.clone())),
                message: format!(
                    "types = {{ \"{pattern}\" = … }} matches no argument of the fixture's tools (a glob matches \"tool.argument\" of top-level arguments)"
                ),
            });
        }
    }
    Ok(out)
}

/// `3 tools: a, b, c`, naming up to 12, then `… and N more`.
fn list_names(names: &BTreeSet<&str>) -> String {
    const SHOWN: usize = 12;
    let shown = names.iter().take(SHOWN).copied().collect::<Vec<_>>();
    let mut out = format!("{} tools: {}", names.len(), shown.join(", "));
    if names.len() > SHOWN {
        out.push_str(&format!(" … and {} more", names.len() - SHOWN));
    }
    out
}

pub(crate) fn plan(fixture: &Fixture, alias: &str, options: &Options) -> Result<Plan> {
    let all: BTreeSet<&str> = fixture.tools.iter().map(|t| t.name.as_str()).collect();
    let unknown_tool = |option: &'static str, tool: &str| Error::UnknownTool {
        alias: alias.to_string(),
        option,
        tool: tool.to_string(),
        hint: did_you_mean(tool, all.iter().copied()),
        listed: list_names(&all),
    };
    if let Some(only) = &options.only {
        for t in only {
            if !all.contains(t.as_str()) {
                return Err(unknown_tool("only", t));
            }
        }
    }
    for t in &options.skip {
        if !all.contains(t.as_str()) {
            return Err(unknown_tool("skip", t));
        }
    }
    let mut per_tool: BTreeMap<&str, ToolOptions> = BTreeMap::new();
    for (key, value) in &options.rename {
        let Some((tool, arg)) = split_target(key, &all) else {
            return Err(unknown_tool("rename", key.split('.').next().unwrap_or(key)));
        };
        let o = per_tool.entry(tool).or_default();
        match arg {
            None => {
                if !naming::is_plain_ident(value) {
                    return Err(Error::InvalidOption {
                        alias: alias.to_string(),
                        entry: Some(("rename", key.clone())),
                        message: format!(
                            "rename = {{ \"{key}\" = \"{value}\" }}: the new function name must be a snake_case Rust identifier (not a keyword)"
                        ),
                    });
                }
                o.fn_rename = Some(value.clone());
            }
            Some(arg) => {
                o.arg_renames.insert(arg.to_string(), value.clone());
            }
        }
    }
    let type_targets = expand_type_globs(fixture, alias, &options.types)?;
    for (key, value) in &type_targets {
        let Some((tool, Some(arg))) = split_target(key, &all) else {
            if all.contains(key.as_str()) {
                return Err(Error::InvalidOption {
                    alias: alias.to_string(),
                    entry: Some(("types", key.clone())),
                    message: format!(
                        "types = {{ \"{key}\" = … }}: name an argument as \"tool.argument\""
                    ),
                });
            }
            return Err(unknown_tool("types", key.split('.').next().unwrap_or(key)));
        };
        if syn::parse_str::<syn::Type>(value).is_err() {
            return Err(Error::InvalidOption {
                alias: alias.to_string(),
                entry: Some(("types", key.clone())),
                message: format!("types = {{ \"{key}\" = \"{value}\" }}: not a Rust type"),
            });
        }
        per_tool
            .entry(tool)
            .or_default()
            .arg_types
            .insert(arg.to_string(), value.clone());
    }

    // Selected tools, fixture order.
    let selected: Vec<&Tool> = fixture
        .tools
        .iter()
        .filter(|t| {
            options
                .only
                .as_ref()
                .is_none_or(|only| only.iter().any(|o| o == &t.name))
        })
        .filter(|t| !options.skip.iter().any(|s| s == &t.name))
        .collect();

    let mut errors: Vec<(String, Error)> = Vec::new();
    let mut warnings = Vec::new();

    // Function names, collisions.
    let mut fn_names: Vec<String> = Vec::new();
    for tool in &selected {
        let renamed = per_tool
            .get(tool.name.as_str())
            .and_then(|o| o.fn_rename.clone());
        let mut name = renamed
            .clone()
            .unwrap_or_else(|| naming::fn_name(&tool.name));
        if let Some(target) = &renamed
            && RESERVED_METHODS.contains(&target.as_str())
        {
            return Err(Error::InvalidOption {
                alias: alias.to_string(),
                entry: Some(("rename", tool.name.clone())),
                message: format!(
                    "rename = {{ \"{}\" = \"{target}\" }}: `{target}` is a method of every generated `Client`; choose another name, e.g. \"{target}_{}\"",
                    tool.name,
                    naming::fn_name(&tool.name)
                ),
            });
        }
        if renamed.is_none() && RESERVED_METHODS.contains(&name.as_str()) {
            let new = format!("{name}_tool");
            warnings.push(Warning {
                tool: tool.name.clone(),
                kind: WarningKind::Note,
                message: format!("function named `{new}` because `Client::{name}` is taken"),
            });
            name = new;
        }
        fn_names.push(name);
    }
    let mut taken: BTreeMap<String, usize> = BTreeMap::new();
    for (i, name) in fn_names.iter().enumerate() {
        let base = naming::unraw(name).to_string();
        for variant in [base.clone(), format!("{base}_with")] {
            if let Some(&j) = taken.get(&variant) {
                let mut suggestion = format!("{base}_2");
                let mut n = 3;
                while taken.contains_key(&suggestion)
                    || fn_names.iter().any(|f| naming::unraw(f) == suggestion)
                {
                    suggestion = format!("{base}_{n}");
                    n += 1;
                }
                let renamed = |k: usize| {
                    per_tool
                        .get(selected[k].name.as_str())
                        .is_some_and(|o| o.fn_rename.is_some())
                };
                // A rename that collides is the rename's fault: say so on that entry.
                let error = match [i, j].into_iter().find(|&k| renamed(k)) {
                    Some(k) => {
                        let other = if k == i { j } else { i };
                        let own = naming::unraw(&fn_names[k]).to_string();
                        let mut suggestion = format!("{own}_2");
                        let mut n = 3;
                        while fn_names.iter().any(|f| {
                            let f = naming::unraw(f);
                            f == suggestion || format!("{f}_with") == suggestion
                        }) {
                            suggestion = format!("{own}_{n}");
                            n += 1;
                        }
                        Error::InvalidOption {
                            alias: alias.to_string(),
                            entry: Some(("rename", selected[k].name.clone())),
                            message: format!(
                                "rename = {{ \"{}\" = \"{}\" }}: `{variant}` is taken by tool \"{}\" (its functions `{other_fn}` and `{other_fn}_with`); choose another name, e.g. \"{suggestion}\"",
                                selected[k].name,
                                naming::unraw(&fn_names[k]),
                                selected[other].name,
                                other_fn = naming::unraw(&fn_names[other]),
                            ),
                        }
                    }
                    None => Error::ToolNameCollision {
                        alias: alias.to_string(),
                        first: selected[j].name.clone(),
                        second: selected[i].name.clone(),
                        function: variant.clone(),
                        suggestion,
                    },
                };
                errors.push((selected[i].name.clone(), error));
            }
        }
        taken.insert(base.clone(), i);
        taken.insert(format!("{base}_with"), i);
    }

    let mut tool_items = Vec::new();
    let mut methods = Vec::new();
    let mut reports = Vec::new();
    let mut typed_tools = Vec::new();
    let mut stats = Stats::default();
    for (tool, fn_name) in selected.iter().zip(&fn_names) {
        let no_options = ToolOptions::default();
        let topts = per_tool.get(tool.name.as_str()).unwrap_or(&no_options);
        match emit_tool(tool, alias, fn_name, topts) {
            Ok(out) => {
                stats.tools += 1;
                if out.report.fully_typed() {
                    stats.typed += 1;
                } else {
                    stats.fallback += 1;
                }
                if out.report.args == Typing::NoArgs {
                    stats.no_args += 1;
                }
                if out.report.output == Some(Typing::Typed) {
                    stats.typed_outputs += 1;
                }
                warnings.extend(out.warnings);
                typed_tools.push(typed_tool_entry(
                    tool,
                    fn_name,
                    &out.report.args,
                    out.report.output.as_ref(),
                ));
                tool_items.push(out.module);
                methods.push(out.methods);
                reports.push(out.report);
            }
            Err(e) => errors.push((tool.name.clone(), e)),
        }
    }

    let prompts = crate::prompts::emit(&fixture.prompts);
    warnings.extend(prompts.warnings);
    let prompts_module = prompts.module;

    let alias_mod = ident(&naming::alias_module(alias));
    let hash = fixture.tools_hash();
    let names: Vec<&str> = selected.iter().map(|t| t.name.as_str()).collect();
    let server_name = fixture
        .document
        .pointer("/server/name")
        .and_then(Value::as_str)
        .unwrap_or(alias);
    let module_doc = doc_lines(&format!(
        "Typed bindings for the MCP server `{alias}` ({server_name}), generated by mcp-bindgen from its \
         fixture.\n\nCall tools through [`Client`]: one async method per tool; each tool's argument \
         and result types live in the module named after its method. Arguments are plain structs \
         with public fields built with a struct literal (names visible at the call site; a missing, \
         misspelled or mistyped argument is a compile error); `Default` exists only when every \
         argument is optional. Optional arguments are `Option<T>`; an optional argument that accepts \
         `null` is `Option<Option<T>>` (`None` leaves it out, `Some(None)` sends `null`)."
    ));
    let client_doc = doc_lines(&format!(
        "Typed client for the `{alias}` server ({} tools), bound to a runtime session.",
        names.len()
    ));
    let tokens = quote! {
        #(#module_doc)*
        #[allow(
            clippy::all,
            clippy::pedantic,
            dead_code,
            missing_docs,
            non_camel_case_types,
            non_snake_case,
            unused_imports,
            unused_qualifications,
            unreachable_pub,
            rustdoc::all
        )]
        pub mod #alias_mod {
            /// SHA-256 of the canonical tool list of the fixture (all tools, before `only`/`skip`);
            /// the runtime compares it with the live server to detect drift.
            pub const FIXTURE_HASH: &str = #hash;
            /// The server alias.
            pub const ALIAS: &str = #alias;
            /// Original names of the generated tools, in fixture order.
            pub const TOOL_NAMES: &[&str] = &[#(#names),*];
            /// Every generated tool as a toolbox definition: compile-time OpenAI export and
            /// argument validation through the generated types
            /// (`Toolbox::add_typed(ALIAS, TYPED_TOOLS)`).
            pub const TYPED_TOOLS: &[::mcp_runtime::toolbox::TypedTool] = &[#(#typed_tools),*];

            #(#client_doc)*
            #[derive(Clone, Debug)]
            pub struct Client {
                session: ::mcp_runtime::Session,
            }

            impl Client {
                /// Wraps a connected session.
                pub fn new(session: ::mcp_runtime::Session) -> Self {
                    Self { session }
                }

                /// Connects to the server and checks its live tools against the fixture this
                /// code was generated from ([`FIXTURE_HASH`]; a drift is reported tool by tool
                /// for the tools of this module); the registry's `drift` policy decides between
                /// a warning (default), an error and nothing.
                pub async fn connect(config: &::mcp_runtime::ServerConfig) -> ::mcp_runtime::Result<Self> {
                    let options = ::mcp_runtime::ConnectOptions::new()
                        .with_fixture_hash(FIXTURE_HASH)
                        .with_fixture_tools(TYPED_TOOLS);
                    ::mcp_runtime::Session::connect_with(config, options).await.map(Self::new)
                }

                /// The underlying session (untyped calls, server info, close).
                pub fn session(&self) -> &::mcp_runtime::Session {
                    &self.session
                }

                /// The server's prompts, with typed arguments (one method per prompt of the
                /// fixture).
                pub fn prompts(&self) -> prompts::Prompts<'_> {
                    prompts::Prompts { session: &self.session }
                }

                #(#methods)*
            }

            #(#tool_items)*

            #prompts_module
        }
    };
    Ok(Plan {
        generated: Generated {
            tokens,
            warnings,
            stats,
            tools: reports,
        },
        errors,
    })
}

/// One `::mcp_runtime::toolbox::TypedTool` literal of `TYPED_TOOLS`.
/// `Client` methods (and, for `prompts`, the module) that tools cannot take.
const RESERVED_METHODS: [&str; 4] = ["new", "connect", "session", "prompts"];

fn typed_tool_entry(
    tool: &Tool,
    fn_name: &str,
    args: &Typing,
    output: Option<&Typing>,
) -> TokenStream {
    let m = ident(fn_name);
    let description = opt_str(tool.description.as_deref());
    let normalize = match args {
        Typing::NoArgs => quote!(::core::option::Option::Some(
            ::mcp_runtime::toolbox::normalize_no_args
        )),
        Typing::Typed => quote!(::core::option::Option::Some(
            ::mcp_runtime::toolbox::normalize_as::<#m::Args>
        )),
        Typing::Untyped(_) => quote!(::core::option::Option::None),
    };
    let normalize_output = match output {
        Some(Typing::Typed) => quote!(::core::option::Option::Some(
            ::mcp_runtime::toolbox::normalize_as::<#m::Output>
        )),
        _ => quote!(::core::option::Option::None),
    };
    quote! {
        ::mcp_runtime::toolbox::TypedTool {
            name: #m::NAME,
            description: #description,
            input_schema: #m::INPUT_SCHEMA,
            output_schema: #m::OUTPUT_SCHEMA,
            openai_function: #m::OPENAI_FUNCTION,
            openai_function_strict: #m::OPENAI_FUNCTION_STRICT,
            openai_strict_unavailable: #m::OPENAI_STRICT_UNAVAILABLE,
            normalize: #normalize,
            normalize_output: #normalize_output,
        }
    }
}

struct ToolOut {
    module: TokenStream,
    methods: TokenStream,
    report: ToolReport,
    warnings: Vec<Warning>,
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".to_string())
}

fn emit_tool(tool: &Tool, alias: &str, fn_name: &str, topts: &ToolOptions) -> Result<ToolOut> {
    let mut warnings = Vec::new();
    let mut note = |kind, message: String| {
        warnings.push(Warning {
            tool: tool.name.clone(),
            kind,
            message,
        });
    };

    // Unknown arguments in rename/types.
    let props: Vec<String> = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    for (option, keys) in [
        ("rename", topts.arg_renames.keys()),
        ("types", topts.arg_types.keys()),
    ] {
        for arg in keys {
            if !props.contains(arg) {
                return Err(Error::UnknownArgument {
                    alias: alias.to_string(),
                    tool: tool.name.clone(),
                    option,
                    argument: arg.clone(),
                    hint: did_you_mean(arg, props.iter().map(String::as_str)),
                });
            }
        }
    }

    // Arguments.
    let request = Request {
        renames: topts.arg_renames.clone(),
        types: topts.arg_types.clone(),
        description: Some(match tool.description.as_deref() {
            Some(d) if !d.trim().is_empty() => safe_doc(d),
            _ => format!("Arguments of the tool `{}`.", tool.name),
        }),
    };
    let (args_typing, args_tokens) = match normalize::normalize(
        &tool.input_schema,
        Role::Input,
        &request,
    ) {
        Ok(n) if n.no_args => {
            for w in &n.warnings {
                note(WarningKind::Note, w.clone());
            }
            (
                Typing::NoArgs,
                quote! {
                    /// This tool takes no arguments; the call sends `{}`.
                    pub type Args = ::mcp_runtime::NoArgs;
                },
            )
        }
        Ok(n) if n.free_form => {
            note(
                    WarningKind::Note,
                    "the inputSchema names no arguments but does not rule any out: arguments are a free-form JSON object".into(),
                );
            (
                Typing::Typed,
                quote! {
                    /// The tool's schema names no arguments but allows any: a free-form
                    /// JSON object (`serde_json::Map`).
                    pub type Args = ::mcp_runtime::__private::serde_json::Map<
                        ::std::string::String,
                        ::mcp_runtime::__private::serde_json::Value,
                    >;
                },
            )
        }
        Ok(n) => {
            for w in &n.warnings {
                note(WarningKind::Note, w.clone());
            }
            match typed_module(&n, false) {
                Ok(tokens) => (Typing::Typed, tokens),
                Err(reason) => (Typing::Untyped(reason), TokenStream::new()),
            }
        }
        Err(Problem::Fallback(reason)) => (Typing::Untyped(reason), TokenStream::new()),
        Err(Problem::Collision {
            first,
            second,
            field,
            ..
        }) => {
            let mut suggestion = format!("{field}_2");
            let mut n = 3;
            while props
                .iter()
                .any(|p| naming::typify_sanitize(p, false) == suggestion)
            {
                suggestion = format!("{field}_{n}");
                n += 1;
            }
            return Err(Error::ArgumentCollision(Box::new(
                crate::error::ArgumentCollision {
                    alias: alias.to_string(),
                    tool: tool.name.clone(),
                    first,
                    second,
                    field,
                    suggestion,
                },
            )));
        }
        Err(Problem::BadOption {
            option,
            property,
            message,
        }) => {
            return Err(Error::InvalidOption {
                alias: alias.to_string(),
                entry: Some((option, format!("{}.{property}", tool.name))),
                message: format!("tool \"{}\": {message}", tool.name),
            });
        }
    };
    let args_tokens = match &args_typing {
        Typing::Untyped(reason) => {
            note(WarningKind::ArgsFallback, reason.clone());
            let doc = doc_lines(&format!(
                "Arguments as untyped JSON: mcp-bindgen could not type this tool's schema ({reason})."
            ));
            quote! {
                #(#doc)*
                pub type Args = ::mcp_runtime::__private::serde_json::Value;
            }
        }
        _ => args_tokens,
    };

    // Output.
    let (output_typing, output_tokens) = match &tool.output_schema {
        None => (None, TokenStream::new()),
        Some(schema) => {
            let request = Request {
                description: Some(format!("Structured result of the tool `{}`.", tool.name)),
                ..Request::default()
            };
            let result = normalize::normalize(schema, Role::Output, &request)
                .map_err(|p| match p {
                    Problem::Fallback(r) | Problem::BadOption { message: r, .. } => r,
                    Problem::Collision { first, second, field, pointer } => format!(
                        "properties \"{first}\" and \"{second}\" at {} both map to the Rust field `{field}`",
                        if pointer.is_empty() { "/" } else { &pointer }
                    ),
                })
                .and_then(|n| {
                    for w in &n.warnings {
                        note(WarningKind::Note, format!("outputSchema: {w}"));
                    }
                    typed_module(&n, true)
                });
            match result {
                Ok(tokens) => (
                    Some(Typing::Typed),
                    quote! {
                        /// Types of the tool's structured result (`outputSchema`).
                        pub mod output {
                            #tokens
                        }
                        pub use self::output::Output;
                    },
                ),
                Err(reason) => {
                    note(WarningKind::OutputFallback, reason.clone());
                    (Some(Typing::Untyped(reason)), TokenStream::new())
                }
            }
        }
    };

    // Constants.
    let name = &tool.name;
    let input_schema = compact(&tool.input_schema);
    let output_schema = opt_str(tool.output_schema.as_ref().map(compact).as_deref());
    let description = tool.description.as_deref();
    let openai_fn = compact(&openai::function_definition(
        alias,
        name,
        description,
        &tool.input_schema,
    ));
    let (strict, strict_reason) =
        match openai::strict_function_definition(alias, name, description, &tool.input_schema) {
            Ok(v) => (opt_str(Some(&compact(&v))), opt_str(None)),
            Err(reason) => (opt_str(None), opt_str(Some(&reason))),
        };
    let untyped = opt_str(match &args_typing {
        Typing::Untyped(r) => Some(r),
        _ => None,
    });
    let openai_name = naming::openai_name(alias, name);

    let mod_ident = ident(fn_name);
    let module_doc = doc_lines(&format!("Types and constants of the tool `{name}`."));
    let module = quote! {
        #(#module_doc)*
        pub mod #mod_ident {
            /// The tool's name on the server.
            pub const NAME: &str = #name;
            /// The tool's `inputSchema`, as the server sent it.
            pub const INPUT_SCHEMA: &str = #input_schema;
            /// The tool's `outputSchema`, as the server sent it.
            pub const OUTPUT_SCHEMA: ::core::option::Option<&str> = #output_schema;
            /// The tool's OpenAI function name (`mcp_<alias>_<tool>`, sanitized, ≤ 64 chars).
            pub const OPENAI_NAME: &str = #openai_name;
            /// OpenAI function-call definition (non-strict).
            pub const OPENAI_FUNCTION: &str = #openai_fn;
            /// OpenAI function-call definition with `strict: true`, when the schema allows it.
            pub const OPENAI_FUNCTION_STRICT: ::core::option::Option<&str> = #strict;
            /// Why there is no strict definition.
            pub const OPENAI_STRICT_UNAVAILABLE: ::core::option::Option<&str> = #strict_reason;
            /// Why the arguments are untyped JSON, if they are.
            pub const UNTYPED_ARGS_REASON: ::core::option::Option<&str> = #untyped;

            #args_tokens
            #output_tokens
        }
    };

    // Methods.
    let method = ident(fn_name);
    let with = format_ident!("{}_with", naming::unraw(fn_name));
    let ret = if output_typing == Some(Typing::Typed) {
        quote!(#mod_ident::Output)
    } else {
        quote!(::mcp_runtime::ToolOutput)
    };
    let call = if output_typing == Some(Typing::Typed) {
        quote!(call_structured::<_, #mod_ident::Output>)
    } else {
        quote!(call_checked)
    };
    let mut doc_text = tool.description.clone().unwrap_or_default();
    if doc_text.trim().is_empty() {
        doc_text = format!("Calls the tool `{name}`.");
    }
    if let Typing::Untyped(reason) = &args_typing {
        doc_text.push_str(&format!("\n\nArguments are untyped JSON: {reason}."));
    }
    let doc = doc_lines(&doc_text);
    let with_doc = doc_lines(&format!(
        "Like [`Self::{}`], with per-call options (deadlines, progress).",
        naming::unraw(fn_name)
    ));
    let methods = if args_typing == Typing::NoArgs {
        quote! {
            #(#doc)*
            pub async fn #method(&self) -> ::mcp_runtime::Result<#ret> {
                self.#with(::mcp_runtime::CallOptions::default()).await
            }
            #(#with_doc)*
            pub async fn #with(&self, options: ::mcp_runtime::CallOptions) -> ::mcp_runtime::Result<#ret> {
                self.session.#call(#mod_ident::NAME, &::mcp_runtime::NoArgs {}, options).await
            }
        }
    } else {
        quote! {
            #(#doc)*
            pub async fn #method(&self, args: #mod_ident::Args) -> ::mcp_runtime::Result<#ret> {
                self.#with(args, ::mcp_runtime::CallOptions::default()).await
            }
            #(#with_doc)*
            pub async fn #with(&self, args: #mod_ident::Args, options: ::mcp_runtime::CallOptions) -> ::mcp_runtime::Result<#ret> {
                self.session.#call(#mod_ident::NAME, &args, options).await
            }
        }
    };

    Ok(ToolOut {
        module,
        methods,
        report: ToolReport {
            name: name.clone(),
            function: fn_name.to_string(),
            args: args_typing,
            output: output_typing,
        },
        warnings,
    })
}

/// typify → rewrites → parse check. `Err` is the fallback reason.
fn typed_module(
    n: &normalize::Normalized,
    lenient: bool,
) -> std::result::Result<TokenStream, String> {
    let root_name = if lenient { "Output" } else { "Args" };
    let raw = typify_driver::typify(&TypifyInput {
        root_name,
        root: &n.root,
        defs: &n.defs,
        replacements: &n.replacements,
    })?;
    let rewritten = tokens::rewrite(
        raw,
        &Rewrite {
            literals: &n.literals,
            lenient,
        },
    );
    if let Some(krate) = foreign_crate(rewritten.clone()) {
        return Err(format!("generated code needs the `{krate}` crate"));
    }
    let mut file: syn::File = syn::parse2(rewritten)
        .map_err(|e| format!("typify produced code that does not parse: {e}"))?;
    if !lenient {
        tokens::double_option(&mut file, "Args", &n.nullable_optional);
    }
    tokens::optional_units(&mut file);
    check_types(&file, root_name)?;
    if !lenient {
        let required: Vec<String> = n
            .root
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|r| n.literals.get(r).cloned().unwrap_or_else(|| r.to_string()))
            .collect();
        tokens::constructor(&mut file, "Args", &required);
    }
    Ok(quote::ToTokens::into_token_stream(file))
}

/// The first `::chrono`, `::uuid` or `::regress` path in `tokens` (crates a user of
/// `mcp-runtime` does not have), found by a token scan.
fn foreign_crate(tokens: TokenStream) -> Option<&'static str> {
    let mut colons = 0;
    for t in tokens {
        match t {
            proc_macro2::TokenTree::Punct(p) if p.as_char() == ':' => colons += 1,
            proc_macro2::TokenTree::Ident(id) if colons == 2 => {
                for krate in ["chrono", "uuid", "regress"] {
                    if id == krate {
                        return Some(krate);
                    }
                }
                colons = 0;
            }
            proc_macro2::TokenTree::Group(g) => {
                if let Some(k) = foreign_crate(g.stream()) {
                    return Some(k);
                }
                colons = 0;
            }
            _ => colons = 0,
        }
    }
    None
}

/// Last line of defence before emitting: the root type exists and no struct has two fields
/// of one name (paths to crates the user does not have are caught by [`foreign_crate`]
/// before parsing).
fn check_types(file: &syn::File, root_name: &str) -> std::result::Result<(), String> {
    let has_root = file.items.iter().any(|item| match item {
        syn::Item::Struct(s) => s.ident == root_name,
        syn::Item::Enum(e) => e.ident == root_name,
        syn::Item::Type(t) => t.ident == root_name,
        _ => false,
    });
    if !has_root {
        return Err(format!(
            "typify did not produce the root type `{root_name}`"
        ));
    }
    // Duplicate field names (a collision the normalizer did not predict) would not compile.
    for item in &file.items {
        if let syn::Item::Struct(s) = item
            && let syn::Fields::Named(fields) = &s.fields
        {
            let mut seen = BTreeSet::new();
            for f in &fields.named {
                if let Some(id) = &f.ident
                    && !seen.insert(id.to_string())
                {
                    return Err(format!("two fields named `{id}` in `{}`", s.ident));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn fixture(tools: Value) -> Fixture {
        let doc = serde_json::json!({ "tools": tools });
        Fixture::from_slice(doc.to_string().as_bytes(), Path::new("mem.json")).unwrap()
    }

    #[test]
    fn doc_text_is_made_safe() {
        assert_eq!(
            safe_doc("a\n```\nlet x;\n```\n        deep"),
            "a\n```text\nlet x;\n```\n   deep"
        );
        assert_eq!(safe_doc("```json\n{}"), "```json\n{}\n```");
    }

    #[test]
    fn generates_parsable_code_with_typed_and_fallback_tools() {
        let f = fixture(serde_json::json!([
            {"name": "get_me", "description": "Me", "inputSchema": {"type": "object", "properties": {}}},
            {"name": "create-issue", "inputSchema": {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}},
             "outputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}}},
            {"name": "bad", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "http://x"}}}}
        ]));
        let g = generate(&f, "demo", &Options::default()).unwrap();
        assert_eq!(g.stats.tools, 3);
        assert_eq!(g.stats.typed, 2);
        assert_eq!(g.stats.fallback, 1);
        assert_eq!(g.stats.no_args, 1);
        assert_eq!(g.stats.typed_outputs, 1);
        assert!(
            g.warnings
                .iter()
                .any(|w| w.tool == "bad" && w.kind == WarningKind::ArgsFallback)
        );
        let text = format_tokens("demo", g.tokens).unwrap();
        assert!(text.contains("pub mod demo"));
        assert!(text.contains("pub async fn get_me(&self)"));
        assert!(text.contains("pub async fn create_issue(\n"), "{text}");
        assert!(text.contains("args: create_issue::Args,"));
        assert!(text.contains("-> ::mcp_runtime::Result<create_issue::Output>"));
        assert!(
            !text.contains(" ::serde::") && !text.contains("(::serde::"),
            "{text}"
        );
    }

    #[test]
    fn option_errors_name_the_tool_and_close_matches() {
        let f = fixture(serde_json::json!([
            {"name": "create_issue", "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}}},
            {"name": "get_me", "inputSchema": {}}
        ]));
        let e = generate(&f, "gh", &Options::default().with_only(["create_isue"]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unknown tool \"create_isue\"")
                && e.contains("did you mean \"create_issue\""),
            "{e}"
        );
        let e = generate(&f, "gh", &Options::default().with_skip(["nope"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`skip`"), "{e}");
        let e = generate(
            &f,
            "gh",
            &Options::default().with_rename("create_issue.titel", "t"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("unknown argument \"titel\"") && e.contains("\"title\""),
            "{e}"
        );
        let e = generate(
            &f,
            "gh",
            &Options::default().with_type("create_issue.title", "not a type!"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("not a Rust type"), "{e}");
        let g = generate(&f, "gh", &Options::default().with_only(["get_me"])).unwrap();
        assert_eq!(g.stats.tools, 1);
    }

    #[test]
    fn tool_name_collisions_are_errors_with_a_hint() {
        let f = fixture(serde_json::json!([
            {"name": "list-repos", "inputSchema": {}},
            {"name": "list.repos", "inputSchema": {}}
        ]));
        let e = generate(&f, "gh", &Options::default())
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "tools \"list-repos\" and \"list.repos\" of server \"gh\" both map to the Rust function `list_repos`; add rename = { \"list.repos\" = \"list_repos_2\" }"
        );
        let ok = generate(
            &f,
            "gh",
            &Options::default().with_rename("list.repos", "list_repos_dot"),
        )
        .unwrap();
        assert_eq!(ok.stats.tools, 2);
        let f = fixture(
            serde_json::json!([{"name": "a", "inputSchema": {}}, {"name": "a_with", "inputSchema": {}}]),
        );
        assert!(generate(&f, "gh", &Options::default()).is_err());
    }

    #[test]
    fn argument_collisions_are_errors_with_a_hint() {
        let f = fixture(serde_json::json!([
            {"name": "t", "inputSchema": {"type": "object", "properties": {"fooBar": {"type": "string"}, "foo_bar": {"type": "string"}}}}
        ]));
        let e = generate(&f, "gh", &Options::default())
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "tool \"t\" of server \"gh\": arguments \"fooBar\" and \"foo_bar\" both map to the Rust field `foo_bar`; add rename = { \"t.foo_bar\" = \"foo_bar_2\" }"
        );
        assert!(
            generate(
                &f,
                "gh",
                &Options::default().with_rename("t.foo_bar", "foo_bar_2")
            )
            .is_ok()
        );
    }

    #[test]
    fn foreign_crate_paths_are_found_at_any_depth() {
        let found = |t: TokenStream| foreign_crate(t);
        assert_eq!(
            found(quote!(
                pub struct A {
                    x: Vec<::chrono::DateTime<::chrono::Utc>>,
                }
            )),
            Some("chrono")
        );
        assert_eq!(
            found(quote!(
                type B = ::uuid::Uuid;
            )),
            Some("uuid")
        );
        assert_eq!(
            found(quote!(
                struct C {
                    r: ::mcp_runtime::__private::serde_json::Value,
                    chrono: u8,
                }
            )),
            None
        );
    }

    #[test]
    fn output_is_deterministic() {
        let f = fixture(serde_json::json!([
            {"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": "string", "enum": ["b", "a"]}, "y": {"$ref": "#/$defs/Y"}}, "$defs": {"Y": {"type": "object", "properties": {"z": {"type": "integer"}}}}}}
        ]));
        let a = expand_to_string(&f, "d", &Options::default()).unwrap();
        let b = expand_to_string(&f, "d", &Options::default()).unwrap();
        assert_eq!(a, b);
    }
}
