//! typify's output split into items at the token level, so that only what can fail is
//! parsed with `syn`, and the string enums handed to the runtime's `string_enum!`.
//!
//! typify writes, per schema, type definitions (structs, enums, type aliases: their names,
//! fields, attributes and literals come from the schema, so they are parsed — the safety
//! net that turns code the user's crate could not compile into a fallback) and `impl`
//! blocks written from fixed templates (`Display`, `FromStr`, `TryFrom`, `Default`, …),
//! which are kept as tokens: parsing them was most of the expansion's `syn` time.
//!
//! A string enum (unit variants only, each with its JSON string) loses its serde derives,
//! its `#[serde(rename)]`s and typify's `Display` / `FromStr` / `TryFrom` impls; one call
//! `::mcp_bindgen::__private::string_enum!(Name { Variant = "json", … });` gives it the same
//! impls (serde's behaviour and messages included) from code compiled once in the runtime.
//! Likewise a plain struct (named fields; `rename`, `default`, `skip_serializing_if` on
//! fields, `deny_unknown_fields` on the struct) loses its serde derives and attributes for
//! one `::mcp_bindgen::__private::serde_struct!(Name { field = "json" default
//! skip_if(path), … } deny_unknown_fields);` call.

use std::collections::BTreeSet;

use proc_macro2::{Delimiter, Ident, Spacing, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::punctuated::Punctuated;

/// One top-level item of typify's output.
pub(super) enum Piece {
    /// A type definition (or anything that is not an `impl`): parsed, index into the file.
    Parsed(usize),
    /// An `impl` block, kept as tokens, with what it implements for which type.
    Impl(ImplItem),
    /// Tokens this module wrote (a `string_enum!` call).
    Tokens(TokenStream),
}

/// An `impl` block as tokens.
pub(super) struct ImplItem {
    tokens: TokenStream,
    /// The last identifier of the trait's path (`Display`, `TryFrom`, …), `None` for an
    /// inherent `impl`.
    trait_name: Option<String>,
    /// The trait's generic argument as text without spaces (`&str` of `TryFrom<&str>`).
    trait_arg: Option<String>,
    /// The type, when it is a single identifier.
    target: Option<String>,
}

/// typify's output as parsed type definitions and kept `impl` blocks, in order.
pub(super) struct Items {
    pub(super) file: syn::File,
    pub(super) pieces: Vec<Piece>,
}

/// A stream parsed whole (a shape [`split`] does not know): every item parsed, typify's
/// error module left out as there.
pub(super) fn whole(mut file: syn::File) -> Items {
    file.items.retain(
        |item| !matches!(item, syn::Item::Mod(m) if m.ident == "error" && m.content.is_some()),
    );
    Items {
        pieces: (0..file.items.len()).map(Piece::Parsed).collect(),
        file,
    }
}

/// Splits `tokens` into items; only non-`impl` items are parsed. `Ok(None)` when the
/// stream has a shape this splitter does not know (the caller then parses it whole).
pub(super) fn split(tokens: TokenStream) -> Result<Option<Items>, String> {
    let mut file: syn::File =
        syn::parse2(TokenStream::new()).map_err(|e| format!("internal error: {e}"))?;
    let mut pieces = Vec::new();
    let mut current: Vec<TokenTree> = Vec::new();
    let mut kind: Option<Kind> = None;
    for tt in tokens {
        let ends = match (&tt, kind) {
            (TokenTree::Group(g), Some(k)) if g.delimiter() == Delimiter::Brace => {
                k.ends_at_brace()
            }
            (TokenTree::Punct(p), Some(_)) if p.as_char() == ';' => true,
            (TokenTree::Ident(id), None) => {
                kind = Kind::of(id);
                if kind.is_none() && !is_visibility(id) {
                    return Ok(None);
                }
                false
            }
            _ => false,
        };
        current.push(tt);
        if ends {
            let item = std::mem::take(&mut current);
            match kind.take() {
                Some(Kind::Impl) => pieces.push(Piece::Impl(impl_item(item))),
                // typify's `pub mod error { pub struct ConversionError … }` (30 lines per
                // module) is left out: `tokens::rewrite` points its uses at
                // `::mcp_bindgen::ConversionError` (same constructors, `Display`, `Debug`).
                Some(Kind::Mod) if is_error_module(&item) => {}
                _ => {
                    let stream: TokenStream = item.into_iter().collect();
                    let parsed: syn::Item = syn::parse2(stream)
                        .map_err(|e| format!("typify produced code that does not parse: {e}"))?;
                    pieces.push(Piece::Parsed(file.items.len()));
                    file.items.push(parsed);
                }
            }
        }
    }
    if !current.is_empty() {
        return Ok(None);
    }
    Ok(Some(Items { file, pieces }))
}

/// What kind of item a keyword starts, and so where it ends.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// `struct`: at its `{ … }` or at `;` (tuple and unit structs).
    Struct,
    /// `enum`, `mod`, `fn`, `trait`: at the body.
    Braced,
    /// `impl`: at the body; kept as tokens.
    Impl,
    /// `mod`: at the body.
    Mod,
    /// `type`, `use`, `const`, `static`: at `;` only (a value may hold braces).
    Semicolon,
}

