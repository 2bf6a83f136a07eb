//! Unions typify 0.8 types faithfully, with variant names a reader can use.
//!
//! typify turns an `anyOf` whose branches it cannot prove exclusive into a struct of
//! `#[serde(flatten)]` options: right for objects (a value may match any subset of the
//! branches), wrong as soon as a branch is a scalar or an array (serde flattens only maps, so
//! `1` cannot be serialized and `"asc"` becomes `{"asc": null}`). It panics on an `enum`
//! whose values have several JSON types, and names the variants of an untagged enum
//! `Variant0…` unless it can name every branch. This step runs on each schema node before
//! typify sees it:
//!
//! 1. an `enum` whose values have several JSON types becomes a `oneOf` of one typed enum per
//!    JSON type;
//! 2. in `anyOf`/`oneOf`, `const`/`enum`-only branches get their `type`: one branch per JSON
//!    type, merged across the union (`1`, `-1`, `"asc"`, `"desc"` → an integer enum and a
//!    string enum);
//! 3. an `anyOf` with a scalar or array branch becomes a `oneOf` (an untagged enum: the first
//!    branch that accepts a value wins); several array branches become one array of the
//!    union of their items; several object branches stay together in one nested `anyOf`,
//!    shaped in its turn; a `null` branch beside two or more others makes the union optional
//!    (`Option<enum>`); a union of objects is decoded by what tells the branches apart
//!    ([`object_unions`]): a constant tag at any depth makes an enum; else an `anyOf` with an
//!    open branch, or a union beside `properties`, becomes one object of the union of the
//!    properties (never "the first branch that parses" when that branch can swallow
//!    another's data); parts beside `properties` that only add properties and "at least one
//!    of" rules join them;
//! 4. the branches of a union are named: by `title`; objects by a discriminating property's
//!    constant, else by a required property only that branch has, else `Object` when it is
//!    the only one; scalars after their type. A name reaches typify as a title prefixed by the
//!    union's path, which typify removes again as the variants' common prefix (the prefix
//!    keeps the types nested in a branch unique, as typify's own names are).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::naming::typify_sanitize;
use crate::schema::{is_annotation, required_names};

/// Key holding a branch's computed title until the branch's own cleaning has turned its
/// original `title` into documentation; then it becomes the `title` typify reads.
pub(crate) const VARIANT_TITLE: &str = "$mcpBindgenVariantTitle";

/// The JSON type of a value, as a union branch is typed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Null,
    Boolean,
    Number,
    String,
    Array,
    Object,
}

fn kind_of(v: &Value) -> Kind {
    match v {
        Value::Null => Kind::Null,
        Value::Bool(_) => Kind::Boolean,
        Value::Number(_) => Kind::Number,
        Value::String(_) => Kind::String,
        Value::Array(_) => Kind::Array,
        Value::Object(_) => Kind::Object,
    }
}

/// The values of a branch that is only a `const` or an `enum` (plus `type` and annotations).
fn value_list(branch: &Value) -> Option<Vec<Value>> {
    let obj = branch.as_object()?;
    if !obj
        .keys()
        .all(|k| matches!(k.as_str(), "const" | "enum" | "type") || is_annotation(k))
    {
        return None;
    }
    match (obj.get("const"), obj.get("enum")) {
        (Some(c), None) => Some(vec![c.clone()]),
        (None, Some(Value::Array(values))) if !values.is_empty() => Some(values.clone()),
        _ => None,
    }
}

/// One typed branch holding `values`, all of kind `kind`.
fn typed_branch(kind: Kind, values: Vec<Value>) -> Value {
    match kind {
        Kind::Null => json!({"type": "null"}),
        Kind::Boolean => {
            if values.contains(&json!(true)) && values.contains(&json!(false)) {
                json!({"type": "boolean"})
            } else {
                json!({"type": "boolean", "enum": values})
            }
        }
        Kind::Number => {
            let integral = values
                .iter()
                .all(|v| v.as_i64().is_some() || v.as_u64().is_some());
            let ty = if integral { "integer" } else { "number" };
            json!({"type": ty, "enum": values})
        }
        Kind::String => json!({"type": "string", "enum": values}),
        Kind::Array | Kind::Object => json!({"enum": values}),
    }
}

/// Groups `values` by kind, in order of first appearance, without duplicates.
fn group(values: impl IntoIterator<Item = Value>, into: &mut Vec<(Kind, Vec<Value>)>) {
    for v in values {
        let kind = kind_of(&v);
        match into.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, list)) => {
                if !list.contains(&v) {
                    list.push(v);
                }
            }
            None => into.push((kind, vec![v])),
        }
    }
}

/// Step 1: a mixed-type `enum` → `oneOf` of typed enums.
fn split_mixed_enum(obj: &mut Map<String, Value>) {
    if obj.contains_key("anyOf") || obj.contains_key("oneOf") {
        return;
    }
    let Some(Value::Array(values)) = obj.get("enum") else {
        return;
    };
    let mut groups = Vec::new();
    group(values.iter().cloned(), &mut groups);
    if groups.iter().filter(|(k, _)| *k != Kind::Null).count() < 2 {
        return;
    }
    obj.remove("enum");
    obj.remove("type");
    let branches = groups
        .into_iter()
        .map(|(kind, values)| typed_branch(kind, values))
        .collect();
    obj.insert("oneOf".into(), Value::Array(branches));
}

/// Step 2: value-only branches typed, one per kind, merged across the union. Returns the
/// new list when anything changed.
fn type_value_branches(list: &[Value]) -> Option<Vec<Value>> {
    let lists: Vec<Option<Vec<Value>>> = list.iter().map(value_list).collect();
    let mut kinds_seen = Vec::new();
    let mut needed = false;
    for (branch, values) in list.iter().zip(&lists) {
        let Some(values) = values else { continue };
        let mut groups = Vec::new();
        group(values.iter().cloned(), &mut groups);
        let typed = matches!(branch.get("type"), Some(Value::String(_)));
        if groups.len() > 1 || !typed {
            needed = true;
        }
        for (kind, _) in groups {
            if kinds_seen.contains(&kind) {
                needed = true;
            }
            kinds_seen.push(kind);
        }
    }
    // Typed constants of one JSON type and nothing else (`oneOf: [{"type": "string",
    // "const": "celsius", "description": …}, …]`): typify makes one enum of them and keeps
    // each value's description.
    let one_typed_kind = kinds_seen.iter().all(|k| Some(k) == kinds_seen.first())
        && list.iter().zip(&lists).all(|(branch, values)| {
            values.is_some() && matches!(branch.get("type"), Some(Value::String(_)))
        });
    if !needed || one_typed_kind {
        return None;
    }
    // Slots in order: a passed-through branch, or the merged branch of one kind.
    enum Slot {
        Keep(Value),
        Kind(Kind),
    }
    let mut slots = Vec::new();
    let mut groups: Vec<(Kind, Vec<Value>)> = Vec::new();
    for (branch, values) in list.iter().zip(lists) {
        match values {
            None => slots.push(Slot::Keep(branch.clone())),
            Some(values) => {
                let before: Vec<Kind> = groups.iter().map(|(k, _)| *k).collect();
                group(values, &mut groups);
                for (kind, _) in &groups {
                    if !before.contains(kind) {
                        slots.push(Slot::Kind(*kind));
                    }
                }
            }
        }
    }
    Some(
        slots
            .into_iter()
            .map(|slot| match slot {
                Slot::Keep(v) => v,
                Slot::Kind(kind) => {
                    let values = groups
                        .iter()
                        .find(|(k, _)| *k == kind)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_default();
                    typed_branch(kind, values)
                }
            })
            .collect(),
    )
}

