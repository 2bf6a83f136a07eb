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
//! | `fooBar` + `foo_bar` in one object, at any depth | distinct fields: the exact snake-case spelling keeps `foo_bar`, the other gets a word for its spelling (`foo_bar_camel`), JSON names kept, with a warning; a `rename` that collides is [`Problem::Collision`] |
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
//! | unions (see `unions`) | untagged enums for unions with scalar or array branches; unions of objects decoded by a constant tag at any depth, else (an `anyOf` with an open branch) one struct of the union of the properties; variants named by title, discriminator, unique property or type |
//! | a definition that is itself nullable (`anyOf: [{…}, null]`) | the non-null schema, each reference to it `anyOf: [{$ref}, null]` (typify would name the `Option` newtype and the object alike) |
//! | definitions nothing reaches (union branches merged into one struct) | dropped |
//! | two different schemas typify would give one name (`{"a_b": {…}}` and `{"a": {"b": {…}}}` are both `ArgsAB`; typify would use the first for both) | the later one titled with a number (`ArgsAb2`), see `type_names` |
//!
//! The passes live one concern per file: `refs` (external references, hoisting into one
//! namespace), `cycles` (reference cycles typify cannot break), `keywords` (dropped keywords,
//! annotations), `numbers`, `composition` (`anyOf`/`oneOf`/`allOf`/`not`), `enums`, `objects`
//! and `root` (root-level steps and the `rename`/`types` options); `clean` runs the
//! per-node passes in order.

mod composition;
mod cycles;
mod enums;
mod keywords;
mod numbers;
mod objects;
mod refs;
mod root;
mod type_names;
mod unions;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::schema::{self, LIST_KEYWORDS, MAP_KEYWORDS, ONE_KEYWORDS, escape};

use composition::{
    nullable_definitions, nullable_union, single_all_of, unconstrained_union, untyped_not,
};
use cycles::unboxed_cycle;
use enums::{const_to_enum, enum_variants};
use keywords::{annotations_to_docs, drop_keywords, ref_siblings};
use numbers::{integer_bounds, integral_numbers, wide_integers};
use objects::{first_collision, object_rules, pattern_properties};
use refs::{external_refs, hoist_refs};
use root::{apply_renames, apply_types, is_empty_object, is_object_like, nullable_optional};

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
    /// Properties that got a field of their own because their names collide.
    pub renamed: Vec<String>,
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
    // Keys in sorted order, as every pass below expects them: with serde_json's
    // `preserve_order` on in the build that runs the generator, a `Map` iterates in
    // insertion order, and names and types would follow the server's spelling order.
    let schema = match schema {
        Value::Bool(true) => json!({}),
        Value::Object(_) => mcp_bindgen_core::fixture::sort_keys(schema),
        other => {
            return Err(Problem::Fallback(format!(
                "schema is not an object: {other}"
            )));
        }
    };
    // Caught here, before typify and rustc: deeper types overflow rustc's trait solver.
    if let Some(deep) = schema::too_deep(&schema) {
        return Err(Problem::Fallback(deep.to_string()));
    }
    let root_name = role.root_name();
    let free_form = role == Role::Input && schema::free_form_arguments(&schema);
    // Most schemas have no reference and no definition: nothing to hoist, no cycle.
    let (mut root, mut defs, mut ctx) = if has_key(&schema, &["$ref", "$defs", "definitions"]) {
        if let Some(reference) = external_refs(&schema).into_iter().next() {
            return Err(Problem::Fallback(format!(
                "external $ref \"{reference}\" is not supported (mcp-bindgen never fetches schemas)"
            )));
        }
        let (root, defs) = hoist_refs(&schema, root_name).map_err(Problem::Fallback)?;
        if let Some(cycle) = unboxed_cycle(&root, &defs, root_name) {
            return Err(Problem::Fallback(format!(
                "reference cycle {cycle} without an object property or array in between (no finite Rust type; typify would recurse forever)"
            )));
        }
        let mut ctx = Ctx::new(role, &schema);
        ctx.defs = defs.clone();
        (root, defs, ctx)
    } else {
        let ctx = Ctx::new(role, &schema);
        (schema, BTreeMap::new(), ctx)
    };
    let nullable_optional = if role == Role::Input {
        nullable_optional(&root)
    } else {
        BTreeSet::new()
    };
    ctx.root_renames = request.renames.keys().cloned().collect();
    clean(&mut root, &mut String::new(), &mut ctx, true);
    let names: Vec<String> = defs.keys().cloned().collect();
    for name in names {
        if let Some(def) = defs.get_mut(&name) {
            clean(def, &mut format!("/$defs/{name}"), &mut ctx, false);
        }
    }
    if let Some(problem) = ctx.problem.take() {
        return Err(problem);
    }
    nullable_definitions(&mut root, &mut defs);
    unreachable_definitions(&root, &mut defs);

    if role == Role::Input && !is_object_like(&root) {
        return Err(Problem::Fallback(
            "inputSchema is not an object schema (MCP arguments are a JSON object)".into(),
        ));
    }
    let no_args = role == Role::Input && !free_form && is_empty_object(&root);

    let mut replacements = BTreeMap::new();
    apply_types(&mut root, &mut defs, &mut replacements, &request.types)?;
    apply_renames(&mut root, &mut ctx, &request.renames)?;
    // Renames and replaced types insert keys: sorted again, before the passes that name
    // fields and types by that order.
    root = mcp_bindgen_core::fixture::sort_keys(&root);
    for def in defs.values_mut() {
        *def = mcp_bindgen_core::fixture::sort_keys(def);
    }
    if let Some((first, second, field)) = first_collision(&root) {
        // Placeholder keys (renamed properties) are named as the server spells them.
        let original = |key: String| ctx.literals.get(&key).cloned().unwrap_or(key);
        return Err(Problem::Collision {
            pointer: String::new(),
            first: original(first),
            second: original(second),
            field,
        });
    }
    type_names::distinct_type_names(&mut root, &mut defs, root_name);
    // Descriptions become the types' docs: plain text for rustdoc (the root's, the tool's
    // description, is made so by the caller).
    rustdoc_descriptions(&mut root);
    for def in defs.values_mut() {
        rustdoc_descriptions(def);
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
        renamed: ctx.renamed,
        no_args,
        free_form,
        nullable_optional,
    })
}

