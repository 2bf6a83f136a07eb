//! The `prompts` part of a server module: typed argument structs for the prompts recorded in
//! the fixture, and the `Prompts` handle with one async method per prompt.
//!
//! ```text
//! pub mod prompts {
//!     pub const NAMES: &[&str];
//!     pub struct Prompts<'a>          // Client::prompts(); one async fn per prompt
//!     pub mod <prompt> {
//!         pub const NAME, TITLE, DESCRIPTION;
//!         pub struct Args { pub city: String, pub state: Option<String> }
//!         pub enum Argument { City, State }   // for Prompts::complete (completion/complete)
//!     }
//! }
//! ```
//!
//! MCP prompt arguments are strings: required ones are `String`, optional ones
//! `Option<String>` (left out when `None`). Unlike tool schemas nothing here needs typify.
//! A prompt whose Rust name collides with an earlier one, or whose arguments collide
//! after renaming, is not left out silently: it is reported as a warning (the macro shows
//! it) and stays reachable through `Session::get_prompt`.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::quote;

use crate::fixture::{Prompt, PromptArgument};
use crate::naming;
use crate::tokens::{doc_lines, ident, opt_str};
use crate::warning::{Warning, WarningKind};

/// The generated `prompts` module.
pub(crate) struct PromptsOut {
    /// `pub mod prompts { … }`; `None` when no prompt is generated (then neither is
    /// `Client::prompts`).
    pub module: Option<TokenStream>,
    /// Warnings for prompts that could not be generated.
    pub warnings: Vec<Warning>,
    /// `Fake`'s `on_prompt_<prompt>` stub builders.
    pub fake_methods: Vec<TokenStream>,
}

/// Emits the `prompts` module for `prompts` (fixture order), if any of them is generated;
/// `fake_taken`: the names of `Fake`'s methods so far (a stub builder that would take one
/// is left out: `fake.server().stub_prompt` remains).
pub(crate) fn emit(prompts: &[Prompt], fake_taken: &BTreeSet<String>) -> PromptsOut {
    let mut warnings = Vec::new();
    let mut fake_methods = Vec::new();
    let mut taken: BTreeMap<String, &str> = BTreeMap::new();
    let mut modules = Vec::new();
    let mut methods = Vec::new();
    let mut names = Vec::new();
    for prompt in prompts {
        let rust = naming::prompt_name(&prompt.name);
        if let Some(first) = taken.get(naming::unraw(&rust)) {
            warnings.push(Warning {
                tool: prompt.name.clone(),
                kind: WarningKind::PromptSkipped,
                message: format!(
                    "maps to the Rust name `{}` like prompt \"{first}\"; call it with \
                     `client.session().get_prompt({:?}, arguments)`",
                    naming::unraw(&rust),
                    prompt.name
                ),
            });
            continue;
        }
        taken.insert(naming::unraw(&rust).to_string(), &prompt.name);
        match emit_prompt(prompt, &rust) {
            Ok((module, method, no_args)) => {
                names.push(prompt.name.as_str());
                modules.push(module);
                methods.push(method);
                let stub = format!("on_prompt_{}", naming::unraw(&rust));
                if !fake_taken.contains(&stub) {
                    fake_methods.push(crate::completable::fake_stub(
                        crate::completable::Stubbed::Prompt,
                        &stub,
                        &rust,
                        no_args,
                    ));
                }
            }
            Err(message) => warnings.push(Warning {
                tool: prompt.name.clone(),
                kind: WarningKind::PromptSkipped,
                message: format!(
                    "{message}; call it with `client.session().get_prompt({:?}, arguments)`",
                    prompt.name
                ),
            }),
        }
    }
    if names.is_empty() {
        return PromptsOut {
            module: None,
            warnings,
            fake_methods,
        };
    }
    // A prompt that takes the name keeps it; completion is then `session().complete_argument`.
    let complete = (!taken.contains_key("complete")).then(|| {
        crate::completable::complete_method("a prompt's argument", "prompts::<prompt>::Argument")
    });
    // An outer doc: its links resolve where the module is declared (beside `Client`).
    let module = quote! {
        /// Typed arguments of the server's prompts (`prompts/get`), as recorded in the
        /// fixture; call them through [`Client::prompts`].
        pub mod prompts {
            /// Original names of the generated prompts, in fixture order.
            pub const NAMES: &[&str] = &[#(#names),*];

            /// The server's prompts: one async method per prompt, arguments typed.
            #[derive(Clone, Copy, Debug)]
            pub struct Prompts<'a> {
                pub(super) source: ::mcp_bindgen::fake::Source<'a>,
            }

            impl Prompts<'_> {
                #(#methods)*

                #complete
            }

            #(#modules)*
        }
    };
    PromptsOut {
        module: Some(module),
        warnings,
        fake_methods,
    }
}