/// What a branch accepts, as far as the shape of the union goes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    /// Only objects.
    Object,
    /// Only values that are not objects (scalars, arrays, `null`).
    NotObject,
    /// A reference, a nested union, or anything else.
    Unknown,
}

fn shape(branch: &Value) -> Shape {
    let Some(obj) = branch.as_object() else {
        return Shape::Unknown;
    };
    if let Some(values) = value_list(branch) {
        return if values.iter().any(Value::is_object) {
            Shape::Unknown
        } else {
            Shape::NotObject
        };
    }
    match obj.get("type") {
        Some(Value::String(t)) if t == "object" => Shape::Object,
        Some(Value::String(_)) => Shape::NotObject,
        Some(Value::Array(ts)) if !ts.iter().any(|t| t == "object") => Shape::NotObject,
        Some(_) => Shape::Unknown,
        None => {
            let object_keywords = ["properties", "required", "additionalProperties"];
            let composed = ["$ref", "anyOf", "oneOf", "allOf", "not"];
            if object_keywords.iter().any(|k| obj.contains_key(*k))
                && !composed.iter().any(|k| obj.contains_key(*k))
            {
                Shape::Object
            } else {
                Shape::Unknown
            }
        }
    }
}

fn is_null_branch(branch: &Value) -> bool {
    branch.get("type").and_then(Value::as_str) == Some("null")
        || value_list(branch).is_some_and(|v| v.iter().all(Value::is_null))
}

/// Key on an object that [`object_unions`] merged from branches, listing the definitions it
/// inlined: below it, a union reaching one of them again is not merged again (a recursive
/// union would be inlined forever). The normalizer moves the names into its context.
pub(crate) const INLINED: &str = "$mcpBindgenInlined";

/// Steps 1–4 on one node; `at` is the node's JSON pointer, `root` the root type's name,
/// `defs` the tool's definitions (`#/$defs/<name>` targets, as the server wrote them),
/// `inlined` the definitions merged into an enclosing object. Returns notes for the user
/// (constraints the types do not enforce).
pub(crate) fn shape_unions(
    obj: &mut Map<String, Value>,
    at: &str,
    root: &str,
    defs: &BTreeMap<String, Value>,
    inlined: &[String],
) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(note) = object_parts(obj) {
        notes.push(note);
    }
    split_mixed_enum(obj);
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(list)) = obj.get(key) else {
            continue;
        };
        if let Some(typed) = type_value_branches(list) {
            obj.insert(key.into(), Value::Array(typed));
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(list)) = obj.get_mut(key) {
            array_branches(list);
        }
    }
    scalar_any_of(obj);
    closed_objects_any_of(obj, defs);
    object_unions(obj, at, root, defs, inlined);
    if let Some(Value::Array(list)) = obj.get_mut("oneOf") {
        name_branches(list, at, "oneOf", root);
    }
    if let Some(Value::Array(list)) = obj.get_mut("anyOf") {
        // `Option<union>`: the inner union's variants are named after this position, not
        // after the wrapper's `anyOf/0`.
        if list.len() == 2
            && is_null_branch(&list[1])
            && let Some(inner) = list[0].as_object_mut()
        {
            for key in ["oneOf", "anyOf"] {
                if let Some(Value::Array(branches)) = inner.get_mut(key) {
                    name_branches(branches, at, key, root);
                }
            }
        }
        name_branches(list, at, "anyOf", root);
    }
    notes
}

/// A part of an object's `anyOf`/`oneOf`/`allOf` that adds nothing but properties and
/// presence rules (`{"required": ["channels"]}`, `{"properties": {"link": …}, "required":
/// ["link"]}`): "at least one of these" rules beside `properties`.
fn object_part(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        o.iter().all(|(k, v)| match k.as_str() {
            "required" | "properties" => true,
            "type" => v == "object",
            "additionalProperties" => v.is_boolean(),
            _ => is_annotation(k),
        })
    })
}

/// Whether every part of `obj`'s `key` combinator is an [`object_part`].
fn object_parts_only(obj: &Map<String, Value>, key: &str) -> bool {
    matches!(obj.get(key), Some(Value::Array(list)) if !list.is_empty() && list.iter().all(object_part))
}

/// The properties of an object's parts (`allOf`/`anyOf`/`oneOf` of [`object_part`]s) that
/// the object does not declare itself.
fn part_properties(obj: &Map<String, Value>) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = Vec::new();
    for key in ["allOf", "anyOf", "oneOf"] {
        if !object_parts_only(obj, key) {
            continue;
        }
        for part in obj.get(key).and_then(Value::as_array).into_iter().flatten() {
            for (name, schema) in part
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let declared = obj.get("properties").and_then(|p| p.get(name)).is_some();
                if !declared && !out.iter().any(|(n, _)| n == name) {
                    out.push((name.clone(), schema.clone()));
                }
            }
        }
    }
    out
}