impl Kind {
    fn of(id: &Ident) -> Option<Kind> {
        Some(match id.to_string().as_str() {
            "struct" => Kind::Struct,
            "enum" | "fn" | "trait" => Kind::Braced,
            "impl" => Kind::Impl,
            "mod" => Kind::Mod,
            "type" | "use" | "const" | "static" => Kind::Semicolon,
            _ => return None,
        })
    }

    fn ends_at_brace(self) -> bool {
        self != Kind::Semicolon
    }
}

/// `pub` (its `(crate)` is a group, skipped as a non-identifier).
fn is_visibility(id: &Ident) -> bool {
    id == "pub"
}

fn is_error_module(item: &[TokenTree]) -> bool {
    item.windows(2).any(|w| {
        matches!(w, [TokenTree::Ident(m), TokenTree::Ident(name)] if m == "mod" && name == "error")
    })
}

/// The type of an `impl` block, when it is a single identifier.
pub(super) fn impl_target(tokens: Vec<TokenTree>) -> Option<String> {
    impl_item(tokens).target
}

/// Reads what an `impl` block implements for which type (attributes come first).
fn impl_item(tokens: Vec<TokenTree>) -> ImplItem {
    let start = tokens
        .iter()
        .position(|t| matches!(t, TokenTree::Ident(id) if id == "impl"))
        .map_or(0, |i| i + 1);
    let mut i = start;
    // `impl<…>`: skip the generics.
    if matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == '<') {
        let mut depth = 0;
        while let Some(t) = tokens.get(i) {
            if let TokenTree::Punct(p) = t {
                match p.as_char() {
                    '<' => depth += 1,
                    '>' => depth -= 1,
                    _ => {}
                }
            }
            i += 1;
            if depth == 0 {
                break;
            }
        }
    }
    let body = tokens.len().saturating_sub(1);
    let for_at = (i..body).find(|&k| matches!(&tokens[k], TokenTree::Ident(id) if id == "for"));
    let mut trait_name = None;
    let mut trait_arg = None;
    let target_from = match for_at {
        Some(f) => {
            for k in i..f {
                match &tokens[k] {
                    TokenTree::Ident(id) if trait_arg.is_none() => {
                        trait_name = Some(id.to_string())
                    }
                    TokenTree::Punct(p) if p.as_char() == '<' => {
                        trait_arg = Some(generic_arg(&tokens[k + 1..f]));
                        break;
                    }
                    _ => {}
                }
            }
            f + 1
        }
        None => i,
    };
    let target = match &tokens[target_from.min(body)..body] {
        [TokenTree::Ident(id)] => Some(id.to_string()),
        _ => None,
    };
    ImplItem {
        tokens: tokens.into_iter().collect(),
        trait_name,
        trait_arg,
        target,
    }
}

/// The tokens up to the `>` closing a generic argument list, as text without spaces.
fn generic_arg(tokens: &[TokenTree]) -> String {
    let mut depth = 0;
    let mut text = String::new();
    for t in tokens {
        if let TokenTree::Punct(p) = t {
            match p.as_char() {
                '<' => depth += 1,
                '>' if depth == 0 => break,
                '>' => depth -= 1,
                _ => {}
            }
        }
        text.push_str(&t.to_string());
    }
    text.retain(|c| !c.is_whitespace());
    text
}

