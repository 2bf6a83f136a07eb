//! The schema normalizer: rewrites one tool schema (as the server sent it) into the subset
//! typify 0.8 turns into compiling, ergonomic Rust — or explains why it cannot.
//!
//! Every step is a pure function over [`serde_json::Value`] and has its own unit test. What
//! each step does and why (what real servers' schemas contain, and where typify 0.8 breaks):
//!
//! | input | normalized to |
//! |---|---|
//! | root `title`, root name | the root is added to typify under a forced name (`Args`/`Output`) and every `title` becomes documentation (typify names types after titles, and two equal titles would silently merge two types) |
//! | `$defs` / `definitions` | hoisted into one per-tool namespace with unique PascalCase names (`Args`/`Output` reserved) |
//! | `$ref: "#/properties/…"`, `$anchor`, any in-document pointer | target copied into the namespace, reference repointed |
//! | `$ref: "#"` | points at the root type (recursion is boxed by typify) |
//! | external `$ref` | the tool falls back (never fetched) |
//! | `if/then/else`, `prefixItems`, `$dynamicRef`, `unevaluated*`, `dependentSchemas` | dropped with a warning: the constraint is not enforced by the types |
//! | `anyOf/oneOf [X, null]`, `type: [X, "null"]` | `Option<X>`; an optional top-level argument that may be null becomes `Option<Option<X>>` (`None` omits it, `Some(None)` sends `null`) |
//! | `default: null` on a non-null type, any `default` | removed (the server applies defaults); the value is documented |
//! | keywords / non-identifiers as property names | typify's `type_` / `meta` + `#[serde(rename)]` |
//! | `fooBar` + `foo_bar` in one object | [`Problem::Collision`] (top level: fixable with `rename`) |
//! | enum values with colliding variant names (`reactions-+1`/`reactions--1`) | distinct names (`ReactionsPlus1`/`ReactionsMinus1`) via placeholder values restored after typify |
//! | no-argument tool | `no_args`: the function takes no arguments and sends `{}` |
//! | `const` | a one-value enum (type-checked, serializes the constant) |
//! | `format` (`date-time`, `uuid`, …), `pattern`, string lengths | removed: plain `String`, no `chrono`/`uuid`/`regress` in the user's crate |
//! | integer bounds | past 64 bits (`maximum: 1e300`) → `number` (`f64`); `minimum ≥ 0` → `u64`, otherwise `i64`; never `NonZeroU64` (callers would need `NonZeroU64::new(…)` for every page number) |
//! | optional array/map properties (arguments and results; a map is an object without properties) | `Option<Vec<_>>` / `Option<Map<_>>` so an empty list is a value, distinct from an absent one |
//! | output schemas | `additionalProperties: false` removed (unknown fields allowed) |
//! | `additionalProperties: {schema}` beside `properties` | typify's flattened `extra` map; a property whose field would be `extra` becomes `extra_property` |
//! | `patternProperties` beside `properties` | their value schemas join `additionalProperties` (the flattened `extra` map carries those keys); alone, a map |
//! | `number` with an integral `multipleOf` | `integer` (every allowed value is whole) |
//! | unions (see `unions`) | untagged enums for unions with scalar or array branches; variants named by title, discriminator, unique property or type |

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::naming::typify_sanitize;
use crate::schema::{self, LIST_KEYWORDS, MAP_KEYWORDS, ONE_KEYWORDS, escape, for_each_child};

/// Whether a schema describes a tool's arguments or its structured result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// `inputSchema` → `Args`.
    Input,
    /// `outputSchema` → `Output` (lenient).
    Output,
}

impl Role {
    /// The forced name of the root type.
    pub(crate) fn root_name(self) -> &'static str {
        match self {
            Role::Input => "Args",
            Role::Output => "Output",
        }
    }
}

/// What the caller asks for besides the schema (from `Options`): renames and type
/// overrides of top-level arguments.
#[derive(Debug, Default, Clone)]
pub(crate) struct Request {
    /// Top-level property → new field identifier.
    pub renames: BTreeMap<String, String>,
    /// Top-level property → Rust type path.
    pub types: BTreeMap<String, String>,
    /// Documentation for the root type (the tool's description).
    pub description: Option<String>,
}

/// A schema ready for typify.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Normalized {
    /// The root schema; references point to `#/$defs/<name>` of [`Normalized::defs`].
    pub root: Value,
    /// The per-tool namespace: unique PascalCase names → schemas.
    pub defs: BTreeMap<String, Value>,
    /// Definitions typify must not generate but replace by a Rust type path.
    pub replacements: BTreeMap<String, String>,
    /// Placeholder string → original string, to restore in typify's output.
    pub literals: BTreeMap<String, String>,
    /// Human-readable notes about dropped constraints.
    pub warnings: Vec<String>,
    /// The tool takes no arguments (input only).
    pub no_args: bool,
    /// The tool's arguments are any JSON object: its schema declares nothing about them, or
    /// allows any property and names none (input only).
    pub free_form: bool,
    /// Optional top-level properties that accept `null` (input only).
    pub nullable_optional: BTreeSet<String>,
}

/// Why a schema cannot be normalized.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Problem {
    /// The tool falls back to untyped JSON for this reason.
    Fallback(String),
    /// Two properties of one object map to the same Rust field name.
    Collision {
        /// JSON pointer of the object (`""` for the top level).
        pointer: String,
        /// First property.
        first: String,
        /// Second property.
        second: String,
        /// The field name both map to.
        field: String,
    },
    /// A `rename` or `types` entry names a property the schema does not have, or is invalid.
    BadOption {
        /// `rename` or `types`.
        option: &'static str,
        /// The top-level property the entry names.
        property: String,
        /// What is wrong.
        message: String,
    },
}

/// Normalizes one schema. See the module documentation for the steps.
pub(crate) fn normalize(
    schema: &Value,
    role: Role,
    request: &Request,
) -> Result<Normalized, Problem> {
    let schema = match schema {
        Value::Bool(true) => json!({}),
        Value::Object(_) => schema.clone(),
        other => {
            return Err(Problem::Fallback(format!(
                "schema is not an object: {other}"
            )));
        }
    };
    if let Some(reference) = external_refs(&schema).into_iter().next() {
        return Err(Problem::Fallback(format!(
            "external $ref \"{reference}\" is not supported (mcp-bindgen never fetches schemas)"
        )));
    }
    let root_name = role.root_name();
    let (mut root, mut defs) = hoist_refs(&schema, root_name).map_err(Problem::Fallback)?;

    if let Some(cycle) = unboxed_cycle(&root, &defs, root_name) {
        return Err(Problem::Fallback(format!(
            "reference cycle {cycle} without an object property or array in between (no finite Rust type; typify would recurse forever)"
        )));
    }

    let mut ctx = Ctx::new(role, &schema);
    ctx.defs = defs.clone();
    let nullable_optional = if role == Role::Input {
        nullable_optional(&root)
    } else {
        BTreeSet::new()
    };
    clean(&mut root, "", &mut ctx, true);
    let names: Vec<String> = defs.keys().cloned().collect();
    for name in names {
        if let Some(def) = defs.get_mut(&name) {
            clean(def, &format!("/$defs/{name}"), &mut ctx, false);
        }
    }
    if let Some(problem) = ctx.problem.take() {
        return Err(problem);
    }

    if role == Role::Input && !is_object_like(&root) {
        return Err(Problem::Fallback(
            "inputSchema is not an object schema (MCP arguments are a JSON object)".into(),
        ));
    }
    let free_form = role == Role::Input && schema::free_form_arguments(&schema);
    let no_args = role == Role::Input && !free_form && is_empty_object(&root);

    let mut replacements = BTreeMap::new();
    apply_types(&mut root, &mut defs, &mut replacements, &request.types)?;
    apply_renames(&mut root, &mut ctx, &request.renames)?;
    if let Some(c) = first_collision(&root) {
        return Err(Problem::Collision {
            pointer: String::new(),
            first: c.0,
            second: c.1,
            field: c.2,
        });
    }
    if let Some(description) = &request.description
        && let Some(obj) = root.as_object_mut()
        && !description.trim().is_empty()
    {
        obj.insert("description".into(), Value::String(description.clone()));
    }
    Ok(Normalized {
        root,
        defs,
        replacements,
        literals: ctx.literals,
        warnings: ctx.warnings,
        no_args,
        free_form,
        nullable_optional,
    })
}

