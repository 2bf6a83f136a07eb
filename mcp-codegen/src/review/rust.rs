//! The Rust API axis: what a fixture change does to the generated bindings.
//!
//! Both fixtures are run through the generator ([`crate::generate`], default options) and the
//! public items of the two modules are compared, tool by tool, by the rules Rust's semver
//! reference and `cargo-semver-checks` apply:
//!
//! * [`RustEffect::Major`] — code that compiled against the old bindings may not compile
//!   against the new ones: an item removed or renamed, a field or variant removed, a field's
//!   type or a method's signature changed, a derive (`Default`, …) lost, a public field added
//!   to a struct callers build with a literal (the generated `Args`: struct literals without
//!   `..` stop compiling), a variant added to an enum callers match on exhaustively;
//! * [`RustEffect::Minor`] — only new items or impls;
//! * [`RustEffect::Patch`] — the same items: only documentation or an embedded schema text
//!   (`TOOL`) changed.
//!
//! Items are attributed to a tool by their module (`create_issue::Args`) or their `Client`
//! method (`Client::create_issue`, `…_task`), and compared module by module: a
//! tool renamed to a name with the same Rust spelling (`getTinyImage` → `get-tiny-image`)
//! keeps its module and method. A field or variant whose serde name changes keeps compiling
//! and sends other JSON: a patch, said in the reasons.
//!
//! `cargo-semver-checks` agrees on the drift corpus of this repository (its test runs both
//! on the regenerated code); this axis also sees type changes of fields and parameters,
//! which it has no lints for.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use quote::ToTokens;
use serde_json::Value;

use crate::fixture::Fixture;
use crate::naming;
use crate::{Options, generate};

/// How a change affects Rust code written against the generated bindings (ordered:
/// `Patch < Minor < Major`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RustEffect {
    /// Same items and signatures: documentation or embedded schema text only.
    Patch,
    /// New items only: existing code keeps compiling.
    Minor,
    /// Existing code may stop compiling.
    Major,
}

impl RustEffect {
    /// The lower-case label used in reports: `patch`, `minor` or `major`.
    pub fn label(self) -> &'static str {
        match self {
            RustEffect::Patch => "patch",
            RustEffect::Minor => "minor",
            RustEffect::Major => "major",
        }
    }
}

impl fmt::Display for RustEffect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One tool's effect on the generated Rust API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustChange {
    /// The worst effect among the reasons.
    pub effect: RustEffect,
    /// Which type or method changes, worst first, e.g. ``struct `create_issue::Args` gains
    /// field `labels` …``.
    pub reasons: Vec<(RustEffect, String)>,
}

/// The Rust API effect of a fixture change: per tool, and on the prompts' bindings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RustReport {
    /// Tool name → its change; tools whose generated items are identical are absent.
    pub tools: BTreeMap<String, RustChange>,
    /// The change of the bindings outside the tools, if any: the `prompts` module
    /// (`Client::prompts()`) and the `resources` module (`Client::resources()`, a resource
    /// template's variables).
    pub prompts: Option<RustChange>,
}

/// Compares the bindings generated from two fixture documents. A document that does not
/// generate gives each of its tools a [`RustEffect::Major`] "cannot generate" reason.
#[must_use]
pub fn rust_effects(old: &Value, new: &Value) -> RustReport {
    let (a, b) = (surface(old), surface(new));
    let mut out: BTreeMap<String, Vec<(RustEffect, String)>> = BTreeMap::new();
    for (side, result) in [("old", &a), ("new", &b)] {
        if let Err(e) = result {
            for tool in tool_names(if side == "old" { old } else { new }) {
                out.entry(tool).or_default().push((
                    RustEffect::Major,
                    format!("cannot tell: the {side} fixture does not generate ({e})"),
                ));
            }
        }
    }
    let (Ok(a), Ok(b)) = (a, b) else {
        return RustReport {
            tools: finish(out),
            prompts: None,
        };
    };
    let prompts = compare_items(&a.prompts, &b.prompts);
    let prompts = (!prompts.is_empty())
        .then(|| finish(BTreeMap::from([(String::new(), prompts)])).remove(""))
        .flatten();
    // Compared by Rust module: a tool renamed to a name with the same Rust spelling
    // (`getTinyImage` → `get-tiny-image`) keeps its module and method.
    let by_module = |s: &'_ Surface| -> BTreeMap<String, (String, BTreeMap<String, Item>)> {
        s.tools
            .iter()
            .map(|(tool, t)| (t.module.clone(), (tool.clone(), t.items.clone())))
            .collect()
    };
    let (ma, mb) = (by_module(&a), by_module(&b));
    let modules: BTreeSet<&String> = ma.keys().chain(mb.keys()).collect();
    for module in modules {
        match (ma.get(module), mb.get(module)) {
            (Some((tool, _)), None) => out.entry(tool.clone()).or_default().push((
                RustEffect::Major,
                format!("module `{module}` and method `Client::{module}` removed"),
            )),
            (None, Some((tool, _))) => out.entry(tool.clone()).or_default().push((
                RustEffect::Minor,
                format!("module `{module}` and method `Client::{module}` added"),
            )),
            (Some((old_tool, x)), Some((new_tool, y))) => {
                let mut reasons = compare_items(x, y);
                if old_tool != new_tool {
                    reasons.push((
                        RustEffect::Patch,
                        format!(
                            "module `{module}` and method `Client::{module}` stay, now calling \"{new_tool}\" (was \"{old_tool}\") on the wire"
                        ),
                    ));
                    out.entry(old_tool.clone())
                        .or_default()
                        .extend(reasons.iter().cloned());
                }
                if !reasons.is_empty() {
                    out.entry(new_tool.clone()).or_default().extend(reasons);
                }
            }
            (None, None) => {}
        }
    }
    RustReport {
        tools: finish(out),
        prompts,
    }
}

