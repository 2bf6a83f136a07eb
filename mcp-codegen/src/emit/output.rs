//! A tool's result types in its module: `Output` where users name it (`<tool>::Output`, its
//! one path), the types nested in it in `<tool>::output`.
//!
//! Both type paths (typify's and the direct one) write `Output` and its nested types as the
//! items of one module. The nested types keep a module of their own: their names come from
//! the schema (`$defs`, titles) and may be those of argument types (`Node` in both). So
//! `Output`'s definition, its `serde_struct!` / `string_enum!` call and its impls move up to
//! the tool's module, where they name a nested type as `output::Name`; the other items stay
//! in `pub mod output`, which imports `Output` (`use super::Output`) when it names it. A
//! result without nested types has no `output` module.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use proc_macro2::{Delimiter, Group, Ident, Punct, Spacing, Span, TokenStream, TokenTree};

use super::items;

/// The module holding the types nested in `Output`.
const MODULE: &str = "output";

/// The tool module's items for the result types `code` (`Output` and the types nested in
/// it, as one module's items). `Err` is the reason they cannot be placed (the result then
/// stays untyped).
pub(super) fn output_items(code: &str) -> Result<String, String> {
    let tokens: TokenStream = code
        .parse()
        .map_err(|e| format!("internal error: the result types do not tokenize: {e}"))?;
    let items = split(tokens)
        .ok_or_else(|| "internal error: the result types are not a list of items".to_string())?;
    if items.iter().filter(|i| is_output(i)).count() != 1 {
        return Err("internal error: the result types have no single `Output`".to_string());
    }
    let nested: BTreeSet<String> = items
        .iter()
        .filter(|i| !is_output(i))
        .filter_map(|i| match &i.kind {
            Kind::Named { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect();

    let mut top = TokenStream::new();
    let mut module = TokenStream::new();
    for item in items {
        let of_output = match &item.kind {
            Kind::Named { .. } => is_output(&item),
            Kind::Impl { target } => target.as_deref() == Some("Output"),
            Kind::Macro { target, .. } => target.as_deref() == Some("Output"),
            Kind::Use => false,
        };
        if nested.is_empty() {
            // Nothing to name through a module: the imports (of serde's derives, which
            // `Output` names in full below) go, the rest moves up as it is.
            if item.kind != Kind::Use {
                top.extend(up(item, &nested));
            }
        } else if of_output {
            top.extend(up(item, &nested));
        } else {
            module.extend(item.tokens);
        }
    }
    let mut out = top.to_string();
    if !module.is_empty() {
        let import = if names_output(module.clone()) {
            "use super::Output; "
        } else {
            ""
        };
        let _ = write!(
            out,
            " #[doc = \" The types nested in the tool's structured result, [`Output`].\"] \
             pub mod {MODULE} {{ {import}{module} }}"
        );
    }
    Ok(out)
}

/// Whether `item` defines the type `Output`.
fn is_output(item: &Item) -> bool {
    matches!(&item.kind, Kind::Named { keyword, name }
        if name == "Output" && matches!(keyword.as_str(), "struct" | "enum" | "type" | "union"))
}

/// One item of the result types.
struct Item {
    tokens: Vec<TokenTree>,
    kind: Kind,
}

#[derive(PartialEq)]
enum Kind {
    /// An item with a name: `struct`, `enum`, `type`, `mod`, `const`, ….
    Named { keyword: String, name: String },
    /// An `impl` block, with its type when that is a single identifier.
    Impl { target: Option<String> },
    /// A macro call (`::mcp_bindgen::__private::serde_struct!(Name { … });`): the macro's
    /// name and the first identifier of its input.
    Macro {
        macro_name: String,
        target: Option<String>,
    },
    /// A `use` declaration.
    Use,
}

/// Where an item ends.
#[derive(Clone, Copy, PartialEq)]
enum Ends {
    /// At its body (`enum`, `impl`, `fn`, `trait`).
    Brace,
    /// At its body or at `;` (`struct`, `union`, `mod`).
    BraceOrSemicolon,
    /// At `;` only (`type`, `use`, `const`, `static`, a macro call: a value may hold braces).
    Semicolon,
}

/// `tokens` as items, `None` when they are not a list of items.
fn split(tokens: TokenStream) -> Option<Vec<Item>> {
    let mut items = Vec::new();
    let mut current: Vec<TokenTree> = Vec::new();
    let mut ends: Option<Ends> = None;
    for tt in tokens {
        let last = match (&tt, ends) {
            (TokenTree::Group(g), Some(Ends::Brace | Ends::BraceOrSemicolon)) => {
                g.delimiter() == Delimiter::Brace
            }
            (TokenTree::Punct(p), Some(_)) => p.as_char() == ';',
            (TokenTree::Ident(id), None) if id != "pub" => {
                ends = Some(match id.to_string().as_str() {
                    "enum" | "impl" | "fn" | "trait" => Ends::Brace,
                    "struct" | "union" | "mod" => Ends::BraceOrSemicolon,
                    _ => Ends::Semicolon,
                });
                false
            }
            // A macro call's path.
            (TokenTree::Punct(p), None) if p.as_char() == ':' => {
                ends = Some(Ends::Semicolon);
                false
            }
            _ => false,
        };
        current.push(tt);
        if last {
            let tokens = std::mem::take(&mut current);
            ends = None;
            let kind = kind(&tokens)?;
            items.push(Item { tokens, kind });
        }
    }
    current.is_empty().then_some(items)
}

/// What an item is, read after its attributes and visibility.
fn kind(tokens: &[TokenTree]) -> Option<Kind> {
    let mut words = tokens.iter().filter_map(|t| match t {
        TokenTree::Ident(id) => Some(id.to_string()),
        _ => None,
    });
    let mut keyword = words.next()?;
    if keyword == "pub" {
        keyword = words.next()?;
    }
    Some(match keyword.as_str() {
        "use" => Kind::Use,
        "impl" => Kind::Impl {
            target: items::impl_target(tokens.to_vec()),
        },
        "struct" | "enum" | "type" | "union" | "mod" | "fn" | "trait" | "const" | "static" => {
            Kind::Named {
                name: words.next()?,
                keyword,
            }
        }
        _ => {
            // `path::to::name!(input);`
            let bang = tokens
                .iter()
                .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '!'))?;
            let macro_name = match bang.checked_sub(1).and_then(|i| tokens.get(i)) {
                Some(TokenTree::Ident(id)) => id.to_string(),
                _ => return None,
            };
            let target = match tokens.get(bang + 1) {
                Some(TokenTree::Group(g)) => g.stream().into_iter().find_map(|t| match t {
                    TokenTree::Ident(id) => Some(id.to_string()),
                    _ => None,
                }),
                _ => None,
            };
            Kind::Macro { macro_name, target }
        }
    })
}

/// An item of `Output` as the tool module writes it: the nested types it names as
/// `output::Name`, serde's derives in full (the module's import of them stays in `output`).
fn up(item: Item, nested: &BTreeSet<String>) -> TokenStream {
    match &item.kind {
        // Its input names variants, never types.
        Kind::Macro { macro_name, .. } if macro_name == "string_enum" => {
            item.tokens.into_iter().collect()
        }
        Kind::Named { keyword, .. } if keyword == "enum" => {
            // The variants are in the body, the item's last token.
            let mut tokens = item.tokens;
            let body = match tokens.pop() {
                Some(TokenTree::Group(body)) => {
                    TokenTree::Group(regroup(&body, qualify_variants(body.stream(), nested)))
                }
                other => return tokens.into_iter().chain(other).collect(),
            };
            let mut out = qualify(tokens, nested);
            out.push(body);
            out.into_iter().collect()
        }
        _ => qualify(item.tokens, nested).into_iter().collect(),
    }
}

/// `tokens` with every nested type named as `output::Name` (an identifier of `nested` that is
/// not the rest of a path or a field access) and serde's derives written in full. Attributes
/// are left alone but for those derives; the item's body is qualified by the caller when it
/// holds variants.
fn qualify(tokens: Vec<TokenTree>, nested: &BTreeSet<String>) -> Vec<TokenTree> {
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    let mut tokens = tokens.into_iter().peekable();
    while let Some(tt) = tokens.next() {
        match tt {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                out.push(TokenTree::Punct(p));
                if let Some(TokenTree::Group(attr)) = tokens.peek()
                    && attr.delimiter() == Delimiter::Bracket
                {
                    let attr = regroup(attr, full_serde_derives(attr.stream()));
                    tokens.next();
                    out.push(TokenTree::Group(attr));
                }
            }
            TokenTree::Ident(id) if nested.contains(&id.to_string()) && !continues(&out) => {
                out.extend(module_path());
                out.push(TokenTree::Ident(id));
            }
            TokenTree::Group(g) => {
                let inner = qualify(g.stream().into_iter().collect(), nested);
                out.push(TokenTree::Group(regroup(&g, inner.into_iter().collect())));
            }
            other => out.push(other),
        }
    }
    out
}