/// Mutable variant of [`for_each_child`].
fn for_each_child_mut(schema: &mut Value, f: &mut dyn FnMut(String, &mut Value)) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    for (key, value) in obj.iter_mut() {
        let k = key.as_str();
        if MAP_KEYWORDS.contains(&k) {
            if let Some(map) = value.as_object_mut() {
                for (name, sub) in map.iter_mut() {
                    f(format!("/{}/{}", escape(k), escape(name)), sub);
                }
            }
        } else if ONE_KEYWORDS.contains(&k) || (k == "items" && !value.is_array()) {
            f(format!("/{}", escape(k)), value);
        } else if (LIST_KEYWORDS.contains(&k) || k == "items")
            && let Some(list) = value.as_array_mut()
        {
            for (i, sub) in list.iter_mut().enumerate() {
                f(format!("/{k}/{i}"), sub);
            }
        }
    }
}

/// Every `$ref` string in schema positions, with the pointer of the schema holding it.
fn all_refs(schema: &Value) -> Vec<(String, String)> {
    fn go(v: &Value, at: String, out: &mut Vec<(String, String)>) {
        if let Some(r) = v.get("$ref").and_then(Value::as_str) {
            out.push((at.clone(), r.to_string()));
        }
        for_each_child(v, &mut |suffix, sub| go(sub, format!("{at}{suffix}"), out));
    }
    let mut out = Vec::new();
    go(schema, String::new(), &mut out);
    out
}

// ---------------------------------------------------------------------------------------
// Step: external references.

/// `$ref`s that leave the document (anything not starting with `#`), sorted.
pub(crate) fn external_refs(schema: &Value) -> Vec<String> {
    let mut out: Vec<String> = all_refs(schema)
        .into_iter()
        .map(|(_, r)| r)
        .filter(|r| !r.starts_with('#'))
        .collect();
    out.sort();
    out.dedup();
    out
}

// ---------------------------------------------------------------------------------------
// Step: hoisting every reference target into one namespace.

/// The JSON pointer a local `$ref` designates (`""` for the root).
fn ref_target(schema: &Value, reference: &str) -> Result<String, String> {
    if reference.get(1..).is_some_and(|f| f.is_empty() || f == "/") {
        return Ok(String::new());
    }
    let pointer = schema::ref_pointer(schema, reference).ok_or_else(|| {
        if reference.starts_with("#/") {
            format!("$ref \"{reference}\" does not resolve in the tool's schema")
        } else {
            format!("$ref \"{reference}\" names an anchor that does not exist")
        }
    })?;
    match schema.pointer(&pointer) {
        Some(Value::Object(_) | Value::Bool(_)) => Ok(pointer),
        Some(_) => Err(format!("$ref \"{reference}\" does not point at a schema")),
        None => Err(format!(
            "$ref \"{reference}\" does not resolve in the tool's schema"
        )),
    }
}

/// A type-name stem for a pointer: its last segment that is not a keyword.
fn stem(pointer: &str) -> String {
    let segments: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(crate::schema::unescape)
        .collect();
    let keywords = [
        "properties",
        "items",
        "$defs",
        "definitions",
        "anyOf",
        "oneOf",
        "allOf",
        "additionalProperties",
    ];
    for (i, s) in segments.iter().enumerate().rev() {
        let is_index = s.parse::<usize>().is_ok();
        let under_map = i > 0
            && ["properties", "$defs", "definitions", "patternProperties"]
                .contains(&segments[i - 1].as_str());
        if under_map || (!keywords.contains(&s.as_str()) && !is_index) {
            return s.clone();
        }
    }
    "Def".to_string()
}

/// Moves every reference target (`$defs`, `definitions`, `#/properties/…`, anchors, `#`)
/// into one namespace of unique PascalCase names; returns the root (without `$defs`) and
/// the reachable definitions. `#` points at `root_name` itself.
pub(crate) fn hoist_refs(
    schema: &Value,
    root_name: &str,
) -> Result<(Value, BTreeMap<String, Value>), String> {
    // Targets: reference → pointer. Every root-level definition is a target too (pruned
    // later when unreachable), so names stay stable whichever refs exist.
    let mut targets: BTreeMap<String, String> = BTreeMap::new();
    for key in ["$defs", "definitions"] {
        if let Some(map) = schema.get(key).and_then(Value::as_object) {
            for name in map.keys() {
                targets.insert(format!("/{key}/{}", escape(name)), String::new());
            }
        }
    }
    let mut ref_to_pointer: BTreeMap<String, String> = BTreeMap::new();
    for (_, reference) in all_refs(schema) {
        if !reference.starts_with('#') || ref_to_pointer.contains_key(&reference) {
            continue;
        }
        let pointer = ref_target(schema, &reference)?;
        if !pointer.is_empty() {
            targets.insert(pointer.clone(), String::new());
        }
        ref_to_pointer.insert(reference, pointer);
    }

    // Names: deterministic (pointer order), unique, never the reserved root names.
    let mut used: BTreeSet<String> = RESERVED_TYPE_NAMES
        .iter()
        .chain([root_name].iter())
        .map(|s| s.to_string())
        .collect();
    let pointers: Vec<String> = targets.keys().cloned().collect();
    for pointer in &pointers {
        let base = typify_sanitize(&stem(pointer), true);
        let mut name = base.clone();
        if used.contains(&name) {
            name = format!("{base}Def");
        }
        let mut n = 2;
        while used.contains(&name) {
            name = format!("{base}Def{n}");
            n += 1;
        }
        used.insert(name.clone());
        targets.insert(pointer.clone(), name);
    }
    let name_of = |pointer: &str| -> String {
        if pointer.is_empty() {
            root_name.to_string()
        } else {
            targets
                .get(pointer)
                .cloned()
                .unwrap_or_else(|| root_name.to_string())
        }
    };
    let rewrite = |value: &mut Value| {
        fn go(v: &mut Value, map: &dyn Fn(&str) -> Option<String>) {
            if let Some(obj) = v.as_object_mut()
                && let Some(Value::String(r)) = obj.get("$ref")
                && let Some(new) = map(r)
            {
                obj.insert("$ref".into(), Value::String(format!("#/$defs/{new}")));
            }
            for_each_child_mut(v, &mut |_, sub| go(sub, map));
        }
        let map = |r: &str| ref_to_pointer.get(r).map(|p| name_of(p));
        go(value, &map);
    };

    let mut defs = BTreeMap::new();
    for pointer in &pointers {
        let Some(target) = schema.pointer(pointer) else {
            continue;
        };
        let mut def = target.clone();
        strip_defs(&mut def);
        rewrite(&mut def);
        defs.insert(name_of(pointer), def);
    }
    let mut root = schema.clone();
    strip_defs(&mut root);
    rewrite(&mut root);

    // A target that lives inside the root (`#/properties/from`) is replaced there by a
    // reference too, so both places use one type.
    let inline: Vec<&String> = pointers
        .iter()
        .filter(|p| !p.starts_with("/$defs/") && !p.starts_with("/definitions/"))
        .collect();
    for pointer in inline.iter().rev() {
        replace_at(
            &mut root,
            pointer,
            json!({ "$ref": format!("#/$defs/{}", name_of(pointer)) }),
        );
    }
    for outer in &pointers {
        let outer_name = name_of(outer);
        for inner in pointers.iter().rev() {
            if let Some(rest) = inner.strip_prefix(outer.as_str())
                && rest.starts_with('/')
                && let Some(def) = defs.get_mut(&outer_name)
            {
                replace_at(
                    def,
                    rest,
                    json!({ "$ref": format!("#/$defs/{}", name_of(inner)) }),
                );
            }
        }
    }

    // Keep reachable definitions only.
    let mut reachable = BTreeSet::new();
    let mut queue = vec![root.clone()];
    while let Some(v) = queue.pop() {
        for (_, r) in all_refs(&v) {
            if let Some(name) = r.strip_prefix("#/$defs/")
                && reachable.insert(name.to_string())
                && let Some(def) = defs.get(name)
            {
                queue.push(def.clone());
            }
        }
    }
    defs.retain(|name, _| reachable.contains(name));
    Ok((root, defs))
}

/// Type names a definition must not take: the forced root names and prelude names that the
/// generated code (typify's impls) refers to unqualified.
const RESERVED_TYPE_NAMES: &[&str] = &[
    "Args",
    "Output",
    "Self",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "String",
    "Vec",
    "Box",
    "From",
    "Into",
    "TryFrom",
    "TryInto",
    "Default",
    "Clone",
    "Copy",
    "Debug",
    "Send",
    "Sync",
    "Sized",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Iterator",
    "IntoIterator",
    "ToString",
    "ToOwned",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "Hash",
    "AsRef",
    "AsMut",
    "Extend",
    "Unpin",
];