/// An object with `properties` and an `anyOf`/`oneOf`/`allOf` of [`object_part`]s: the
/// parts' properties join the object's, and the combinator goes (typify would make a union
/// of the object and property-less parts, and values lose properties). `allOf` parts'
/// required properties stay required; which properties `anyOf`/`oneOf` want together is not
/// checked by the types (the server does).
fn object_parts(obj: &mut Map<String, Value>) -> Option<String> {
    if !obj.get("properties").is_some_and(Value::is_object) {
        return None;
    }
    let extra = part_properties(obj);
    let mut dropped = Vec::new();
    for key in ["allOf", "anyOf", "oneOf"] {
        if !object_parts_only(obj, key) {
            continue;
        }
        let Some(Value::Array(parts)) = obj.remove(key) else {
            continue;
        };
        if key == "allOf" {
            let required: Vec<Value> = parts
                .iter()
                .filter_map(|p| p.get("required").and_then(Value::as_array))
                .flatten()
                .cloned()
                .collect();
            if let Value::Array(list) = obj
                .entry("required")
                .or_insert_with(|| Value::Array(Vec::new()))
            {
                for r in required {
                    if !list.contains(&r) {
                        list.push(r);
                    }
                }
            }
        } else if parts.iter().any(|p| p.get("required").is_some()) {
            dropped.push(key);
        }
    }
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        for (name, schema) in extra {
            props.insert(name, schema);
        }
    }
    (!dropped.is_empty()).then(|| {
        format!(
            "`{}` rules on which properties must be present together not checked by the generated types",
            dropped.join("`/`")
        )
    })
}

/// An array of one item schema, with no constraint but on its length.
fn plain_array(b: &Value) -> bool {
    b.as_object().is_some_and(|o| {
        o.get("type").and_then(Value::as_str) == Some("array")
            && o.get("items").is_some_and(Value::is_object)
            && o.keys().all(|k| {
                matches!(
                    k.as_str(),
                    "type" | "items" | "minItems" | "maxItems" | "uniqueItems"
                ) || is_annotation(k)
            })
    })
}

/// Step 2b: several array branches in one union become one array whose items are the union
/// of theirs. An untagged enum of arrays takes the first array type every item fits, and
/// drops what a later branch's items declare (`{"jobs": [{"id", "url"}]}` decoded as a list
/// of `{id}`).
fn array_branches(list: &mut Vec<Value>) {
    let arrays: Vec<usize> = (0..list.len()).filter(|&i| plain_array(&list[i])).collect();
    if arrays.len() < 2 {
        return;
    }
    let mut items: Vec<Value> = Vec::new();
    for &i in &arrays {
        if let Some(it) = list[i].get("items")
            && !items
                .iter()
                .any(|x| without_annotations(x) == without_annotations(it))
        {
            items.push(it.clone());
        }
    }
    let merged = if items.len() == 1 {
        json!({"type": "array", "items": items.remove(0)})
    } else {
        json!({"type": "array", "items": {"anyOf": items}})
    };
    let first = arrays[0];
    for &i in arrays.iter().rev() {
        list.remove(i);
    }
    list.insert(first, merged);
}

/// Step 3.
fn scalar_any_of(obj: &mut Map<String, Value>) {
    if obj.contains_key("oneOf") && obj.contains_key("anyOf") {
        return;
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(list)) = obj.get(key) else {
            continue;
        };
        let nulls = list.iter().filter(|b| is_null_branch(b)).count();
        if nulls == 0 || list.len() - nulls < 2 {
            continue;
        }
        // `Option<union of the others>`.
        let rest: Vec<Value> = list
            .iter()
            .filter(|b| !is_null_branch(b))
            .cloned()
            .collect();
        obj.remove(key);
        let mut inner = Map::new();
        inner.insert(key.into(), Value::Array(rest));
        scalar_any_of(&mut inner);
        obj.insert(
            "anyOf".into(),
            json!([Value::Object(inner), {"type": "null"}]),
        );
        return;
    }
    if obj.contains_key("oneOf") {
        return;
    }
    let Some(Value::Array(list)) = obj.get("anyOf") else {
        return;
    };
    let shapes: Vec<Shape> = list.iter().map(shape).collect();
    let nulls = list.iter().filter(|b| is_null_branch(b)).count();
    if !shapes.contains(&Shape::NotObject) || nulls > 0 {
        return;
    }
    let objects = shapes.iter().filter(|s| **s == Shape::Object).count();
    let Some(Value::Array(list)) = obj.remove("anyOf") else {
        return;
    };
    let mut out = Vec::with_capacity(list.len());
    let mut grouped: Vec<Value> = Vec::new();
    let mut group_at = None;
    for (branch, shape) in list.into_iter().zip(shapes) {
        if shape == Shape::Object && objects >= 2 {
            group_at.get_or_insert(out.len());
            grouped.push(branch);
        } else {
            out.push(branch);
        }
    }
    if let Some(i) = group_at {
        out.insert(i, json!({ "anyOf": grouped }));
    }
    obj.insert("oneOf".into(), Value::Array(out));
}

