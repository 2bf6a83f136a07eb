//! One tool: its module (its `TOOL` definition, argument and result types) and its `Client` methods.

use std::fmt::Write as _;

use mcp_bindgen_core::provider::Tokens;
use serde_json::Value;

use super::options::ToolOptions;
use super::report::{ToolReport, Typing};
use super::typed::typed_module;
use crate::fixture::Tool;
use crate::naming::{self, did_you_mean};
use crate::normalize::{self, Problem, Request, Role};
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

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".to_string())
}

pub(super) fn emit_tool(
    tool: &Tool,
    alias: &str,
    fn_name: &str,
    topts: &ToolOptions,
    direct: bool,
    tokens: Option<Tokens>,
) -> Result<ToolOut> {
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
                "#[doc = \" This tool takes no arguments; the call sends `{}`.\"] \
                 pub type Args = ::mcp_bindgen::NoArgs;"
                    .to_string(),
            )
        }
        Ok(n) if n.free_form => {
            note(
                    WarningKind::Note,
                    "the inputSchema names no arguments but does not rule any out: arguments are a free-form JSON object".into(),
                );
            (
                Typing::Typed,
                "#[doc = \" The tool's schema names no arguments but allows any: a free-form\"] \
                 #[doc = \" JSON object (`serde_json::Map`).\"] \
                 pub type Args = ::mcp_bindgen::__private::serde_json::Map<\
                 ::std::string::String, ::mcp_bindgen::__private::serde_json::Value>;"
                    .to_string(),
            )
        }
        Ok(n) => {
            for w in &n.warnings {
                note(WarningKind::Note, w.clone());
            }
            for r in &n.renamed {
                note(WarningKind::Renamed, r.clone());
            }
            match typed_module(&n, false, direct) {
                Ok(code) => (Typing::Typed, code),
                Err(reason) => (Typing::Untyped(reason), String::new()),
            }
        }
        Err(Problem::Fallback(reason)) => (Typing::Untyped(reason), String::new()),
        Err(Problem::Collision {
            first,
            second,
            field,
            ..
        }) => {
            // Collisions are resolved on their own unless a `rename` causes one: the hint
            // replaces that entry.
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
            let mut code = String::new();
            doc_text(
                &mut code,
                &format!(
                    "Arguments as untyped JSON: mcp-bindgen could not type this tool's schema ({reason})."
                ),
            );
            code.push_str("pub type Args = ::mcp_bindgen::__private::serde_json::Value;");
            code
        }
        _ => args_tokens,
    };

    // Output.
    let (output_typing, output_tokens) = match &tool.output_schema {
        None => (None, String::new()),
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
                    for r in &n.renamed {
                        note(WarningKind::Renamed, format!("outputSchema: {r}"));
                    }
                    typed_module(&n, true, direct)
                });
            match result {
                Ok(code) => (
                    Some(Typing::Typed),
                    format!(
                        "#[doc = \" Types of the tool's structured result (`outputSchema`).\"] \
                         pub mod output {{ {code} }} pub use self::output::Output;"
                    ),
                ),
                Err(reason) => {
                    note(WarningKind::OutputFallback, reason.clone());
                    (Some(Typing::Untyped(reason)), String::new())
                }
            }
        }
    };

    // Constants: `TypedTool::new(…)` and one `const` builder per fact that differs from its
    // defaults.
    let name = &tool.name;
    let mut module = String::with_capacity(
        512 + args_tokens.len()
            + output_tokens.len()
            + 2 * tool.description.as_ref().map_or(0, String::len),
    );
    doc_text(
        &mut module,
        &format!("Types and definition of the tool `{name}`."),
    );
    let _ = write!(
        module,
        "pub mod {fn_name} {{ #[doc = \" The tool as the runtime sees it (the server's `TYPED_TOOLS` lists it).\"] \
         pub const TOOL: ::mcp_bindgen::toolbox::TypedTool = ::mcp_bindgen::toolbox::TypedTool::new("
    );
    string_lit(&mut module, name);
    module.push_str(", ");
    string_lit(&mut module, &naming::openai_name(alias, name));
    module.push_str(", ");
    string_lit(&mut module, &compact(&tool.input_schema));
    module.push(')');
    if let Some(d) = tool.description.as_deref() {
        module.push_str(".described(");
        string_lit(&mut module, d);
        module.push(')');
    }
    // What the model reads beside the description: the reviewed words a toolbox exports.
    if let Some(t) = tool.title.as_deref() {
        module.push_str(".titled(");
        string_lit(&mut module, t);
        module.push(')');
    }
    if let Some(a) = tool.raw.get("annotations").filter(|a| a.is_object()) {
        module.push_str(".annotated(");
        string_lit(&mut module, &compact(a));
        module.push(')');
    }
    if let Some(schema) = &tool.output_schema {
        module.push_str(".output_schema(");
        string_lit(&mut module, &compact(schema));
        module.push(')');
    }
    match &args_typing {
        Typing::NoArgs => module.push_str(".no_args()"),
        Typing::Typed => module.push_str(".typed_args::<self::Args>()"),
        Typing::Untyped(reason) => {
            module.push_str(".untyped_args(");
            string_lit(&mut module, reason);
            module.push(')');
        }
    }
    if output_typing == Some(Typing::Typed) {
        module.push_str(".typed_output::<self::Output>()");
    }
    module.push_str("; ");
    if let Some(t) = tokens {
        let _ = write!(
            module,
            "#[doc = \" Tokens of the tool's OpenAI function definition (o200k_base): full and compact.\"] \
             pub const TOKENS: ::mcp_bindgen::toolbox::Tokens = ::mcp_bindgen::toolbox::Tokens::new({}, {}); ",
            t.full, t.compact
        );
    }
    module.push_str(&args_tokens);
    module.push(' ');
    module.push_str(&output_tokens);
    module.push_str(" }");

    // Methods.
    let typed_output = output_typing == Some(Typing::Typed);
    let no_args = args_typing == Typing::NoArgs;
    let ret = if typed_output {
        format!("{fn_name}::Output")
    } else {
        "ToolOutput".to_string()
    };
    let mut doc = tool.description.clone().unwrap_or_default();
    if doc.trim().is_empty() {
        doc = format!("Calls the tool `{name}`.");
    }
    if let Typing::Untyped(reason) = &args_typing {
        doc.push_str(&format!("\n\nArguments are untyped JSON: {reason}."));
    }
    // `(&self)` or `(&self, args: <tool>::Args)`, and what the body passes on.
    let (params, args) = if no_args {
        ("(&self)".to_string(), "NoArgs {}")
    } else {
        (format!("(&self, args: {fn_name}::Args)"), "args")
    };
    let plain = naming::unraw(fn_name);
    // The inherent method is the `Tools` method (which calls through the client's backend,
    // with its options), so `client.tool(args)` needs no trait import.
    let mut methods = String::with_capacity(2 * doc.len() + 512);
    doc_text(&mut methods, &doc);
    let forwarded = if no_args { "self" } else { "self, args" };
    let _ = write!(
        methods,
        "pub fn {fn_name}{params} -> CallFuture<'_, {ret}> {{ Tools::{fn_name}({forwarded}) }} "
    );
    // The tool's `Tools` method (provided: it calls through the implementor's backend, so
    // `Client`, `Fake` and `Recorder` share it) and `Fake`'s `on_<tool>` stub builder.
    let call = if typed_output { "typed" } else { "untyped" };
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
            &mut methods,
            &format!(
                "Runs [`Self::{plain}`] as a task (the server says it can): the handle's `wait()` gives the same result; `cancel()` or dropping the handle cancels it."
            ),
        );
        let _ = write!(
            methods,
            "pub fn {plain}_task{params} -> CallFuture<'_, TaskHandle<{ret}>> {{ Tools::{plain}_task({forwarded}) }} "
        );
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
    let mut fake_method = String::with_capacity(256);
    doc_text(
        &mut fake_method,
        &format!("Answers [`Tools::{plain}`] with `stub`."),
    );
    let (stub, handler) = if no_args {
        (format!("impl StubNoArgs<{ret}>"), "move |_: NoArgs| stub()")
    } else {
        (format!("impl Stub<{fn_name}::Args, {ret}>"), "stub")
    };
    let _ = write!(
        fake_method,
        "pub fn on_{plain}(self, stub: {stub}) -> Self {{ self.0.stub_{call}({fn_name}::TOOL.name, {handler}); self }}"
    );

    Ok(ToolOut {
        module,
        methods,
        trait_method,
        fake_method,
        report: ToolReport {
            name: name.clone(),
            function: fn_name.to_string(),
            args: args_typing,
            output: output_typing,
        },
        warnings,
    })
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