/// One prompt's module and method, and whether it takes no arguments; `Err` says why it
/// cannot be generated.
fn emit_prompt(prompt: &Prompt, rust: &str) -> Result<(TokenStream, TokenStream, bool), String> {
    let mut fields: BTreeMap<String, &PromptArgument> = BTreeMap::new();
    let mut field_tokens = Vec::new();
    for arg in &prompt.arguments {
        let field = naming::field_name(&arg.name);
        if let Some(first) = fields.get(naming::unraw(&field)) {
            return Err(format!(
                "arguments \"{}\" and \"{}\" both map to the Rust field `{}`",
                first.name,
                arg.name,
                naming::unraw(&field)
            ));
        }
        fields.insert(naming::unraw(&field).to_string(), arg);
        let f = ident(&field);
        let wire = &arg.name;
        let doc = doc_lines(&argument_doc(arg));
        field_tokens.push(if arg.required {
            quote! {
                #(#doc)*
                #[serde(rename = #wire)]
                pub #f: ::std::string::String,
            }
        } else {
            quote! {
                #(#doc)*
                #[serde(rename = #wire, default, skip_serializing_if = "::core::option::Option::is_none")]
                pub #f: ::core::option::Option<::std::string::String>,
            }
        });
    }

    let name = &prompt.name;
    let m = ident(rust);
    let title = opt_str(prompt.title.as_deref());
    let description = opt_str(prompt.description.as_deref());
    let module_doc = doc_lines(&format!("Types and constants of the prompt `{name}`."));
    let no_args = prompt.arguments.is_empty();
    let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
    let argument_enum = if no_args {
        None
    } else {
        Some(crate::completable::argument_enum(
            "Argument",
            &format!(
                "The arguments of the prompt `{name}`, for argument completion \
                 ([`Prompts::complete`](super::Prompts::complete))."
            ),
            &quote!(::mcp_bindgen::CompletionRef::prompt(NAME)),
            &names,
        )?)
    };
    let args_item = if no_args {
        quote! {
            /// This prompt takes no arguments.
            pub type Args = ::mcp_bindgen::NoArgs;
        }
    } else {
        let all_optional = prompt.arguments.iter().all(|a| !a.required);
        let default = all_optional.then(|| quote!(Default,));
        let args_doc = doc_lines(&format!("Arguments of the prompt `{name}`."));
        quote! {
            #(#args_doc)*
            #[derive(Clone, Debug, #default PartialEq, Eq, ::mcp_bindgen::__private::serde::Serialize, ::mcp_bindgen::__private::serde::Deserialize)]
            #[serde(crate = "::mcp_bindgen::__private::serde", deny_unknown_fields)]
            pub struct Args {
                #(#field_tokens)*
            }
        }
    };
    let module = quote! {
        #(#module_doc)*
        pub mod #m {
            /// The prompt's name on the server.
            pub const NAME: &str = #name;
            /// The prompt's `title`, if any.
            pub const TITLE: ::core::option::Option<&str> = #title;
            /// The prompt's `description`, if any.
            pub const DESCRIPTION: ::core::option::Option<&str> = #description;

            #args_item

            #argument_enum
        }
    };

    let mut doc_text = prompt
        .description
        .as_deref()
        .filter(|d| !d.trim().is_empty())
        .map(crate::tokens::server_doc)
        .unwrap_or_else(|| format!("Gets the prompt `{name}`."));
    doc_text.push_str(&format!("\n\nSends `prompts/get` for `{name}`."));
    let doc = doc_lines(&doc_text);
    let method = if no_args {
        quote! {
            #(#doc)*
            pub async fn #m(&self) -> ::mcp_bindgen::Result<::mcp_bindgen::PromptResult> {
                self.source.prompt(#m::NAME, &::mcp_bindgen::NoArgs {}).await
            }
        }
    } else {
        quote! {
            #(#doc)*
            pub async fn #m(&self, args: #m::Args) -> ::mcp_bindgen::Result<::mcp_bindgen::PromptResult> {
                self.source.prompt(#m::NAME, &args).await
            }
        }
    };
    Ok((module, method, no_args))
}