/// Every `description` keyword of `schema` and its subschemas as [`server_doc`] makes it
/// (`[FILE]`, `<path>` and bare URLs are no rustdoc warnings); values (`enum`, `default`, …)
/// are data and stay as they are.
///
/// [`server_doc`]: crate::tokens::server_doc
fn rustdoc_descriptions(schema: &mut Value) {
    if let Some(Value::String(d)) = schema.get_mut("description") {
        *d = crate::tokens::server_doc(d);
    }
    for_each_child_mut(schema, &mut |_, sub| rustdoc_descriptions(sub));
}

/// Drops the definitions nothing reaches from the root any more (the branches of a union
/// merged into one object, see `unions`): typify would emit a type for each, unused.
fn unreachable_definitions(root: &Value, defs: &mut BTreeMap<String, Value>) {
    fn refs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(name) = m
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                {
                    out.push(name.to_string());
                }
                m.values().for_each(|c| refs(c, out));
            }
            Value::Array(a) => a.iter().for_each(|c| refs(c, out)),
            _ => {}
        }
    }
    let mut reached: BTreeSet<String> = BTreeSet::new();
    let mut todo = Vec::new();
    refs(root, &mut todo);
    while let Some(name) = todo.pop() {
        if reached.insert(name.clone())
            && let Some(def) = defs.get(&name)
        {
            refs(def, &mut todo);
        }
    }
    defs.retain(|name, _| reached.contains(name));
}

/// Mutable variant of [`for_each_child`].
pub(super) fn for_each_child_mut(schema: &mut Value, f: &mut dyn FnMut(String, &mut Value)) {
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
    /// Definitions merged into an enclosing object on the current path (see
    /// `unions::INLINED`).
    inlined: Vec<String>,
    /// Collisions resolved by [`objects`] (reported apart from the warnings).
    renamed: Vec<String>,
    /// Top-level properties the caller renames (their fields are the caller's choice).
    root_renames: BTreeSet<String>,
}