/// Finds a reference cycle typify cannot break: one that goes only through `$ref`,
/// `anyOf`/`oneOf`/`not`, or anywhere inside `allOf` (typify merges `allOf` members, which
/// resolves references eagerly). Cycles through object properties or array items are fine
/// (typify boxes them). Returns the cycle as `A → B → A`.
pub(crate) fn unboxed_cycle(
    root: &Value,
    defs: &BTreeMap<String, Value>,
    root_name: &str,
) -> Option<String> {
    fn edges(v: &Value, in_all_of: bool, out: &mut BTreeSet<String>) {
        if let Some(name) = v
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
        {
            out.insert(name.to_string());
        }
        let Some(obj) = v.as_object() else { return };
        for (key, child) in obj {
            let k = key.as_str();
            let transparent = ["anyOf", "oneOf", "allOf", "not"].contains(&k);
            if !(transparent || in_all_of) {
                continue;
            }
            let deeper = in_all_of || k == "allOf";
            let mut visit = |sub: &Value| edges(sub, deeper, out);
            match child {
                Value::Array(list) if transparent || LIST_KEYWORDS.contains(&k) || k == "items" => {
                    list.iter().for_each(&mut visit)
                }
                Value::Object(map) if MAP_KEYWORDS.contains(&k) => {
                    map.values().for_each(&mut visit)
                }
                Value::Object(_) if transparent || ONE_KEYWORDS.contains(&k) || k == "items" => {
                    visit(child)
                }
                _ => {}
            }
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut add = |name: &str, schema: &Value| {
        let mut out = BTreeSet::new();
        edges(schema, false, &mut out);
        graph.insert(name.to_string(), out);
    };
    add(root_name, root);
    for (name, def) in defs {
        add(name, def);
    }
    // Depth-first search with an explicit path.
    fn dfs(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<String> {
        if let Some(pos) = path.iter().position(|p| p == node) {
            let mut cycle: Vec<String> = path[pos..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle.join(" → "));
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = dfs(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(c) = dfs(node, &graph, &mut Vec::new(), &mut done) {
            return Some(c);
        }
    }

    // An `allOf` anywhere in a definition that refers (deeply) back to that definition.
    fn all_refs_deep(v: &Value, out: &mut BTreeSet<String>) {
        for (_, r) in all_refs(v) {
            if let Some(name) = r.strip_prefix("#/$defs/") {
                out.insert(name.to_string());
            }
        }
    }
    fn merge_targets(v: &Value, out: &mut BTreeSet<String>) {
        if let Some(Value::Array(list)) = v.get("allOf") {
            list.iter().for_each(|m| all_refs_deep(m, out));
        }
        for_each_child(v, &mut |_, sub| merge_targets(sub, out));
    }
    let mut every: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut merges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, schema) in std::iter::once((root_name.to_string(), root))
        .chain(defs.iter().map(|(n, d)| (n.clone(), d)))
    {
        let mut e = BTreeSet::new();
        all_refs_deep(schema, &mut e);
        every.insert(name.clone(), e);
        let mut m = BTreeSet::new();
        merge_targets(schema, &mut m);
        merges.insert(name, m);
    }
    for (name, targets) in &merges {
        for target in targets {
            // Does `target` reach `name` (or is it `name`)?
            let mut seen = BTreeSet::new();
            let mut stack = vec![target.clone()];
            while let Some(n) = stack.pop() {
                if &n == name {
                    return Some(format!(
                        "{name} → allOf → {target}{}",
                        if target == name {
                            String::new()
                        } else {
                            format!(" → … → {name}")
                        }
                    ));
                }
                if seen.insert(n.clone()) {
                    stack.extend(every.get(&n).into_iter().flatten().cloned());
                }
            }
        }
    }
    None
}

/// Replaces the value at `pointer` (keeping its `description`).
fn replace_at(root: &mut Value, pointer: &str, mut replacement: Value) {
    if let Some(slot) = root.pointer_mut(pointer) {
        if let (Some(d), Some(obj)) = (
            slot.get("description").cloned(),
            replacement.as_object_mut(),
        ) {
            obj.insert("description".into(), d);
        }
        *slot = replacement;
    }
}

fn strip_defs(v: &mut Value) {
    if let Some(obj) = v.as_object_mut() {
        obj.remove("$defs");
        obj.remove("definitions");
    }
}

// ---------------------------------------------------------------------------------------
// Step: cleaning every node.

struct Ctx {
    role: Role,
    warnings: Vec<String>,
    literals: BTreeMap<String, String>,
    /// Apostrophes are removed by typify's identifier rule; a run of them longer than any run
    /// in the schema makes a placeholder that cannot clash with a real string.
    next_marker: usize,
    problem: Option<Problem>,
    /// The tool's definitions as hoisted, before cleaning (what `$ref` branches look like).
    defs: BTreeMap<String, Value>,
}

impl Ctx {
    fn new(role: Role, schema: &Value) -> Self {
        let text = schema.to_string();
        let mut longest = 0;
        let mut run = 0;
        for c in text.chars() {
            if c == '\'' {
                run += 1;
                longest = longest.max(run);
            } else {
                run = 0;
            }
        }
        Ctx {
            role,
            warnings: Vec::new(),
            literals: BTreeMap::new(),
            next_marker: longest + 1,
            problem: None,
            defs: BTreeMap::new(),
        }
    }

    fn warn(&mut self, pointer: &str, message: String) {
        let at = if pointer.is_empty() {
            "/".to_string()
        } else {
            pointer.to_string()
        };
        let line = format!("{message} (at {at})");
        if !self.warnings.contains(&line) {
            self.warnings.push(line);
        }
    }

    /// A fresh placeholder whose typify identifier is `ident`; `original` is restored later.
    fn placeholder(&mut self, ident: &str, original: &str) -> String {
        let p = format!("{}{ident}", "'".repeat(self.next_marker));
        self.next_marker += 1;
        self.literals.insert(p.clone(), original.to_string());
        p
    }
}

/// Keywords removed without a note (annotations or constraints left to the server).
const SILENT_DROP: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$comment",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "format",
    "pattern",
    "patternProperties",
    "propertyNames",
    "minLength",
    "maxLength",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "exclusiveMaximum",
    "maximum",
    "$vocabulary",
    "dependentRequired",
];
/// Keywords removed with a warning: the constraint is real but the types cannot carry it.
const WARN_DROP: &[(&str, &str)] = &[
    (
        "if",
        "conditional schema (if/then/else) dropped; the condition is not checked by the generated types",
    ),
    (
        "then",
        "conditional schema (if/then/else) dropped; the condition is not checked by the generated types",
    ),
    (
        "else",
        "conditional schema (if/then/else) dropped; the condition is not checked by the generated types",
    ),
    (
        "prefixItems",
        "prefixItems (tuple positions) dropped; items are typed as JSON values",
    ),
    (
        "$dynamicRef",
        "$dynamicRef is not supported; the value is typed as any JSON",
    ),
    ("$dynamicAnchor", "$dynamicAnchor ignored"),
    (
        "$recursiveRef",
        "$recursiveRef is not supported; the value is typed as any JSON",
    ),
    ("$recursiveAnchor", "$recursiveAnchor ignored"),
    (
        "unevaluatedProperties",
        "unevaluatedProperties dropped; not checked by the generated types",
    ),
    (
        "unevaluatedItems",
        "unevaluatedItems dropped; not checked by the generated types",
    ),
    (
        "dependentSchemas",
        "dependentSchemas dropped; not checked by the generated types",
    ),
    (
        "dependencies",
        "dependencies dropped; not checked by the generated types",
    ),
];

/// Cleans one node and, recursively, its subschemas.
fn clean(v: &mut Value, at: &str, ctx: &mut Ctx, is_root: bool) {
    if let Value::Bool(true) = v {
        *v = json!({});
    }
    let Some(obj) = v.as_object_mut() else { return };
    integral_numbers(obj);
    wide_integers(obj);
    pattern_properties(obj);
    drop_keywords(obj, at, ctx);
    annotations_to_docs(obj, is_root);
    if let Some(title) = obj.remove(crate::unions::VARIANT_TITLE) {
        obj.insert("title".into(), title);
    }
    ref_siblings(obj, at, ctx);
    single_all_of(obj);
    const_to_enum(obj, at, ctx);
    integer_bounds(obj);
    nullable_union(obj);
    unconstrained_union(obj, at, ctx);
    crate::unions::shape_unions(obj, at, ctx.role.root_name(), &ctx.defs);
    nullable_union(obj);
    untyped_not(obj, at, ctx);
    enum_variants(obj, at, ctx);
    object_rules(obj, at, ctx);

    for_each_child_mut(v, &mut |suffix, sub| {
        clean(sub, &format!("{at}{suffix}"), ctx, false)
    });
}

/// Drops keywords typify mishandles (see [`SILENT_DROP`], [`WARN_DROP`], `x-*`).
fn drop_keywords(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    for key in SILENT_DROP {
        obj.remove(*key);
    }
    // `exclusiveMinimum` is needed by the integer step; it removes it.
    obj.retain(|k, _| !k.starts_with("x-"));
    for (key, message) in WARN_DROP {
        if obj.remove(*key).is_some() {
            ctx.warn(at, (*message).to_string());
        }
    }
}

/// `title` → description (typify would name types after it), `default` → documented and
/// removed (the server applies it; typify would make the field mandatory).
fn annotations_to_docs(obj: &mut Map<String, Value>, is_root: bool) {
    if let Some(Value::String(title)) = obj.remove("title")
        && !is_root
        && !obj.contains_key("description")
        && !title.trim().is_empty()
    {
        obj.insert("description".into(), Value::String(title));
    }
    if let Some(default) = obj.remove("default")
        && !default.is_null()
    {
        let note = format!("Default: `{default}`.");
        let description = match obj.get("description").and_then(Value::as_str) {
            Some(d) if !d.trim().is_empty() => format!("{}\n\n{note}", d.trim_end()),
            _ => note,
        };
        obj.insert("description".into(), Value::String(description));
    }
}

/// `$ref` with sibling constraints: keep the reference and its description only.
fn ref_siblings(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    if !obj.contains_key("$ref") {
        return;
    }
    let extra: Vec<String> = obj
        .keys()
        .filter(|k| !["$ref", "description"].contains(&k.as_str()))
        .cloned()
        .collect();
    if !extra.is_empty() {
        ctx.warn(
            at,
            format!("keywords next to $ref dropped: {}", extra.join(", ")),
        );
        obj.retain(|k, _| k == "$ref" || k == "description");
    }
}

/// `allOf: [X]` (pydantic's way to attach a description to a reference) → `X`.
fn single_all_of(obj: &mut Map<String, Value>) {
    let only_one = matches!(obj.get("allOf"), Some(Value::Array(list)) if list.len() == 1);
    let others = obj
        .keys()
        .any(|k| !["allOf", "description"].contains(&k.as_str()));
    if !only_one || others {
        return;
    }
    let Some(Value::Array(mut list)) = obj.remove("allOf") else {
        return;
    };
    let description = obj.remove("description");
    match list.pop() {
        Some(Value::Object(inner)) => {
            obj.extend(inner);
            if let Some(d) = description {
                obj.insert("description".into(), d);
            }
        }
        Some(other) => {
            obj.insert("allOf".into(), Value::Array(vec![other]));
            if let Some(d) = description {
                obj.insert("description".into(), d);
            }
        }
        None => {}
    }
}

/// `const` → a one-value `enum` (typify ignores `const`).
fn const_to_enum(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    let Some(value) = obj.remove("const") else {
        return;
    };
    match &value {
        Value::String(_) => {
            obj.insert("type".into(), json!("string"));
            obj.insert("enum".into(), json!([value]));
        }
        Value::Null => {
            obj.insert("type".into(), json!("null"));
        }
        Value::Bool(_) | Value::Number(_) => {
            obj.insert("enum".into(), json!([value]));
        }
        Value::Array(_) | Value::Object(_) => {
            ctx.warn(
                at,
                format!("const {value} dropped; the value is typed as any JSON"),
            );
        }
    }
}

/// Integer bounds → `minimum: 0` when the value can never be negative (`u64`), nothing
/// otherwise (`i64`). Number bounds are removed (typify drops them anyway).
fn integer_bounds(obj: &mut Map<String, Value>) {
    let minimum = obj.remove("minimum").and_then(|v| v.as_f64());
    let exclusive = obj.remove("exclusiveMinimum").and_then(|v| v.as_f64());
    if is_integer(obj) && matches!(lower_bound(minimum, exclusive), Some(l) if l >= 0.0) {
        obj.insert("minimum".into(), json!(0));
    }
}

fn is_integer(obj: &Map<String, Value>) -> bool {
    match obj.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
        _ => false,
    }
}

fn lower_bound(minimum: Option<f64>, exclusive: Option<f64>) -> Option<f64> {
    match (minimum, exclusive) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// An integer whose bounds reach past 64 bits (`maximum: 1e300`) → a `number` (`f64`), the
/// one Rust number that carries such values (runs before the bounds are dropped).
fn wide_integers(obj: &mut Map<String, Value>) {
    if !is_integer(obj) {
        return;
    }
    let bound = |k: &str| obj.get(k).and_then(Value::as_f64);
    let lower = lower_bound(bound("minimum"), bound("exclusiveMinimum"));
    let upper = match (bound("maximum"), bound("exclusiveMaximum")) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let limit = if lower.is_some_and(|l| l >= 0.0) {
        u64::MAX as f64
    } else {
        i64::MAX as f64
    };
    if !(lower.is_some_and(|l| l < i64::MIN as f64) || upper.is_some_and(|u| u > limit)) {
        return;
    }
    match obj.get_mut("type") {
        Some(Value::Array(types)) => {
            types.retain(|t| t != "integer");
            if !types.iter().any(|t| t == "number") {
                types.push(json!("number"));
            }
        }
        Some(t) => *t = json!("number"),
        None => {}
    }
}

/// `patternProperties` beside declared `properties` → the values they allow kept in the
/// flattened map of extra properties (`additionalProperties`), which typify types; alone
/// they leave a map of JSON values. The key patterns are not checked by the types.
fn pattern_properties(obj: &mut Map<String, Value>) {
    let Some(Value::Object(patterns)) = obj.remove("patternProperties") else {
        return;
    };
    let has_properties = obj
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    if !has_properties || patterns.is_empty() {
        return;
    }
    let mut branches: Vec<Value> = patterns.into_iter().map(|(_, s)| s).collect();
    let extra = match obj.remove("additionalProperties") {
        // Other keys are allowed too: any value.
        None | Some(Value::Bool(true)) => json!({}),
        Some(Value::Bool(false)) if branches.len() == 1 => branches.remove(0),
        Some(Value::Bool(false)) => json!({ "anyOf": branches }),
        Some(other) => {
            branches.push(other);
            json!({ "anyOf": branches })
        }
    };
    obj.insert("additionalProperties".into(), extra);
}

/// `type: number` with an integral `multipleOf` → `type: integer`: every value it allows is
/// a whole number. (Whole-number bounds alone do not make one: `temperature` from 0 to 2
/// allows 0.7.)
fn integral_numbers(obj: &mut Map<String, Value>) {
    let integral_step = obj
        .get("multipleOf")
        .and_then(Value::as_f64)
        .is_some_and(|m| m >= 1.0 && m.fract() == 0.0);
    if !integral_step {
        return;
    }
    match obj.get_mut("type") {
        Some(t @ Value::String(_)) if t == "number" => *t = json!("integer"),
        Some(Value::Array(types)) => {
            let has_integer = types.iter().any(|t| t == "integer");
            types.retain(|t| !(has_integer && t == "number"));
            for t in types.iter_mut() {
                if t == "number" {
                    *t = json!("integer");
                }
            }
        }
        _ => {}
    }
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
        || v.get("const").is_some_and(Value::is_null)
        || matches!(v.get("enum"), Some(Value::Array(a)) if a.len() == 1 && a[0].is_null())
}

/// `anyOf`/`oneOf` of one schema and `null`, in any order → `anyOf: [X, {"type": "null"}]`.
fn nullable_union(obj: &mut Map<String, Value>) {
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(list)) = obj.get(key) else {
            continue;
        };
        if list.len() != 2 {
            continue;
        }
        let nulls = list.iter().filter(|s| is_null_schema(s)).count();
        if nulls != 1 {
            continue;
        }
        let Some(Value::Array(list)) = obj.remove(key) else {
            continue;
        };
        let other = list
            .into_iter()
            .find(|s| !is_null_schema(s))
            .unwrap_or(json!({}));
        obj.insert("anyOf".into(), json!([other, {"type": "null"}]));
    }
}

/// Pre-computes variant names of string enums; values whose names would collide (typify
/// panics) get placeholders that produce distinct names and are restored after typify.
fn enum_variants(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    let Some(Value::Array(values)) = obj.get("enum") else {
        return;
    };
    // Duplicates are legal JSON Schema but make duplicate variants.
    let mut seen = Vec::new();
    for v in values {
        if !seen.contains(v) {
            seen.push(v.clone());
        }
    }
    if !seen.iter().all(|v| v.is_string() || v.is_null()) {
        obj.insert("enum".into(), Value::Array(seen));
        return;
    }
    let strings: Vec<&str> = seen.iter().filter_map(Value::as_str).collect();
    let names: Vec<String> = strings.iter().map(|s| typify_sanitize(s, true)).collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for n in &names {
        *counts.entry(n.as_str()).or_default() += 1;
    }
    if counts.values().all(|&c| c == 1) {
        obj.insert("enum".into(), Value::Array(seen));
        return;
    }
    // Keep the names that are unique, spell out the others, then number what still clashes.
    let mut used: BTreeSet<String> = names
        .iter()
        .filter(|n| counts.get(n.as_str()) == Some(&1))
        .cloned()
        .collect();
    let mut renamed = Vec::new();
    let mut out = Vec::with_capacity(seen.len());
    let mut idx = 0;
    for v in &seen {
        let Some(s) = v.as_str() else {
            out.push(v.clone());
            continue;
        };
        let name = &names[idx];
        idx += 1;
        if counts.get(name.as_str()) == Some(&1) {
            out.push(v.clone());
            continue;
        }
        let base = typify_sanitize(&spell_out(s), true);
        let base = if typify_sanitize(&base, true) == base {
            base
        } else {
            "Value".to_string()
        };
        let mut chosen = base.clone();
        let mut n = 2;
        while used.contains(&chosen) {
            chosen = format!("{base}{n}");
            n += 1;
        }
        used.insert(chosen.clone());
        renamed.push(format!("\"{s}\" → {chosen}"));
        out.push(Value::String(ctx.placeholder(&chosen, s)));
    }
    obj.insert("enum".into(), Value::Array(out));
    ctx.warn(
        at,
        format!(
            "enum values renamed to distinct variants: {}",
            renamed.join(", ")
        ),
    );
}

/// Spells out symbols so values that differ only in punctuation get different names:
/// `reactions-+1` → `reactions-_plus_1`, `reactions--1` → `reactions-_minus_1`.
fn spell_out(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let prev_alnum = i > 0 && chars[i - 1].is_alphanumeric();
        let next_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
        let word = match c {
            '-' if next_digit && !prev_alnum => Some("minus"),
            c => SYMBOL_WORDS.iter().find(|(s, _)| *s == c).map(|(_, w)| *w),
        };
        match word {
            Some(w) => {
                out.push('_');
                out.push_str(w);
                out.push('_');
            }
            None => out.push(c),
        }
    }
    out
}

