//! One tool: its module (its `TOOL` definition, argument and result types) and its `Client` methods.
//!
//! [`emit_tool`] puts together what the functions below emit, one piece of code each: the
//! argument types ([`args_types`]), the result types ([`output_types`]), the `TOOL` constant
//! ([`typed_tool_const`]) in the tool's module ([`tool_module`]), the `Client` methods
//! ([`client_methods`]), the `Tools` methods ([`trait_methods`]) and `Fake`'s stub builder
//! ([`fake_method`]).

use std::fmt::Write as _;

use mcp_bindgen_core::provider::Tokens;
use serde_json::Value;

use super::options::ToolOptions;
use super::output::output_items;
use super::report::{ToolReport, Typing};
use super::typed::typed_module;
use crate::fixture::Tool;
use crate::naming::{self, did_you_mean};
use crate::normalize::{self, Normalized, Problem, Request, Role};
use crate::tokens::{doc_text, safe_doc, string_lit};
use crate::warning::{Warning, WarningKind};
use crate::{Error, Result};

/// One tool's share of the server module.
pub(super) struct ToolOut {
    /// `pub mod <tool> { … }` (code).
    pub(super) module: String,
    /// The tool's `Client` methods (code).
    pub(super) methods: String,
    /// The tool's method of the `Tools` trait (a provided method calling the backend; code).
    pub(super) trait_method: String,
    /// The tool's stub builder of `Fake` (`on_<tool>`; code).
    pub(super) fake_method: String,
    /// How the tool got typed.
    pub(super) report: ToolReport,
    /// Fallbacks and notes.
    pub(super) warnings: Vec<Warning>,
}

/// A tool's fallbacks and notes, as they come.
struct Notes<'a> {
    tool: &'a str,
    warnings: Vec<Warning>,
}

impl Notes<'_> {
    fn note(&mut self, kind: WarningKind, message: String) {
        self.warnings.push(Warning {
            tool: self.tool.to_string(),
            kind,
            message,
        });
    }

    /// The normalizer's notes and renames, each message after `prefix`.
    fn normalized(&mut self, n: &Normalized, prefix: &str) {
        for w in &n.warnings {
            self.note(WarningKind::Note, format!("{prefix}{w}"));
        }
        for r in &n.renamed {
            self.note(WarningKind::Renamed, format!("{prefix}{r}"));
        }
    }
}

/// Typed (or untyped) code of one side of a tool: its arguments or its result.
struct Part {
    typing: Typing,
    /// The items for the tool's module (empty for an untyped result).
    code: String,
}

impl Part {
    fn typed(&self) -> bool {
        self.typing == Typing::Typed
    }
}

/// What the tool's methods share: its names, parameters and result type.
struct Signature<'a> {
    /// The function name as written (`r#type`).
    fn_name: &'a str,
    /// The function name without `r#` (for names built from it).
    plain: &'a str,
    /// `(&self)` or `(&self, args: <tool>::Args)`.
    params: String,
    /// What a `Client` method passes on to its `Tools` method: `self` or `self, args`.
    forwarded: &'static str,
    /// The arguments a `Tools` method hands the backend: `NoArgs {}` or `args`.
    args: &'static str,
    /// `<tool>::Output` or `ToolOutput`.
    ret: String,
    /// The backend's call: `typed` or `untyped`.
    call: &'static str,
    no_args: bool,
}

/// Compact JSON with its keys sorted (the same text whether or not serde_json's
/// `preserve_order` is on in the build that runs the generator).
fn compact(v: &Value) -> String {
    serde_json::to_string(&mcp_bindgen_core::fixture::sort_keys(v))
        .unwrap_or_else(|_| "null".to_string())
}

