//! The emitter: one server module from a fixture.
//!
//! ```text
//! pub mod <alias> {
//!     pub const FIXTURE_HASH, ALIAS, FIXTURE_PROTOCOL, TYPED_TOOLS;  // TYPED_TOOLS = &[<tool>::TOOL, …]
//!     pub struct Client { session, options }   // one async fn per tool; with_options()
//!     pub trait Tools                          // one method per tool, as `Client`'s
//!     pub struct Fake; pub struct Recorder     // `Tools` offline: stubs, cassettes
//!     pub mod <tool> {                         // one module per tool
//!         pub const TOOL: TypedTool = TypedTool::new(name, openai_name, schema).typed_args::<Args>();
//!         pub struct Args { … }                // typify's types for this tool only
//!         pub struct Output { … }              // with an outputSchema: the structured result
//!         pub mod output { … }                 // the types nested in `Output`, if any
//!     }
//!     pub mod prompts {                        // Client::prompts(): one async fn per prompt
//!         pub mod <prompt> { pub const NAME; pub struct Args { … } }  // string arguments
//!     }                                        // (both only when a prompt is generated)
//!     pub mod resources {                      // Client::resources(): one async fn per
//!         pub mod <template> {                 // resource template, when one is generated
//!             pub const NAME, URI_TEMPLATE; pub struct Args { … }  // its RFC 6570 variables
//!         }
//!     }
//! }
//! ```
//!
//! Every type has one path: the argument and result types sit in their tool's module beside
//! `TOOL`; only the types nested in `Output` have a module of their own, as their names come
//! from the schema and may be those of argument types. No module comes out empty.
//!
//! **Argument style.** Arguments are plain structs with public fields (required fields
//! plain, optional ones `Option<T>`), built with a struct literal: argument names are
//! visible at the call site and a missing, misspelled or mistyped argument is a compile
//! error. `Default` is derived only when every field is optional, so
//! `Args { owner: …, ..Default::default() }` compiles exactly when nothing required is
//! left out. (typify's builders would move those errors to run time.)

// One concern per file: `options` (the macro's options, checked and sorted per tool),
// `report` (what generation reports), `names` (the tools' function names and their
// collisions), `tool` (one tool's module and `Client` methods), `typed` (typify, rewrites and
// checks for one schema), `output` (a tool's result types placed in its module) and `client`
// (the server module with its `Client`); `plan` puts them together.
mod client;
mod direct;
mod items;
mod names;
mod options;
mod output;
mod parallel;
mod report;
mod tool;
mod typed;

use std::collections::BTreeMap;

use mcp_bindgen_core::provider::Tokens;
use proc_macro2::TokenStream;

use crate::fixture::{Fixture, Tool};
use crate::{Error, Result};

use client::typed_tool_entry;
pub use options::Options;
use options::ToolOptions;
pub use report::{Generated, Stats, ToolReport, Typing};
use tool::emit_tool;

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
    format_tokens(alias, generated.tokens()?)
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

/// One tool's share of the server module as code (text crosses threads; tokens do not).
struct ToolCode {
    module: String,
    methods: String,
    trait_method: String,
    fake_method: String,
    report: ToolReport,
    warnings: Vec<crate::Warning>,
    tokens: Option<Tokens>,
}

/// One tool, on a worker thread: its `x-mcp-header`s checked, then emitted as text.
fn tool_code(
    tool: &Tool,
    alias: &str,
    fn_name: &str,
    per_tool: &BTreeMap<String, ToolOptions>,
    options: &Options,
) -> Result<ToolCode> {
    if let Err(rule) = crate::headers::param_headers(&tool.input_schema) {
        return Err(Error::InvalidHeaders {
            alias: alias.to_string(),
            tool: tool.name.clone(),
            rule,
        });
    }
    let no_options = ToolOptions::default();
    let topts = per_tool.get(tool.name.as_str()).unwrap_or(&no_options);
    let tokens = if options.tokens() {
        Some(
            crate::budget::tool_tokens(alias, tool).map_err(|e| Error::InvalidOption {
                alias: alias.to_string(),
                entry: None,
                message: format!("cannot count the tokens of tool \"{}\": {e}", tool.name),
            })?,
        )
    } else {
        None
    };
    let out = emit_tool(tool, alias, fn_name, topts, options.direct(), tokens)?;
    Ok(ToolCode {
        tokens,
        module: out.module,
        methods: out.methods,
        trait_method: out.trait_method,
        fake_method: out.fake_method,
        report: out.report,
        warnings: out.warnings,
    })
}

/// The outcome of planning: what was generated, plus per-tool errors (tool name, error).
pub(crate) struct Plan {
    pub generated: Generated,
    pub errors: Vec<(String, Error)>,
}

