//! Rewrites of typify's output so it needs nothing but `mcp-bindgen` in the user's crate.
//!
//! * `::serde::…` / `::serde_json::…` paths (also inside attribute strings such as
//!   `skip_serializing_if = "::serde_json::Map::is_empty"`) become
//!   `::mcp_bindgen::__private::serde…`;
//! * every `#[derive(…Serialize/Deserialize…)]` is followed by
//!   `#[serde(crate = "::mcp_bindgen::__private::serde")]`;
//! * placeholder strings planted by the normalizer are restored to the server's strings;
//! * output types lose `deny_unknown_fields` (lenient decoding);
//! * optional top-level arguments that accept `null` become `Option<Option<T>>`;
//! * uses of typify's per-module `error` module (left out by `emit::items`) point at
//!   `::mcp_bindgen::ConversionError`.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote};

/// The runtime's re-export of serde, as a path string.
pub(crate) const SERDE: &str = "::mcp_bindgen::__private::serde";

/// What to rewrite.
pub(crate) struct Rewrite<'a> {
    /// Placeholder → original string.
    pub literals: &'a BTreeMap<String, String>,
    /// Remove `deny_unknown_fields`.
    pub lenient: bool,
    /// Prelude names to write short (see [`free_prelude_names`]).
    pub short: &'a [&'static str],
}

/// std items that generated modules name by their prelude name (`::std::option::Option` →
/// `Option`), with the std module each lives in. The prelude of every edition has them.
const PRELUDE: [(&str, &str); 9] = [
    ("option", "Option"),
    ("result", "Result"),
    ("string", "String"),
    ("string", "ToString"),
    ("vec", "Vec"),
    ("boxed", "Box"),
    ("default", "Default"),
    ("convert", "From"),
    ("convert", "Into"),
];

/// The names of [`PRELUDE`] that typify's module `tokens` does not define itself. The
/// normalizer already renames definitions and titles that would take such a name (`String`
/// → `StringDef`); should one get through, `String` stays `::std::string::String` there.
pub(crate) fn free_prelude_names(tokens: &TokenStream) -> Vec<&'static str> {
    let mut taken = BTreeSet::new();
    let mut after_keyword = false;
    for t in tokens.clone() {
        match t {
            TokenTree::Ident(id) => {
                if after_keyword {
                    taken.insert(id.to_string());
                }
                after_keyword = [
                    "struct", "enum", "type", "mod", "fn", "const", "static", "trait", "union",
                ]
                .iter()
                .any(|k| id == k);
            }
            _ => after_keyword = false,
        }
    }
    PRELUDE
        .iter()
        .map(|(_, name)| *name)
        .filter(|name| !taken.contains(*name))
        .collect()
}

