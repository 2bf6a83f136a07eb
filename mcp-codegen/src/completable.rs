//! What the `prompts` and `resources` modules share: typed argument completion (each
//! prompt's `Argument` enum and each resource template's `Variable` enum, the runtime's
//! `CompletionArgument`, and the `complete` method of `Prompts` and `Resources`, so the
//! argument a `completion/complete` names is checked at compile time), and `Fake`'s typed
//! stub builders for prompts and templates.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::quote;

use crate::naming;
use crate::tokens::{doc_lines, ident};

/// `pub enum <enum_name> { … }` over `names` (wire names, in order) and its
/// `CompletionArgument` impl, whose reference is `reference` (an expression of type
/// `::mcp_bindgen::CompletionRef`). `Err` when two names map to one variant.
pub(crate) fn argument_enum(
    enum_name: &str,
    doc: &str,
    reference: &TokenStream,
    names: &[&str],
) -> Result<TokenStream, String> {
    let mut taken: BTreeMap<String, &str> = BTreeMap::new();
    let mut variants = Vec::new();
    let mut arms = Vec::new();
    let e = ident(enum_name);
    for name in names {
        let variant = naming::type_name(name);
        if let Some(first) = taken.insert(variant.clone(), name) {
            return Err(format!(
                "\"{first}\" and \"{name}\" both map to the variant `{enum_name}::{variant}`"
            ));
        }
        let v = ident(&variant);
        let variant_doc = doc_lines(&format!("`{name}`."));
        variants.push(quote! { #(#variant_doc)* #v, });
        arms.push(quote! { #e::#v => #name, });
    }
    let doc = doc_lines(doc);
    Ok(quote! {
        #(#doc)*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum #e {
            #(#variants)*
        }

        impl ::mcp_bindgen::CompletionArgument for #e {
            fn reference(self) -> ::mcp_bindgen::CompletionRef {
                #reference
            }

            fn name(self) -> &'static str {
                match self {
                    #(#arms)*
                }
            }
        }
    })
}

/// The `complete` method of `Prompts` or `Resources` (`what`: "a prompt's argument",
/// "a resource template's variable"; `example`: the enum's path in the docs).
pub(crate) fn complete_method(what: &str, example: &str) -> TokenStream {
    let doc = doc_lines(&format!(
        "What the server suggests for {what} as a user types `value` (`completion/complete`); \
         `context` gives the values of the other ones. The argument is one of the generated \
         enums (`{example}`). A server without completions suggests nothing; a `Fake` \
         answers with its `on_complete` stub."
    ));
    quote! {
        #(#doc)*
        pub async fn complete<A: ::mcp_bindgen::CompletionArgument>(
            &self,
            argument: A,
            value: &str,
            context: &[(A, &str)],
        ) -> ::mcp_bindgen::Result<::mcp_bindgen::Completion> {
            self.source.complete(argument, value, context).await
        }
    }
}

/// What a `Fake` stub builder answers.
#[derive(Clone, Copy)]
pub(crate) enum Stubbed {
    /// A prompt (`on_prompt_<prompt>`, a `PromptResult`).
    Prompt,
    /// A resource template (`on_resource_<template>`, `ResourceContents`).
    Resource,
}

/// `Fake::<stub>` (`on_prompt_<prompt>`, `on_resource_<template>`): a typed stub for the
/// prompt or template of module `rust`, taking its `Args` (nothing when `no_args`).
pub(crate) fn fake_stub(what: Stubbed, stub: &str, rust: &str, no_args: bool) -> TokenStream {
    let (module, accessor, result, setter) = match what {
        Stubbed::Prompt => (
            quote!(prompts),
            "prompts::Prompts",
            quote!(::mcp_bindgen::PromptResult),
            quote!(stub_prompt),
        ),
        Stubbed::Resource => (
            quote!(resources),
            "resources::Resources",
            quote!(::mcp_bindgen::ResourceContents),
            quote!(stub_resource),
        ),
    };
    let name = ident(stub);
    let m = ident(rust);
    // An intra-doc link names a raw identifier without its `r#`.
    let doc = doc_lines(&format!(
        "Answers [`{accessor}::{}`] with `stub`.",
        naming::unraw(rust)
    ));
    if no_args {
        quote! {
            #(#doc)*
            pub fn #name(self, stub: impl StubNoArgs<#result>) -> Self {
                self.0.#setter(#module::#m::NAME, move |_: NoArgs| stub());
                self
            }
        }
    } else {
        quote! {
            #(#doc)*
            pub fn #name(self, stub: impl Stub<#module::#m::Args, #result>) -> Self {
                self.0.#setter(#module::#m::NAME, stub);
                self
            }
        }
    }
}