/// Emits one tool: its module, its `Client`, `Tools` and `Fake` methods, and its report.
pub(super) fn emit_tool(
    tool: &Tool,
    alias: &str,
    fn_name: &str,
    topts: &ToolOptions,
    direct: bool,
    tokens: Option<Tokens>,
) -> Result<ToolOut> {
    let props = argument_names(tool, alias, topts)?;
    let mut notes = Notes {
        tool: &tool.name,
        warnings: Vec::new(),
    };
    let args = args_types(tool, alias, topts, &props, direct, &mut notes)?;
    let output = output_types(tool, direct, &mut notes);
    let typed_output = output.as_ref().is_some_and(Part::typed);
    let module = tool_module(tool, alias, fn_name, &args, output.as_ref(), tokens);

    let no_args = args.typing == Typing::NoArgs;
    let sig = Signature {
        fn_name,
        plain: naming::unraw(fn_name),
        params: if no_args {
            "(&self)".to_string()
        } else {
            format!("(&self, args: {fn_name}::Args)")
        },
        forwarded: if no_args { "self" } else { "self, args" },
        args: if no_args { "NoArgs {}" } else { "args" },
        ret: if typed_output {
            format!("{fn_name}::Output")
        } else {
            "ToolOutput".to_string()
        },
        call: if typed_output { "typed" } else { "untyped" },
        no_args,
    };
    Ok(ToolOut {
        module,
        methods: client_methods(tool, &args.typing, &sig),
        trait_method: trait_methods(tool, &sig),
        fake_method: fake_method(&sig),
        report: ToolReport {
            name: tool.name.clone(),
            function: fn_name.to_string(),
            args: args.typing,
            output: output.map(|o| o.typing),
        },
        warnings: notes.warnings,
    })
}

/// The names of the tool's arguments (`inputSchema` properties); an error if `rename` or
/// `types` names another.
fn argument_names(tool: &Tool, alias: &str, topts: &ToolOptions) -> Result<Vec<String>> {
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
    Ok(props)
}

