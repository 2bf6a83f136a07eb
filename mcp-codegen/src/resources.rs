//! The `resources` part of a server module: one typed function per resource template
//! recorded in the fixture, its parameters the template's RFC 6570 variables.
//!
//! ```text
//! pub mod resources {
//!     pub const TEMPLATES: &[&str];        // the generated templates' `uriTemplate`s
//!     pub struct Resources<'a>             // Client::resources(); one async fn per template
//!     pub mod <template> {
//!         pub const NAME, URI_TEMPLATE, TITLE, DESCRIPTION, MIME_TYPE;
//!         pub struct Args { pub owner: String, pub state: Option<String> }
//!         impl Args { pub fn uri(&self) -> String }
//!         pub enum Variable { Owner, State }  // for Resources::complete (completion/complete)
//!     }
//! }
//! ```
//!
//! Template values are strings. A variable of a path-like expression (`{x}`, `{+x}`,
//! `{#x}`, `{.x}`, `{/x}`) is a required `String`: leaving it out would change what the URI
//! names; one of a query-like expression (`{?x}`, `{&x}`, `{;x}`) is an `Option<String>`,
//! left out of the URI when `None`. A template the generator cannot expand (malformed, or
//! an explode modifier), or whose name or variables collide in Rust, is reported as a
//! warning (the macro shows it) and stays readable through `Session::read`.

use std::collections::{BTreeMap, BTreeSet};

use mcp_bindgen_core::uri_template::UriTemplate;
use proc_macro2::TokenStream;
use quote::quote;

use crate::fixture::{Resource, ResourceTemplate};
use crate::naming;
use crate::tokens::{doc_lines, ident, opt_str};
use crate::warning::{Warning, WarningKind};

/// The generated `resources` module.
pub(crate) struct ResourcesOut {
    /// `pub mod resources { … }`; `None` when no template is generated (then neither is
    /// `Client::resources`).
    pub module: Option<TokenStream>,
    /// Warnings for templates that could not be generated.
    pub warnings: Vec<Warning>,
    /// The generated templates, in fixture order.
    pub plans: Vec<TemplatePlan>,
    /// `Fake`'s `on_resource_<template>` stub builders.
    pub fake_methods: Vec<TokenStream>,
}

/// A resource template as `mcp_tools!` types it: its module in `resources` and the field of
/// each variable in its `Args` (what `verify --deep` fills in to check `Args::uri`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplatePlan {
    /// The template's name on the server.
    pub name: String,
    /// Its module's name in `resources` (a raw identifier when it is a keyword).
    pub module: String,
    /// Its `uriTemplate`.
    pub uri_template: String,
    /// Its variables in template order; empty when it has none (then the module has a
    /// `URI` constant instead of `Args`).
    pub variables: Vec<TemplateVariable>,
}

/// A variable of a generated resource template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateVariable {
    /// The variable's name in the template.
    pub name: String,
    /// Its field in `Args` (a raw identifier when it is a keyword).
    pub field: String,
    /// Whether the field is an `Option<String>` (a query-like expression: `{?x}`, `{&x}`,
    /// `{;x}`).
    pub optional: bool,
}

/// The resource templates `mcp_tools!` generates from `templates` (a fixture's
/// `resourceTemplates`), in fixture order, with their Rust names; the others are left out
/// (the macro warns about them).
pub fn plan_templates(templates: &[ResourceTemplate]) -> Vec<TemplatePlan> {
    emit(templates, &[], &BTreeSet::new()).plans
}

