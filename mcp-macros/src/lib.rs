//! The `mcp_tools!` proc macro. Use it through `mcp-bindgen`, which re-exports it together
//! with everything the generated code needs.
//!
//! The macro is deliberately thin: it parses its arguments, finds and reads the fixture,
//! calls [`mcp_bindgen_codegen::generate`], and turns every failure into a `compile_error!` spanned
//! on the user's literal. It never talks to a server; the only file it writes is its
//! expansion cache in the target directory (see `cache`), which spares rebuilds the
//! generator while neither the fixture, the call nor the macro changed.
#![deny(missing_docs)]

mod cache;

use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token};

/// Generates a typed module for the MCP server whose snapshot is `fixtures/<alias>.json`.
///
/// ```ignore
/// mcp_bindgen::mcp_tools!("github");
/// mcp_bindgen::mcp_tools!("github",
///     only = ["create_issue", "get_issue"],          // allowlist (original tool names)
///     skip = ["delete_repository"],                  // denylist
///     rename = { "get_issue" = "issue", "create_issue.body" = "text" },
///     types = { "get_issue.issue_number" = "u64" },  // per-argument Rust type
///     tokens = true,                                 // `TOKENS` constants
///     max_tokens = 8000,                             // token budget of the tool list
/// );
/// ```
///
/// With mcp-bindgen's `tokens` feature, `tokens = true` counts the tokens of each bound tool's OpenAI function definition (OpenAI's
/// `o200k_base` encoding), in full and in compact form, and writes them as constants:
/// `github::TOKENS` (all bound tools) and `github::<tool>::TOKENS`. `max_tokens = N` counts
/// them too and makes a tool list whose full definitions take more than `N` tokens a compile
/// error naming the largest tools and what would fit. Counting loads the encoding (about
/// 0.7 s in an unoptimized proc macro, once per crate build); the expansion cache keeps the
/// result for rebuilds.
///
/// The fixture is `<alias>.json` in `$MCP_FIXTURES_DIR` when set (relative to the crate's
/// manifest directory), else in the project's `fixtures/` folder: the one next to the
/// nearest `Cargo.toml`, from the crate's directory up, whose `fixtures/` holds
/// `servers.toml` or `<alias>.json` (so a workspace member finds the workspace's
/// `fixtures/`; the command line finds it by the same rule from the current directory).
/// Editing the fixture recompiles the crate.
///
/// The generated module is cached in the target directory (`<target>/<profile>/
/// mcp-bindgen-expand/`), keyed by the fixture's bytes, the call and the macro's own build:
/// a rebuild that changes none of them reuses it instead of generating again.
/// `MCP_BINDGEN_CACHE=0` in the build's environment turns the cache off.
///
/// With `MCP_BINDGEN_TIMINGS=1` in the environment of the build, each expansion prints its
/// wall time to stderr (`mcp_tools!("github"): expanded in 61.2 ms`, with ` (cached)` when
/// the cache answered).
#[proc_macro]
pub fn mcp_tools(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let started = std::time::Instant::now();
    let call_text = input.to_string();
    let call = match syn::parse::<MacroCall>(input) {
        Ok(call) => call,
        Err(e) => return e.to_compile_error().into(),
    };
    let (out, cached) = expand(&call, &call_text);
    if std::env::var_os("MCP_BINDGEN_TIMINGS").is_some_and(|v| v != "0") {
        eprintln!(
            "mcp_tools!(\"{}\"): expanded in {:.1} ms{}",
            call.alias.value(),
            started.elapsed().as_secs_f64() * 1000.0,
            if cached { " (cached)" } else { "" }
        );
    }
    out.into()
}

/// `"alias" (, key = value)*`
struct MacroCall {
    alias: LitStr,
    only: Option<(Ident, Vec<LitStr>)>,
    skip: Option<(Ident, Vec<LitStr>)>,
    rename: Option<(Ident, Vec<(LitStr, LitStr)>)>,
    types: Option<(Ident, Vec<(LitStr, LitStr)>)>,
    tokens: Option<(Ident, syn::LitBool)>,
    max_tokens: Option<(Ident, syn::LitInt)>,
}