/// Checks `options`, names the selected tools' functions and emits each tool (a tool that
/// fails is an error of its own, the others are still generated), then the server module.
pub(crate) fn plan(fixture: &Fixture, alias: &str, options: &Options) -> Result<Plan> {
    let per_tool = options::per_tool_options(fixture, alias, options)?;

    // Selected tools, fixture order.
    let selected: Vec<&Tool> = fixture
        .tools
        .iter()
        .filter(|t| options.selects(&t.name))
        .collect();

    let mut warnings = Vec::new();

    // Function names, collisions.
    let fn_names = names::function_names(alias, &selected, &per_tool, &mut warnings)?;
    let mut errors: Vec<(String, Error)> =
        names::collisions(alias, &selected, &per_tool, &fn_names);

    // Each tool on its own, on every core; the fixture's hash meanwhile on this thread.
    let _quiet = crate::typify_driver::QuietPanics::new();
    let jobs: Vec<(&Tool, &String)> = selected.iter().copied().zip(&fn_names).collect();
    let (outcomes, hash) = parallel::map(
        &jobs,
        |(tool, fn_name)| tool_code(tool, alias, fn_name, &per_tool, options),
        || {
            if options.tokens() {
                crate::budget::preload();
            }
            fixture.tools_hash()
        },
    );

    let mut tool_items = Vec::new();
    let mut methods = Vec::new();
    let mut trait_methods = Vec::new();
    let mut fake_methods = Vec::new();
    let mut reports = Vec::new();
    let mut typed_tools = Vec::new();
    let mut token_counts = Vec::new();
    let mut stats = Stats::default();
    for ((tool, fn_name), outcome) in jobs.iter().zip(outcomes) {
        match outcome {
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
                token_counts.extend(out.tokens.map(|t| (tool.name.clone(), t)));
                typed_tools.push(typed_tool_entry(fn_name));
                tool_items.push(out.module);
                methods.push(out.methods);
                trait_methods.push(out.trait_method);
                fake_methods.push(out.fake_method);
                reports.push(out.report);
            }
            Err(e) => errors.push((tool.name.clone(), e)),
        }
    }

    let total = options
        .tokens()
        .then(|| Tokens::sum(&token_counts.iter().map(|(_, t)| *t).collect::<Vec<_>>()));
    if let (Some(max), Some(total)) = (options.max_tokens(), total)
        && total.full > max
    {
        errors.push((
            String::new(),
            Error::OverBudget(Box::new(crate::budget::over_budget(
                alias,
                max,
                total,
                token_counts,
            ))),
        ));
    }

    // `Fake`'s tool stubs (`on_<tool>`): a prompt's or template's stub builder that would
    // take one of their names is left out.
    let fake_taken: std::collections::BTreeSet<String> = fn_names
        .iter()
        .map(|n| format!("on_{}", crate::naming::unraw(n)))
        .collect();
    let prompts = crate::prompts::emit(&fixture.prompts, &fake_taken);
    warnings.extend(prompts.warnings);
    let resources =
        crate::resources::emit(&fixture.resource_templates, &fixture.resources, &fake_taken);
    warnings.extend(resources.warnings);
    let mut fake_stubs = prompts.fake_methods;
    fake_stubs.extend(resources.fake_methods);
    let on_complete = !fake_taken.contains("on_complete")
        && (prompts.module.is_some() || resources.module.is_some());

    let code = client::server_module(
        fixture,
        alias,
        &selected,
        client::Items {
            typed_tools: &typed_tools,
            methods: &methods,
            trait_methods: &trait_methods,
            fake_methods: &fake_methods,
            tool_items: &tool_items,
            prompts_module: prompts.module.as_ref(),
            resources_module: resources.module.as_ref(),
            fake_stubs: &fake_stubs,
            on_complete,
            hash: &hash,
            tokens: total,
        },
    );
    Ok(Plan {
        generated: Generated {
            code,
            warnings,
            stats,
            tools: reports,
        },
        errors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::safe_doc;
    use crate::warning::WarningKind;
    use serde_json::Value;
    use std::path::Path;

    /// A fixture with these tools (shared by the emitter's tests).
    pub(super) fn fixture(tools: Value) -> Fixture {
        let doc = serde_json::json!({ "tools": tools });
        Fixture::from_slice(doc.to_string().as_bytes(), Path::new("mem.json")).unwrap()
    }

    #[test]
    fn a_tool_with_an_invalid_x_mcp_header_is_an_error_unless_skipped() {
        let f = fixture(serde_json::json!([
            {"name": "region", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"}}}},
            {"name": "score", "inputSchema": {"type": "object", "properties": {
                "score": {"type": "number", "x-mcp-header": "Score"}}}}
        ]));
        let e = generate(&f, "h", &Options::default()).expect_err("invalid header");
        let text = e.to_string();
        assert!(
            text.contains("tool \"score\"")
                && text.contains("property \"score\"")
                && text.contains("skip = [\"score\"]"),
            "{text}"
        );
        generate(&f, "h", &Options::default().with_skip(["score"])).expect("valid ones generate");
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
        let text = format_tokens("demo", g.tokens().unwrap()).unwrap();
        assert!(text.contains("pub mod demo"));
        assert!(text.contains("pub fn get_me(&self) -> CallFuture<'_, ToolOutput> {"));
        assert!(text.contains("pub fn create_issue(\n"), "{text}");
        assert!(text.contains("args: create_issue::Args,"));
        assert!(text.contains("-> CallFuture<'_, create_issue::Output>"));
        assert!(
            !text.contains(" ::serde::") && !text.contains("(::serde::"),
            "{text}"
        );
    }

    #[test]
    fn tool_code_quoting_the_module_slots_stays_where_it_belongs() {
        let f = fixture(serde_json::json!([
            {"name": "a", "description": "__mcp_bindgen_trait_methods__ __mcp_bindgen_tool_items__", "inputSchema": {"type": "object"}},
            {"name": "b", "inputSchema": {"type": "object"}}
        ]));
        let g = generate(&f, "slots", &Options::default()).unwrap();
        let text = format_tokens("slots", g.tokens().unwrap()).unwrap();
        for item in [
            "pub fn a(&self) -> CallFuture",
            "pub fn b(&self) -> CallFuture",
            "\n        fn a(&self) -> CallFuture",
            "pub fn on_b(",
            "pub mod b {",
        ] {
            assert_eq!(text.matches(item).count(), 1, "{item}: {text}");
        }
        assert!(
            text.contains("/// __mcp_bindgen_trait_methods__ __mcp_bindgen_tool_items__\n"),
            "{text}"
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