/// Object rules: lenient outputs, `Option` for optional lists/maps, `extra` clashes,
/// stray `required` names and nested field-name collisions.
fn object_rules(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    if ctx.role == Role::Output && obj.get("additionalProperties") == Some(&Value::Bool(false)) {
        obj.remove("additionalProperties");
    }
    symbolic_property_names(obj, ctx);
    let Some(Value::Object(props)) = obj.get("properties") else {
        return;
    };
    let names: Vec<String> = props.keys().cloned().collect();

    // typify puts a schema-typed `additionalProperties` into a flattened field `extra`: a
    // property of that Rust name becomes `extra_property` (its JSON name kept).
    let map_extra =
        matches!(obj.get("additionalProperties"), Some(Value::Object(m)) if !m.is_empty());
    if map_extra {
        for name in names
            .iter()
            .filter(|n| typify_sanitize(n, false) == "extra")
        {
            rename_property(obj, ctx, name, "extra_property");
        }
    }
    let Some(Value::Object(props)) = obj.get("properties") else {
        return;
    };
    let names: Vec<String> = props.keys().cloned().collect();

    if let Some(Value::Array(required)) = obj.get_mut("required") {
        let before = required.len();
        required.retain(|r| r.as_str().is_some_and(|r| names.iter().any(|n| n == r)));
        let mut seen = BTreeSet::new();
        required.retain(|r| seen.insert(r.to_string()));
        if required.len() != before {
            ctx.warn(
                at,
                "`required` names without a matching property ignored".into(),
            );
        }
    }
    let required: BTreeSet<String> = match obj.get("required") {
        Some(Value::Array(r)) => r
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => BTreeSet::new(),
    };

    // Arguments and results alike: `[]` and "absent" are different values.
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        for (name, schema) in props.iter_mut() {
            if !required.contains(name) {
                optional_list_or_map(schema);
            }
        }
    }

    if !at.is_empty()
        && ctx.problem.is_none()
        && let Some((first, second, field)) = first_collision_in(obj)
    {
        ctx.problem = Some(Problem::Fallback(format!(
            "properties \"{first}\" and \"{second}\" of the object at {at} both map to the Rust field `{field}`"
        )));
    }
}