/// Emits the `resources` module for `templates` (fixture order), if any is generated;
/// `fake_taken`: the names of `Fake`'s methods so far (a stub builder that would take one
/// is left out: `fake.server().stub_resource` remains).
pub(crate) fn emit(
    templates: &[ResourceTemplate],
    statics: &[Resource],
    fake_taken: &BTreeSet<String>,
) -> ResourcesOut {
    let mut warnings = Vec::new();
    let mut fake_methods = Vec::new();
    let mut taken: BTreeMap<String, &str> = BTreeMap::new();
    let mut modules = Vec::new();
    let mut methods = Vec::new();
    let mut uris = Vec::new();
    let mut static_uris = Vec::new();
    let mut plans = Vec::new();
    // A static resource is read like a template without variables (its URI as written).
    let as_template = |r: &Resource| ResourceTemplate {
        name: r.name.clone(),
        title: r.title.clone(),
        description: r.description.clone(),
        uri_template: r.uri.clone(),
        mime_type: r.mime_type.clone(),
    };
    let entries: Vec<(ResourceTemplate, bool)> = templates
        .iter()
        .map(|t| (t.clone(), false))
        .chain(statics.iter().map(|r| (as_template(r), true)))
        .collect();
    for (template, literal) in &entries {
        let literal = *literal;
        let skipped = |message: String| Warning {
            tool: template.name.clone(),
            kind: WarningKind::ResourceTemplateSkipped,
            message: format!(
                "{message}; read it with `client.session().read(uri)`, the URI built by hand"
            ),
        };
        let rust = naming::prompt_name(&template.name);
        if let Some(first) = taken.get(naming::unraw(&rust)) {
            warnings.push(skipped(format!(
                "maps to the Rust name `{}` like resource template \"{first}\"",
                naming::unraw(&rust)
            )));
            continue;
        }
        match emit_template(template, &rust, literal) {
            Ok((module, method, plan)) => {
                let stub = format!("on_resource_{}", naming::unraw(&rust));
                if !fake_taken.contains(&stub) {
                    fake_methods.push(crate::completable::fake_stub(
                        crate::completable::Stubbed::Resource,
                        &stub,
                        &rust,
                        plan.variables.is_empty(),
                    ));
                }
                taken.insert(naming::unraw(&rust).to_string(), &template.name);
                if literal {
                    static_uris.push(template.uri_template.as_str());
                } else {
                    uris.push(template.uri_template.as_str());
                }
                modules.push(module);
                methods.push(method);
                plans.push(plan);
            }
            Err(message) => warnings.push(skipped(message)),
        }
    }
    if modules.is_empty() {
        return ResourcesOut {
            module: None,
            warnings,
            plans,
            fake_methods,
        };
    }
    let static_const = (!static_uris.is_empty()).then(|| {
        quote! {
            /// The URI of each generated static resource (recorded with
            /// `record_resources = true`), in fixture order.
            pub const STATIC_URIS: &[&str] = &[#(#static_uris),*];
        }
    });
    // A template that takes the name keeps it; completion is then `session().complete_argument`.
    let complete = (!taken.contains_key("complete")).then(|| {
        crate::completable::complete_method(
            "a resource template's variable",
            "resources::<template>::Variable",
        )
    });
    let module = quote! {
        /// Typed reads of the server's resource templates (`resources/read` of the URI a
        /// template's variables make), as recorded in the fixture; call them through
        /// [`Client::resources`].
        pub mod resources {
            /// The `uriTemplate` of each generated template, in fixture order.
            pub const TEMPLATES: &[&str] = &[#(#uris),*];
            #static_const

            /// The server's resource templates: one async method per template, its
            /// variables typed.
            #[derive(Clone, Copy, Debug)]
            pub struct Resources<'a> {
                pub(super) source: ::mcp_bindgen::fake::Source<'a>,
            }

            impl Resources<'_> {
                #(#methods)*

                #complete
            }

            #(#modules)*
        }
    };
    ResourcesOut {
        module: Some(module),
        warnings,
        plans,
        fake_methods,
    }
}