/// Step 3b: an `anyOf` of closed objects (`additionalProperties: false`) that share a
/// property name becomes a `oneOf`. typify's struct of flattened options cannot carry it
/// (serde hands the shared key to the first branch, which takes it even when that branch
/// then fails: `{"type": "bulleted_list_item", …}` lost its `type`), while an untagged enum
/// can: a closed branch rejects every value of another branch, so the first branch that
/// accepts a value is one that carries all of it.
fn closed_objects_any_of(obj: &mut Map<String, Value>, defs: &BTreeMap<String, Value>) {
    if obj.contains_key("oneOf") {
        return;
    }
    let Some(Value::Array(list)) = obj.get("anyOf") else {
        return;
    };
    if list.len() < 2 {
        return;
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut shared = false;
    for branch in list {
        let Some(target) = through_refs(branch, defs) else {
            return;
        };
        let closed = target.get("additionalProperties") == Some(&Value::Bool(false));
        let Some(props) = target.get("properties").and_then(Value::as_object) else {
            return;
        };
        if !closed || shape(target) != Shape::Object {
            return;
        }
        for name in props.keys() {
            if seen.contains(&name.as_str()) {
                shared = true;
            }
        }
        seen.extend(props.keys().map(String::as_str));
    }
    if shared && let Some(list) = obj.remove("anyOf") {
        obj.insert("oneOf".into(), list);
    }
}

/// Step 3c: a union whose branches are all objects is decoded by what tells them apart.
///
/// 1. A *tag*: a property every branch requires and fixes (`const`, or an `enum` of strings)
///    to values no other branch allows, directly (`{"operation": "get-team", …}`) or nested
///    (`{"action": {"kind": "move"}, …}`). A value matches at most one branch, and each
///    branch's type rejects the other tags, so an enum decodes it exactly: a direct tag with
///    one value per branch stays typify's internally tagged enum (whose variants' nested
///    types get distinct names here, see [`name_variant_fields`]); any other tag makes the
///    union a `oneOf` (an untagged enum).
/// 2. Else a `oneOf` (exclusive by its own definition), or an `anyOf` of closed objects
///    (step 3b), stays an enum.
/// 3. Else, an `anyOf` with an open branch: a value may match several branches, and every
///    branch may accept (and drop) another's properties, so no enum and no struct of
///    flattened options carries every value (serde hands a shared key to the first
///    flattened field). It becomes one object with the union of the properties: a property
///    several branches declare differently is the `anyOf` of their schemas, a property is
///    required when every branch requires it.
fn object_unions(
    obj: &mut Map<String, Value>,
    at: &str,
    root: &str,
    defs: &BTreeMap<String, Value>,
    inlined: &[String],
) {
    let key = match (obj.get("anyOf"), obj.get("oneOf")) {
        (Some(Value::Array(_)), None) => "anyOf",
        (None, Some(Value::Array(_))) => "oneOf",
        _ => return,
    };
    // `type: ["object", "null"]` beside the union: `Option` of the union, which is shaped when
    // the inner schema's turn comes.
    let nullable_object = matches!(obj.get("type"), Some(Value::Array(t))
        if t.len() == 2 && t.contains(&json!("object")) && t.contains(&json!("null")));
    if nullable_object {
        let mut inner = std::mem::take(obj);
        inner.insert("type".into(), Value::String("object".into()));
        if let Some(d) = inner.get("description") {
            obj.insert("description".into(), d.clone());
        }
        obj.insert(
            "anyOf".into(),
            json!([Value::Object(inner), {"type": "null"}]),
        );
        return;
    }
    if obj.get("type").is_some_and(|t| t != "object") {
        return;
    }
    // Properties beside the union hold for every branch: one object of them all.
    let outer = obj.contains_key("properties");
    let Some(Value::Array(list)) = obj.get(key) else {
        return;
    };
    if list.len() < 2 && !outer {
        return;
    }
    let mut refs: Vec<String> = Vec::new();
    for branch in list {
        if !through_refs(branch, defs).is_some_and(plain_object) {
            return;
        }
        if let Some(name) = ref_name(branch) {
            if inlined.contains(&name) {
                // A recursive union met again inside its own merge: left to typify.
                return;
            }
            refs.push(name);
        }
    }
    // Inline branches without `type` (OpenAPI converters leave it out): typify reads them
    // as objects only with it.
    if let Some(Value::Array(list)) = obj.get_mut(key) {
        for branch in list.iter_mut() {
            if let Some(b) = branch.as_object_mut()
                && !b.contains_key("$ref")
            {
                b.entry("type")
                    .or_insert_with(|| Value::String("object".into()));
            }
        }
    }
    let Some(Value::Array(list)) = obj.get(key) else {
        return;
    };
    let targets: Vec<&Map<String, Value>> = list
        .iter()
        .filter_map(|b| through_refs(b, defs).and_then(Value::as_object))
        .collect();
    if outer {
        let merged = merge_objects(&targets);
        obj.remove(key);
        merge_into_outer(obj, merged);
        mark_inlined(obj, refs);
        return;
    }
    if let Some(path) = tag_path(&targets, defs, 0) {
        let direct_single = path.len() == 1
            && targets
                .iter()
                .all(|t| property_values(t, &path[0], defs).is_some_and(|v| v.len() == 1));
        if direct_single {
            if let Some(Value::Array(list)) = obj.get_mut(key) {
                name_variant_fields(list, &path[0], at, root, defs);
            }
        } else if key == "anyOf"
            && let Some(list) = obj.remove("anyOf")
        {
            obj.insert("oneOf".into(), list);
        }
        return;
    }
    let all_closed = targets
        .iter()
        .all(|t| t.get("additionalProperties") == Some(&Value::Bool(false)));
    if key == "oneOf" || all_closed {
        return;
    }
    let merged = merge_objects(&targets);
    obj.remove(key);
    obj.remove("type");
    for (k, v) in merged {
        obj.insert(k, v);
    }
    mark_inlined(obj, refs);
}

/// The definition a `$ref` branch names (`#/$defs/<name>`), if it is one.
fn ref_name(branch: &Value) -> Option<String> {
    branch
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .map(str::to_string)
}

fn mark_inlined(obj: &mut Map<String, Value>, refs: Vec<String>) {
    if !refs.is_empty() {
        obj.insert(
            INLINED.into(),
            Value::Array(refs.into_iter().map(Value::String).collect()),
        );
    }
}

/// The branches' merged object joined to the properties beside the union (which every value
/// satisfies: where both declare a property, the outer declaration is kept; what the outer
/// requires stays required).
fn merge_into_outer(obj: &mut Map<String, Value>, merged: Map<String, Value>) {
    if let (Some(Value::Object(props)), Some(Value::Object(from))) =
        (obj.get_mut("properties"), merged.get("properties"))
    {
        for (name, schema) in from {
            props.entry(name.clone()).or_insert_with(|| schema.clone());
        }
    }
    if let Some(Value::Array(required)) = merged.get("required") {
        let list = obj
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = list {
            for r in required {
                if !list.contains(r) {
                    list.push(r.clone());
                }
            }
        }
    }
    obj.entry("type")
        .or_insert_with(|| Value::String("object".into()));
}

/// An object schema made only of `properties`, `required`, `additionalProperties` (a boolean)
/// and annotations: what [`object_unions`] can reason about.
fn plain_object(target: &Value) -> bool {
    let Some(obj) = target.as_object() else {
        return false;
    };
    let object = match obj.get("type") {
        Some(t) => t == "object",
        None => obj.contains_key("properties") || obj.contains_key("required"),
    };
    object
        && obj.iter().all(|(k, v)| {
            matches!(k.as_str(), "type" | "properties" | "required")
                || (k == "additionalProperties" && v.is_boolean())
                || (matches!(k.as_str(), "anyOf" | "oneOf" | "allOf")
                    && v.as_array().is_some_and(|l| l.iter().all(object_part)))
                || is_annotation(k)
        })
}

/// The string values a property of `obj` is fixed to (`const` or `enum`), through references.
fn property_values(
    obj: &Map<String, Value>,
    property: &str,
    defs: &BTreeMap<String, Value>,
) -> Option<Vec<String>> {
    let schema = through_refs(obj.get("properties")?.get(property)?, defs)?;
    value_list(schema)?
        .into_iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// The path to a tag of `objects` (see [`object_unions`]): a property each requires, fixed
/// to values no two objects share, or an object property each requires whose own objects
/// are tagged (the tag at most two levels down).
fn tag_path(
    objects: &[&Map<String, Value>],
    defs: &BTreeMap<String, Value>,
    depth: usize,
) -> Option<Vec<String>> {
    let first = objects.first()?.get("properties")?.as_object()?;
    let required_by_all = |p: &str| objects.iter().all(|o| required_names(o).contains(&p));
    'direct: for property in first.keys().filter(|p| required_by_all(p)) {
        let mut seen: Vec<String> = Vec::new();
        for obj in objects {
            let Some(values) = property_values(obj, property, defs) else {
                continue 'direct;
            };
            if values.is_empty() || values.iter().any(|v| seen.contains(v)) {
                continue 'direct;
            }
            seen.extend(values);
        }
        return Some(vec![property.clone()]);
    }
    if depth >= 2 {
        return None;
    }
    for property in first.keys().filter(|p| required_by_all(p)) {
        let nested: Option<Vec<&Map<String, Value>>> = objects
            .iter()
            .map(|o| {
                let schema = through_refs(o.get("properties")?.get(property.as_str())?, defs)?;
                plain_object(schema).then_some(schema.as_object()?)
            })
            .collect();
        if let Some(nested) = nested
            && let Some(mut rest) = tag_path(&nested, defs, depth + 1)
        {
            rest.insert(0, property.clone());
            return Some(rest);
        }
    }
    None
}

/// Compares schemas as types: annotations (descriptions, titles, examples) aside.
pub(crate) fn without_annotations(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !is_annotation(k))
                .map(|(k, v)| (k.clone(), without_annotations(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_annotations).collect()),
        other => other.clone(),
    }
}