/// Properties whose name has no letter or digit (`""`, `"_"`, `"-"`, `"$"`): typify would
/// call the field `x` and name its type after the parent object (a clash with the parent:
/// `Args` inside `Args`). They get a placeholder key spelling the name out (`dash`,
/// `underscore`, `empty`, …), restored to the JSON name after typify.
fn symbolic_property_names(obj: &mut Map<String, Value>, ctx: &mut Ctx) {
    let Some(Value::Object(props)) = obj.get("properties") else {
        return;
    };
    let symbolic: Vec<String> = props
        .keys()
        .filter(|n| !n.chars().any(char::is_alphanumeric))
        .cloned()
        .collect();
    for name in symbolic {
        let words: Vec<&str> = name
            .chars()
            .map(|c| match c {
                '-' => "dash",
                '_' => "underscore",
                ' ' => "space",
                '\'' => "apostrophe",
                '"' => "quote",
                '`' => "backtick",
                '(' | ')' => "paren",
                '[' | ']' => "bracket",
                '{' | '}' => "brace",
                '|' => "pipe",
                '\\' => "backslash",
                c => SYMBOL_WORDS
                    .iter()
                    .find(|(s, _)| *s == c)
                    .map_or("symbol", |(_, w)| *w),
            })
            .collect();
        let ident = if words.is_empty() {
            "empty".to_string()
        } else {
            words.join("_")
        };
        rename_property(obj, ctx, &name, &ident);
    }
}

/// Gives property `name` of `obj` the Rust field name `ident` (a placeholder key, restored to
/// `name` after typify), in `properties` and `required`.
fn rename_property(obj: &mut Map<String, Value>, ctx: &mut Ctx, name: &str, ident: &str) {
    let key = ctx.placeholder(ident, name);
    if let Some(Value::Object(props)) = obj.get_mut("properties")
        && let Some(schema) = props.remove(name)
    {
        props.insert(key.clone(), schema);
    }
    if let Some(Value::Array(required)) = obj.get_mut("required") {
        for r in required.iter_mut() {
            if r == name {
                *r = Value::String(key.clone());
            }
        }
    }
}

/// Words for symbols in spelled-out names (shared by enum values and property names).
const SYMBOL_WORDS: &[(char, &str)] = &[
    ('+', "plus"),
    ('*', "star"),
    ('#', "hash"),
    ('@', "at"),
    ('!', "bang"),
    ('$', "dollar"),
    ('%', "percent"),
    ('&', "and"),
    ('=', "eq"),
    ('<', "lt"),
    ('>', "gt"),
    ('~', "tilde"),
    ('^', "caret"),
    ('?', "question"),
    ('/', "slash"),
    ('.', "dot"),
    (',', "comma"),
    (':', "colon"),
    (';', "semicolon"),
];

/// Whether a schema accepts every value (`true`, or only annotations).
fn is_unconstrained(v: &Value) -> bool {
    match v {
        Value::Bool(true) => true,
        Value::Object(m) => m.keys().all(|k| crate::schema::is_annotation(k)),
        _ => false,
    }
}

/// `anyOf`/`oneOf` with an unconstrained branch accepts (almost) anything; typify would
/// turn it into a struct of flattened optional fields that cannot hold a number or a
/// string. The union is removed, so the value is typed as JSON.
fn unconstrained_union(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    for key in ["anyOf", "oneOf"] {
        let open = matches!(obj.get(key), Some(Value::Array(branches)) if branches.iter().any(is_unconstrained));
        if open {
            obj.remove(key);
            let note = if key == "oneOf" {
                " (`oneOf` would also reject values matching two branches; the server checks that)"
            } else {
                ""
            };
            ctx.warn(
                at,
                format!(
                    "`{key}` with an unconstrained branch accepts any value; typed as JSON{note}"
                ),
            );
        }
    }
}