/// The argument types: `Args` (and the types nested in it), `NoArgs`, a free-form JSON
/// object or, when the schema cannot be typed, untyped JSON. An error is the user's to fix
/// (two arguments on one field, a bad option).
fn args_types(
    tool: &Tool,
    alias: &str,
    topts: &ToolOptions,
    props: &[String],
    direct: bool,
    notes: &mut Notes<'_>,
) -> Result<Part> {
    let request = Request {
        renames: topts.arg_renames.clone(),
        types: topts.arg_types.clone(),
        description: Some(match tool.description.as_deref() {
            Some(d) if !d.trim().is_empty() => safe_doc(&crate::tokens::server_doc(d)),
            _ => format!("Arguments of the tool `{}`.", tool.name),
        }),
    };
    let part = match normalize::normalize(&tool.input_schema, Role::Input, &request) {
        Ok(n) if n.no_args => {
            for w in &n.warnings {
                notes.note(WarningKind::Note, w.clone());
            }
            Part {
                typing: Typing::NoArgs,
                code: "#[doc = \" This tool takes no arguments; the call sends `{}`.\"] \
                       pub type Args = ::mcp_bindgen::NoArgs;"
                    .to_string(),
            }
        }
        Ok(n) if n.free_form => {
            notes.note(
                WarningKind::Note,
                "the inputSchema names no arguments but does not rule any out: arguments are a free-form JSON object".into(),
            );
            Part {
                typing: Typing::Typed,
                code: "#[doc = \" The tool's schema names no arguments but allows any: a free-form\"] \
                       #[doc = \" JSON object (`serde_json::Map`).\"] \
                       pub type Args = ::mcp_bindgen::__private::serde_json::Map<\
                       ::std::string::String, ::mcp_bindgen::__private::serde_json::Value>;"
                    .to_string(),
            }
        }
        Ok(n) => {
            notes.normalized(&n, "");
            match typed_module(&n, false, direct) {
                Ok(code) => Part {
                    typing: Typing::Typed,
                    code,
                },
                Err(reason) => untyped_args(reason, notes),
            }
        }
        Err(Problem::Fallback(reason)) => untyped_args(reason, notes),
        Err(Problem::Collision {
            first,
            second,
            field,
            ..
        }) => {
            return Err(collision_error(
                tool, alias, &request, props, first, second, field,
            ));
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
    Ok(part)
}

/// Arguments as untyped JSON (`serde_json::Value`), documented with the reason.
fn untyped_args(reason: String, notes: &mut Notes<'_>) -> Part {
    notes.note(WarningKind::ArgsFallback, reason.clone());
    let mut code = String::new();
    doc_text(
        &mut code,
        &format!(
            "Arguments as untyped JSON: mcp-bindgen could not type this tool's schema ({reason})."
        ),
    );
    code.push_str("pub type Args = ::mcp_bindgen::__private::serde_json::Value;");
    Part {
        typing: Typing::Untyped(reason),
        code,
    }
}

/// Two arguments map to one Rust field: the error, with a `rename` that resolves it.
/// Collisions are resolved on their own unless a `rename` causes one: the hint replaces that
/// entry.
fn collision_error(
    tool: &Tool,
    alias: &str,
    request: &Request,
    props: &[String],
    first: String,
    second: String,
    field: String,
) -> Error {
    let (first, second) = if request.renames.contains_key(&first) {
        (second, first)
    } else {
        (first, second)
    };
    let mut suggestion = format!("{field}_2");
    let mut n = 3;
    while props
        .iter()
        .any(|p| naming::typify_sanitize(p, false) == suggestion)
    {
        suggestion = format!("{field}_{n}");
        n += 1;
    }
    Error::ArgumentCollision(Box::new(crate::error::ArgumentCollision {
        alias: alias.to_string(),
        tool: tool.name.clone(),
        first,
        second,
        field,
        suggestion,
    }))
}

/// The result types (`None` without an `outputSchema`): `Output` and, in `output`, the
/// types nested in it; untyped (a `ToolOutput`) when the schema cannot be typed.
fn output_types(tool: &Tool, direct: bool, notes: &mut Notes<'_>) -> Option<Part> {
    let schema = tool.output_schema.as_ref()?;
    let request = Request {
        description: Some(format!("Structured result of the tool `{}`.", tool.name)),
        ..Request::default()
    };
    let result = normalize::normalize(schema, Role::Output, &request)
        .map_err(|p| match p {
            Problem::Fallback(r) | Problem::BadOption { message: r, .. } => r,
            Problem::Collision {
                first,
                second,
                field,
                pointer,
            } => format!(
                "properties \"{first}\" and \"{second}\" at {} both map to the Rust field `{field}`",
                if pointer.is_empty() { "/" } else { &pointer }
            ),
        })
        .and_then(|n| {
            notes.normalized(&n, "outputSchema: ");
            typed_module(&n, true, direct)
        })
        .and_then(|code| output_items(&code));
    Some(match result {
        Ok(code) => Part {
            typing: Typing::Typed,
            code,
        },
        Err(reason) => {
            notes.note(WarningKind::OutputFallback, reason.clone());
            Part {
                typing: Typing::Untyped(reason),
                code: String::new(),
            }
        }
    })
}

/// `pub mod <tool> { … }`: the `TOOL` constant, `TOKENS` when counted, the argument and
/// result types.
fn tool_module(
    tool: &Tool,
    alias: &str,
    fn_name: &str,
    args: &Part,
    output: Option<&Part>,
    tokens: Option<Tokens>,
) -> String {
    let output_code = output.map_or("", |o| o.code.as_str());
    let mut module = String::with_capacity(
        512 + args.code.len()
            + output_code.len()
            + 2 * tool.description.as_ref().map_or(0, String::len),
    );
    doc_text(
        &mut module,
        &format!("Types and definition of the tool `{}`.", tool.name),
    );
    let _ = write!(
        module,
        "pub mod {fn_name} {{ #[doc = \" The tool as the runtime sees it (the server's `TYPED_TOOLS` lists it).\"] \
         pub const TOOL: ::mcp_bindgen::toolbox::TypedTool = "
    );
    let typed_output = output.is_some_and(Part::typed);
    typed_tool_const(&mut module, tool, alias, &args.typing, typed_output);
    module.push_str("; ");
    if let Some(t) = tokens {
        let _ = write!(
            module,
            "#[doc = \" Tokens of the tool's OpenAI function definition (o200k_base): full and compact.\"] \
             pub const TOKENS: ::mcp_bindgen::toolbox::Tokens = ::mcp_bindgen::toolbox::Tokens::new({}, {}); ",
            t.full, t.compact
        );
    }
    module.push_str(&args.code);
    module.push(' ');
    module.push_str(output_code);
    module.push_str(" }");
    module
}

/// The value of `TOOL`: `TypedTool::new(…)` and one `const` builder per fact that differs
/// from its defaults.
fn typed_tool_const(out: &mut String, tool: &Tool, alias: &str, args: &Typing, typed_output: bool) {
    out.push_str("::mcp_bindgen::toolbox::TypedTool::new(");
    string_lit(out, &tool.name);
    out.push_str(", ");
    string_lit(out, &naming::openai_name(alias, &tool.name));
    out.push_str(", ");
    string_lit(out, &compact(&tool.input_schema));
    out.push(')');
    if let Some(d) = tool.description.as_deref() {
        out.push_str(".described(");
        string_lit(out, d);
        out.push(')');
    }
    // What the model reads beside the description: the reviewed words a toolbox exports.
    if let Some(t) = tool.title.as_deref() {
        out.push_str(".titled(");
        string_lit(out, t);
        out.push(')');
    }
    if let Some(a) = tool.raw.get("annotations").filter(|a| a.is_object()) {
        out.push_str(".annotated(");
        string_lit(out, &compact(a));
        out.push(')');
    }
    if let Some(schema) = &tool.output_schema {
        out.push_str(".output_schema(");
        string_lit(out, &compact(schema));
        out.push(')');
    }
    match args {
        Typing::NoArgs => out.push_str(".no_args()"),
        Typing::Typed => out.push_str(".typed_args::<self::Args>()"),
        Typing::Untyped(reason) => {
            out.push_str(".untyped_args(");
            string_lit(out, reason);
            out.push(')');
        }
    }
    if typed_output {
        out.push_str(".typed_output::<self::Output>()");
    }
}

/// The documentation of the tool's `Client` method: the tool's description, or a line
/// naming the tool; untyped arguments say why.
fn method_doc(tool: &Tool, args: &Typing) -> String {
    let mut doc = crate::tokens::server_doc(tool.description.as_deref().unwrap_or_default());
    if doc.trim().is_empty() {
        doc = format!("Calls the tool `{}`.", tool.name);
    }
    if let Typing::Untyped(reason) = args {
        doc.push_str(&format!("\n\nArguments are untyped JSON: {reason}."));
    }
    doc
}

/// The tool's `Client` methods: the call and, when the server can run the tool as a task,
/// `<tool>_task`. Each is the `Tools` method of the same name (which calls through the
/// client's backend, with its options), so `client.tool(args)` needs no trait import.
fn client_methods(tool: &Tool, args: &Typing, sig: &Signature<'_>) -> String {
    let Signature {
        fn_name,
        plain,
        params,
        forwarded,
        ret,
        ..
    } = sig;
    let doc = method_doc(tool, args);
    let mut methods = String::with_capacity(2 * doc.len() + 512);
    doc_text(&mut methods, &doc);
    let _ = write!(
        methods,
        "pub fn {fn_name}{params} -> CallFuture<'_, {ret}> {{ Tools::{fn_name}({forwarded}) }} "
    );
    if tool.task_capable() {
        doc_text(
            &mut methods,
            &format!(
                "Runs [`Self::{plain}`] as a task (the server says it can): the handle's `wait()` gives the same result; `cancel()` or dropping the handle cancels it."
            ),
        );
        let _ = write!(
            methods,
            "pub fn {plain}_task{params} -> CallFuture<'_, TaskHandle<{ret}>> {{ Tools::{plain}_task({forwarded}) }} "
        );
    }
    methods
}

/// The tool's methods of the `Tools` trait, provided: they call through the implementor's
/// backend, so `Client`, `Fake` and `Recorder` share them.
fn trait_methods(tool: &Tool, sig: &Signature<'_>) -> String {
    let Signature {
        fn_name,
        plain,
        params,
        forwarded,
        args,
        ret,
        call,
        ..
    } = sig;
    let mut trait_method = String::with_capacity(256);
    doc_text(&mut trait_method, &format!("See [`Client::{plain}`]."));
    if tool.task_required() {
        // The server runs it only as a task (`taskSupport: required`): the plain method runs
        // it as one and waits.
        let _ = write!(
            trait_method,
            "fn {fn_name}{params} -> CallFuture<'_, {ret}> {{ CallFuture::new(async move {{ Tools::{plain}_task({forwarded}).await?.wait().await }}) }}"
        );
    } else {
        let _ = write!(
            trait_method,
            "fn {fn_name}{params} -> CallFuture<'_, {ret}> {{ self.__backend().{call}({fn_name}::TOOL.name, {args}) }}"
        );
    }
    if tool.task_capable() {
        // The task variant goes through the backend too: a `Fake` answers it with the
        // tool's stub, a `Recorder` records it.
        doc_text(
            &mut trait_method,
            &format!(
                "See [`Client::{plain}_task`]; a `Fake` answers it with the `on_{plain}` stub."
            ),
        );
        let _ = write!(
            trait_method,
            "fn {plain}_task{params} -> CallFuture<'_, TaskHandle<{ret}>> {{ self.__backend().task_{call}({fn_name}::TOOL.name, {args}) }}"
        );
    }
    trait_method
}

/// `Fake`'s `on_<tool>` stub builder.
fn fake_method(sig: &Signature<'_>) -> String {
    let Signature {
        fn_name,
        plain,
        ret,
        call,
        no_args,
        ..
    } = sig;
    let mut fake_method = String::with_capacity(256);
    doc_text(
        &mut fake_method,
        &format!("Answers [`Tools::{plain}`] with `stub`."),
    );
    let (stub, handler) = if *no_args {
        (format!("impl StubNoArgs<{ret}>"), "move |_: NoArgs| stub()")
    } else {
        (format!("impl Stub<{fn_name}::Args, {ret}>"), "stub")
    };
    let _ = write!(
        fake_method,
        "pub fn on_{plain}(self, stub: {stub}) -> Self {{ self.0.stub_{call}({fn_name}::TOOL.name, {handler}); self }}"
    );
    fake_method
}

#[cfg(test)]
mod tests {
    use crate::emit::tests::fixture;
    use crate::emit::{Options, generate};

    #[test]
    fn colliding_arguments_get_distinct_fields_and_a_rename_that_collides_is_an_error() {
        let f = fixture(serde_json::json!([
            {"name": "t", "inputSchema": {"type": "object", "properties": {"fooBar": {"type": "string"}, "foo_bar": {"type": "string"}}}}
        ]));
        let g = generate(&f, "gh", &Options::default()).expect("generates");
        assert!(
            g.code
                .contains("pub foo_bar: Option<String>, pub foo_bar_camel: Option<String>"),
            "{}",
            g.code
        );
        assert!(g.code.contains(r#"foo_bar_camel = "fooBar""#));
        assert!(g.warnings.iter().any(
            |w| w.kind == crate::WarningKind::Renamed && w.message.contains("`foo_bar_camel`")
        ));
        // `rename` overrides the chosen name.
        let renamed = generate(
            &f,
            "gh",
            &Options::default().with_rename("t.fooBar", "foo_bar_2"),
        )
        .expect("generates");
        assert!(renamed.code.contains("pub foo_bar_2: Option<String>"));
        // A rename onto a taken field is the rename's error.
        let e = generate(
            &f,
            "gh",
            &Options::default().with_rename("t.fooBar", "foo_bar"),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "tool \"t\" of server \"gh\": arguments \"foo_bar\" and \"fooBar\" both map to the Rust field `foo_bar`; add rename = { \"t.fooBar\" = \"foo_bar_2\" }"
        );
    }
}