/// The JSON strings of a string enum's variants, if `e` is one typify wrote (unit
/// variants, serde derives, no serde attribute but `crate` on the enum and `rename` on
/// variants).
fn string_enum_values(e: &syn::ItemEnum) -> Option<Vec<String>> {
    let mut serde_derives = 0;
    for attr in &e.attrs {
        if attr.path().is_ident("doc") {
            continue;
        }
        if attr.path().is_ident("derive") {
            serde_derives += derives(attr)?
                .iter()
                .filter(|p| is_serde_derive(p).is_some())
                .count();
            continue;
        }
        if attr.path().is_ident("serde") && serde_keys(attr)? == ["crate"] {
            continue;
        }
        return None;
    }
    if serde_derives != 2 || e.variants.is_empty() {
        return None;
    }
    let mut values = Vec::with_capacity(e.variants.len());
    for v in &e.variants {
        if !matches!(v.fields, syn::Fields::Unit) || v.discriminant.is_some() {
            return None;
        }
        let mut value = None;
        for attr in &v.attrs {
            if attr.path().is_ident("doc") {
                continue;
            }
            if !attr.path().is_ident("serde") || value.is_some() {
                return None;
            }
            let syn::Meta::List(list) = &attr.meta else {
                return None;
            };
            let nv: syn::MetaNameValue = syn::parse2(list.tokens.clone()).ok()?;
            if !nv.path.is_ident("rename") {
                return None;
            }
            let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            else {
                return None;
            };
            value = Some(s.value());
        }
        values
            .push(value.unwrap_or_else(|| crate::naming::unraw(&v.ident.to_string()).to_string()));
    }
    Some(values)
}

/// The paths of a `#[derive(…)]`.
fn derives(attr: &syn::Attribute) -> Option<Punctuated<syn::Path, syn::Token![,]>> {
    attr.parse_args_with(Punctuated::parse_terminated).ok()
}

/// `Serialize` / `Deserialize` when `path` is serde's derive of that name.
fn is_serde_derive(path: &syn::Path) -> Option<&'static str> {
    let last = path.segments.last()?;
    let name = ["Serialize", "Deserialize"]
        .into_iter()
        .find(|n| last.ident == n)?;
    let via_serde = path.segments.len() == 1 || path.segments.iter().any(|s| s.ident == "serde");
    via_serde.then_some(name)
}

/// The keys of a `#[serde(key = …, key2, …)]`.
fn serde_keys(attr: &syn::Attribute) -> Option<Vec<String>> {
    let syn::Meta::List(list) = &attr.meta else {
        return None;
    };
    let mut keys = Vec::new();
    let mut expect_key = true;
    for t in list.tokens.clone() {
        match t {
            TokenTree::Ident(id) if expect_key => {
                keys.push(id.to_string());
                expect_key = false;
            }
            TokenTree::Punct(p) if p.as_char() == ',' && p.spacing() == Spacing::Alone => {
                expect_key = true;
            }
            _ => {}
        }
    }
    Some(keys)
}