/// [`qualify`] for an enum's body: the variants' names stay, their fields are qualified.
fn qualify_variants(body: TokenStream, nested: &BTreeSet<String>) -> TokenStream {
    let mut out: Vec<TokenTree> = Vec::new();
    let mut at_variant = true;
    let mut tokens = body.into_iter().peekable();
    while let Some(tt) = tokens.next() {
        match tt {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                out.push(TokenTree::Punct(p));
                if let Some(attr) = tokens.next() {
                    out.push(attr);
                }
            }
            TokenTree::Punct(p) if p.as_char() == ',' => {
                at_variant = true;
                out.push(TokenTree::Punct(p));
            }
            TokenTree::Ident(id) if at_variant => {
                at_variant = false;
                out.push(TokenTree::Ident(id));
            }
            other => out.extend(qualify(vec![other], nested)),
        }
    }
    out.into_iter().collect()
}

/// Whether the next identifier continues a path (`a::Name`) or names a field or method
/// (`x.name`, `'lifetime`).
fn continues(out: &[TokenTree]) -> bool {
    match out {
        [.., TokenTree::Punct(a), TokenTree::Punct(b)]
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':' =>
        {
            true
        }
        [.., TokenTree::Punct(p)] => p.as_char() == '.' || p.as_char() == '\'',
        _ => false,
    }
}