/// One object with the union of `objects`' properties (see [`object_unions`]); closed when
/// every object is.
fn merge_objects(objects: &[&Map<String, Value>]) -> Map<String, Value> {
    let mut properties: Vec<(String, Vec<Value>)> = Vec::new();
    for obj in objects {
        let own = obj
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(n, s)| (n.clone(), s.clone()));
        let all: Vec<(String, Value)> = own.chain(part_properties(obj)).collect();
        for (name, schema) in &all {
            let bare = without_annotations(schema);
            match properties.iter_mut().find(|(n, _)| n == name) {
                Some((_, schemas)) => {
                    if !schemas.iter().any(|s| without_annotations(s) == bare) {
                        schemas.push(schema.clone());
                    }
                }
                None => properties.push((name.clone(), vec![schema.clone()])),
            }
        }
    }
    let first_required = objects
        .first()
        .map(|o| required_names(o))
        .unwrap_or_default();
    let required: Vec<Value> = first_required
        .into_iter()
        .filter(|p| objects.iter().all(|o| required_names(o).contains(p)))
        .map(|p| Value::String(p.to_string()))
        .collect();
    let closed =
        |o: &&Map<String, Value>| o.get("additionalProperties") == Some(&Value::Bool(false));
    let mut out = Map::new();
    out.insert("type".into(), Value::String("object".into()));
    out.insert(
        "properties".into(),
        Value::Object(
            properties
                .into_iter()
                .map(|(name, mut schemas)| {
                    let schema = if schemas.len() == 1 {
                        schemas.remove(0)
                    } else if let Some(widest) = same_scalar_type(&schemas) {
                        widest
                    } else if schemas.iter().all(plain_array) {
                        // One array type (an optional one then stays `Option<Vec<_>>`).
                        array_branches(&mut schemas);
                        schemas.remove(0)
                    } else {
                        json!({ "anyOf": spliced_unions(schemas) })
                    };
                    (name, schema)
                })
                .collect(),
        ),
    );
    if !required.is_empty() {
        out.insert("required".into(), Value::Array(required));
    }
    if objects.iter().all(closed) {
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    out
}

/// The branches of a property's schemas from several object branches: a schema that is
/// itself a union (`anyOf`/`oneOf`, annotations such as `default` aside) gives its branches,
/// so that `anyOf: [anyOf: [Rows, null], anyOf: [string, array]]` becomes one flat union
/// (typify turns a union of unions into a struct of flattened options that cannot hold a
/// string). Distinct branches only, in order.
fn spliced_unions(schemas: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for schema in schemas {
        let branches = match schema.as_object() {
            Some(obj) => ["anyOf", "oneOf"]
                .iter()
                .find_map(|key| {
                    let Some(Value::Array(list)) = obj.get(*key) else {
                        return None;
                    };
                    let alone = obj.keys().all(|k| k == key || is_annotation(k));
                    alone.then(|| list.clone())
                })
                .unwrap_or_else(|| vec![schema.clone()]),
            None => vec![schema],
        };
        for branch in branches {
            let bare = without_annotations(&branch);
            if !out.iter().any(|o| without_annotations(o) == bare) {
                out.push(branch);
            }
        }
    }
    out
}

/// Schemas of one scalar type that differ only in bounds on its values (`{"type": "string"}`
/// and `{"type": "string", "maxLength": 20}`): that type, which accepts every value any of
/// them accepts (the first one's description kept). `None` for anything else.
fn same_scalar_type(schemas: &[Value]) -> Option<Value> {
    const BOUNDS: [&str; 10] = [
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "contentEncoding",
    ];
    let ty = schemas.first()?.get("type")?.as_str()?;
    if !matches!(ty, "string" | "integer" | "number" | "boolean") {
        return None;
    }
    let plain = schemas.iter().all(|s| {
        s.get("type").and_then(Value::as_str) == Some(ty)
            && s.as_object().is_some_and(|o| {
                o.keys()
                    .all(|k| k == "type" || BOUNDS.contains(&k.as_str()) || is_annotation(k))
            })
    });
    if !plain {
        return None;
    }
    let mut out = Map::new();
    out.insert("type".into(), Value::String(ty.into()));
    if let Some(d) = schemas.iter().find_map(|s| s.get("description")) {
        out.insert("description".into(), d.clone());
    }
    Some(Value::Object(out))
}