impl Parse for MacroCall {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let alias: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the server alias as a string literal, e.g. mcp_tools!(\"github\")",
            )
        })?;
        let mut call = MacroCall {
            alias,
            only: None,
            skip: None,
            rename: None,
            types: None,
            tokens: None,
            max_tokens: None,
        };
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let dup = |what: &str| syn::Error::new(key.span(), format!("`{what}` given twice"));
            match key.to_string().as_str() {
                "only" => {
                    if call.only.is_some() {
                        return Err(dup("only"));
                    }
                    call.only = Some((key.clone(), parse_list(input)?));
                }
                "skip" => {
                    if call.skip.is_some() {
                        return Err(dup("skip"));
                    }
                    call.skip = Some((key.clone(), parse_list(input)?));
                }
                "rename" => {
                    if call.rename.is_some() {
                        return Err(dup("rename"));
                    }
                    call.rename = Some((key.clone(), parse_map(input)?));
                }
                "types" => {
                    if call.types.is_some() {
                        return Err(dup("types"));
                    }
                    call.types = Some((key.clone(), parse_map(input)?));
                }
                "tokens" | "max_tokens" if !cfg!(feature = "tokens") => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "`{key}` counts tokens, which needs mcp-bindgen's `tokens` feature: mcp-bindgen = {{ version = \"0.1\", features = [\"tokens\"] }}"
                        ),
                    ));
                }
                "tokens" => {
                    if call.tokens.is_some() {
                        return Err(dup("tokens"));
                    }
                    call.tokens = Some((key.clone(), input.parse()?));
                }
                "max_tokens" => {
                    if call.max_tokens.is_some() {
                        return Err(dup("max_tokens"));
                    }
                    let n: syn::LitInt = input.parse()?;
                    n.base10_parse::<u32>().map_err(|_| {
                        syn::Error::new(n.span(), "max_tokens is a token count: a whole number")
                    })?;
                    call.max_tokens = Some((key.clone(), n));
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown option `{other}`; expected one of: only, skip, rename, types, tokens, max_tokens"
                        ),
                    ));
                }
            }
        }
        Ok(call)
    }
}

/// `["a", "b"]`
fn parse_list(input: ParseStream) -> syn::Result<Vec<LitStr>> {
    let content;
    syn::bracketed!(content in input);
    let items = content.parse_terminated(|p: ParseStream| p.parse::<LitStr>(), Token![,])?;
    Ok(items.into_iter().collect())
}

/// `{ "a" = "b", "c.d" = "e" }`
fn parse_map(input: ParseStream) -> syn::Result<Vec<(LitStr, LitStr)>> {
    let content;
    syn::braced!(content in input);
    let items = content.parse_terminated(
        |p: ParseStream| {
            let k: LitStr = p.parse()?;
            p.parse::<Token![=]>()?;
            let v: LitStr = p.parse()?;
            Ok((k, v))
        },
        Token![,],
    )?;
    Ok(items.into_iter().collect())
}