impl Ctx {
    fn new(role: Role, schema: &Value) -> Self {
        // Apostrophes only occur inside strings (JSON escapes none), so the longest run in
        // the schema's text is the longest in one of its keys or strings.
        fn longest_run(text: &str) -> usize {
            let (mut longest, mut run) = (0, 0);
            for b in text.bytes() {
                if b == b'\'' {
                    run += 1;
                    longest = longest.max(run);
                } else {
                    run = 0;
                }
            }
            longest
        }
        fn walk(v: &Value) -> usize {
            match v {
                Value::String(s) => longest_run(s),
                Value::Array(list) => list.iter().map(walk).max().unwrap_or(0),
                Value::Object(map) => map
                    .iter()
                    .map(|(k, v)| longest_run(k).max(walk(v)))
                    .max()
                    .unwrap_or(0),
                _ => 0,
            }
        }
        let longest = walk(schema);
        Ctx {
            role,
            warnings: Vec::new(),
            literals: BTreeMap::new(),
            next_marker: longest + 1,
            problem: None,
            defs: BTreeMap::new(),
            renamed: Vec::new(),
            inlined: Vec::new(),
            root_renames: BTreeSet::new(),
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

/// Whether an object anywhere in `v` has one of `keys`.
fn has_key(v: &Value, keys: &[&str]) -> bool {
    match v {
        Value::Object(map) => {
            keys.iter().any(|k| map.contains_key(*k)) || map.values().any(|v| has_key(v, keys))
        }
        Value::Array(list) => list.iter().any(|v| has_key(v, keys)),
        _ => false,
    }
}

/// Cleans one node and, recursively, its subschemas; `at` is the node's JSON pointer (a
/// buffer the children's segments are pushed onto and taken off again).
fn clean(v: &mut Value, at: &mut String, ctx: &mut Ctx, is_root: bool) {
    if let Value::Bool(true) = v {
        *v = json!({});
    }
    let Some(obj) = v.as_object_mut() else { return };
    integral_numbers(obj);
    wide_integers(obj);
    pattern_properties(obj);
    drop_keywords(obj, at, ctx);
    annotations_to_docs(obj, is_root);
    if let Some(title) = obj.remove(unions::VARIANT_TITLE) {
        obj.insert("title".into(), title);
    }
    ref_siblings(obj, at, ctx);
    single_all_of(obj);
    const_to_enum(obj, at, ctx);
    integer_bounds(obj);
    nullable_union(obj);
    unconstrained_union(obj, at, ctx);
    for note in unions::shape_unions(obj, at, ctx.role.root_name(), &ctx.defs, &ctx.inlined) {
        ctx.warn(at, note);
    }
    let inherited = ctx.inlined.len();
    if let Some(Value::Array(names)) = obj.remove(unions::INLINED) {
        ctx.inlined.extend(
            names
                .into_iter()
                .filter_map(|n| n.as_str().map(str::to_string)),
        );
    }
    nullable_union(obj);
    untyped_not(obj, at, ctx);
    enum_variants(obj, at, ctx);
    object_rules(obj, at, ctx);

    // The children, as `for_each_child_mut` visits them.
    let len = at.len();
    for (key, value) in obj.iter_mut() {
        let k = key.as_str();
        if MAP_KEYWORDS.contains(&k) {
            if let Some(map) = value.as_object_mut() {
                for (name, sub) in map.iter_mut() {
                    push_segment(at, k);
                    push_segment(at, name);
                    clean(sub, at, ctx, false);
                    at.truncate(len);
                }
            }
        } else if ONE_KEYWORDS.contains(&k) || (k == "items" && !value.is_array()) {
            push_segment(at, k);
            clean(value, at, ctx, false);
            at.truncate(len);
        } else if (LIST_KEYWORDS.contains(&k) || k == "items")
            && let Some(list) = value.as_array_mut()
        {
            for (i, sub) in list.iter_mut().enumerate() {
                let _ = write!(at, "/{k}/{i}");
                clean(sub, at, ctx, false);
                at.truncate(len);
            }
        }
    }
    ctx.inlined.truncate(inherited);
}

/// `/segment`, escaped as a JSON-pointer segment.
fn push_segment(at: &mut String, segment: &str) {
    at.push('/');
    if segment.contains(['~', '/']) {
        at.push_str(&escape(segment));
    } else {
        at.push_str(segment);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An input schema normalized without options (shared by the passes' tests).
    pub(super) fn norm(schema: Value) -> Normalized {
        normalize(&schema, Role::Input, &Request::default()).unwrap()
    }
}