/// Turns typify's string enums into `string_enum!` calls and drops the impls the macro
/// replaces; then shortens serde derive paths (`Deserialize`, with a `use` the caller
/// emits) unless an item of the module is named like one. Returns the derives to import.
pub(super) fn rewrite(items: &mut Items) -> Vec<&'static str> {
    let mut macros: Vec<(usize, TokenStream)> = Vec::new();
    let mut converted = BTreeSet::new();
    for (index, item) in items.file.items.iter_mut().enumerate() {
        let syn::Item::Enum(e) = item else { continue };
        let name = e.ident.to_string();
        let has_from_str = items.pieces.iter().any(|p| {
            matches!(p, Piece::Impl(i) if i.target.as_deref() == Some(name.as_str())
                && i.trait_name.as_deref() == Some("FromStr"))
        });
        if !has_from_str {
            continue;
        }
        let Some(values) = string_enum_values(e) else {
            continue;
        };
        // Keep docs and the other derives; variants keep their docs.
        drop_serde_attrs(&mut e.attrs);
        let mut arms = Vec::with_capacity(values.len());
        for (v, value) in e.variants.iter_mut().zip(&values) {
            v.attrs.retain(|a| a.path().is_ident("doc"));
            let ident = &v.ident;
            arms.push(quote!(#ident = #value));
        }
        let ident = &e.ident;
        macros.push((
            index,
            quote!(::mcp_bindgen::__private::string_enum!(#ident { #(#arms),* });),
        ));
        converted.insert(name);
    }
    for (index, item) in items.file.items.iter_mut().enumerate() {
        let syn::Item::Struct(st) = item else {
            continue;
        };
        if let Some(call) = serde_struct(st) {
            macros.push((index, call));
        }
    }
    items.pieces.retain(|p| match p {
        Piece::Impl(i) => !replaced_by_macro(i, &converted),
        _ => true,
    });
    // The macro call goes right after its enum.
    let mut pieces = Vec::with_capacity(items.pieces.len() + macros.len());
    for piece in items.pieces.drain(..) {
        let after = match &piece {
            Piece::Parsed(i) => macros.iter().find(|(m, _)| m == i).map(|(_, t)| t.clone()),
            _ => None,
        };
        pieces.push(piece);
        if let Some(tokens) = after {
            pieces.push(Piece::Tokens(tokens));
        }
    }
    items.pieces = pieces;
    shorten_derives(&mut items.file)
}

/// A plain struct typify wrote (named fields, both serde derives, serde attributes among
/// `crate` / `deny_unknown_fields` on the struct and `rename` / `default` /
/// `skip_serializing_if` on fields) loses its serde derives and attributes; returns the
/// `serde_struct!` call that implements them instead. Any other struct is left alone.
fn serde_struct(st: &mut syn::ItemStruct) -> Option<TokenStream> {
    if !st.generics.params.is_empty() {
        return None;
    }
    let syn::Fields::Named(fields) = &st.fields else {
        return None;
    };
    let mut serde_derives = 0;
    let mut deny_unknown = false;
    for attr in &st.attrs {
        if attr.path().is_ident("derive") {
            serde_derives += derives(attr)?
                .iter()
                .filter(|p| is_serde_derive(p).is_some())
                .count();
        } else if attr.path().is_ident("serde") {
            for key in serde_keys(attr)? {
                match key.as_str() {
                    "crate" => {}
                    "deny_unknown_fields" => deny_unknown = true,
                    _ => return None,
                }
            }
        }
    }
    if serde_derives != 2 {
        return None;
    }
    let mut entries = Vec::with_capacity(fields.named.len());
    for field in &fields.named {
        let ident = field.ident.as_ref()?;
        let mut wire = crate::naming::unraw(&ident.to_string()).to_string();
        let mut default = None;
        let mut skip_if = None;
        for attr in field.attrs.iter().filter(|a| a.path().is_ident("serde")) {
            let parsed = attr.parse_nested_meta(|meta| {
                let key = meta.path.get_ident().map(ToString::to_string);
                match key.as_deref() {
                    Some("rename") => wire = meta.value()?.parse::<syn::LitStr>()?.value(),
                    Some("skip_serializing_if") => {
                        skip_if = Some(meta.value()?.parse::<syn::LitStr>()?.parse::<syn::Path>()?);
                    }
                    Some("default") if meta.input.peek(syn::Token![=]) => {
                        let path = meta.value()?.parse::<syn::LitStr>()?.parse::<syn::Path>()?;
                        default = Some(quote!(default(#path)));
                    }
                    Some("default") => default = Some(quote!(default)),
                    _ => return Err(meta.error("not handled by serde_struct!")),
                }
                Ok(())
            });
            parsed.ok()?;
        }
        let skip_if = skip_if.map(|p| quote!(skip_if(#p)));
        entries.push(quote!(#ident = #wire #default #skip_if));
    }
    // Convertible: drop the derives and attributes the macro replaces.
    drop_serde_attrs(&mut st.attrs);
    if let syn::Fields::Named(fields) = &mut st.fields {
        for field in &mut fields.named {
            field.attrs.retain(|a| !a.path().is_ident("serde"));
        }
    }
    let name = &st.ident;
    let deny = deny_unknown.then(|| quote!(deny_unknown_fields));
    Some(quote!(::mcp_bindgen::__private::serde_struct!(#name { #(#entries),* } #deny);))
}

/// Removes every `#[serde(…)]` and the serde derives (the other derives stay): what a
/// `string_enum!` or `serde_struct!` call replaces.
fn drop_serde_attrs(attrs: &mut Vec<syn::Attribute>) {
    attrs.retain(|a| !a.path().is_ident("serde"));
    for attr in attrs.iter_mut().filter(|a| a.path().is_ident("derive")) {
        let kept: Vec<syn::Path> = derives(attr)
            .into_iter()
            .flatten()
            .filter(|p| is_serde_derive(p).is_none())
            .collect();
        *attr = syn::parse_quote!(#[derive(#(#kept),*)]);
    }
}

/// Whether `string_enum!` provides this impl of a converted enum (`Display`, `FromStr`,
/// `TryFrom<&str>`, `TryFrom<String>`).
fn replaced_by_macro(i: &ImplItem, converted: &BTreeSet<String>) -> bool {
    let Some(target) = &i.target else {
        return false;
    };
    if !converted.contains(target) {
        return false;
    }
    match i.trait_name.as_deref() {
        Some("Display" | "FromStr") => true,
        Some("TryFrom") => matches!(
            i.trait_arg.as_deref(),
            Some("&str" | "::std::string::String" | "String")
        ),
        _ => false,
    }
}

/// `#[derive(::mcp_bindgen::__private::serde::Deserialize, …)]` → `#[derive(Deserialize,
/// …)]` on every type, unless a type of the module is itself named `Serialize` or
/// `Deserialize`; returns the names the module must import.
fn shorten_derives(file: &mut syn::File) -> Vec<&'static str> {
    let names_taken = file.items.iter().any(|item| {
        let ident = match item {
            syn::Item::Struct(s) => &s.ident,
            syn::Item::Enum(e) => &e.ident,
            syn::Item::Type(t) => &t.ident,
            _ => return false,
        };
        ident == "Serialize" || ident == "Deserialize"
    });
    if names_taken {
        return Vec::new();
    }
    let mut used = BTreeSet::new();
    for item in &mut file.items {
        let attrs = match item {
            syn::Item::Struct(s) => &mut s.attrs,
            syn::Item::Enum(e) => &mut e.attrs,
            _ => continue,
        };
        for attr in attrs.iter_mut() {
            if !attr.path().is_ident("derive") {
                continue;
            }
            let Some(paths) = derives(attr) else { continue };
            if !paths.iter().any(|p| is_serde_derive(p).is_some()) {
                continue;
            }
            let short: Vec<TokenStream> = paths
                .iter()
                .map(|p| match is_serde_derive(p) {
                    Some(name) => {
                        used.insert(name);
                        let id = Ident::new(name, proc_macro2::Span::call_site());
                        quote!(#id)
                    }
                    None => p.to_token_stream(),
                })
                .collect();
            *attr = syn::parse_quote!(#[derive(#(#short),*)]);
        }
    }
    used.into_iter().collect()
}

/// The items back as one token stream, in typify's order (items the passes added last),
/// preceded by the `use` of the shortened derives.
pub(super) fn into_tokens(items: Items, imports: &[&str]) -> TokenStream {
    let mut out = TokenStream::new();
    if !imports.is_empty() {
        let names = imports
            .iter()
            .map(|n| Ident::new(n, proc_macro2::Span::call_site()));
        out.extend(quote!(use ::mcp_bindgen::__private::serde::{#(#names),*};));
    }
    let mut file_items: Vec<Option<syn::Item>> = items.file.items.into_iter().map(Some).collect();
    for piece in items.pieces {
        match piece {
            Piece::Parsed(i) => {
                if let Some(item) = file_items.get_mut(i).and_then(Option::take) {
                    item.to_tokens(&mut out);
                }
            }
            Piece::Impl(i) => out.extend(i.tokens),
            Piece::Tokens(t) => out.extend(t),
        }
    }
    for item in file_items.into_iter().flatten() {
        item.to_tokens(&mut out);
    }
    out
}