fn finish(out: BTreeMap<String, Vec<(RustEffect, String)>>) -> BTreeMap<String, RustChange> {
    out.into_iter()
        .map(|(tool, reasons)| {
            let effect = reasons
                .iter()
                .map(|r| r.0)
                .max()
                .unwrap_or(RustEffect::Patch);
            (
                tool,
                RustChange {
                    effect,
                    reasons: summarize(reasons, effect),
                },
            )
        })
        .collect()
}

/// Worst first; documentation and constant values are said once, and only when nothing
/// worse changed (a changed wire name is always said: the same code sends other JSON).
fn summarize(
    mut reasons: Vec<(RustEffect, String)>,
    effect: RustEffect,
) -> Vec<(RustEffect, String)> {
    reasons.sort_by(|x, y| y.0.cmp(&x.0).then_with(|| x.1.cmp(&y.1)));
    reasons.dedup();
    let quiet = |r: &(RustEffect, String)| r.0 == RustEffect::Patch && !r.1.contains("on the wire");
    let items: Vec<String> = reasons
        .iter()
        .filter(|r| quiet(r))
        .filter_map(|r| r.1.split('`').nth(1).map(|i| format!("`{i}`")))
        .collect();
    reasons.retain(|r| !quiet(r));
    if effect == RustEffect::Patch && !items.is_empty() {
        reasons.push((
            RustEffect::Patch,
            format!(
                "same items and signatures; documentation or constants change ({})",
                items.join(", ")
            ),
        ));
    }
    reasons
}

fn tool_names(doc: &Value) -> Vec<String> {
    doc.get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_string))
        .collect()
}

/// The public items of one generated server module, grouped by tool.
struct Surface {
    tools: BTreeMap<String, ToolItems>,
    /// The items of the `prompts` and `resources` modules (one method and `Args` per
    /// prompt and per resource template).
    prompts: BTreeMap<String, Item>,
}

struct ToolItems {
    /// The tool's Rust module (and method) name.
    module: String,
    /// Item path (`Args`, `output::OutputState`, `Client::create_issue`, `impl Default for Args`)
    /// → its shape.
    items: BTreeMap<String, Item>,
}

/// The shape of one public item.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    /// A struct (its public fields) or an enum (its variants).
    Type {
        /// `"struct"` or `"enum"`.
        kind: &'static str,
        /// Field → its type, or variant → its fields (names and types).
        members: BTreeMap<String, String>,
        /// Member → the name serde writes on the wire (`#[serde(rename)]`).
        wire_names: BTreeMap<String, String>,
        /// Callers can list every member (a struct literal with all fields public, an
        /// exhaustive `match`): a new member breaks them. Not `#[non_exhaustive]`.
        closed: bool,
        derives: BTreeSet<String>,
        docs: String,
    },
    /// Anything else: its signature (what code depends on) and the rest (values, docs).
    Other {
        kind: &'static str,
        signature: String,
        rest: String,
    },
}