/// typify names the types nested in an internally tagged enum's variants after the enum and
/// the property alone (`ArgsRequestParams`), so two variants with a `params` property of
/// different shapes would get one type (the first), and the other's values would be refused
/// or dropped. Such properties of inline branches get a title naming their variant.
fn name_variant_fields(
    list: &mut [Value],
    tag: &str,
    at: &str,
    root: &str,
    defs: &BTreeMap<String, Value>,
) {
    let mut shapes: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for branch in list.iter() {
        let Some(props) = through_refs(branch, defs)
            .and_then(|t| t.get("properties"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (name, schema) in props.iter().filter(|(n, _)| *n != tag) {
            let bare = without_annotations(schema);
            let seen = shapes.entry(name.clone()).or_default();
            if !seen.contains(&bare) {
                seen.push(bare);
            }
        }
    }
    let prefix = path_words(&format!("{at}/oneOf"), root);
    for branch in list.iter_mut() {
        let Some(obj) = branch.as_object_mut() else {
            continue;
        };
        let variant = fixed_values(obj, tag)
            .and_then(|v| v.first().and_then(Value::as_str).map(str::to_string));
        let (Some(variant), Some(Value::Object(props))) = (variant, obj.get_mut("properties"))
        else {
            continue;
        };
        for (name, schema) in props.iter_mut() {
            if shapes.get(name).is_none_or(|s| s.len() < 2) {
                continue;
            }
            title_named_type(schema, format!("{prefix} {variant} {name}"));
        }
    }
}

/// Gives the type a schema generates (through arrays: their items') the title `words`,
/// when it generates a named type (an object, enum or union).
fn title_named_type(schema: &mut Value, mut words: String) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    if obj.get("type").and_then(Value::as_str) == Some("array") {
        if let Some(items) = obj.get_mut("items") {
            words.push_str(" item");
            title_named_type(items, words);
        }
        return;
    }
    let named = ["properties", "enum", "const", "anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| obj.contains_key(*k));
    if named && !obj.contains_key("$ref") {
        obj.insert(VARIANT_TITLE.into(), Value::String(words));
    }
}

/// `branch`, or the definition a `$ref` branch (nothing else but annotations) names.
fn through_refs<'v>(branch: &'v Value, defs: &'v BTreeMap<String, Value>) -> Option<&'v Value> {
    let mut at = branch;
    for _ in 0..8 {
        let Some(r) = at.get("$ref").and_then(Value::as_str) else {
            return Some(at);
        };
        let only_ref = at
            .as_object()
            .is_some_and(|o| o.keys().all(|k| k == "$ref" || is_annotation(k)));
        if !only_ref {
            return None;
        }
        at = defs.get(r.strip_prefix("#/$defs/")?)?;
    }
    None
}

/// Step 4: marks each branch with its variant title, or leaves the union alone when not every
/// branch can be named distinctly.
fn name_branches(list: &mut [Value], at: &str, key: &str, root: &str) {
    // `[X, null]` is an `Option`, not an enum.
    if list.len() < 2 || (list.len() == 2 && list.iter().any(is_null_branch)) {
        return;
    }
    // Already named from an enclosing position, or tagged by typify itself.
    let named = list
        .iter()
        .any(|b| b.as_object().is_some_and(|o| o.contains_key(VARIANT_TITLE)));
    if named || internally_tagged(list) {
        return;
    }
    let Some(names) = branch_names(list) else {
        return;
    };
    let prefix = path_words(&format!("{at}/{key}"), root);
    for (branch, name) in list.iter_mut().zip(names) {
        if let Some(obj) = branch.as_object_mut() {
            obj.insert(
                VARIANT_TITLE.into(),
                Value::String(format!("{prefix} {name}")),
            );
        }
    }
}

/// Whether typify tags the union by a property itself (`#[serde(tag = "kind")]`, variants
/// named after the tag's values): every branch an object that requires one common property
/// fixed to a single, distinct string.
fn internally_tagged(list: &[Value]) -> bool {
    let objects: Vec<&Map<String, Value>> = list
        .iter()
        .filter(|b| shape(b) == Shape::Object)
        .filter_map(Value::as_object)
        .collect();
    if objects.len() != list.len() {
        return false;
    }
    let Some(property) = discriminator(&objects) else {
        return false;
    };
    objects.iter().all(|obj| {
        let required = obj
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|p| p == property.as_str()));
        required && fixed_values(obj, &property).is_some_and(|v| v.len() == 1)
    })
}

/// A name per branch, distinct as typify spells them, or `None`.
fn branch_names(list: &[Value]) -> Option<Vec<String>> {
    let shapes: Vec<Shape> = list.iter().map(shape).collect();
    let objects: Vec<&Map<String, Value>> = list
        .iter()
        .zip(&shapes)
        .filter(|(_, s)| **s == Shape::Object)
        .filter_map(|(b, _)| b.as_object())
        .collect();
    let discriminator = if objects.len() >= 2 {
        discriminator(&objects)
    } else {
        None
    };
    let mut names = Vec::with_capacity(list.len());
    for (branch, shape) in list.iter().zip(&shapes) {
        let obj = branch.as_object()?;
        let title = obj
            .get("title")
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty());
        let name = match (title, shape) {
            (Some(t), _) => t.to_string(),
            (None, Shape::Object) if objects.len() == 1 => "Object".to_string(),
            (None, Shape::Object) => match &discriminator {
                Some(property) => constant_name(obj, property)?,
                None => unique_property(obj, &objects)?,
            },
            (None, Shape::NotObject) => type_name(obj)?.to_string(),
            (None, Shape::Unknown) if obj.contains_key("anyOf") => "Object".to_string(),
            (None, Shape::Unknown) => return None,
        };
        names.push(name);
    }
    let sanitized: Vec<String> = names.iter().map(|n| typify_sanitize(n, true)).collect();
    let mut unique = sanitized.clone();
    unique.sort();
    unique.dedup();
    (unique.len() == sanitized.len()).then_some(names)
}

/// The values a branch fixes for a property (`const` or `enum`), if it does.
fn fixed_values(obj: &Map<String, Value>, property: &str) -> Option<Vec<Value>> {
    let schema = obj.get("properties")?.get(property)?;
    value_list(schema)
}

/// A property every object branch fixes to distinct constants (at most 3 per branch).
fn discriminator(objects: &[&Map<String, Value>]) -> Option<String> {
    let first = objects.first()?.get("properties")?.as_object()?;
    'candidates: for property in first.keys() {
        let mut seen: Vec<Value> = Vec::new();
        for obj in objects {
            let Some(values) = fixed_values(obj, property) else {
                continue 'candidates;
            };
            if values.len() > 3 || values.iter().any(|v| !v.is_string()) {
                continue 'candidates;
            }
            for v in values {
                if seen.contains(&v) {
                    continue 'candidates;
                }
                seen.push(v);
            }
        }
        return Some(property.clone());
    }
    None
}

/// `"image" or "audio"` → `ImageOrAudio`.
fn constant_name(obj: &Map<String, Value>, property: &str) -> Option<String> {
    let values = fixed_values(obj, property)?;
    let words: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
    (!words.is_empty()).then(|| words.join(" or "))
}

/// The first required property of `obj` that no other object branch mentions, else its first
/// such property.
fn unique_property(obj: &Map<String, Value>, objects: &[&Map<String, Value>]) -> Option<String> {
    let mentions = |other: &Map<String, Value>, p: &str| {
        other.get("properties").and_then(|m| m.get(p)).is_some()
            || other
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| r.iter().any(|x| x == p))
    };
    let others: Vec<&&Map<String, Value>> =
        objects.iter().filter(|o| !std::ptr::eq(**o, obj)).collect();
    let unique = |p: &str| !others.iter().any(|o| mentions(o, p));
    let required = obj
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    let properties = obj
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|m| m.keys().map(String::as_str));
    required
        .chain(properties)
        .find(|p| unique(p))
        .map(str::to_string)
}