/// One template's module, method and plan (`literal`: a static resource, whose URI is not
/// a template); `Err` says why it cannot be generated.
fn emit_template(
    template: &ResourceTemplate,
    rust: &str,
    literal: bool,
) -> Result<(TokenStream, TokenStream, TemplatePlan), String> {
    let parsed = if literal {
        None
    } else {
        Some(UriTemplate::parse(&template.uri_template).map_err(|e| {
            format!(
                "its uriTemplate \"{}\" cannot be expanded ({e})",
                template.uri_template
            )
        })?)
    };
    let mut fields: BTreeMap<String, &str> = BTreeMap::new();
    let mut field_tokens = Vec::new();
    let mut lookups = Vec::new();
    let mut planned = Vec::new();
    let variables = parsed
        .as_ref()
        .map(UriTemplate::variables)
        .unwrap_or_default();
    for var in &variables {
        let field = naming::field_name(&var.name);
        planned.push(TemplateVariable {
            name: var.name.clone(),
            field: field.clone(),
            optional: var.optional(),
        });
        if let Some(first) = fields.get(naming::unraw(&field)) {
            return Err(format!(
                "variables \"{first}\" and \"{}\" both map to the Rust field `{}`",
                var.name,
                naming::unraw(&field)
            ));
        }
        fields.insert(naming::unraw(&field).to_string(), &var.name);
        let f = ident(&field);
        let wire = &var.name;
        if var.optional() {
            let doc = doc_lines(&format!(
                "The variable `{wire}`; left out of the URI when `None`."
            ));
            field_tokens.push(quote! {
                #(#doc)*
                pub #f: ::core::option::Option<::std::string::String>,
            });
            lookups.push(quote!(#wire => self.#f.as_deref(),));
        } else {
            let doc = doc_lines(&format!("The variable `{wire}`."));
            field_tokens.push(quote! {
                #(#doc)*
                pub #f: ::std::string::String,
            });
            lookups.push(quote!(#wire => ::core::option::Option::Some(self.#f.as_str()),));
        }
    }

    let name = &template.name;
    let uri_template = &template.uri_template;
    let m = ident(rust);
    let title = opt_str(template.title.as_deref());
    let description = opt_str(template.description.as_deref());
    let mime_type = opt_str(template.mime_type.as_deref());
    let module_doc = doc_lines(&if literal {
        format!("Constants of the static resource `{name}` (`{uri_template}`).")
    } else {
        format!("Types and constants of the resource template `{name}` (`{uri_template}`).")
    });
    let names: Vec<&str> = variables.iter().map(|v| v.name.as_str()).collect();
    let variable_enum = crate::completable::argument_enum(
        "Variable",
        &format!(
            "The variables of the resource template `{name}`, for argument completion \
             ([`Resources::complete`](super::Resources::complete))."
        ),
        &quote!(::mcp_bindgen::CompletionRef::resource_template(
            URI_TEMPLATE
        )),
        &names,
    )?;
    let args_item = if variables.is_empty() {
        quote! {
            /// The URI (the template has no variables).
            pub const URI: &str = #uri_template;
        }
    } else {
        let all_optional = variables.iter().all(|v| v.optional());
        let default = all_optional.then(|| quote!(Default,));
        let args_doc = doc_lines(&format!("The variables of the resource template `{name}`."));
        quote! {
            #(#args_doc)*
            #[derive(Clone, Debug, #default PartialEq, Eq, Hash)]
            pub struct Args {
                #(#field_tokens)*
            }

            impl Args {
                /// The URI these values make of [`URI_TEMPLATE`] (RFC 6570 expansion).
                pub fn uri(&self) -> ::std::string::String {
                    ::mcp_bindgen::__private::expand_uri_template(URI_TEMPLATE, |variable| {
                        match variable {
                            #(#lookups)*
                            _ => ::core::option::Option::None,
                        }
                    })
                }
            }

            #variable_enum
        }
    };
    let uri_template_const = (!literal).then(|| {
        quote! {
            /// The template's `uriTemplate` (RFC 6570).
            pub const URI_TEMPLATE: &str = #uri_template;
        }
    });
    let module = quote! {
        #(#module_doc)*
        pub mod #m {
            /// The template's name on the server.
            pub const NAME: &str = #name;
            #uri_template_const
            /// The template's `title`, if any.
            pub const TITLE: ::core::option::Option<&str> = #title;
            /// The template's `description`, if any.
            pub const DESCRIPTION: ::core::option::Option<&str> = #description;
            /// The MIME type of what it names (`mimeType`), if any.
            pub const MIME_TYPE: ::core::option::Option<&str> = #mime_type;

            #args_item
        }
    };

    let mut doc_text = template
        .description
        .as_deref()
        .filter(|d| !d.trim().is_empty())
        .map(crate::tokens::server_doc)
        .unwrap_or_else(|| format!("Reads the resource template `{name}`."));
    doc_text.push_str(&if variables.is_empty() {
        format!("\n\nSends `resources/read` for `{uri_template}`.")
    } else {
        format!("\n\nSends `resources/read` for the URI `{uri_template}` makes of the arguments.")
    });
    let doc = doc_lines(&doc_text);
    let method = if variables.is_empty() {
        quote! {
            #(#doc)*
            pub async fn #m(&self) -> ::mcp_bindgen::Result<::mcp_bindgen::ResourceContents> {
                self.source.read_template(#m::NAME, &::mcp_bindgen::NoArgs {}, #m::URI.to_string()).await
            }
        }
    } else {
        quote! {
            #(#doc)*
            pub async fn #m(&self, args: &#m::Args) -> ::mcp_bindgen::Result<::mcp_bindgen::ResourceContents> {
                self.source.read_template(#m::NAME, args, args.uri()).await
            }
        }
    };
    let plan = TemplatePlan {
        name: template.name.clone(),
        module: rust.to_string(),
        uri_template: template.uri_template.clone(),
        variables: planned,
    };
    Ok((module, method, plan))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`super::emit`] with no `Fake` method taken.
    fn emit(items: &[ResourceTemplate]) -> ResourcesOut {
        super::emit(items, &[], &BTreeSet::new())
    }
    use crate::fixture::Fixture;
    use std::path::Path;

    fn templates(json: &str) -> Vec<ResourceTemplate> {
        let doc = format!(r#"{{"tools":[],"resourceTemplates":{json}}}"#);
        Fixture::from_slice(doc.as_bytes(), Path::new("t.json"))
            .unwrap()
            .resource_templates
    }

    /// The formatted module with every run of whitespace collapsed to one space.
    fn text(out: &ResourcesOut) -> String {
        crate::tokens::collapsed_pretty(out.module.clone().expect("a template is generated"))
    }

    #[test]
    fn path_variables_are_required_and_query_variables_optional() {
        let out = emit(&templates(
            r#"[{"name":"Issue","uriTemplate":"github://repos/{owner}/{repo}/issues/{number}{?state}","mimeType":"application/json"},
               {"name":"readme","uriTemplate":"file:///README.md"}]"#,
        ));
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let t = text(&out);
        assert!(t.contains("pub const TEMPLATES: &[&str] = &[ \"github://repos/{owner}/{repo}/issues/{number}{?state}\", \"file:///README.md\", ];"), "{t}");
        assert!(t.contains("pub mod issue {"), "{t}");
        assert!(t.contains("pub owner: ::std::string::String,"), "{t}");
        assert!(t.contains("pub number: ::std::string::String,"), "{t}");
        assert!(
            t.contains("pub state: ::core::option::Option<::std::string::String>,"),
            "{t}"
        );
        assert!(t.contains("\"state\" => self.state.as_deref(),"), "{t}");
        assert!(
            t.contains("pub async fn issue( &self, args: &issue::Args, )"),
            "{t}"
        );
        assert!(t.contains("\"application/json\""), "{t}");
        // Completion: one enum per template with variables, one `complete` method.
        assert!(t.contains("pub enum Variable { /// `owner`. Owner,"), "{t}");
        assert!(t.contains("Variable::State => \"state\","), "{t}");
        assert!(
            t.contains("::mcp_bindgen::CompletionRef::resource_template(URI_TEMPLATE)"),
            "{t}"
        );
        assert!(
            t.contains("pub async fn complete<A: ::mcp_bindgen::CompletionArgument>("),
            "{t}"
        );
        // No variables: a constant URI and a method without arguments.
        assert!(
            t.contains("pub const URI: &str = \"file:///README.md\";"),
            "{t}"
        );
        assert!(t.contains("pub async fn readme( &self, )"), "{t}");
        // `Default` only when nothing is required.
        assert!(!t.contains("Default,"), "{t}");
    }

    #[test]
    fn what_cannot_be_generated_is_a_warning_never_a_silent_loss() {
        let out = emit(&templates(
            r#"[{"name":"a-b","uriTemplate":"x://{id}"},{"name":"a_b","uriTemplate":"y://{id}"},
                {"name":"list","uriTemplate":"x://{ids*}"},
                {"name":"broken","uriTemplate":"x://{id"},
                {"name":"twins","uriTemplate":"x://{aB}/{a_b}"}]"#,
        ));
        let messages: Vec<String> = out.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert!(messages[0].starts_with("resource template \"a_b\" is not generated: maps to the Rust name `a_b` like resource template \"a-b\""), "{messages:?}");
        assert!(messages[1].contains("\"list\" is not generated: its uriTemplate \"x://{ids*}\" cannot be expanded (at byte 4: `ids*`: the explode modifier"), "{messages:?}");
        assert!(
            messages[2].contains("without its closing `}`"),
            "{messages:?}"
        );
        assert!(
            messages[3].contains("variables \"aB\" and \"a_b\" both map to the Rust field `a_b`"),
            "{messages:?}"
        );
        assert!(
            messages
                .iter()
                .all(|m| m.contains("client.session().read(uri)"))
        );
        assert!(text(&out).contains("pub const TEMPLATES: &[&str] = &[\"x://{id}\"];"));
    }

    #[test]
    fn no_template_no_module() {
        assert!(emit(&[]).module.is_none());
    }

    /// A static resource (recorded with `record_resources = true`) reads like a template
    /// without variables: a method, a module with `URI` (no `URI_TEMPLATE`), a stub builder,
    /// its URI in `STATIC_URIS` and not in `TEMPLATES`, even when it has `{` in it.
    #[test]
    fn static_resources_are_read_by_their_uri() {
        let statics = vec![Resource {
            uri: "docs://{odd}/readme.md".into(),
            name: "readme.md".into(),
            title: None,
            description: Some("The readme.".into()),
            mime_type: Some("text/markdown".into()),
        }];
        let out = super::emit(&[], &statics, &BTreeSet::new());
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        assert_eq!(out.fake_methods.len(), 1);
        assert!(out.plans[0].variables.is_empty());
        let t = text(&out);
        assert!(t.contains("pub const TEMPLATES: &[&str] = &[];"), "{t}");
        assert!(
            t.contains("pub const STATIC_URIS: &[&str] = &[\"docs://{odd}/readme.md\"];"),
            "{t}"
        );
        assert!(t.contains("pub mod readme_md {"), "{t}");
        assert!(
            t.contains("pub const URI: &str = \"docs://{odd}/readme.md\";"),
            "{t}"
        );
        assert!(!t.contains("URI_TEMPLATE: &str"), "{t}");
        assert!(t.contains("pub async fn readme_md( &self, )"), "{t}");
    }

    /// Each generated template gets a typed `Fake` stub builder, unless a tool's stub
    /// builder has its name.
    #[test]
    fn fake_stub_builders_leave_a_tools_name_alone() {
        let two = templates(
            r#"[{"name":"issue","uriTemplate":"gh://{number}"},
               {"name":"readme","uriTemplate":"file:///README.md"}]"#,
        );
        let out = emit(&two);
        let stubs: Vec<String> = out
            .fake_methods
            .iter()
            .map(|m| crate::tokens::collapsed_pretty(quote!(impl F { #m })))
            .collect();
        assert_eq!(stubs.len(), 2);
        assert!(
            stubs[0].contains("pub fn on_resource_issue( self, stub: impl Stub<resources::issue::Args, ::mcp_bindgen::ResourceContents>, ) -> Self"),
            "{stubs:?}"
        );
        assert!(
            stubs[1].contains("stub: impl StubNoArgs<::mcp_bindgen::ResourceContents>"),
            "{stubs:?}"
        );
        let taken: BTreeSet<String> = ["on_resource_issue".to_string()].into();
        assert_eq!(super::emit(&two, &[], &taken).fake_methods.len(), 1);
    }
}