fn argument_doc(arg: &PromptArgument) -> String {
    let text = arg
        .description
        .as_deref()
        .or(arg.title.as_deref())
        .filter(|d| !d.trim().is_empty())
        .map(crate::tokens::server_doc)
        .unwrap_or_else(|| format!("The argument `{}`.", arg.name));
    if arg.required {
        text
    } else {
        format!("{text}\n\nOptional.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`super::emit`] with no `Fake` method taken.
    fn emit(items: &[Prompt]) -> PromptsOut {
        super::emit(items, &BTreeSet::new())
    }
    use crate::fixture::Fixture;
    use std::path::Path;

    fn prompts(json: &str) -> Vec<Prompt> {
        let doc = format!(r#"{{"tools":[],"prompts":{json}}}"#);
        Fixture::from_slice(doc.as_bytes(), Path::new("p.json"))
            .unwrap()
            .prompts
    }

    /// The formatted module with every run of whitespace collapsed to one space.
    fn text(out: &PromptsOut) -> String {
        crate::tokens::collapsed_pretty(out.module.clone().expect("a prompt is generated"))
    }

    #[test]
    fn required_and_optional_arguments_become_string_fields() {
        let out = emit(&prompts(
            r#"[{"name":"args-prompt","description":"Two args","arguments":[
                {"name":"city","description":"Name of the city","required":true},
                {"name":"resourceType"}]},
               {"name":"simple-prompt"}]"#,
        ));
        assert!(out.warnings.is_empty());
        let t = text(&out);
        assert!(t.contains("pub const NAMES: &[&str] = &[\"args-prompt\", \"simple-prompt\"];"));
        assert!(t.contains("pub mod args_prompt {"), "{t}");
        assert!(
            t.contains("#[serde(rename = \"city\")] pub city: ::std::string::String,"),
            "{t}"
        );
        assert!(t.contains("pub resource_type: ::core::option::Option<::std::string::String>,"));
        assert!(
            t.contains("pub async fn args_prompt( &self, args: args_prompt::Args, )"),
            "{t}"
        );
        assert!(t.contains("pub type Args = ::mcp_bindgen::NoArgs;"));
        assert!(t.contains("pub async fn simple_prompt( &self, )"), "{t}");
        // `Default` only when nothing is required.
        assert!(!t.contains("Default,"), "{t}");
        // Completion: an enum per prompt with arguments, one `complete` method.
        assert!(
            t.contains("pub enum Argument { /// `city`. City, /// `resourceType`. ResourceType, }"),
            "{t}"
        );
        assert!(
            t.contains("::mcp_bindgen::CompletionRef::prompt(NAME)"),
            "{t}"
        );
        assert!(
            t.contains("pub async fn complete<A: ::mcp_bindgen::CompletionArgument>("),
            "{t}"
        );
    }

    #[test]
    fn all_optional_arguments_derive_default() {
        let t = text(&emit(&prompts(
            r#"[{"name":"p","arguments":[{"name":"a"}]}]"#,
        )));
        assert!(t.contains("Default,"), "{t}");
    }

    #[test]
    fn collisions_are_reported_never_dropped_silently() {
        let out = emit(&prompts(
            r#"[{"name":"a-b"},{"name":"a_b"},
                {"name":"c","arguments":[{"name":"x-y"},{"name":"x_y"}]}]"#,
        ));
        let messages: Vec<String> = out.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages[0].starts_with(
                "prompt \"a_b\" is not generated: maps to the Rust name `a_b` like prompt \"a-b\""
            ),
            "{messages:?}"
        );
        assert!(
            messages[1].contains("prompt \"c\" is not generated: arguments \"x-y\" and \"x_y\" both map to the Rust field `x_y`"),
            "{messages:?}"
        );
        assert!(messages[1].contains("get_prompt(\"c\", arguments)"));
        assert!(text(&out).contains("pub const NAMES: &[&str] = &[\"a-b\"];"));
    }

    #[test]
    fn no_prompt_no_module() {
        assert!(emit(&[]).module.is_none());
        // Every prompt left out (with a warning): no module either.
        let out = emit(&prompts(
            r#"[{"name":"c","arguments":[{"name":"x-y"},{"name":"x_y"}]}]"#,
        ));
        assert!(out.module.is_none());
        assert_eq!(out.warnings.len(), 1);
    }

    #[test]
    fn keyword_and_odd_names_are_escaped() {
        let t = text(&emit(&prompts(
            r#"[{"name":"type","arguments":[{"name":"type","required":true},{"name":"1st"}]}]"#,
        )));
        assert!(t.contains("pub mod r#type {"), "{t}");
        assert!(t.contains("pub r#type: ::std::string::String,"), "{t}");
        assert!(t.contains("pub arg_1st: ::core::option::Option"), "{t}");
        assert!(t.contains("pub async fn r#type("), "{t}");
    }
}