fn error_at(span: Span, message: &str) -> TokenStream {
    quote_spanned! {span=> ::core::compile_error!(#message); }
}

/// The module for `call` (`call_text`: its tokens as text, part of the cache key), and
/// whether the expansion cache gave it.
fn expand(call: &MacroCall, call_text: &str) -> (TokenStream, bool) {
    let span = call.alias.span();
    let alias = call.alias.value();
    let path = match find_fixture(&alias) {
        Ok(p) => p,
        Err(message) => return (error_at(span, &message), false),
    };
    let shown = path.display().to_string();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            let message = format!(
                "cannot read the fixture of MCP server \"{alias}\" at {shown}: {e}; run {}",
                snapshot_hint(&path, &alias)
            );
            return (error_at(span, &message), false);
        }
    };
    let (type_aliases, options) = options_of(call, &alias);
    let entry = cache::Entry::open(call_text, &path, &bytes);
    // A cached module that rustc cannot lex (a damaged file) is generated again.
    let cached = entry
        .as_ref()
        .and_then(cache::Entry::get)
        .and_then(|e| Some((e.code.parse::<TokenStream>().ok()?, e.warnings)));
    let was_cached = cached.is_some();
    let (tokens, warnings) = match cached {
        Some(hit) => hit,
        None => match generate_module(call, &path, &bytes, &options) {
            Ok((tokens, expansion)) => {
                if let Some(entry) = &entry {
                    entry.put(&expansion);
                }
                (tokens, expansion.warnings)
            }
            Err(error) => return (error, false),
        },
    };
    let path_str = path.to_string_lossy().into_owned();
    // Warnings on stable Rust: a use of a deprecated item, spanned on the literal.
    let warning_items = warnings.iter().enumerate().map(|(i, w)| {
        let note = format!("mcp_tools!(\"{alias}\"): {w} (silence with #[allow(deprecated)])");
        let name = syn::Ident::new(&format!("__McpToolsWarning{i}"), span);
        quote_spanned! {span=>
            #[deprecated(note = #note)]
            #[allow(non_camel_case_types, dead_code)]
            struct #name;
            let _ = #name;
        }
    });
    let out = quote! {
        #(#type_aliases)*
        #tokens
        #[doc(hidden)]
        #[allow(dead_code)]
        const _: () = {
            // Rebuild when the fixture changes.
            const _: &[u8] = ::core::include_bytes!(#path_str);
            #(#warning_items)*
        };
    };
    (out, was_cached)
}

/// The generator's options for `call`, and the type aliases its `types` entries need.
fn options_of(call: &MacroCall, alias: &str) -> (Vec<TokenStream>, mcp_bindgen_codegen::Options) {
    let mut options = mcp_bindgen_codegen::Options::default();
    if let Some((_, only)) = &call.only {
        options = options.with_only(only.iter().map(LitStr::value));
    }
    if let Some((_, skip)) = &call.skip {
        options = options.with_skip(skip.iter().map(LitStr::value));
    }
    let entries = |m: &Option<(Ident, Vec<(LitStr, LitStr)>)>| -> Vec<(String, String)> {
        m.iter()
            .flat_map(|(_, kv)| kv.iter().map(|(k, v)| (k.value(), v.value())))
            .collect()
    };
    for (from, to) in entries(&call.rename) {
        options = options.with_rename(from, to);
    }
    for (target, rust_type) in entries(&call.types) {
        options = options.with_type(target, rust_type);
    }
    if call.tokens.as_ref().is_some_and(|(_, on)| on.value) {
        options = options.with_tokens();
    }
    if let Some(max) = call
        .max_tokens
        .as_ref()
        .and_then(|(_, n)| n.base10_parse::<u32>().ok())
    {
        options = options.with_max_tokens(max);
    }
    // `types` values are written in the caller's scope, but used two modules down
    // (`alias::tool::Args`): a path that only resolves there goes through a type alias
    // declared where `mcp_tools!` is written, spanned on the entry (so a name that does not
    // resolve is an error on it).
    let mut type_aliases = Vec::new();
    for (i, (key, value)) in call.types.iter().flat_map(|(_, kv)| kv).enumerate() {
        let Ok(ty) = syn::parse_str::<syn::Type>(&value.value()) else {
            continue; // reported by the generator, on the entry
        };
        if resolves_anywhere(&ty) {
            continue;
        }
        let name = syn::Ident::new(
            &format!(
                "__mcp_tools_{}_type_{i}",
                mcp_bindgen_core::naming::alias_module(alias)
            ),
            value.span(),
        );
        let ty = respan(quote!(#ty), value.span());
        type_aliases.push(quote_spanned! {value.span()=>
            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
            type #name = #ty;
        });
        options = options.with_type(key.value(), format!("super::super::{name}"));
    }
    (type_aliases, options)
}

/// Parses the fixture and generates the module: its tokens and what the cache keeps (the
/// text and the warnings to show), or the `compile_error!` of a failure.
fn generate_module(
    call: &MacroCall,
    path: &Path,
    bytes: &[u8],
    options: &mcp_bindgen_codegen::Options,
) -> Result<(TokenStream, cache::Expansion), TokenStream> {
    let span = call.alias.span();
    let alias = call.alias.value();
    let shown = path.display().to_string();
    let fixture = match mcp_bindgen_core::fixture::Fixture::from_slice(bytes, path) {
        Ok(f) => f,
        Err(e) => {
            return Err(error_at(
                span,
                &format!(
                    "{e}; fix the file or run {} to rewrite it",
                    snapshot_hint(path, &alias)
                ),
            ));
        }
    };
    // typify runs inside the generator behind its own panic guard; this one catches
    // anything else, so the user never sees "proc macro panicked".
    let generated = std::panic::catch_unwind(|| generate_detached(&fixture, &alias, options));
    let (code, warnings) = match generated {
        Ok(Ok(g)) => g,
        Ok(Err(e)) => {
            // Point at the option entry the error is about, when there is one.
            let at = e
                .option_entry()
                .and_then(|(option, key)| entry_span(call, option, &key))
                .unwrap_or(span);
            return Err(error_at(
                at,
                &format!("mcp_tools!(\"{alias}\") with {shown}: {e}"),
            ));
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            return Err(error_at(
                span,
                &format!(
                    "mcp_tools!(\"{alias}\"): the code generator failed on {shown}: {what}; this is a bug in mcp-bindgen, please report it with the fixture (use skip = [...] to leave the failing tool out meanwhile)"
                ),
            ));
        }
    };
    // One hand-over to the compiler: rustc lexes the whole module at once.
    let tokens: TokenStream = code.parse().map_err(|e| {
        error_at(
            span,
            &format!(
                "mcp_tools!(\"{alias}\"): the generated code for {shown} does not lex ({e}); this is a bug in mcp-bindgen, please report it with the fixture"
            ),
        )
    })?;
    let warnings = warnings
        .iter()
        .filter(|w| {
            !matches!(
                w.kind,
                mcp_bindgen_codegen::WarningKind::Note | mcp_bindgen_codegen::WarningKind::Renamed
            )
        })
        .map(ToString::to_string)
        .collect();
    Ok((tokens, cache::Expansion { code, warnings }))
}

/// Runs the generator on proc-macro2's in-process token implementation and returns the
/// module as source text with the warnings.
///
/// Inside a proc macro every token operation of proc-macro2 is otherwise a call across
/// rustc's proc-macro bridge; the generator makes hundreds of thousands of them for a large
/// server (typify's output is rewritten and re-parsed per tool). Building the module
/// in-process and handing it over once as text (lexed by rustc) removes that cost. The
/// generated code carries no user spans (everything is `call_site`), so nothing is lost.
/// The fallback mode is switched off again on every path, panics included.
fn generate_detached(
    fixture: &mcp_bindgen_core::fixture::Fixture,
    alias: &str,
    options: &mcp_bindgen_codegen::Options,
) -> mcp_bindgen_codegen::Result<(String, Vec<mcp_bindgen_codegen::Warning>)> {
    struct Unforce;
    impl Drop for Unforce {
        fn drop(&mut self) {
            proc_macro2::fallback::unforce();
        }
    }
    proc_macro2::fallback::force();
    let _unforce = Unforce;
    let generated = mcp_bindgen_codegen::generate(fixture, alias, options)?;
    Ok((generated.code, generated.warnings))
}

/// The span of the entry of `option` whose key is `key`: the key itself, a `tool.argument`
/// key of tool `key`, or (for `types`) a glob that matches `key`.
fn entry_span(call: &MacroCall, option: &str, key: &str) -> Option<Span> {
    if option == "max_tokens" {
        return call.max_tokens.as_ref().map(|(_, n)| n.span());
    }
    let list = match option {
        "only" => &call.only,
        "skip" => &call.skip,
        _ => &None,
    };
    if let Some((_, items)) = list {
        return items.iter().find(|l| l.value() == key).map(LitStr::span);
    }
    let map = match option {
        "rename" => &call.rename,
        "types" => &call.types,
        _ => return None,
    };
    let (_, entries) = map.as_ref()?;
    let keys = || entries.iter().map(|(k, _)| k);
    keys()
        .find(|k| k.value() == key)
        .or_else(|| keys().find(|k| k.value().starts_with(&format!("{key}."))))
        .or_else(|| keys().find(|k| mcp_bindgen_core::naming::glob_match(&k.value(), key)))
        .map(LitStr::span)
}

/// Whether `ty` means the same in any module: primitives and prelude types (`u64`,
/// `String`, `Vec<…>`, `Option<…>`), and paths from a crate root (`std::…`, `core::…`,
/// `alloc::…`, `crate::…`, `::…`), with arguments that do too.
fn resolves_anywhere(ty: &syn::Type) -> bool {
    const PRELUDE: &[&str] = &[
        "bool", "char", "str", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32",
        "u64", "u128", "usize", "f32", "f64", "String", "Vec", "Option", "Box", "Result",
    ];
    const ROOTS: &[&str] = &["std", "core", "alloc", "crate"];
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            let path = &p.path;
            let Some(first) = path.segments.first() else {
                return false;
            };
            let first = first.ident.to_string();
            let rooted = path.leading_colon.is_some()
                || (path.segments.len() > 1 && ROOTS.contains(&first.as_str()))
                || (path.segments.len() == 1 && PRELUDE.contains(&first.as_str()));
            rooted
                && path.segments.iter().all(|seg| match &seg.arguments {
                    syn::PathArguments::None => true,
                    syn::PathArguments::AngleBracketed(args) => args.args.iter().all(|a| match a {
                        syn::GenericArgument::Type(t) => resolves_anywhere(t),
                        _ => true,
                    }),
                    syn::PathArguments::Parenthesized(_) => false,
                })
        }
        syn::Type::Reference(r) => resolves_anywhere(&r.elem),
        syn::Type::Slice(s) => resolves_anywhere(&s.elem),
        syn::Type::Array(a) => resolves_anywhere(&a.elem),
        syn::Type::Tuple(t) => t.elems.iter().all(resolves_anywhere),
        syn::Type::Paren(p) => resolves_anywhere(&p.elem),
        _ => false,
    }
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut t| {
            if let proc_macro2::TokenTree::Group(g) = &t {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                t = proc_macro2::TokenTree::Group(group);
            } else {
                t.set_span(span);
            }
            t
        })
        .collect()
}

/// `$MCP_FIXTURES_DIR/<alias>.json`, else `fixtures/<alias>.json` of the project the crate
/// belongs to ([`mcp_bindgen_core::project::find_fixture`], the rule the command line uses).
fn find_fixture(alias: &str) -> Result<PathBuf, String> {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    let fixtures_dir = std::env::var_os("MCP_FIXTURES_DIR").map(PathBuf::from);
    mcp_bindgen_core::project::find_fixture(&manifest, fixtures_dir.as_deref(), alias)
}

/// The command that (re)writes the fixture of `alias`, in the vocabulary of the user whose
/// project is at `dir`.
fn snapshot_hint(dir: &Path, alias: &str) -> String {
    mcp_bindgen_core::project::Runner::detect(dir).command(&format!("snapshot {alias}"))
}