/// `output ::`.
fn module_path() -> [TokenTree; 3] {
    let [a, b] = path_separator();
    [
        TokenTree::Ident(Ident::new(MODULE, Span::call_site())),
        a,
        b,
    ]
}

/// `::`.
fn path_separator() -> [TokenTree; 2] {
    [
        TokenTree::Punct(Punct::new(':', Spacing::Joint)),
        TokenTree::Punct(Punct::new(':', Spacing::Alone)),
    ]
}

/// An attribute's content with `derive(…, Deserialize, Serialize)` (names the `output`
/// module imports) written as `::mcp_bindgen::__private::serde::Deserialize`.
fn full_serde_derives(attr: TokenStream) -> TokenStream {
    let mut tokens = attr.into_iter();
    let mut out: Vec<TokenTree> = Vec::new();
    match tokens.next() {
        Some(TokenTree::Ident(id)) if id == "derive" => out.push(TokenTree::Ident(id)),
        first => {
            out.extend(first);
            out.extend(tokens);
            return out.into_iter().collect();
        }
    }
    for tt in tokens {
        match tt {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                let mut paths: Vec<TokenTree> = Vec::new();
                for t in g.stream() {
                    match t {
                        TokenTree::Ident(id)
                            if (id == "Serialize" || id == "Deserialize") && !continues(&paths) =>
                        {
                            for segment in ["mcp_bindgen", "__private", "serde"] {
                                paths.extend(path_separator());
                                paths.push(TokenTree::Ident(Ident::new(segment, id.span())));
                            }
                            paths.extend(path_separator());
                            paths.push(TokenTree::Ident(id));
                        }
                        other => paths.push(other),
                    }
                }
                out.push(TokenTree::Group(regroup(&g, paths.into_iter().collect())));
            }
            other => out.push(other),
        }
    }
    out.into_iter().collect()
}