/// The prelude name at `tokens[i..]` when they spell `::std::<module>::<Name>` (or
/// `::core::…`) of [`PRELUDE`] and `Name` is in `short`.
fn prelude_path(tokens: &[TokenTree], i: usize, short: &[&'static str]) -> Option<Ident> {
    let colon =
        |k: usize| matches!(tokens.get(i + k), Some(TokenTree::Punct(p)) if p.as_char() == ':');
    let ident = |k: usize| match tokens.get(i + k) {
        Some(TokenTree::Ident(id)) => Some(id),
        _ => None,
    };
    if !(colon(0) && colon(1) && colon(3) && colon(4) && colon(6) && colon(7)) {
        return None;
    }
    let krate = ident(2)?;
    if krate != "std" && krate != "core" {
        return None;
    }
    let (module, name) = (ident(5)?, ident(8)?);
    PRELUDE
        .iter()
        .any(|(m, n)| module == m && name == n && short.contains(n))
        .then(|| name.clone())
}

/// Applies the token-level rewrites to a token stream.
pub(crate) fn rewrite(tokens: TokenStream, rw: &Rewrite<'_>) -> TokenStream {
    let input: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        match &input[i] {
            // `#[…]` attributes.
            TokenTree::Punct(p) if p.as_char() == '#' => {
                if let Some(TokenTree::Group(g)) = input.get(i + 1)
                    && g.delimiter() == Delimiter::Bracket
                {
                    let inner = rewrite(g.stream(), rw);
                    match attribute(&inner, rw) {
                        AttrAction::Keep => push_attr(&mut out, p.clone(), g, inner),
                        AttrAction::Drop => {}
                        AttrAction::Replace(new_inner) => {
                            push_attr(&mut out, p.clone(), g, new_inner)
                        }
                        AttrAction::AddSerdeCrate => {
                            push_attr(&mut out, p.clone(), g, inner);
                            out.extend(serde_crate_attr());
                        }
                    }
                    i += 2;
                    continue;
                }
                out.push(input[i].clone());
            }
            // `::serde` / `::serde_json` path starts.
            TokenTree::Punct(p) if p.as_char() == ':' && p.spacing() == Spacing::Joint => {
                let second =
                    matches!(input.get(i + 1), Some(TokenTree::Punct(q)) if q.as_char() == ':');
                let krate = match input.get(i + 2) {
                    Some(TokenTree::Ident(id)) if id == "serde" || id == "serde_json" => {
                        Some(id.clone())
                    }
                    _ => None,
                };
                let after_private =
                    matches!(out.last(), Some(TokenTree::Ident(id)) if id == "__private");
                match (second, krate) {
                    (true, Some(krate)) if !after_private => {
                        out.extend(quote!(::mcp_bindgen::__private::));
                        out.push(TokenTree::Ident(krate));
                        i += 3;
                        continue;
                    }
                    _ => {}
                }
                // `::std::option::Option` → `Option` (a leading `::` only: not after a
                // name, as in `my::std::…`; keywords such as `impl` or `for` may precede).
                let after_name = matches!(out.last(), Some(TokenTree::Ident(id))
                    if !["impl", "for", "as", "dyn", "pub", "where", "in", "mut", "return"]
                        .iter()
                        .any(|k| id == k));
                if !after_name && let Some(name) = prelude_path(&input, i, rw.short) {
                    out.push(TokenTree::Ident(name));
                    i += 9;
                    continue;
                }
                out.push(input[i].clone());
            }
            // `self::error::ConversionError` → `::mcp_bindgen::ConversionError`.
            TokenTree::Ident(_) if is_error_module_path(&input, i) => {
                out.extend(quote!(::mcp_bindgen::));
                i += 6;
                continue;
            }
            TokenTree::Literal(lit) => out.push(TokenTree::Literal(rewrite_literal(lit, rw))),
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), rewrite(g.stream(), rw));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

fn push_attr(out: &mut Vec<TokenTree>, hash: Punct, original: &Group, inner: TokenStream) {
    out.push(TokenTree::Punct(hash));
    let mut group = Group::new(Delimiter::Bracket, inner);
    group.set_span(original.span());
    out.push(TokenTree::Group(group));
}

fn serde_crate_attr() -> TokenStream {
    let path = Literal::string(SERDE);
    quote!(#[serde(crate = #path)])
}

enum AttrAction {
    Keep,
    Drop,
    Replace(TokenStream),
    AddSerdeCrate,
}

/// Decides what to do with the (already rewritten) content of one `#[…]`.
fn attribute(inner: &TokenStream, rw: &Rewrite<'_>) -> AttrAction {
    let tokens: Vec<TokenTree> = inner.clone().into_iter().collect();
    let Some(TokenTree::Ident(name)) = tokens.first() else {
        return AttrAction::Keep;
    };
    if name == "derive" {
        let serde_derive = tokens.iter().any(|t| match t {
            TokenTree::Group(g) => g.stream().into_iter().any(
                |t| matches!(&t, TokenTree::Ident(id) if id == "Serialize" || id == "Deserialize"),
            ),
            _ => false,
        });
        if serde_derive {
            return AttrAction::AddSerdeCrate;
        }
        return AttrAction::Keep;
    }
    if name == "serde"
        && rw.lenient
        && let Some(TokenTree::Group(args)) = tokens.get(1)
    {
        // Split the list at top-level commas and drop `deny_unknown_fields`.
        let mut items: Vec<Vec<TokenTree>> = vec![Vec::new()];
        for t in args.stream() {
            match &t {
                TokenTree::Punct(p) if p.as_char() == ',' => items.push(Vec::new()),
                _ => {
                    if let Some(last) = items.last_mut() {
                        last.push(t);
                    }
                }
            }
        }
        let before = items.len();
        items.retain(|item| {
            !(item.is_empty()
                || matches!(item.as_slice(), [TokenTree::Ident(id)] if id == "deny_unknown_fields"))
        });
        if items.len() == before {
            return AttrAction::Keep;
        }
        if items.is_empty() {
            return AttrAction::Drop;
        }
        let mut list = TokenStream::new();
        for (n, item) in items.into_iter().enumerate() {
            if n > 0 {
                list.extend([TokenTree::Punct(Punct::new(',', Spacing::Alone))]);
            }
            list.extend(item);
        }
        let ident = Ident::new("serde", Span::call_site());
        return AttrAction::Replace(quote!(#ident(#list)));
    }
    AttrAction::Keep
}

/// Restores placeholders and rewrites serde paths inside string literals.
fn rewrite_literal(lit: &Literal, rw: &Rewrite<'_>) -> Literal {
    let text = lit.to_string();
    // Fast path (most literals): only placeholders (which contain `'`) and serde paths are
    // rewritten, so anything else needs no unescaping.
    if !text.starts_with('"')
        || !(text.contains('\'') || text.contains("::serde") || text.contains("option::Option"))
    {
        return lit.clone();
    }
    let Ok(parsed) = syn::parse_str::<syn::LitStr>(&text) else {
        return lit.clone();
    };
    let value = parsed.value();
    let new = if let Some(original) = rw.literals.get(&value) {
        original.clone()
    } else if let Some(rest) = value.strip_prefix("::serde_json::") {
        format!("::mcp_bindgen::__private::serde_json::{rest}")
    } else if let Some(rest) = value.strip_prefix("::serde::") {
        format!("{SERDE}::{rest}")
    } else if (value == "::std::option::Option::is_none"
        || value == "::core::option::Option::is_none")
        && rw.short.contains(&"Option")
    {
        "Option::is_none".to_string()
    } else {
        return lit.clone();
    };
    let mut out = Literal::string(&new);
    out.set_span(lit.span());
    out
}

/// Wraps the named fields of struct `Args` in one more `Option` (JSON names given):
/// `None` omits the argument, `Some(None)` sends `null`.
pub(crate) fn double_option(
    file: &mut syn::File,
    struct_name: &str,
    json_names: &BTreeSet<String>,
) {
    if json_names.is_empty() {
        return;
    }
    for item in &mut file.items {
        let syn::Item::Struct(s) = item else { continue };
        if s.ident != struct_name {
            continue;
        }
        let syn::Fields::Named(fields) = &mut s.fields else {
            continue;
        };
        for field in &mut fields.named {
            let Some(ident) = &field.ident else { continue };
            let json_name = serde_rename(&field.attrs).unwrap_or_else(|| {
                let s = ident.to_string();
                s.strip_prefix("r#").unwrap_or(&s).to_string()
            });
            if !json_names.contains(&json_name) {
                continue;
            }
            let ty = &field.ty;
            let Some(option) = option_path(ty) else {
                continue;
            };
            if let Ok(new_ty) = syn::parse2::<syn::Type>(quote!(#option<#ty>)) {
                field.ty = new_ty;
                let doc = " `None` leaves the argument out; `Some(None)` sends `null`.";
                field.attrs.push(syn::parse_quote!(#[doc = ""]));
                field.attrs.push(syn::parse_quote!(#[doc = #doc]));
            }
        }
    }
}

/// Whether `tokens[i..]` starts with `self::error::` (typify's path to its error module).
fn is_error_module_path(tokens: &[TokenTree], i: usize) -> bool {
    let punct =
        |k: usize| matches!(tokens.get(i + k), Some(TokenTree::Punct(p)) if p.as_char() == ':');
    matches!(tokens.get(i), Some(TokenTree::Ident(id)) if id == "self")
        && punct(1)
        && punct(2)
        && matches!(tokens.get(i + 3), Some(TokenTree::Ident(id)) if id == "error")
        && punct(4)
        && punct(5)
}

/// Optional properties whose only value is `null` (typify: a `()` field with
/// `#[serde(default)]`, which always sends `null`) become `Option<()>` left out when `None`:
/// "absent" and `null` are different values.
pub(crate) fn optional_units(file: &mut syn::File) {
    for item in &mut file.items {
        let syn::Item::Struct(s) = item else { continue };
        let syn::Fields::Named(fields) = &mut s.fields else {
            continue;
        };
        for field in &mut fields.named {
            let is_unit = matches!(&field.ty, syn::Type::Tuple(t) if t.elems.is_empty());
            if !is_unit || !has_serde_default(&field.attrs) {
                continue;
            }
            field.ty = syn::parse_quote!(::std::option::Option<()>);
            field.attrs.push(syn::parse_quote!(
                #[serde(skip_serializing_if = "::std::option::Option::is_none")]
            ));
            let doc = " `None` leaves it out; `Some(())` sends `null`.";
            field.attrs.push(syn::parse_quote!(#[doc = ""]));
            field.attrs.push(syn::parse_quote!(#[doc = #doc]));
        }
    }
}

/// A recursive optional field typify boxes around its `Option` (`again: Box<Option<Node>>`,
/// `#[serde(default)]` only) serializes an absent value as `null`, which the schema may not
/// allow: it becomes `Option<Box<Node>>`, left out when `None`.
pub(crate) fn boxed_options(file: &mut syn::File) {
    for item in &mut file.items {
        let syn::Item::Struct(s) = item else { continue };
        let syn::Fields::Named(fields) = &mut s.fields else {
            continue;
        };
        for field in &mut fields.named {
            let Some(inner) = boxed_option(&field.ty) else {
                continue;
            };
            field.ty = syn::parse_quote!(::std::option::Option<::std::boxed::Box<#inner>>);
            if !serde_word(&field.attrs, "skip_serializing_if") {
                field.attrs.push(syn::parse_quote!(
                    #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                ));
            }
        }
    }
}

/// `T` of a `Box<Option<T>>` (any spelling of both paths).
fn boxed_option(ty: &syn::Type) -> Option<syn::Type> {
    let only_arg = |ty: &syn::Type, name: &str| -> Option<syn::Type> {
        let syn::Type::Path(p) = ty else { return None };
        let last = p.path.segments.last()?;
        if last.ident != name {
            return None;
        }
        let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
            return None;
        };
        match args.args.first() {
            Some(syn::GenericArgument::Type(t)) if args.args.len() == 1 => Some(t.clone()),
            _ => None,
        }
    };
    only_arg(&only_arg(ty, "Box")?, "Option")
}

/// `impl Args { pub fn new(required…) -> Self }` for a struct `Args` with required fields
/// (those serde requires: no `#[serde(default)]`), so a call names only what it must:
/// `Args { head: Some(3), ..Args::new(path) }`. Parameters follow `required` (the schema's
/// order, JSON names), then any other required field in field order; `String` parameters
/// take `impl Into<String>`. The other fields get their serde default. When two required
/// fields share a type, positions could be swapped silently: they are named instead
/// ([`required_struct`]), or, without optional fields, there is no `new` (the struct literal).
pub(crate) fn constructor(
    file: &mut syn::File,
    struct_name: &str,
    required: &[String],
    short: &[&'static str],
) {
    let default = if short.contains(&"Default") {
        quote!(Default::default())
    } else {
        quote!(::std::default::Default::default())
    };
    let into = if short.contains(&"Into") {
        quote!(Into)
    } else {
        quote!(::std::convert::Into)
    };
    let Some(fields) = file.items.iter().find_map(|item| match item {
        syn::Item::Struct(s) if s.ident == struct_name => match &s.fields {
            syn::Fields::Named(f) => Some(f.named.clone()),
            _ => None,
        },
        _ => None,
    }) else {
        return;
    };
    let json_name = |f: &syn::Field| {
        serde_rename(&f.attrs).unwrap_or_else(|| {
            let s = f
                .ident
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default();
            s.strip_prefix("r#").unwrap_or(&s).to_string()
        })
    };
    let mut params: Vec<&syn::Field> = required
        .iter()
        .filter_map(|r| fields.iter().find(|f| json_name(f) == *r))
        .filter(|f| serde_requires(f))
        .collect();
    for f in &fields {
        if serde_requires(f) && !params.iter().any(|p| std::ptr::eq(*p, f)) {
            params.push(f);
        }
    }
    if params.is_empty() {
        return;
    }
    let type_text = |f: &syn::Field| {
        let text = f.ty.to_token_stream().to_string().replace(' ', "");
        if text == "::std::string::String" {
            "String".to_string()
        } else {
            text
        }
    };
    let same_typed = params
        .iter()
        .enumerate()
        .any(|(i, a)| params[..i].iter().any(|b| type_text(a) == type_text(b)));
    if same_typed {
        // Without optional fields the struct literal names every argument already.
        if params.len() < fields.len() {
            required_struct(file, struct_name, &fields, &params, &default, json_name);
        }
        return;
    }
    let mut args = Vec::new();
    let mut inits = Vec::new();
    for f in &fields {
        let Some(ident) = &f.ident else { return };
        if params.iter().any(|p| std::ptr::eq(*p, f)) {
            continue;
        }
        let value = match serde_default_path(&f.attrs) {
            Some(path) => quote!(#path()),
            None => default.clone(),
        };
        inits.push(quote!(#ident: #value));
    }
    let mut names = Vec::new();
    for p in &params {
        let Some(ident) = &p.ident else { return };
        let ty = &p.ty;
        let text = ty.to_token_stream().to_string().replace(' ', "");
        if text == "::std::string::String" || text == "String" {
            args.push(quote!(#ident: impl #into<#ty>));
            inits.push(quote!(#ident: #ident.into()));
        } else {
            args.push(quote!(#ident: #ty));
            inits.push(quote!(#ident));
        }
        names.push(format!("`{}`", json_name(p)));
    }
    let doc = format!(
        " The required arguments ({}); every optional one left out. Set others with \
         `{struct_name} {{ field: Some(…), ..{struct_name}::new(…) }}`.",
        names.join(", ")
    );
    let name = syn::Ident::new(struct_name, Span::call_site());
    file.items.push(syn::parse_quote! {
        impl #name {
            #[doc = #doc]
            pub fn new(#(#args),*) -> Self {
                Self { #(#inits),* }
            }
        }
    });
}

/// The constructor when two required arguments share a type (`owner` and `repo`, both
/// strings): by position, swapping them would compile silently, so they are named instead —
/// a struct `Required` (another free name when a schema type took that one) holding the
/// required fields, and `new(required: Required)`.
fn required_struct(
    file: &mut syn::File,
    struct_name: &str,
    fields: &syn::punctuated::Punctuated<syn::Field, syn::token::Comma>,
    params: &[&syn::Field],
    default: &TokenStream,
    json_name: impl Fn(&syn::Field) -> String,
) {
    let taken = |name: &str| {
        file.items.iter().any(|item| match item {
            syn::Item::Struct(s) => s.ident == name,
            syn::Item::Enum(e) => e.ident == name,
            syn::Item::Type(t) => t.ident == name,
            _ => false,
        })
    };
    let Some(required_name) = ["Required", "RequiredArgs", "ArgsRequired"]
        .into_iter()
        .find(|n| !taken(n))
    else {
        return;
    };
    let required = syn::Ident::new(required_name, Span::call_site());
    let mut members = Vec::new();
    let mut inits = Vec::new();
    let mut names = Vec::new();
    for p in params {
        let Some(ident) = &p.ident else { return };
        let ty = &p.ty;
        let docs = p.attrs.iter().filter(|a| a.path().is_ident("doc"));
        members.push(quote!(#(#docs)* pub #ident: #ty));
        names.push(format!("`{}`", json_name(p)));
    }
    // In field order, as the direct writer puts them.
    for f in fields {
        let Some(ident) = &f.ident else { return };
        if params.iter().any(|p| std::ptr::eq(*p, f)) {
            inits.push(quote!(#ident: required.#ident));
            continue;
        }
        let value = match serde_default_path(&f.attrs) {
            Some(path) => quote!(#path()),
            None => default.clone(),
        };
        inits.push(quote!(#ident: #value));
    }
    let struct_doc = format!(
        " The required arguments of [`{struct_name}`] ({}), by name: several share a type, so \
         none is taken by position. `{struct_name}::new({required_name} {{ … }})`.",
        names.join(", ")
    );
    let new_doc = format!(
        " The required arguments, by name; every optional one left out. Set others with \
         `{struct_name} {{ field: Some(…), ..{struct_name}::new({required_name} {{ … }}) }}`."
    );
    let name = syn::Ident::new(struct_name, Span::call_site());
    file.items.push(syn::parse_quote! {
        #[doc = #struct_doc]
        #[derive(Clone, Debug)]
        pub struct #required {
            #(#members),*
        }
    });
    file.items.push(syn::parse_quote! {
        impl #name {
            #[doc = #new_doc]
            pub fn new(required: #required) -> Self {
                Self { #(#inits),* }
            }
        }
    });
}

/// Whether serde fails to decode the struct without this field: no `#[serde(default)]`, and
/// not an `Option` (serde reads a missing `Option` as `None`) unless decoded with
/// `deserialize_with` (a required property that accepts `null`).
fn serde_requires(field: &syn::Field) -> bool {
    if has_serde_default(&field.attrs) {
        return false;
    }
    option_path(&field.ty).is_none() || serde_word(&field.attrs, "deserialize_with")
}

/// The path `ty` names `Option` by (`Option` or `::std::option::Option`), if it is one.
fn option_path(ty: &syn::Type) -> Option<TokenStream> {
    let text = ty.to_token_stream().to_string().replace(' ', "");
    if text.starts_with("Option<") {
        Some(quote!(Option))
    } else if text.starts_with("::std::option::Option<") {
        Some(quote!(::std::option::Option))
    } else {
        None
    }
}

/// Whether a `#[serde(…)]` attribute names `word`.
fn serde_word(attrs: &[syn::Attribute], word: &str) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("serde")
            && matches!(&attr.meta, syn::Meta::List(list)
                if list.tokens.clone().into_iter().any(|t| matches!(t, TokenTree::Ident(i) if i == word)))
    })
}

/// The function of a field's `#[serde(default = "path")]`, as a path.
fn serde_default_path(attrs: &[syn::Attribute]) -> Option<syn::Path> {
    serde_string(attrs, "default")?.parse().ok()
}

/// Whether a field has `#[serde(default)]` (or `default = …`).
fn has_serde_default(attrs: &[syn::Attribute]) -> bool {
    serde_word(attrs, "default")
}

/// The `rename = "…"` value of a field's `#[serde(…)]` attributes.
fn serde_rename(attrs: &[syn::Attribute]) -> Option<String> {
    serde_string(attrs, "rename").map(|s| s.value())
}

/// The string value of `key = "…"` in a field's `#[serde(…)]` attributes.
fn serde_string(attrs: &[syn::Attribute], key: &str) -> Option<syn::LitStr> {
    for attr in attrs {
        if !attr.path().is_ident("serde") {
            continue;
        }
        let syn::Meta::List(list) = &attr.meta else {
            continue;
        };
        let tokens: Vec<TokenTree> = list.tokens.clone().into_iter().collect();
        for w in tokens.windows(3) {
            if let [
                TokenTree::Ident(id),
                TokenTree::Punct(eq),
                TokenTree::Literal(lit),
            ] = w
                && id == key
                && eq.as_char() == '='
                && let Ok(s) = syn::parse_str::<syn::LitStr>(&lit.to_string())
            {
                return Some(s);
            }
        }
    }
    None
}

pub(crate) fn ident(name: &str) -> proc_macro2::Ident {
    match name.strip_prefix("r#") {
        Some(raw) => proc_macro2::Ident::new_raw(raw, proc_macro2::Span::call_site()),
        None => format_ident!("{}", name),
    }
}

/// `#[doc = " line"]` attributes for a text, made safe for rustdoc: code fences without a
/// language become `text` (no doctests from server strings) and deep indentation is cut so
/// nothing becomes an indented code block.
pub(crate) fn doc_lines(text: &str) -> Vec<TokenStream> {
    separated_lines(&safe_doc(text))
        .map(|line| quote!(#[doc = #line]))
        .collect()
}

/// [`doc_lines`] as inner attributes (`#![doc = " line"]`), for a module's own docs: rustdoc
/// resolves the links of a module's outer docs in its parent, of its inner docs in it.
pub(crate) fn inner_doc_lines(text: &str) -> Vec<TokenStream> {
    separated_lines(&safe_doc(text))
        .map(|line| quote!(#![doc = #line]))
        .collect()
}

/// [`doc_lines`] as code: `#[doc = " line"] ` per line.
pub(crate) fn doc_text(out: &mut String, text: &str) {
    for line in safe_doc(text).lines() {
        out.push_str("#[doc = ");
        if line.is_empty() {
            out.push_str("\"\"");
        } else {
            out.push('"');
            out.push(' ');
            string_lit_body(out, line);
            out.push('"');
        }
        out.push_str("] ");
    }
}

/// The doc lines of a description as the generated code writes them: each line after one
/// separating space (`/// text`), an empty line empty (`///`); the text is otherwise kept as
/// it is (an indented line keeps its indentation after the separating space).
pub(crate) fn separated_lines(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines().map(|line| {
        if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        }
    })
}

/// typify's docs (a description as one `#[doc = "text"]`, without the space after `///`)
/// on the types, fields and variants of `file` as the rest of the generated code writes
/// them: one `#[doc = " line"]` per line (see [`separated_lines`]).
pub(crate) fn separate_docs(file: &mut syn::File) {
    fn fields(fields: &mut syn::Fields) {
        for field in fields.iter_mut() {
            separate(&mut field.attrs);
        }
    }
    for item in &mut file.items {
        match item {
            syn::Item::Struct(s) => {
                separate(&mut s.attrs);
                fields(&mut s.fields);
            }
            syn::Item::Enum(e) => {
                separate(&mut e.attrs);
                for v in &mut e.variants {
                    separate(&mut v.attrs);
                    fields(&mut v.fields);
                }
            }
            syn::Item::Union(u) => {
                separate(&mut u.attrs);
                for field in &mut u.fields.named {
                    separate(&mut field.attrs);
                }
            }
            syn::Item::Type(t) => separate(&mut t.attrs),
            _ => {}
        }
    }
}

/// [`separate_docs`] of one list of attributes.
fn separate(attrs: &mut Vec<syn::Attribute>) {
    let text = |attr: &syn::Attribute| match &attr.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    };
    if !attrs.iter().any(|a| text(a).is_some()) {
        return;
    }
    let mut out = Vec::with_capacity(attrs.len() + 1);
    for attr in attrs.drain(..) {
        let Some(lit) = text(&attr) else {
            out.push(attr);
            continue;
        };
        for line in separated_lines(&lit.value()) {
            let mut doc = attr.clone();
            if let syn::Meta::NameValue(nv) = &mut doc.meta {
                nv.value = syn::Expr::Lit(syn::ExprLit {
                    attrs: Vec::new(),
                    lit: syn::Lit::Str(syn::LitStr::new(&line, lit.span())),
                });
            }
            out.push(doc);
        }
    }
    *attrs = out;
}

/// `text` as a Rust string literal, escaped as `proc_macro2::Literal::string` does (so
/// formatted expansions are byte-identical to typify's path).
pub(crate) fn string_lit(out: &mut String, text: &str) {
    out.push('"');
    string_lit_body(out, text);
    out.push('"');
}

/// The characters of [`string_lit`] between its quotes. Runs of printable ASCII other
/// than `"` and `\` are copied as they are (an index loop: this runs on every schema and
/// description, in the macro's unoptimized build).
fn string_lit_body(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        let b = bytes[i];
        if matches!(b, 0x20..=0x7e) && b != b'"' && b != b'\\' {
            i += 1;
            continue;
        }
        out.push_str(&text[start..i]);
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        match c {
            // `escape_debug` would write `\u{0}`.
            '\0' if bytes.get(i + 1).is_some_and(|n| (b'0'..=b'7').contains(n)) => {
                out.push_str("\\x00")
            }
            '\0' => out.push_str("\\0"),
            c => out.extend(c.escape_debug()),
        }
        i += c.len_utf8();
        start = i;
    }
    out.push_str(&text[start..]);
}

/// A server's text (a description) made safe for rustdoc as plain text, so that `cargo doc`
/// with `-D warnings` passes on the generated code (`cargo mcp-bindgen expand` into a crate):
/// outside code spans and fenced blocks, `[` and `]` are escaped (`[FILE]` is no broken
/// link), and `<` (`<revision>:<path>` is no unclosed HTML tag), and a bare `http(s)://` URL
/// becomes an autolink. The text reads the same once rendered.
pub(crate) fn server_doc(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            out.push_str(line);
            continue;
        }
        if in_fence {
            out.push_str(line);
            continue;
        }
        // Code spans (a run of backticks to the same run) stay as they are.
        let mut rest = line;
        while let Some(start) = rest.find('`') {
            escape_plain(&mut out, &rest[..start]);
            let after = &rest[start..];
            let ticks = after.len() - after.trim_start_matches('`').len();
            let fence = &after[..ticks];
            match after[ticks..].find(fence) {
                Some(end) => {
                    let span = ticks + end + ticks;
                    out.push_str(&after[..span]);
                    rest = &after[span..];
                }
                None => {
                    // An unmatched run is literal backticks.
                    out.push_str(fence);
                    rest = &after[ticks..];
                }
            }
        }
        escape_plain(&mut out, rest);
    }
    out
}

/// [`server_doc`] outside code: brackets and `<` escaped, bare URLs as autolinks.
fn escape_plain(out: &mut String, text: &str) {
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        // An autolink already (`<https://…>`): as it is.
        if (rest.starts_with("<http://") || rest.starts_with("<https://"))
            && let Some(close) = rest.find('>')
            && !rest[..close].contains(char::is_whitespace)
        {
            out.push_str(&rest[..=close]);
            i += close + 1;
            continue;
        }
        if rest.starts_with("http://") || rest.starts_with("https://") {
            let end = rest
                .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '`' | '[' | ']'))
                .unwrap_or(rest.len());
            let mut url = rest[..end].trim_end_matches(['.', ',', ';', ':', '!', '?', '\'', '*']);
            // A closing parenthesis ends the URL unless the URL opened one.
            while url.ends_with(')') && url.matches(')').count() > url.matches('(').count() {
                url = url[..url.len() - 1].trim_end_matches(['.', ',', ';', ':', '!', '?']);
            }
            if url.len() > "https://".len() {
                out.push('<');
                out.push_str(url);
                out.push('>');
                i += url.len();
                continue;
            }
        }
        let Some(c) = rest.chars().next() else { break };
        match c {
            '[' | ']' | '<' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
        i += c.len_utf8();
    }
}

/// See [`doc_lines`].
pub(crate) fn safe_doc(text: &str) -> String {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.trim_end().lines() {
        let trimmed = line.trim_start();
        let indent = (line.len() - trimmed.len()).min(3);
        let mut l = format!("{}{}", " ".repeat(indent), trimmed.trim_end());
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            if !in_fence {
                let info = trimmed.trim_start_matches(['`', '~']).trim();
                if info.is_empty() || info == "rust" {
                    l = format!("{}```text", " ".repeat(indent));
                } else {
                    l = format!("{}```{info}", " ".repeat(indent));
                }
            } else {
                l = format!("{}```", " ".repeat(indent));
            }
            in_fence = !in_fence;
        }
        out.push(l);
    }
    if in_fence {
        out.push("```".to_string());
    }
    out.join("\n")
}

/// `::core::option::Option<&str>` as a constant expression.
pub(crate) fn opt_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

/// Test helper: `module` formatted by prettyplease, every run of whitespace collapsed to
/// one space (what the emitters' tests search).
#[cfg(test)]
pub(crate) fn collapsed_pretty(module: TokenStream) -> String {
    let file: syn::File = syn::parse2(module).expect("the generated module parses");
    let pretty = prettyplease::unparse(&file);
    pretty.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_text_is_plain_text_for_rustdoc() {
        assert_eq!(
            server_doc("Lists [FILE] and [DIR] entries of <revision>:<path>."),
            r"Lists \[FILE\] and \[DIR\] entries of \<revision>:\<path>."
        );
        // Code spans and fences keep their text; URLs become autolinks.
        assert_eq!(
            server_doc("Use `a[0]<b>` or ``x`y[z]``, see https://example.com/a_(b). Done"),
            "Use `a[0]<b>` or ``x`y[z]``, see <https://example.com/a_(b)>. Done"
        );
        assert_eq!(
            server_doc("(see https://a.example/x), <https://b.example/y>"),
            "(see <https://a.example/x>), <https://b.example/y>"
        );
        assert_eq!(
            server_doc("```\n[x] <y>\n```\n[z]"),
            "```\n[x] <y>\n```\n\\[z\\]"
        );
        assert_eq!(server_doc("an ` alone [x]"), r"an ` alone \[x\]");
    }

    #[test]
    fn literals_are_escaped_like_proc_macro2() {
        for text in [
            "plain",
            "quote \" and 'apostrophe'",
            "back\\slash\nnew\tline\r",
            "nul\0 and nul\u{0}7",
            "zoë ∑ \u{200b} \u{7f} 🎉",
        ] {
            let mut ours = String::new();
            string_lit(&mut ours, text);
            assert_eq!(ours, Literal::string(text).to_string(), "{text:?}");
        }
        let mut ours = String::new();
        doc_text(&mut ours, "a \"b\"\n\nc");
        let lines: Vec<String> = doc_lines("a \"b\"\n\nc")
            .iter()
            .map(|t| format!("{t}"))
            .collect();
        let theirs: TokenStream = ours.parse().unwrap();
        assert_eq!(theirs.to_string(), lines.join(" "));
    }

    #[test]
    fn typify_docs_get_one_separating_space_per_line_and_nothing_else() {
        let mut file: syn::File = syn::parse_quote! {
            #[doc = "Options:\n  - a\n\n    code?\n\twith a tab"]
            #[derive(Clone)]
            pub struct Args {
                #[doc = "`id`"]
                pub id: String,
                #[serde(rename = "x")]
                pub x: u8,
            }
            #[doc = "E"]
            pub enum E {
                #[doc = "A variant"]
                A { #[doc = "inner"] n: u8 },
            }
            #[doc = " Generation of default values for serde."]
            pub mod defaults {}
        };
        separate_docs(&mut file);
        let text = prettyplease::unparse(&file);
        assert!(
            text.starts_with(
                "/// Options:\n///   - a\n///\n///     code?\n/// \twith a tab\n#[derive(Clone)]\npub struct Args {\n    /// `id`\n    pub id: String,\n    #[serde(rename = \"x\")]\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("/// E\npub enum E {\n    /// A variant\n    A {\n        /// inner\n"),
            "{text}"
        );
        // Not typify's description docs: left as they are.
        assert!(
            text.contains("/// Generation of default values for serde.\npub mod defaults"),
            "{text}"
        );
    }

    fn rw(tokens: TokenStream, lenient: bool, literals: &[(&str, &str)]) -> String {
        let map: BTreeMap<String, String> = literals
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        rewrite(
            tokens,
            &Rewrite {
                literals: &map,
                lenient,
                short: &[],
            },
        )
        .to_string()
    }

    #[test]
    fn prelude_paths_are_short_unless_the_module_takes_the_name() {
        let tokens = quote! {
            pub struct Args {
                #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                pub a: ::std::option::Option<::std::vec::Vec<::std::string::String>>,
                pub b: ::core::option::Option<String>,
                pub c: my::std::option::Option<u8>,
            }
            pub struct String(pub ::std::string::String);
            impl ::std::convert::From<::std::boxed::Box<str>> for Args {}
            impl ::std::fmt::Display for Args {}
        };
        let short = free_prelude_names(&tokens);
        assert!(
            !short.contains(&"String") && short.contains(&"Option"),
            "{short:?}"
        );
        let map = BTreeMap::new();
        let text = rewrite(
            tokens,
            &Rewrite {
                literals: &map,
                lenient: false,
                short: &short,
            },
        )
        .to_string();
        for needle in [
            "skip_serializing_if = \"Option::is_none\"",
            "pub a : Option < Vec < :: std :: string :: String >>",
            "pub b : Option < String >",
            // Not a leading `::`: a path of the user's, left alone.
            "my :: std :: option :: Option < u8 >",
            "pub struct String (pub :: std :: string :: String)",
            "impl From < Box < str >> for Args",
            "impl :: std :: fmt :: Display for Args",
        ] {
            assert!(text.contains(needle), "{needle}: {text}");
        }
    }

    #[test]
    fn serde_paths_and_crate_attribute() {
        let out = rw(
            quote! {
                #[derive(::serde::Deserialize, ::serde::Serialize, Clone)]
                #[serde(deny_unknown_fields)]
                pub struct A {
                    #[serde(default, skip_serializing_if = "::serde_json::Map::is_empty")]
                    pub m: ::serde_json::Map<String, ::serde_json::Value>,
                }
                impl<'de> ::serde::Deserialize<'de> for B {
                    fn f() { <D::Error as ::serde::de::Error>::custom("x") }
                }
            },
            false,
            &[],
        );
        assert!(
            !out.contains(":: serde ::")
                || out.matches(":: serde ::").count()
                    == out.matches("__private :: serde ::").count(),
            "{out}"
        );
        assert!(!out.contains("\"::serde_json"), "{out}");
        assert!(
            out.contains("\"::mcp_bindgen::__private::serde_json::Map::is_empty\""),
            "{out}"
        );
        assert!(
            out.contains("# [serde (crate = \"::mcp_bindgen::__private::serde\")]"),
            "{out}"
        );
        assert!(out.contains("deny_unknown_fields"), "kept for inputs");
        assert!(
            out.contains("as :: mcp_bindgen :: __private :: serde :: de :: Error"),
            "{out}"
        );
    }

    #[test]
    fn lenient_outputs_drop_deny_unknown_fields() {
        let out = rw(
            quote! {
                #[serde(deny_unknown_fields)]
                pub struct A {}
                #[serde(tag = "kind", deny_unknown_fields)]
                pub enum B {}
            },
            true,
            &[],
        );
        assert!(!out.contains("deny_unknown_fields"), "{out}");
        assert!(out.contains("# [serde (tag = \"kind\")]"), "{out}");
    }

    #[test]
    fn placeholders_are_restored() {
        let out = rw(
            quote! { #[serde(rename = "''ReactionsPlus1")] ReactionsPlus1, "''ReactionsPlus1" => Ok(Self::ReactionsPlus1) },
            false,
            &[("''ReactionsPlus1", "reactions-+1")],
        );
        assert_eq!(out.matches("\"reactions-+1\"").count(), 2, "{out}");
        assert!(!out.contains("''"), "{out}");
    }

    #[test]
    fn double_option_wraps_nullable_optionals() {
        let mut file: syn::File = syn::parse_quote! {
            pub struct Args {
                #[serde(rename = "type", skip_serializing_if = "::std::option::Option::is_none")]
                pub type_: ::std::option::Option<::std::string::String>,
                pub other: ::std::option::Option<i64>,
            }
        };
        let names: BTreeSet<String> = ["type".to_string()].into();
        double_option(&mut file, "Args", &names);
        let text = file.to_token_stream().to_string().replace(' ', "");
        assert!(
            text.contains(
                "pubtype_:::std::option::Option<::std::option::Option<::std::string::String>>"
            ),
            "{text}"
        );
        assert!(
            text.contains("pubother:::std::option::Option<i64>"),
            "{text}"
        );
    }
}