/// `not` on a schema without a `type`: typify takes the excluded schema's type as the
/// value's type (`{"not": {"type": "string", "enum": ["x"]}}` became a string, rejecting
/// numbers and `null` that the schema allows). Dropped with a note: the value is typed by
/// its other keywords, or as JSON.
fn untyped_not(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    if obj.contains_key("not") && !obj.contains_key("type") {
        obj.remove("not");
        ctx.warn(
            at,
            "`not` without a `type` dropped; the excluded values are not checked by the generated types".into(),
        );
    }
}

/// Makes an optional array or map typed as `Option<…>` (typify would use an empty `Vec` /
/// map for "absent", which cannot send an empty list).
fn optional_list_or_map(schema: &mut Value) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    let kind = obj.get("type").and_then(Value::as_str).unwrap_or("");
    let no_properties = obj
        .get("properties")
        .is_none_or(|p| p.as_object().is_some_and(Map::is_empty));
    let map_like = kind == "object" && no_properties;
    if kind == "array" || map_like {
        let kind = kind.to_string();
        obj.insert("type".into(), json!([kind, "null"]));
    }
}

fn first_collision_in(obj: &Map<String, Value>) -> Option<(String, String, String)> {
    let Some(Value::Object(props)) = obj.get("properties") else {
        return None;
    };
    let mut by_field: BTreeMap<String, &str> = BTreeMap::new();
    for name in props.keys() {
        let field = typify_sanitize(name, false);
        if let Some(first) = by_field.get(&field) {
            return Some((first.to_string(), name.clone(), field));
        }
        by_field.insert(field, name);
    }
    None
}

fn first_collision(root: &Value) -> Option<(String, String, String)> {
    root.as_object().and_then(first_collision_in)
}

// ---------------------------------------------------------------------------------------
// Root-level steps.

/// Whether a root schema describes a JSON object (or leaves the type open).
fn is_object_like(root: &Value) -> bool {
    match root.get("type") {
        None => true,
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        Some(_) => false,
    }
}

/// A root object without properties, typed extra properties or composition: the tool
/// takes no arguments.
pub(crate) fn is_empty_object(root: &Value) -> bool {
    let Some(obj) = root.as_object() else {
        return true;
    };
    let no_props = match obj.get("properties") {
        None => true,
        Some(Value::Object(p)) => p.is_empty(),
        Some(_) => true,
    };
    let typed_extra =
        matches!(obj.get("additionalProperties"), Some(Value::Object(m)) if !m.is_empty());
    let composed = ["anyOf", "oneOf", "allOf", "$ref", "not", "enum"]
        .iter()
        .any(|k| obj.contains_key(*k));
    no_props && !typed_extra && !composed
}

/// Optional top-level properties whose schema accepts `null`.
pub(crate) fn nullable_optional(root: &Value) -> BTreeSet<String> {
    let required: BTreeSet<&str> = match root.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => BTreeSet::new(),
    };
    let mut out = BTreeSet::new();
    if let Some(Value::Object(props)) = root.get("properties") {
        for (name, schema) in props {
            if !required.contains(name.as_str()) && accepts_null(schema) {
                out.insert(name.clone());
            }
        }
    }
    out
}

fn accepts_null(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::Array(ts)) if ts.iter().any(|t| t == "null") => return true,
        _ => {}
    }
    ["anyOf", "oneOf"].iter().any(
        |k| matches!(schema.get(*k), Some(Value::Array(list)) if list.iter().any(is_null_schema)),
    ) || matches!(schema.get("enum"), Some(Value::Array(vals)) if vals.iter().any(Value::is_null))
}