fn surface(doc: &Value) -> Result<Surface, String> {
    let bytes = serde_json::to_vec(doc).map_err(|e| e.to_string())?;
    let fixture =
        Fixture::from_slice(&bytes, Path::new("fixture.json")).map_err(|e| e.to_string())?;
    let alias = fixture.alias().unwrap_or("server").to_string();
    let generated = generate(&fixture, &alias, &Options::default()).map_err(|e| e.to_string())?;
    let file: syn::File = syn::parse_str(&generated.code).map_err(|e| e.to_string())?;
    // Tool module name → tool name.
    let modules: BTreeMap<String, String> = fixture
        .tools
        .iter()
        .map(|t| {
            (
                naming::unraw(&naming::fn_name(&t.name)).to_string(),
                t.name.clone(),
            )
        })
        .collect();
    let mut tools: BTreeMap<String, ToolItems> = modules
        .iter()
        .map(|(module, tool)| {
            (
                tool.clone(),
                ToolItems {
                    module: module.clone(),
                    items: BTreeMap::new(),
                },
            )
        })
        .collect();
    let mut prompts = BTreeMap::new();
    let server_items = file.items.iter().find_map(|item| match item {
        syn::Item::Mod(m) => m.content.as_ref().map(|(_, items)| items),
        _ => None,
    });
    for item in server_items.into_iter().flatten() {
        match item {
            syn::Item::Mod(m) => {
                let name = naming::unraw(&m.ident.to_string()).to_string();
                let Some((_, items)) = &m.content else {
                    continue;
                };
                if let Some(entry) = modules.get(&name).and_then(|t| tools.get_mut(t)) {
                    collect(items, &format!("{name}::"), &mut entry.items);
                } else if name == "prompts" || name == "resources" {
                    // Outside the tools, one bucket: the prompts' and the resource
                    // templates' bindings (`Client::prompts()`, `Client::resources()`).
                    collect(items, &format!("{name}::"), &mut prompts);
                }
            }
            syn::Item::Impl(imp) if self_name(imp).as_deref() == Some("Client") => {
                for f in &imp.items {
                    let syn::ImplItem::Fn(f) = f else { continue };
                    let method = naming::unraw(&f.sig.ident.to_string()).to_string();
                    let base = ["_task"]
                        .iter()
                        .find_map(|s| method.strip_suffix(s))
                        .filter(|b| modules.contains_key(*b))
                        .unwrap_or(&method);
                    if let Some(entry) = modules.get(base).and_then(|t| tools.get_mut(t)) {
                        entry
                            .items
                            .insert(format!("Client::{method}"), function(&f.sig, &f.attrs));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(Surface { tools, prompts })
}

fn self_name(imp: &syn::ItemImpl) -> Option<String> {
    match imp.self_ty.as_ref() {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn is_pub(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

fn tokens(t: &impl ToTokens) -> String {
    t.to_token_stream().to_string()
}

fn docs(attrs: &[syn::Attribute]) -> String {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .map(tokens)
        .collect::<Vec<_>>()
        .join("\n")
}

fn derives(attrs: &[syn::Attribute]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for a in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let _ = a.parse_nested_meta(|meta| {
            if let Some(last) = meta.path.segments.last() {
                out.insert(last.ident.to_string());
            }
            Ok(())
        });
    }
    out
}

fn function(sig: &syn::Signature, attrs: &[syn::Attribute]) -> Item {
    Item::Other {
        kind: "method",
        signature: tokens(sig),
        rest: docs(attrs),
    }
}

fn collect(items: &[syn::Item], prefix: &str, out: &mut BTreeMap<String, Item>) {
    for item in items {
        match item {
            syn::Item::Struct(s) if is_pub(&s.vis) => {
                let mut fields = BTreeMap::new();
                let mut wire_names = BTreeMap::new();
                let mut all_public = true;
                for (i, f) in s.fields.iter().enumerate() {
                    if !is_pub(&f.vis) {
                        all_public = false;
                        continue;
                    }
                    let name = f
                        .ident
                        .as_ref()
                        .map_or_else(|| i.to_string(), ToString::to_string);
                    wire_names.insert(name.clone(), wire_name(&f.attrs, &name));
                    fields.insert(name, tokens(&f.ty));
                }
                let non_exhaustive = s.attrs.iter().any(|a| a.path().is_ident("non_exhaustive"));
                out.insert(
                    format!("{prefix}{}", s.ident),
                    Item::Type {
                        kind: "struct",
                        members: fields,
                        wire_names,
                        closed: all_public && !non_exhaustive,
                        derives: derives(&s.attrs),
                        docs: docs(&s.attrs),
                    },
                );
            }
            syn::Item::Enum(e) if is_pub(&e.vis) => {
                let variants = e
                    .variants
                    .iter()
                    .map(|v| (v.ident.to_string(), variant_fields(&v.fields)))
                    .collect();
                let wire_names = e
                    .variants
                    .iter()
                    .map(|v| {
                        let name = v.ident.to_string();
                        (name.clone(), wire_name(&v.attrs, &name))
                    })
                    .collect();
                out.insert(
                    format!("{prefix}{}", e.ident),
                    Item::Type {
                        kind: "enum",
                        members: variants,
                        wire_names,
                        closed: !e.attrs.iter().any(|a| a.path().is_ident("non_exhaustive")),
                        derives: derives(&e.attrs),
                        docs: docs(&e.attrs),
                    },
                );
            }
            // `string_enum!(Name { Variant = "wire", … })` and `serde_struct!(Name { field =
            // "wire" …, … })`: the wire names of the type's members (and the serde impls the
            // macro writes).
            syn::Item::Macro(m)
                if m.mac
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "string_enum" || s.ident == "serde_struct") =>
            {
                let Some((name, wire)) = serde_macro_call(&m.mac.tokens) else {
                    continue;
                };
                if let Some(Item::Type {
                    wire_names,
                    derives,
                    ..
                }) = out.get_mut(&format!("{prefix}{name}"))
                {
                    wire_names.extend(wire);
                    derives.extend(["Deserialize".to_string(), "Serialize".to_string()]);
                }
            }
            syn::Item::Type(t) if is_pub(&t.vis) => {
                out.insert(
                    format!("{prefix}{}", t.ident),
                    Item::Other {
                        kind: "type alias",
                        signature: tokens(&t.ty),
                        rest: docs(&t.attrs),
                    },
                );
            }
            syn::Item::Const(c) if is_pub(&c.vis) => {
                out.insert(
                    format!("{prefix}{}", c.ident),
                    Item::Other {
                        kind: "const",
                        signature: tokens(&c.ty),
                        rest: format!("{}\n{}", tokens(&c.expr), docs(&c.attrs)),
                    },
                );
            }
            syn::Item::Fn(f) if is_pub(&f.vis) => {
                out.insert(
                    format!("{prefix}{}", f.sig.ident),
                    function(&f.sig, &f.attrs),
                );
            }
            syn::Item::Use(u) if is_pub(&u.vis) => {
                // One item per name the `use` makes visible: `pub use self::a::B` is the
                // re-export `B` of `self::a::B`.
                let mut names = Vec::new();
                reexports(&u.tree, String::new(), &mut names);
                for (name, path) in names {
                    out.entry(format!("{prefix}{name}")).or_insert(Item::Other {
                        kind: "re-export",
                        signature: path,
                        rest: String::new(),
                    });
                }
            }
            syn::Item::Mod(m) if is_pub(&m.vis) => {
                if let Some((_, inner)) = &m.content {
                    collect(inner, &format!("{prefix}{}::", m.ident), out);
                }
            }
            syn::Item::Impl(imp) => {
                let Some(ty) = self_name(imp) else { continue };
                let ty = format!("{prefix}{ty}");
                match &imp.trait_ {
                    Some((path, _)) => {
                        let name = path
                            .segments
                            .last()
                            .map_or_else(String::new, |s| squeeze(&tokens(s)));
                        out.insert(
                            format!("impl {name} for {ty}"),
                            Item::Other {
                                kind: "impl",
                                signature: String::new(),
                                rest: String::new(),
                            },
                        );
                    }
                    None => {
                        for f in &imp.items {
                            if let syn::ImplItem::Fn(f) = f
                                && is_pub(&f.vis)
                            {
                                out.insert(
                                    format!("{ty}::{}", f.sig.ident),
                                    function(&f.sig, &f.attrs),
                                );
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// The reasons one tool's items changed.
fn compare_items(
    a: &BTreeMap<String, Item>,
    b: &BTreeMap<String, Item>,
) -> Vec<(RustEffect, String)> {
    let mut out = Vec::new();
    let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    // Types that come or go: their impls and methods go with them, unreported.
    let types_only_on_one_side: BTreeSet<&str> = names
        .iter()
        .filter(|n| a.contains_key(**n) != b.contains_key(**n))
        .filter(|n| matches!(a.get(**n).or(b.get(**n)), Some(Item::Type { .. })))
        .map(|n| n.as_str())
        .collect();
    let belongs_to_gone_type = |name: &str| {
        let owner = match name.rsplit_once(" for ") {
            Some((_, ty)) if name.starts_with("impl ") => ty,
            _ => name.rsplit_once("::").map_or("", |(ty, _)| ty),
        };
        types_only_on_one_side.contains(owner)
    };
    for name in names {
        if belongs_to_gone_type(name) {
            continue;
        }
        match (a.get(name), b.get(name)) {
            (Some(x), None) => {
                out.push((RustEffect::Major, format!("{} `{name}` removed", kind(x))))
            }
            (None, Some(y)) => out.push((RustEffect::Minor, format!("{} `{name}` added", kind(y)))),
            (Some(x), Some(y)) if x != y => compare_item(name, x, y, &mut out),
            _ => {}
        }
    }
    out
}

fn kind(item: &Item) -> &'static str {
    match item {
        Item::Type { kind, .. } => kind,
        Item::Other { kind, .. } => kind,
    }
}

fn compare_item(name: &str, x: &Item, y: &Item, out: &mut Vec<(RustEffect, String)>) {
    let before = out.len();
    match (x, y) {
        (
            Item::Type {
                kind: ka,
                members: ma,
                wire_names: wa,
                closed,
                derives: da,
                docs: doc_a,
            },
            Item::Type {
                kind: kb,
                members: mb,
                wire_names: wb,
                derives: db,
                docs: doc_b,
                ..
            },
        ) if ka == kb => {
            let (member, breaks) = if *ka == "struct" {
                ("field", "struct literals without `..` stop compiling")
            } else {
                ("variant", "exhaustive `match`es stop compiling")
            };
            wire_name_changes(name, member, wa, wb, out);
            for (m, x) in ma {
                match mb.get(m) {
                    None => out.push((
                        RustEffect::Major,
                        format!("{ka} `{name}` loses {member} `{m}`"),
                    )),
                    Some(y) if y != x => out.extend(
                        member_changed(name, member, m, x, y)
                            .into_iter()
                            .map(|r| (RustEffect::Major, r)),
                    ),
                    Some(_) => {}
                }
            }
            for (m, y) in mb.iter().filter(|(m, _)| !ma.contains_key(*m)) {
                let shown = if *ka == "struct" {
                    format!("{m}: {}", squeeze(y))
                } else {
                    m.clone()
                };
                out.push(if *closed {
                    (
                        RustEffect::Major,
                        format!("{ka} `{name}` gains {member} `{shown}` ({breaks})"),
                    )
                } else {
                    (
                        RustEffect::Minor,
                        format!("{ka} `{name}` gains {member} `{shown}`"),
                    )
                });
            }
            derive_changes(name, da, db, out);
            if out[before..].iter().all(|r| r.0 == RustEffect::Patch) && doc_a != doc_b {
                out.push((
                    RustEffect::Patch,
                    format!("documentation of `{name}` changes"),
                ));
            }
        }
        (
            Item::Other {
                kind,
                signature: sa,
                rest: ra,
            },
            Item::Other {
                signature: sb,
                rest: rb,
                ..
            },
        ) => {
            if sa != sb {
                out.push((
                    RustEffect::Major,
                    format!(
                        "{kind} `{name}` changes its signature from `{}` to `{}`",
                        squeeze(sa),
                        squeeze(sb)
                    ),
                ));
            } else if ra != rb {
                let what = if *kind == "const" {
                    "value"
                } else {
                    "documentation"
                };
                out.push((
                    RustEffect::Patch,
                    format!("{kind} `{name}` changes its {what}"),
                ));
            }
        }
        _ => out.push((
            RustEffect::Major,
            format!("`{name}` changes from {} to {}", kind(x), kind(y)),
        )),
    }
}

/// Same Rust name, another name on the wire: code compiles, and sends or expects other
/// JSON.
fn wire_name_changes(
    name: &str,
    what: &str,
    a: &BTreeMap<String, String>,
    b: &BTreeMap<String, String>,
    out: &mut Vec<(RustEffect, String)>,
) {
    for (member, x) in a {
        if let Some(y) = b.get(member).filter(|y| *y != x) {
            out.push((
                RustEffect::Patch,
                format!("{what} `{name}::{member}` is now \"{y}\" on the wire (was \"{x}\"): same Rust code, other JSON"),
            ));
        }
    }
}

/// The type and its members' wire names of a `string_enum!(Name { Variant = "wire", … })`
/// or a `serde_struct!(Name { field = "wire" flags…, … } …)`.
fn serde_macro_call(
    tokens: &proc_macro2::TokenStream,
) -> Option<(String, BTreeMap<String, String>)> {
    use proc_macro2::TokenTree;
    let mut it = tokens.clone().into_iter();
    let Some(TokenTree::Ident(name)) = it.next() else {
        return None;
    };
    let Some(TokenTree::Group(body)) = it.next() else {
        return None;
    };
    let mut wire = BTreeMap::new();
    let list: Vec<TokenTree> = body.stream().into_iter().collect();
    for entry in list.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ',')) {
        if let [
            TokenTree::Ident(variant),
            TokenTree::Punct(eq),
            TokenTree::Literal(lit),
            ..,
        ] = entry
            && eq.as_char() == '='
            && let Ok(value) = syn::parse_str::<syn::LitStr>(&lit.to_string())
        {
            wire.insert(variant.to_string(), value.value());
        }
    }
    Some((name.to_string(), wire))
}

/// The name serde uses for a field or variant: its `#[serde(rename = "…")]`, else its own.
fn wire_name(attrs: &[syn::Attribute], own: &str) -> String {
    let mut out = naming::unraw(own).to_string();
    for a in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = a.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename")
                && let Ok(value) = meta.value()
                && let Ok(lit) = value.parse::<syn::LitStr>()
            {
                out = lit.value();
            } else if meta.input.peek(syn::Token![=]) {
                // Skip the value of any other `key = value`.
                let _ = meta.value().and_then(|v| v.parse::<syn::Expr>());
            } else if meta.input.peek(syn::token::Paren) {
                let _ = meta.parse_nested_meta(|_| Ok(()));
            }
            Ok(())
        });
    }
    out
}

/// A variant's fields as names and types (attributes and docs left out).
/// Fields as `name<US>type` (position for tuple fields), joined by `<RS>`: see
/// [`split_fields`].
fn variant_fields(fields: &syn::Fields) -> String {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let name = f
                .ident
                .as_ref()
                .map_or_else(|| i.to_string(), ToString::to_string);
            format!("{name}\u{1f}{}", tokens(&f.ty))
        })
        .collect::<Vec<_>>()
        .join("\u{1e}")
}

/// The `(name, type)` pairs [`variant_fields`] joined.
fn split_fields(joined: &str) -> Vec<(&str, &str)> {
    joined
        .split('\u{1e}')
        .filter(|f| !f.is_empty())
        .map(|f| f.split_once('\u{1f}').unwrap_or((f, "")))
        .collect()
}

/// How a member that is on both sides changed: a field's type, or a variant's fields (the
/// same names with other types: each field named; other names: the lists).
fn member_changed(name: &str, member: &str, m: &str, x: &str, y: &str) -> Vec<String> {
    if member == "field" {
        return vec![format!(
            "field `{name}::{m}` changes type from `{}` to `{}`",
            squeeze(x),
            squeeze(y)
        )];
    }
    let (a, b) = (split_fields(x), split_fields(y));
    fn names<'a>(v: &[(&'a str, &str)]) -> Vec<&'a str> {
        v.iter().map(|f| f.0).collect()
    }
    if names(&a) == names(&b) {
        return a
            .iter()
            .zip(&b)
            .filter(|(p, q)| p.1 != q.1)
            .map(|(p, q)| {
                format!(
                    "field `{name}::{m}::{}` changes type from `{}` to `{}`",
                    p.0,
                    squeeze(p.1),
                    squeeze(q.1)
                )
            })
            .collect();
    }
    vec![format!(
        "variant `{name}::{m}` changes its fields from ({}) to ({})",
        names(&a).join(", "),
        names(&b).join(", ")
    )]
}

fn derive_changes(
    name: &str,
    a: &BTreeSet<String>,
    b: &BTreeSet<String>,
    out: &mut Vec<(RustEffect, String)>,
) {
    for d in a.difference(b) {
        out.push((
            RustEffect::Major,
            format!("`{name}` no longer implements `{d}`"),
        ));
    }
    for d in b.difference(a) {
        out.push((RustEffect::Minor, format!("`{name}` now implements `{d}`")));
    }
}

/// The names a `use` tree makes visible, each with the path it stands for (`*` for a glob).
fn reexports(tree: &syn::UseTree, path: String, out: &mut Vec<(String, String)>) {
    let join = |last: &str| {
        if path.is_empty() {
            last.to_string()
        } else {
            format!("{path}::{last}")
        }
    };
    match tree {
        syn::UseTree::Path(p) => reexports(&p.tree, join(&p.ident.to_string()), out),
        syn::UseTree::Name(n) => out.push((n.ident.to_string(), join(&n.ident.to_string()))),
        syn::UseTree::Rename(r) => out.push((r.rename.to_string(), join(&r.ident.to_string()))),
        syn::UseTree::Glob(_) => out.push((join("*"), join("*"))),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                reexports(t, path.clone(), out);
            }
        }
    }
}

