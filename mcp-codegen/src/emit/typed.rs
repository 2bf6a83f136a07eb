//! The types of one normalized schema: typify, the token rewrites, and the checks that turn
//! code the user's crate could not compile into a fallback.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use serde_json::Value;

use crate::normalize;
use crate::tokens::{self, Rewrite};
use crate::typify_driver::{self, TypifyInput};

use super::items;

/// The module's code: the direct path's text when it can write the schema's types (and
/// `direct` allows it), otherwise typify → rewrites → parse check. `Err` is the fallback
/// reason.
pub(super) fn typed_module(
    n: &normalize::Normalized,
    lenient: bool,
    direct: bool,
) -> std::result::Result<String, String> {
    if direct && let Some(text) = super::direct::module(n, lenient) {
        return Ok(text);
    }
    typify_module(n, lenient).map(|tokens| tokens.to_string())
}

/// typify → rewrites → parse check. `Err` is the fallback reason.
fn typify_module(
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
    let short = tokens::free_prelude_names(&raw);
    let rewritten = tokens::rewrite(
        raw,
        &Rewrite {
            literals: &n.literals,
            lenient,
            short: &short,
        },
    );
    if let Some(krate) = foreign_crate(rewritten.clone()) {
        return Err(format!("generated code needs the `{krate}` crate"));
    }
    // Type definitions are parsed (the safety net), typify's template impls are not; a
    // stream of a shape the splitter does not know is parsed whole.
    let mut items = match items::split(rewritten.clone())? {
        Some(items) => items,
        None => {
            let file: syn::File = syn::parse2(rewritten)
                .map_err(|e| format!("typify produced code that does not parse: {e}"))?;
            items::whole(file)
        }
    };
    let file = &mut items.file;
    tokens::separate_docs(file);
    if !lenient {
        tokens::double_option(file, "Args", &n.nullable_optional);
    }
    tokens::optional_units(file);
    tokens::boxed_options(file);
    check_types(file, root_name)?;
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
        tokens::constructor(file, "Args", &required, &short);
    }
    let imports = items::rewrite(&mut items);
    Ok(items::into_tokens(items, &imports))
}

/// The first `::chrono`, `::uuid` or `::regress` path in `tokens` (crates a user of
/// `mcp-bindgen` does not have), found by a token scan.
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
    use quote::quote;

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
                    r: ::mcp_bindgen::__private::serde_json::Value,
                    chrono: u8,
                }
            )),
            None
        );
    }
}