/// `types` option: each named top-level property becomes a definition that typify replaces
/// by the given Rust type.
fn apply_types(
    root: &mut Value,
    defs: &mut BTreeMap<String, Value>,
    replacements: &mut BTreeMap<String, String>,
    types: &BTreeMap<String, String>,
) -> Result<(), Problem> {
    for (property, rust_type) in types {
        let Some(Value::Object(props)) = root.get_mut("properties") else {
            return Err(Problem::BadOption {
                option: "types",
                property: property.clone(),
                message: format!("no argument \"{property}\""),
            });
        };
        let Some(schema) = props.get_mut(property) else {
            return Err(Problem::BadOption {
                option: "types",
                property: property.clone(),
                message: format!("no argument \"{property}\""),
            });
        };
        let base = format!("{}Override", typify_sanitize(property, true));
        let mut name = base.clone();
        let mut n = 2;
        while defs.contains_key(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        let description = schema.get("description").cloned();
        let original = std::mem::replace(schema, json!({ "$ref": format!("#/$defs/{name}") }));
        if let (Some(d), Some(obj)) = (description, schema.as_object_mut()) {
            obj.insert("description".into(), d);
        }
        defs.insert(name.clone(), original);
        replacements.insert(name, rust_type.clone());
    }
    Ok(())
}

/// `rename` option: each named top-level property gets a placeholder key whose field name
/// is the requested one; the placeholder is restored to the JSON name after typify.
fn apply_renames(
    root: &mut Value,
    ctx: &mut Ctx,
    renames: &BTreeMap<String, String>,
) -> Result<(), Problem> {
    for (property, field) in renames {
        if !crate::naming::is_plain_ident(field) || typify_sanitize(field, false) != *field {
            return Err(Problem::BadOption {
                option: "rename",
                property: property.clone(),
                message: format!(
                    "rename target \"{field}\" for argument \"{property}\" must be a snake_case Rust identifier (not a keyword)"
                ),
            });
        }
        let Some(Value::Object(props)) = root.get_mut("properties") else {
            return Err(Problem::BadOption {
                option: "rename",
                property: property.clone(),
                message: format!("no argument \"{property}\""),
            });
        };
        let Some(schema) = props.remove(property) else {
            return Err(Problem::BadOption {
                option: "rename",
                property: property.clone(),
                message: format!("no argument \"{property}\""),
            });
        };
        let key = ctx.placeholder(field, property);
        props.insert(key.clone(), schema);
        if let Some(Value::Array(required)) = root.get_mut("required") {
            for r in required.iter_mut() {
                if r == property.as_str() {
                    *r = Value::String(key.clone());
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(schema: Value) -> Normalized {
        normalize(&schema, Role::Input, &Request::default()).unwrap()
    }

    #[test]
    fn external_refs_are_found_and_rejected() {
        let s = json!({"type": "object", "properties": {"a": {"$ref": "https://x/y.json"}, "b": {"$ref": "#/$defs/B"}}});
        assert_eq!(external_refs(&s), vec!["https://x/y.json".to_string()]);
        let err = normalize(&s, Role::Input, &Request::default()).unwrap_err();
        assert!(
            matches!(err, Problem::Fallback(r) if r.contains("never fetches") && r.contains("https://x/y.json"))
        );
    }

    #[test]
    fn defs_definitions_and_pointers_are_hoisted() {
        let s = json!({
            "type": "object",
            "properties": {
                "a": {"type": "object", "properties": {"x": {"type": "string"}}},
                "b": {"$ref": "#/properties/a"},
                "c": {"$ref": "#/$defs/item"},
                "d": {"$ref": "#/definitions/Item"},
                "e": {"$ref": "#"},
                "f": {"$ref": "#thing"}
            },
            "$defs": {"item": {"type": "integer"}, "unused": {"type": "string"}},
            "definitions": {"Item": {"type": "boolean"}, "T": {"$anchor": "thing", "type": "string"}}
        });
        let (root, defs) = hoist_refs(&s, "Args").unwrap();
        assert!(root.get("$defs").is_none() && root.get("definitions").is_none());
        assert_eq!(root["properties"]["b"]["$ref"], "#/$defs/A");
        let (r2, _) = hoist_refs(
            &json!({"properties": {"f": {"type": "object"}, "t": {"$ref": "#/properties/f"}}}),
            "Args",
        )
        .unwrap();
        assert_eq!(r2["properties"]["t"]["$ref"], "#/$defs/F");
        let (r3, _) = hoist_refs(
            &json!({"properties": {"t": {"$ref": "#/$defs/Result"}}, "$defs": {"Result": {}}}),
            "Args",
        )
        .unwrap();
        assert_eq!(r3["properties"]["t"]["$ref"], "#/$defs/ResultDef");
        assert_eq!(root["properties"]["e"]["$ref"], "#/$defs/Args");
        assert_eq!(root["properties"]["f"]["$ref"], "#/$defs/T");
        let c = root["properties"]["c"]["$ref"]
            .as_str()
            .unwrap()
            .trim_start_matches("#/$defs/");
        let d = root["properties"]["d"]["$ref"]
            .as_str()
            .unwrap()
            .trim_start_matches("#/$defs/");
        assert_ne!(c, d, "item and Item get distinct names");
        assert_eq!(defs[c], json!({"type": "integer"}));
        assert_eq!(defs[d], json!({"type": "boolean"}));
        assert_eq!(defs["A"]["properties"]["x"]["type"], "string");
        assert_eq!(
            root["properties"]["a"]["$ref"], "#/$defs/A",
            "the pointer target itself uses the definition"
        );
        assert!(
            !defs
                .values()
                .any(|v| v == &json!({"type": "string"}) && v.get("$anchor").is_none()),
            "unused pruned"
        );
        assert!(!defs.contains_key("Args"));
    }

    #[test]
    fn unboxed_reference_cycles_fall_back() {
        for s in [
            json!({"type": "object", "properties": {"a": {"allOf": [{"$ref": "#/properties/a"}, true]}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/I"}}, "$defs": {"I": {"anyOf": [{"$ref": "#/$defs/I"}, {"type": "null"}]}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"oneOf": [{"$ref": "#/$defs/A"}]}}}),
            json!({"allOf": [{"type": "object", "properties": {"x": {"$ref": "#"}}}]}),
            json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "number"}, {"allOf": [{"$ref": "#"}, {"const": 1}]}]}}}),
        ] {
            let err = normalize(&s, Role::Input, &Request::default()).unwrap_err();
            assert!(
                matches!(&err, Problem::Fallback(r) if r.contains("reference cycle")),
                "{err:?} for {s}"
            );
        }
        // Recursion through properties and items is fine.
        let tree = json!({"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}, "next": {"$ref": "#"}}});
        assert!(normalize(&tree, Role::Input, &Request::default()).is_ok());
    }

    #[test]
    fn dangling_refs_fall_back() {
        let s = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}});
        let err = normalize(&s, Role::Input, &Request::default()).unwrap_err();
        assert!(matches!(err, Problem::Fallback(r) if r.contains("does not resolve")));
    }

    #[test]
    fn reserved_def_names_are_renamed() {
        let s = json!({"properties": {"a": {"$ref": "#/$defs/Args"}, "b": {"$ref": "#/$defs/output"}}, "$defs": {"Args": {"type": "string"}, "output": {"type": "string"}}});
        let (root, defs) = hoist_refs(&s, "Args").unwrap();
        assert_eq!(root["properties"]["a"]["$ref"], "#/$defs/ArgsDef");
        assert_eq!(root["properties"]["b"]["$ref"], "#/$defs/OutputDef");
        assert_eq!(defs.len(), 2);
    }

    #[test]
    fn unsupported_keywords_are_dropped_with_warnings() {
        let n = norm(json!({"type": "object", "properties": {
            "a": {"type": "string", "if": {"minLength": 1}, "then": {}, "else": {}},
            "b": {"type": "array", "prefixItems": [{"type": "string"}]},
            "c": {"$dynamicRef": "#meta"},
            "d": {"type": "object", "unevaluatedProperties": false, "properties": {}}
        }}));
        let p = &n.root["properties"];
        assert!(p["a"].get("if").is_none() && p["a"].get("then").is_none());
        assert!(p["b"].get("prefixItems").is_none());
        assert_eq!(p["c"], json!({}));
        assert!(p["d"].get("unevaluatedProperties").is_none());
        let all = n.warnings.join("\n");
        for needle in [
            "if/then/else",
            "prefixItems",
            "$dynamicRef",
            "unevaluatedProperties",
            "/properties/a",
        ] {
            assert!(all.contains(needle), "{needle} in {all}");
        }
        assert_eq!(
            n.warnings
                .iter()
                .filter(|w| w.contains("if/then/else"))
                .count(),
            1
        );
    }

    #[test]
    fn three_nullable_spellings() {
        let n = norm(json!({"type": "object", "properties": {
            "a": {"anyOf": [{"type": "null"}, {"type": "string"}]},
            "b": {"type": ["string", "null"]},
            "c": {"type": "string", "default": null},
            "d": {"oneOf": [{"type": "integer"}, {"const": null}]}
        }}));
        let p = &n.root["properties"];
        assert_eq!(
            p["a"],
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        );
        assert_eq!(p["b"], json!({"type": ["string", "null"]}));
        assert_eq!(p["c"], json!({"type": "string"}));
        assert_eq!(p["d"]["anyOf"][1], json!({"type": "null"}));
        let expected: BTreeSet<String> = ["a", "b", "d"].iter().map(|s| s.to_string()).collect();
        assert_eq!(n.nullable_optional, expected);
    }

    #[test]
    fn defaults_and_titles_become_docs() {
        let n = norm(json!({"title": "Root", "type": "object", "properties": {
            "a": {"type": "integer", "default": 30, "description": "Page size"},
            "b": {"type": "string", "title": "Bee"}
        }}));
        assert!(n.root.get("title").is_none());
        assert_eq!(
            n.root["properties"]["a"]["description"],
            "Page size\n\nDefault: `30`."
        );
        assert_eq!(
            n.root["properties"]["b"],
            json!({"type": "string", "description": "Bee"})
        );
    }

    #[test]
    fn formats_patterns_and_bounds() {
        let n = norm(json!({"type": "object", "properties": {
            "t": {"type": "string", "format": "date-time"},
            "u": {"type": "string", "format": "uuid", "pattern": "^[a-f0-9-]+$", "minLength": 1},
            "page": {"type": "integer", "minimum": 1, "maximum": 100},
            "delta": {"type": "integer", "minimum": -5},
            "big": {"type": "integer", "minimum": -9007199254740991i64, "maximum": 9007199254740991i64},
            "huge": {"type": "integer", "minimum": 0, "maximum": 1e300},
            "deep": {"type": ["integer", "null"], "minimum": -1e20},
            "x": {"type": "number", "exclusiveMinimum": 0}
        }}));
        let p = &n.root["properties"];
        assert_eq!(p["t"], json!({"type": "string"}));
        assert_eq!(p["u"], json!({"type": "string"}));
        assert_eq!(p["page"], json!({"type": "integer", "minimum": 0}));
        assert_eq!(p["delta"], json!({"type": "integer"}));
        assert_eq!(p["big"], json!({"type": "integer"}));
        // Past 64 bits: only `f64` carries the values.
        assert_eq!(p["huge"], json!({"type": "number"}));
        assert_eq!(p["deep"], json!({"type": ["null", "number"]}));
        assert_eq!(p["x"], json!({"type": "number"}));
    }

    #[test]
    fn const_becomes_a_one_value_enum() {
        let n = norm(json!({"type": "object", "properties": {
            "kind": {"const": "issue"}, "n": {"const": 3}, "z": {"const": null}
        }}));
        let p = &n.root["properties"];
        assert_eq!(p["kind"], json!({"type": "string", "enum": ["issue"]}));
        assert_eq!(p["n"], json!({"enum": [3]}));
        assert_eq!(p["z"], json!({"type": "null"}));
    }

    #[test]
    fn colliding_enum_values_get_placeholders() {
        let n = norm(json!({"type": "object", "properties": {
            "sort": {"type": "string", "enum": ["created", "reactions-+1", "reactions--1", "reactions"]}
        }}));
        let values = n.root["properties"]["sort"]["enum"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(values[0], "created");
        assert_eq!(values[3], "reactions");
        let p1 = values[1].as_str().unwrap();
        let m1 = values[2].as_str().unwrap();
        assert_eq!(typify_sanitize(p1, true), "ReactionsPlus1");
        assert_eq!(typify_sanitize(m1, true), "ReactionsMinus1");
        assert_eq!(n.literals[p1], "reactions-+1");
        assert_eq!(n.literals[m1], "reactions--1");
        assert!(n.warnings[0].contains("ReactionsPlus1"));
    }

    #[test]
    fn enum_placeholders_never_clash_with_real_strings() {
        let n = norm(json!({"type": "object", "properties": {
            "a": {"type": "string", "enum": ["x''y", "a b", "a_b", "A-B"]}
        }}));
        let values = n.root["properties"]["a"]["enum"].as_array().unwrap();
        let names: BTreeSet<String> = values
            .iter()
            .map(|v| typify_sanitize(v.as_str().unwrap(), true))
            .collect();
        assert_eq!(names.len(), 4);
        for p in n.literals.keys() {
            assert!(p.starts_with("'''"), "{p}");
        }
    }

    #[test]
    fn keyword_and_symbol_property_names_pass_through() {
        let n = norm(json!({"type": "object", "properties": {
            "type": {"type": "string"}, "ref": {"type": "string"}, "self": {"type": "string"},
            "$meta": {"type": "string"}, "@timestamp": {"type": "string"}, "repo-name": {"type": "string"}
        }}));
        assert_eq!(n.root["properties"].as_object().unwrap().len(), 6);
    }

    #[test]
    fn symbol_only_property_names_get_spelled_out_placeholders() {
        let n = norm(json!({"type": "object", "required": ["-"], "properties": {
            "": {"enum": ["a", "b"]}, "-": {"type": "string"}, "_": {"type": "integer"},
            "$": {"type": "object", "properties": {"?": {"type": "string"}}}
        }}));
        let props = n.root["properties"].as_object().unwrap();
        let fields: BTreeSet<String> = props.keys().map(|k| typify_sanitize(k, false)).collect();
        let want: BTreeSet<String> = ["empty", "dash", "underscore", "dollar"]
            .map(String::from)
            .into();
        assert_eq!(fields, want);
        // Restored to the JSON names after typify; `required` follows the rename.
        let originals: BTreeSet<&str> = n.literals.values().map(String::as_str).collect();
        assert!(
            ["", "-", "_", "$", "?"]
                .iter()
                .all(|o| originals.contains(o)),
            "{originals:?}"
        );
        let req = n.root["required"][0].as_str().unwrap();
        assert_eq!(n.literals[req], "-");
    }

    #[test]
    fn unions_with_an_unconstrained_branch_become_json() {
        let n = norm(json!({"type": "object", "properties": {
            "a": {"anyOf": [{"type": "integer"}, {}]},
            "b": {"oneOf": [{"type": "string"}, {"description": "anything"}]},
            "c": {"anyOf": [{"type": "integer"}, {"type": "string"}]}
        }}));
        let p = &n.root["properties"];
        assert!(p["a"].get("anyOf").is_none() && p["b"].get("oneOf").is_none());
        assert!(p["c"].get("oneOf").is_some(), "constrained unions stay");
        assert!(
            n.warnings
                .iter()
                .any(|w| w.contains("`anyOf` with an unconstrained branch")),
            "{:?}",
            n.warnings
        );
    }

    #[test]
    fn untyped_not_is_dropped_typed_not_kept() {
        let n = norm(json!({"type": "object", "properties": {
            "a": {"not": {"type": "string", "enum": ["x"]}},
            "b": {"type": "string", "not": {"enum": ["x"]}}
        }}));
        assert!(n.root["properties"]["a"].get("not").is_none());
        assert!(n.root["properties"]["b"].get("not").is_some());
        assert!(
            n.warnings
                .iter()
                .any(|w| w.starts_with("`not` without a `type` dropped"))
        );
    }

    #[test]
    fn snake_case_collisions_are_reported() {
        let s = json!({"type": "object", "properties": {"fooBar": {"type": "string"}, "foo_bar": {"type": "string"}}});
        let err = normalize(&s, Role::Input, &Request::default()).unwrap_err();
        assert_eq!(
            err,
            Problem::Collision {
                pointer: String::new(),
                first: "fooBar".into(),
                second: "foo_bar".into(),
                field: "foo_bar".into()
            }
        );
        // A rename fixes it.
        let mut req = Request::default();
        req.renames.insert("fooBar".into(), "foo_bar_camel".into());
        let n = normalize(&s, Role::Input, &req).unwrap();
        let key = n.root["properties"]
            .as_object()
            .unwrap()
            .keys()
            .find(|k| k.starts_with('\''))
            .unwrap()
            .clone();
        assert_eq!(typify_sanitize(&key, false), "foo_bar_camel");
        assert_eq!(n.literals[&key], "fooBar");
        // Nested collisions fall back.
        let nested = json!({"type": "object", "properties": {"o": {"type": "object", "properties": {"aB": {}, "a_b": {}}}}});
        let err = normalize(&nested, Role::Input, &Request::default()).unwrap_err();
        assert!(
            matches!(err, Problem::Fallback(r) if r.contains("\"aB\"") && r.contains("\"a_b\""))
        );
    }

    #[test]
    fn no_argument_tools() {
        assert!(norm(json!({"type": "object"})).no_args);
        assert!(norm(json!({"type": "object", "properties": {}})).no_args);
        // A schema that declares nothing (a failed conversion, often) allows any arguments.
        for free in [
            json!({}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#"}),
        ] {
            let n = norm(free);
            assert!(n.free_form && !n.no_args);
        }
        assert!(
            norm(json!({"type": "object", "properties": {}, "additionalProperties": false}))
                .no_args
        );
        assert!(
            !norm(json!({"type": "object", "additionalProperties": {"type": "string"}})).no_args
        );
        assert!(!norm(json!({"type": "object", "properties": {"a": {}}})).no_args);
        let err =
            normalize(&json!({"type": "string"}), Role::Input, &Request::default()).unwrap_err();
        assert!(matches!(err, Problem::Fallback(_)));
    }

    #[test]
    fn optional_lists_and_maps_become_options() {
        let n = norm(json!({"type": "object", "required": ["r"], "properties": {
            "r": {"type": "array", "items": {"type": "string"}},
            "o": {"type": "array", "items": {"type": "string"}},
            "m": {"type": "object", "additionalProperties": {"type": "string"}}
        }}));
        let p = &n.root["properties"];
        assert_eq!(p["r"]["type"], "array");
        assert_eq!(p["o"]["type"], json!(["array", "null"]));
        assert_eq!(p["m"]["type"], json!(["object", "null"]));
        assert!(
            n.nullable_optional.is_empty(),
            "not nullable in the original schema"
        );
    }

    #[test]
    fn outputs_are_lenient() {
        let s = json!({"type": "object", "additionalProperties": false, "properties": {"a": {"type": "object", "additionalProperties": false, "properties": {}}}});
        let n = normalize(&s, Role::Output, &Request::default()).unwrap();
        assert!(n.root.get("additionalProperties").is_none());
        assert!(
            n.root["properties"]["a"]
                .get("additionalProperties")
                .is_none()
        );
        let i = normalize(&s, Role::Input, &Request::default()).unwrap();
        assert_eq!(i.root["additionalProperties"], false);
    }

    #[test]
    fn type_overrides_become_replaced_definitions() {
        let s = json!({"type": "object", "properties": {"n": {"type": "number", "description": "count"}}});
        let mut req = Request::default();
        req.types.insert("n".into(), "u64".into());
        let n = normalize(&s, Role::Input, &req).unwrap();
        assert_eq!(n.root["properties"]["n"]["$ref"], "#/$defs/NOverride");
        assert_eq!(n.replacements["NOverride"], "u64");
        assert_eq!(n.defs["NOverride"]["type"], "number");
        req.types.insert("missing".into(), "u64".into());
        assert!(matches!(
            normalize(&s, Role::Input, &req),
            Err(Problem::BadOption { .. })
        ));
    }

    #[test]
    fn single_all_of_is_inlined_and_ref_siblings_trimmed() {
        let n = norm(json!({"type": "object", "properties": {
            "a": {"allOf": [{"$ref": "#/$defs/X"}], "description": "an x"},
            "b": {"$ref": "#/$defs/X", "type": "string", "description": "b"}
        }, "$defs": {"X": {"type": "string"}}}));
        assert_eq!(
            n.root["properties"]["a"],
            json!({"$ref": "#/$defs/X", "description": "an x"})
        );
        assert_eq!(
            n.root["properties"]["b"],
            json!({"$ref": "#/$defs/X", "description": "b"})
        );
        assert!(
            n.warnings
                .iter()
                .any(|w| w.contains("next to $ref dropped: type")),
            "{:?}",
            n.warnings
        );
    }

    #[test]
    fn extension_keywords_are_removed() {
        let n = norm(
            json!({"type": "object", "properties": {"a": {"type": "string", "x-rust-type": {"crate": "evil"}}}}),
        );
        assert_eq!(n.root["properties"]["a"], json!({"type": "string"}));
    }
}