/// Token text as written by hand: `Option < Vec < String > >` → `Option<Vec<String>>`
/// (a space kept only between two words and after a comma), `std` prelude paths shortened,
/// long types cut.
fn squeeze(t: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '\'';
    let chars: Vec<char> = t.chars().collect();
    let mut s = String::with_capacity(t.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let prev = s.chars().last();
            let next = chars.get(i + 1).copied();
            let between_words = prev.is_some_and(word) && next.is_some_and(word);
            if between_words || prev == Some(',') {
                s.push(' ');
            }
        } else {
            s.push(c);
        }
    }
    // `a:f64` → `a: f64`, `)->Self` → `) -> Self`; paths (`::`) stay tight.
    let chars: Vec<char> = s.chars().collect();
    let mut spaced = String::with_capacity(s.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        match c {
            ':' if prev != Some(':') && next != Some(':') => spaced.push_str(": "),
            '-' if next == Some('>') => spaced.push_str(" -"),
            '>' if prev == Some('-') => spaced.push_str("> "),
            _ => spaced.push(c),
        }
    }
    let mut s = spaced;
    for p in [
        "::std::option::",
        "::std::string::",
        "::std::vec::",
        "::core::option::",
    ] {
        s = s.replace(p, "");
    }
    crate::schema::truncate(&s, 120)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(tools: Value) -> Value {
        json!({"format": 1, "server": {"alias": "t"}, "tools": tools})
    }

    fn tool(input: Value) -> Value {
        json!({"name": "create_issue", "description": "Create an issue", "inputSchema": input})
    }

    fn args(props: Value, required: Value) -> Value {
        json!({"type": "object", "properties": props, "required": required})
    }

    /// The effect and reasons for `create_issue` between two input schemas.
    fn change(old: Value, new: Value) -> RustChange {
        let mut out = rust_effects(&doc(json!([tool(old)])), &doc(json!([tool(new)]))).tools;
        out.remove("create_issue").expect("create_issue changed")
    }

    #[track_caller]
    fn has(c: &RustChange, effect: RustEffect, needle: &str) {
        assert!(
            c.reasons
                .iter()
                .any(|(e, r)| *e == effect && r.contains(needle)),
            "no {effect} reason containing {needle:?} in {c:#?}"
        );
    }

    fn title() -> Value {
        json!({"title": {"type": "string"}})
    }

    #[test]
    fn a_new_optional_argument_adds_a_field_struct_literals_lack() {
        let c = change(
            args(title(), json!(["title"])),
            args(
                json!({"title": {"type": "string"}, "labels": {"type": "array", "items": {"type": "string"}}}),
                json!(["title"]),
            ),
        );
        assert_eq!(c.effect, RustEffect::Major);
        has(
            &c,
            RustEffect::Major,
            "struct `create_issue::Args` gains field `labels: Option<Vec<String>>` (struct literals without `..` stop compiling)",
        );
    }

    #[test]
    fn a_new_required_argument_changes_the_constructor() {
        let c = change(
            args(title(), json!(["title"])),
            args(
                json!({"title": {"type": "string"}, "count": {"type": "integer"}}),
                json!(["title", "count"]),
            ),
        );
        has(
            &c,
            RustEffect::Major,
            "method `create_issue::Args::new` changes its signature",
        );
        // Two required strings: no positional `new` (every argument is required here, so
        // the struct literal is the constructor).
        let c = change(
            args(title(), json!(["title"])),
            args(
                json!({"title": {"type": "string"}, "repo": {"type": "string"}}),
                json!(["title", "repo"]),
            ),
        );
        has(
            &c,
            RustEffect::Major,
            "method `create_issue::Args::new` removed",
        );
    }

    #[test]
    fn a_description_is_a_patch_and_identical_tools_are_absent() {
        let old = doc(json!([tool(args(title(), json!(["title"])))]));
        let mut new = old.clone();
        new["tools"][0]["description"] = json!("Open an issue");
        let out = rust_effects(&old, &new).tools;
        let c = &out["create_issue"];
        assert_eq!(c.effect, RustEffect::Patch, "{c:#?}");
        assert_eq!(rust_effects(&old, &old), RustReport::default());
    }

    #[test]
    fn an_output_schema_changes_the_return_type() {
        let old = doc(json!([tool(args(title(), json!(["title"])))]));
        let mut new = old.clone();
        new["tools"][0]["outputSchema"] = json!({"type": "object", "properties": {"number": {"type": "integer"}}, "required": ["number"]});
        let c = &rust_effects(&old, &new).tools["create_issue"];
        has(
            c,
            RustEffect::Major,
            "method `Client::create_issue` changes its signature",
        );
        has(c, RustEffect::Minor, "struct `create_issue::Output` added");
    }

    #[test]
    fn an_enum_value_adds_a_variant_and_tools_come_and_go() {
        let state = |values: Value| {
            args(
                json!({"state": {"type": "string", "enum": values}}),
                json!(["state"]),
            )
        };
        let c = change(
            state(json!(["open", "closed"])),
            state(json!(["open", "closed", "all"])),
        );
        has(
            &c,
            RustEffect::Major,
            "gains variant `All` (exhaustive `match`es stop compiling)",
        );
        let one = doc(json!([tool(args(title(), json!([])))]));
        let two = doc(
            json!([tool(args(title(), json!([]))), {"name": "close_issue", "inputSchema": {"type": "object"}}]),
        );
        assert_eq!(
            rust_effects(&one, &two).tools["close_issue"].effect,
            RustEffect::Minor
        );
        let gone = &rust_effects(&two, &one).tools["close_issue"];
        has(
            gone,
            RustEffect::Major,
            "module `close_issue` and method `Client::close_issue` removed",
        );
    }

    #[test]
    fn an_enum_value_with_the_same_rust_variant_is_a_wire_change() {
        let state = |values: Value| {
            args(
                json!({"state": {"type": "string", "enum": values}}),
                json!(["state"]),
            )
        };
        let c = change(
            state(json!(["in-progress", "done"])),
            state(json!(["in_progress", "done"])),
        );
        assert_eq!(c.effect, RustEffect::Patch, "{c:#?}");
        has(
            &c,
            RustEffect::Patch,
            "is now \"in_progress\" on the wire (was \"in-progress\")",
        );
    }

    #[test]
    fn a_field_with_the_same_rust_name_and_another_json_name_is_a_wire_change() {
        let per_page = |name: &str| args(json!({name: {"type": "integer"}}), json!([]));
        let c = change(per_page("perPage"), per_page("per_page"));
        assert_eq!(c.effect, RustEffect::Patch, "{c:#?}");
        has(
            &c,
            RustEffect::Patch,
            "is now \"per_page\" on the wire (was \"perPage\")",
        );
    }

    #[test]
    fn a_tool_renamed_to_the_same_rust_name_keeps_its_method() {
        let named = |name: &str| doc(json!([{"name": name, "inputSchema": {"type": "object"}}]));
        let out = rust_effects(&named("getTinyImage"), &named("get-tiny-image")).tools;
        for tool in ["getTinyImage", "get-tiny-image"] {
            assert_eq!(out[tool].effect, RustEffect::Patch, "{out:#?}");
            has(
                &out[tool],
                RustEffect::Patch,
                "now calling \"get-tiny-image\" (was \"getTinyImage\") on the wire",
            );
        }
    }

    #[test]
    fn a_removed_prompt_is_major_for_the_prompts_bindings() {
        let with = |prompts: Value| json!({"format": 1, "server": {"alias": "t"}, "tools": [], "prompts": prompts});
        let review = rust_effects(
            &with(
                json!([{"name": "summarize", "arguments": [{"name": "text", "required": true}]}, {"name": "greet"}]),
            ),
            &with(json!([{"name": "greet"}])),
        );
        let prompts = review.prompts.expect("the prompts' bindings change");
        assert_eq!(prompts.effect, RustEffect::Major, "{prompts:#?}");
        has(
            &prompts,
            RustEffect::Major,
            "`prompts::Prompts::summarize` removed",
        );
        // The last prompt gone, the module goes (with `Client::prompts`).
        let review = rust_effects(&with(json!([{"name": "greet"}])), &with(json!([])));
        let prompts = review.prompts.expect("the prompts' bindings change");
        assert_eq!(prompts.effect, RustEffect::Major, "{prompts:#?}");
    }

    #[test]
    fn a_removed_or_renamed_template_variable_is_major_an_added_template_minor() {
        let with = |templates: Value| json!({"format": 1, "server": {"alias": "t"}, "tools": [], "resourceTemplates": templates});
        let issue = |uri: &str| json!([{"name": "issue", "uriTemplate": uri}]);
        let review = rust_effects(
            &with(issue("gh://{owner}/{repo}/issues/{number}")),
            &with(issue("gh://{owner}/{repository}/issues/{number}")),
        );
        let change = review.prompts.expect("the resources' bindings change");
        assert_eq!(change.effect, RustEffect::Major, "{change:#?}");
        assert!(
            change.reasons.iter().any(|(e, r)| *e == RustEffect::Major
                && r.contains("resources::issue::Args")
                && r.contains("repo")),
            "{change:#?}"
        );
        let review = rust_effects(
            &with(issue("gh://{owner}")),
            &with(
                json!([{"name": "issue", "uriTemplate": "gh://{owner}"}, {"name": "readme", "uriTemplate": "gh://README"}]),
            ),
        );
        let change = review.prompts.expect("the resources' bindings change");
        assert_eq!(change.effect, RustEffect::Minor, "{change:#?}");
    }

    #[test]
    fn a_renamed_definition_renames_the_type() {
        let with = |name: &str| {
            json!({"type": "object", "properties": {"filter": {"$ref": format!("#/$defs/{name}")}},
                "$defs": {name: {"type": "object", "properties": {"state": {"type": "string"}}}}})
        };
        let c = change(with("Filter"), with("IssueFilter"));
        assert_eq!(c.effect, RustEffect::Major, "{c:#?}");
        has(&c, RustEffect::Major, "`create_issue::Filter` removed");
    }
}