/// typify's name for a branch of one scalar type.
fn type_name(obj: &Map<String, Value>) -> Option<&'static str> {
    Some(match obj.get("type")?.as_str()? {
        "string" => "String",
        "integer" => "Integer",
        "number" => "Number",
        "boolean" => "Boolean",
        "array" => "Array",
        "null" => "Null",
        _ => return None,
    })
}

/// Words naming the position `at` (a JSON pointer into the tool's schema), starting with the
/// root type's name or the definition holding it: `/properties/items/items/oneOf` under
/// `Args` → `Args items item`.
fn path_words(at: &str, root: &str) -> String {
    let segments: Vec<String> = at.split('/').skip(1).map(crate::schema::unescape).collect();
    let mut words = vec![root.to_string()];
    let mut i = 0;
    while i < segments.len() {
        let next = segments.get(i + 1).cloned().unwrap_or_default();
        match segments[i].as_str() {
            "$defs" | "definitions" => {
                words = vec![next];
                i += 1;
            }
            "properties" => {
                words.push(next);
                i += 1;
            }
            "patternProperties" => {
                words.push("value".into());
                i += 1;
            }
            "items" => {
                words.push("item".into());
                if next.parse::<usize>().is_ok() {
                    i += 1;
                }
            }
            "additionalProperties" => words.push("value".into()),
            "anyOf" | "oneOf" | "allOf" if next.parse::<usize>().is_ok() => {
                words.push(format!("variant {next}"));
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shaped(mut v: Value) -> Value {
        if let Some(obj) = v.as_object_mut() {
            shape_unions(obj, "/properties/sort", "Args", &BTreeMap::new(), &[]);
        }
        v
    }

    #[test]
    fn constants_of_several_types_become_one_typed_branch_per_type() {
        let v = shaped(json!({"anyOf": [
            {"const": 1}, {"const": -1}, {"const": "asc"}, {"const": "desc"},
            {"type": "object", "properties": {"$meta": {"type": "string"}}, "required": ["$meta"]}
        ]}));
        let list = v["oneOf"]
            .as_array()
            .expect("anyOf with scalars becomes oneOf");
        assert_eq!(list.len(), 3);
        assert_eq!(list[0]["type"], "integer");
        assert_eq!(list[0]["enum"], json!([1, -1]));
        assert_eq!(list[1]["type"], "string");
        assert_eq!(list[1]["enum"], json!(["asc", "desc"]));
        assert_eq!(list[2][VARIANT_TITLE], "Args sort Object");
        assert_eq!(list[0][VARIANT_TITLE], "Args sort Integer");
    }

    #[test]
    fn a_mixed_enum_becomes_a_union_of_typed_enums() {
        let v = shaped(json!({"enum": [1, "a", null, 2.5]}));
        assert!(v.get("enum").is_none());
        // `null` beside two typed enums: `Option<enum>`, its variants named after the
        // property.
        assert_eq!(v["anyOf"][1], json!({"type": "null"}));
        assert_eq!(v["anyOf"][0]["oneOf"][0]["enum"], json!([1, 2.5]));
        assert_eq!(v["anyOf"][0]["oneOf"][1]["enum"], json!(["a"]));
        let inner = &v["anyOf"][0];
        assert_eq!(inner["oneOf"][0][VARIANT_TITLE], "Args sort Number");
        assert_eq!(inner["oneOf"][1][VARIANT_TITLE], "Args sort String");
        // One type (plus null) is left to typify's enum handling.
        let v = shaped(json!({"enum": ["a", null]}));
        assert_eq!(v["enum"], json!(["a", null]));
    }

    #[test]
    fn object_branches_stay_a_flattened_any_of_beside_scalars() {
        let v = shaped(json!({"anyOf": [
            {"type": "string"},
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "object", "properties": {"b": {"type": "string"}}}
        ]}));
        let list = v["oneOf"].as_array().expect("oneOf");
        assert_eq!(list.len(), 2);
        assert_eq!(list[1]["anyOf"].as_array().map(Vec::len), Some(2));
        assert_eq!(list[1][VARIANT_TITLE], "Args sort Object");
        // Open objects alone become one object carrying any subset of them.
        let objects = json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "object", "properties": {"b": {"type": "string"}}}
        ]});
        assert_eq!(
            shaped(objects),
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}})
        );
    }

    #[test]
    fn null_beside_several_branches_makes_the_union_optional() {
        let v =
            shaped(json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}));
        let list = v["anyOf"].as_array().expect("anyOf");
        assert_eq!(list.len(), 2);
        assert_eq!(list[1], json!({"type": "null"}));
        assert_eq!(list[0]["oneOf"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn branches_are_named_by_title_discriminator_or_unique_property() {
        let by_title = shaped(json!({"oneOf": [
            {"title": "By name", "type": "object", "properties": {"name": {"type": "string"}}},
            {"title": "By id", "type": "object", "properties": {"id": {"type": "integer"}}}
        ]}));
        assert_eq!(by_title["oneOf"][0][VARIANT_TITLE], "Args sort By name");
        // A required tag with several values per branch: an untagged enum.
        let by_const = shaped(json!({"anyOf": [
            {"type": "object", "properties": {"type": {"enum": ["image", "audio"]}}, "required": ["type"]},
            {"type": "object", "properties": {"type": {"const": "resource"}}, "required": ["type"]}
        ]}));
        assert_eq!(
            by_const["oneOf"][0][VARIANT_TITLE],
            "Args sort image or audio"
        );
        assert_eq!(by_const["oneOf"][1][VARIANT_TITLE], "Args sort resource");
        let by_property = shaped(json!({"oneOf": [
            {"type": "object", "properties": {"node_id": {"type": "string"}}, "required": ["node_id"]},
            {"type": "object", "properties": {"item_id": {"type": "integer"}}, "required": ["item_id"]},
            {"type": "object", "properties": {"owner": {}, "issue_number": {}}, "required": ["issue_number", "owner"]}
        ]}));
        assert_eq!(by_property["oneOf"][0][VARIANT_TITLE], "Args sort node_id");
        assert_eq!(
            by_property["oneOf"][2][VARIANT_TITLE],
            "Args sort issue_number"
        );
    }

    #[test]
    fn unions_that_cannot_be_named_distinctly_are_left_alone() {
        let same = shaped(json!({"oneOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "object", "properties": {"a": {"type": "integer"}}}
        ]}));
        assert!(same["oneOf"][0].get(VARIANT_TITLE).is_none());
        let refs = shaped(json!({"oneOf": [{"$ref": "#/$defs/A"}, {"type": "string"}]}));
        assert!(refs["oneOf"][1].get(VARIANT_TITLE).is_none());
    }

    #[test]
    fn open_single_property_objects_become_one_struct_of_options() {
        let branches = json!([
            {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
            {"type": "object", "properties": {"line": {"type": "integer"}}, "required": ["line"]}
        ]);
        let v = shaped(json!({ "anyOf": branches.clone() }));
        assert_eq!(
            v,
            json!({"type": "object", "properties": {"path": {"type": "string"}, "line": {"type": "integer"}}})
        );
        // Closed branches cannot both match: typify's tagged enum carries them.
        let closed: Vec<Value> = branches
            .as_array()
            .into_iter()
            .flatten()
            .map(|b| {
                let mut b = b.clone();
                b["additionalProperties"] = json!(false);
                b
            })
            .collect();
        assert!(shaped(json!({ "anyOf": closed }))["anyOf"].is_array());
        // `oneOf` forbids a value matching both.
        assert!(shaped(json!({ "oneOf": branches }))["oneOf"].is_array());
    }

    #[test]
    fn closed_objects_sharing_a_property_become_one_of() {
        let defs: BTreeMap<String, Value> = [
            ("Paragraph".to_string(), json!({"type": "object", "additionalProperties": false,
                "properties": {"paragraph": {"type": "object"}, "type": {"enum": ["paragraph"]}}})),
            ("Bullet".to_string(), json!({"type": "object", "additionalProperties": false,
                "properties": {"bulleted_list_item": {"type": "object"}, "type": {"enum": ["bulleted_list_item"]}}})),
        ]
        .into_iter()
        .collect();
        let mut v = json!({"anyOf": [{"$ref": "#/$defs/Paragraph"}, {"$ref": "#/$defs/Bullet"}]});
        if let Some(obj) = v.as_object_mut() {
            shape_unions(obj, "/properties/block", "Args", &defs, &[]);
        }
        assert!(v.get("anyOf").is_none() && v["oneOf"].is_array(), "{v}");
        // Closed objects without a shared property stay typify's union.
        let mut v = json!({ "anyOf": [
            {"type": "object", "additionalProperties": false, "properties": {"a": {}}},
            {"type": "object", "additionalProperties": false, "properties": {"b": {}}}
        ] });
        if let Some(obj) = v.as_object_mut() {
            shape_unions(obj, "/properties/x", "Args", &defs, &[]);
        }
        assert!(v["anyOf"].is_array(), "{v}");
    }

    #[test]
    fn open_objects_become_one_object_with_the_union_of_their_properties() {
        let v = shaped(json!({"anyOf": [
            {"type": "object", "properties": {"user_id": {"type": "string"}, "note": {"type": "string", "description": "a"}, "n": {"type": "integer"}}, "required": ["user_id", "note"]},
            {"type": "object", "properties": {"team_id": {"type": "string"}, "note": {"type": "string", "description": "b"}, "n": {"type": "integer", "minimum": 0}}, "required": ["note", "team_id"]},
            {"type": "object", "properties": {"note": {"type": "integer"}}, "required": ["note"], "additionalProperties": false}
        ]}));
        assert!(v.get("anyOf").is_none(), "{v}");
        assert_eq!(v["type"], "object");
        // Required by every branch: required.
        assert_eq!(v["required"], json!(["note"]));
        // The same type with other annotations or bounds: one schema.
        assert_eq!(v["properties"]["n"], json!({"type": "integer"}));
        // Declared differently: the union of the declarations.
        assert_eq!(
            v["properties"]["note"],
            json!({"anyOf": [{"type": "string", "description": "a"}, {"type": "integer"}]})
        );
        // An open branch: the object stays open.
        assert!(v.get("additionalProperties").is_none());
    }

    #[test]
    fn a_constant_tag_at_any_depth_makes_an_enum() {
        // Nested: `oneOf`, named after a property only that branch has.
        let nested = shaped(json!({"anyOf": [
            {"type": "object", "properties": {"action": {"type": "object", "properties": {"kind": {"const": "move"}}, "required": ["kind"]}, "to": {"type": "string"}}, "required": ["action", "to"]},
            {"type": "object", "properties": {"action": {"type": "object", "properties": {"kind": {"const": "wait"}}, "required": ["kind"]}}, "required": ["action"]}
        ]}));
        assert!(nested["oneOf"].is_array(), "{nested}");
        // A tag that may be left out tells nothing: one object.
        let optional = shaped(json!({"anyOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "a": {"type": "string"}}},
            {"type": "object", "properties": {"kind": {"const": "b"}, "b": {"type": "string"}}}
        ]}));
        assert_eq!(
            optional["properties"]["kind"],
            json!({"anyOf": [{"const": "a"}, {"const": "b"}]})
        );
        // Direct, one value per branch: typify's internal tag, whose variants' nested types
        // of different shapes get titles naming their variant.
        let mut tagged = json!({"anyOf": [
            {"type": "object", "properties": {"op": {"const": "get"}, "params": {"type": "object", "properties": {"id": {"type": "string"}}}}, "required": ["op"]},
            {"type": "object", "properties": {"op": {"const": "list"}, "params": {"type": "object", "properties": {"limit": {"type": "integer"}}}, "tags": {"type": "array", "items": {"enum": ["x"]}}}, "required": ["op"]},
            {"type": "object", "properties": {"op": {"const": "put"}, "params": {"type": "object", "properties": {"id": {"type": "string"}}}, "tags": {"type": "array", "items": {"enum": ["y"]}}}, "required": ["op"]}
        ]});
        if let Some(obj) = tagged.as_object_mut() {
            shape_unions(obj, "/properties/request", "Args", &BTreeMap::new(), &[]);
        }
        let list = tagged["anyOf"].as_array().expect("still a union");
        assert_eq!(
            list[0]["properties"]["params"][VARIANT_TITLE],
            "Args request get params"
        );
        assert_eq!(
            list[1]["properties"]["params"][VARIANT_TITLE],
            "Args request list params"
        );
        assert_eq!(
            list[2]["properties"]["tags"]["items"][VARIANT_TITLE],
            "Args request put tags item"
        );
    }

    #[test]
    fn path_words_follow_properties_items_and_definitions() {
        assert_eq!(
            path_words("/properties/items/items/oneOf", "Args"),
            "Args items item"
        );
        assert_eq!(path_words("/$defs/Sort/anyOf", "Args"), "Sort");
        assert_eq!(
            path_words("/properties/m/additionalProperties/anyOf/1/oneOf", "Output"),
            "Output m value variant 1"
        );
    }
}