/// `g`'s delimiter and span around `stream`.
fn regroup(g: &Group, stream: TokenStream) -> Group {
    let mut group = Group::new(g.delimiter(), stream);
    group.set_span(g.span());
    group
}

/// Whether `tokens` name `Output` anywhere.
fn names_output(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|t| match t {
        TokenTree::Ident(id) => id == "Output",
        TokenTree::Group(g) => names_output(g.stream()),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pretty(code: &str) -> String {
        let file: syn::File = syn::parse_str(code).expect("parses");
        prettyplease::unparse(&file)
    }

    #[test]
    fn output_moves_up_and_names_its_nested_types_through_the_module() {
        let code = "use ::mcp_bindgen::__private::serde::{Deserialize, Serialize}; \
            #[doc = \" Node.\"] #[derive(Clone, Debug)] pub struct Node { pub child: Option<Box<Node>>, pub up: Option<Box<Output>>, } \
            ::mcp_bindgen::__private::serde_struct!(Node { child = \"child\" skip_if(Option::is_none), up = \"up\" }); \
            #[doc = \" Result.\"] #[derive(Deserialize, Serialize, Clone, Debug)] \
            #[serde(crate = \"::mcp_bindgen::__private::serde\")] \
            pub struct Output { pub head: Option<Box<Node>>, pub tail: ::std::vec::Vec<Node>, }";
        let text = pretty(&output_items(code).expect("splits"));
        assert!(
            text.contains("pub struct Output {\n    pub head: Option<Box<output::Node>>,\n    pub tail: ::std::vec::Vec<output::Node>,\n}"),
            "{text}"
        );
        assert!(
            text.contains("#[derive(\n    ::mcp_bindgen::__private::serde::Deserialize,\n    ::mcp_bindgen::__private::serde::Serialize,"),
            "{text}"
        );
        assert!(text.contains("pub mod output {\n    use super::Output;\n    use ::mcp_bindgen::__private::serde::{Deserialize, Serialize};"), "{text}");
        assert!(text.contains("pub child: Option<Box<Node>>"), "{text}");
        assert_eq!(text.matches("pub struct Output").count(), 1, "{text}");
    }

    #[test]
    fn variants_keep_their_names_and_a_result_without_nested_types_has_no_module() {
        let code = "#[derive(Clone)] pub enum Output { Node(Node), #[doc = \" x\"] Leaf { value: Leaf }, Nothing } \
            impl From<Node> for Output { fn from(value: Node) -> Self { Self::Node(value) } } \
            #[derive(Clone)] pub struct Node { pub n: i64 } #[derive(Clone)] pub struct Leaf;";
        let text = pretty(&output_items(code).expect("splits"));
        assert!(
            text.contains("pub enum Output {\n    Node(output::Node),\n    /// x\n    Leaf { value: output::Leaf },\n    Nothing,\n}"),
            "{text}"
        );
        assert!(
            text.contains("impl From<output::Node> for Output {\n    fn from(value: output::Node) -> Self {\n        Self::Node(value)\n    }\n}"),
            "{text}"
        );
        assert!(!text.contains("use super::Output"), "{text}");

        let alone = "use ::mcp_bindgen::__private::serde::{Deserialize}; \
            #[derive(Deserialize)] pub struct Output { pub ok: bool } \
            ::mcp_bindgen::__private::string_enum!(Output { A = \"a\" });";
        let text = pretty(&output_items(alone).expect("splits"));
        assert!(
            !text.contains("mod output") && !text.contains("use "),
            "{text}"
        );
        assert!(
            text.contains("#[derive(::mcp_bindgen::__private::serde::Deserialize)]"),
            "{text}"
        );
    }
}
