//! The schema layer: two schemas walked side by side, `$ref`s resolved, optional-value
//! spellings folded, every difference told as narrowing, widening or change.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Map, Value};

use super::*;
use crate::schema::local_pointer;

// ---------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------

/// Which side of the call a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dir {
    /// Arguments: callers produce values, the server validates them.
    Input,
    /// Results: the server produces values, callers read them.
    Output,
}

/// What a difference does to the set of values a schema accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Effect {
    /// Fewer values are accepted.
    Narrowed,
    /// More values are accepted.
    Widened,
    /// Neither a subset nor a superset, or unknown.
    Changed,
    /// No effect on validation: documentation only.
    Docs,
    /// No effect on validation, but more than documentation (`default`, extensions).
    Neutral,
    /// The same schema spelled differently (a `$schema` switch, a renamed `$defs` entry).
    Equivalent,
}

impl Dir {
    pub(super) fn severity(self, effect: Effect) -> Severity {
        match (self, effect) {
            (_, Effect::Equivalent) => Severity::None,
            (_, Effect::Docs) => Severity::Docs,
            (_, Effect::Neutral) => Severity::Additive,
            (_, Effect::Changed) => Severity::Breaking,
            (Dir::Input, Effect::Narrowed) | (Dir::Output, Effect::Widened) => Severity::Breaking,
            (Dir::Input, Effect::Widened) | (Dir::Output, Effect::Narrowed) => Severity::Additive,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Old,
    New,
}

/// Nesting depth after which two different schemas are reported as changed without looking
/// further (a backstop; the cycle guard normally stops recursion through `$ref`).
pub(super) const MAX_DEPTH: usize = 64;
/// Upper bound on schema node comparisons per schema pair (guards against exponential
/// re-comparison of heavily shared `$defs`).
pub(super) const BUDGET: usize = 50_000;
/// Upper bound on `$ref`/fold steps when preparing one node.
pub(super) const MAX_HOPS: usize = 32;

/// Keywords that only document.
pub(super) const DOC_KEYS: &[&str] = &[
    "description",
    "title",
    "examples",
    "example",
    "$comment",
    "markdownDescription",
    "deprecated",
    "enumDescriptions",
    "markdownEnumDescriptions",
    "enumNames",
];
/// Keywords with no effect on validation that are more than documentation.
pub(super) const NEUTRAL_KEYS: &[&str] = &[
    "default",
    "readOnly",
    "writeOnly",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$vocabulary",
];
/// Lower bounds: raising one narrows.
pub(super) const LOWER_BOUNDS: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
    "minContains",
];
/// Upper bounds: lowering one narrows.
pub(super) const UPPER_BOUNDS: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "maxContains",
];
/// Restrictions that cannot be ordered: adding one narrows, removing one widens, changing
/// one is a change.
pub(super) const RESTRICTIONS: &[&str] =
    &["pattern", "format", "contentEncoding", "contentMediaType"];
/// Keywords that may hold a type-independent constraint: a union branch holding one of
/// them cannot be folded into a `type` array.
pub(super) const UNFOLDABLE: &[&str] = &[
    "not",
    "allOf",
    "anyOf",
    "oneOf",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "if",
    "then",
    "else",
];

/// Constraints the classifier does not analyse: added they may narrow, removed they widen,
/// changed it cannot tell.
pub(super) const UNANALYSED: &[&str] = &[
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "not",
    "$dynamicRef",
    "$recursiveRef",
    "contentSchema",
];

pub(super) static TRUE: Value = Value::Bool(true);

pub(super) fn diff_schema(dir: Dir, old: &Value, new: &Value) -> Vec<Detail> {
    let mut d = SchemaDiff {
        dir,
        old_root: old,
        new_root: new,
        details: Vec::new(),
        active: BTreeSet::new(),
        visited: BTreeSet::new(),
        budget: BUDGET,
        exhausted: false,
        flattened: 0,
    };
    // The roots themselves are "#": a `{"$ref": "#"}` inside is a cycle back to here.
    d.active.insert((vec![String::new()], vec![String::new()]));
    d.cmp("", old, new, 0);
    d.unreferenced_defs();
    d.details
}

pub(super) struct SchemaDiff<'r> {
    pub(super) dir: Dir,
    pub(super) old_root: &'r Value,
    pub(super) new_root: &'r Value,
    pub(super) details: Vec<Detail>,
    /// `$ref` chains being compared right now (cycle guard).
    pub(super) active: BTreeSet<(Vec<String>, Vec<String>)>,
    /// JSON pointers reached through `$ref` on either side.
    pub(super) visited: BTreeSet<String>,
    pub(super) budget: usize,
    pub(super) exhausted: bool,
    /// Nested unions written flat by [`SchemaDiff::prepare`] so far (a counter: `cmp` tells
    /// from it which side was spelled nested).
    pub(super) flattened: usize,
}

impl<'r> SchemaDiff<'r> {
    pub(super) fn root(&self, side: Side) -> &'r Value {
        match side {
            Side::Old => self.old_root,
            Side::New => self.new_root,
        }
    }

    /// The path as shown in a [`Detail`].
    pub(super) fn shown_path(&self, path: &str) -> String {
        match (self.dir, path.is_empty()) {
            (Dir::Input, true) => "inputSchema".to_string(),
            (Dir::Input, false) => path.to_string(),
            (Dir::Output, true) => "outputSchema".to_string(),
            (Dir::Output, false) => format!("outputSchema.{path}"),
        }
    }

    /// What a message is about: `argument "x"`, `output field "x"`, `input schema`, …
    pub(super) fn subject(&self, path: &str) -> String {
        match (self.dir, path.is_empty()) {
            (Dir::Input, true) => "input schema".to_string(),
            (Dir::Input, false) => format!("argument \"{path}\""),
            (Dir::Output, true) => "output schema".to_string(),
            (Dir::Output, false) => format!("output field \"{path}\""),
        }
    }

    /// Records a keyword-level difference; the message is prefixed with the subject.
    pub(super) fn emit(&mut self, path: &str, effect: Effect, message: impl fmt::Display) {
        let severity = self.dir.severity(effect);
        let message = format!("{}: {message}", self.subject(path));
        self.details
            .push(detail(severity, self.shown_path(path), message));
    }

    /// Records a difference with a complete message.
    pub(super) fn emit_raw(&mut self, path: &str, severity: Severity, message: String) {
        self.details
            .push(detail(severity, self.shown_path(path), message));
    }

    pub(super) fn cmp(&mut self, path: &str, old: &Value, new: &Value, depth: usize) {
        if old == new && !contains_ref(old) {
            return;
        }
        if depth > MAX_DEPTH || self.budget == 0 {
            if !self.exhausted {
                self.exhausted = true;
                self.emit(
                    path,
                    Effect::Changed,
                    "schema too deep or too large to compare; treated as changed",
                );
            }
            return;
        }
        self.budget -= 1;
        let mut old_refs = Vec::new();
        let mut new_refs = Vec::new();
        let before = self.flattened;
        let o = self.prepare(old, Side::Old, &mut old_refs, 0);
        let between = self.flattened;
        let n = self.prepare(new, Side::New, &mut new_refs, 0);
        let (old_nested, new_nested) = (between > before, self.flattened > between);
        if old_nested != new_nested {
            let message = if old_nested {
                "a union nested in a union branch is now written flat (the same values)"
            } else {
                "union branches are now nested in a union branch (the same values)"
            };
            self.emit(path, Effect::Equivalent, message);
        }
        let (old_name, new_name) = (def_name(&old_refs), def_name(&new_refs));
        if old_name != new_name {
            let show = |n: Option<&str>| {
                n.map_or_else(
                    || "an inline schema".to_string(),
                    |n| format!("definition \"{n}\""),
                )
            };
            // The wire sees the shapes only (compared below); the Rust axis reports the
            // renamed type.
            self.emit(
                path,
                Effect::Equivalent,
                format!(
                    "now {} (was {})",
                    show(new_name.as_deref()),
                    show(old_name.as_deref())
                ),
            );
        }
        let guarded = !old_refs.is_empty() || !new_refs.is_empty();
        let key = (old_refs, new_refs);
        if guarded && !self.active.insert(key.clone()) {
            // Already comparing this pair of definitions further up: assume equal here
            // (any difference is reported where the comparison started).
            return;
        }
        match (o.as_ref(), n.as_ref()) {
            (Value::Bool(false), Value::Bool(false)) => {}
            (Value::Bool(false), _) => self.emit(
                path,
                Effect::Widened,
                "now accepts values (schema was `false`)",
            ),
            (_, Value::Bool(false)) => self.emit(
                path,
                Effect::Narrowed,
                "no longer accepts any value (schema is now `false`)",
            ),
            (Value::Object(a), Value::Object(b)) => self.keywords(path, a, b, depth),
            (a, b) => {
                if a != b {
                    self.emit(
                        path,
                        Effect::Changed,
                        format!(
                            "schema changed {} (cannot classify)",
                            from_to(Some(a), Some(b))
                        ),
                    );
                }
            }
        }
        if guarded {
            self.active.remove(&key);
        }
    }

    /// Resolves local `$ref`s and folds the optional-value spellings (see the module docs).
    /// `true` becomes `{}`. Pointers followed are appended to `refs`.
    pub(super) fn prepare<'v>(
        &mut self,
        v: &'v Value,
        side: Side,
        refs: &mut Vec<String>,
        level: usize,
    ) -> Cow<'v, Value>
    where
        'r: 'v,
    {
        let mut cur: Cow<'v, Value> = Cow::Borrowed(v);
        for _ in 0..MAX_HOPS {
            if matches!(cur.as_ref(), Value::Bool(true)) {
                cur = Cow::Owned(Value::Object(Map::new()));
            }
            let Some(obj) = cur.as_object() else { break };
            if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
                let Some(pointer) = local_pointer(r) else {
                    break;
                };
                if refs.contains(&pointer) {
                    break;
                }
                let Some(target) = self.root(side).pointer(&pointer) else {
                    break;
                };
                self.visited.insert(pointer.clone());
                refs.push(pointer);
                cur = Cow::Owned(merge_ref(target, obj));
                continue;
            }
            if let Some(folded) = fold_all_of(obj) {
                cur = Cow::Owned(folded);
                continue;
            }
            if level < 4 {
                if let Some(flat) = self.flatten_union(obj, side) {
                    self.flattened += 1;
                    cur = Cow::Owned(flat);
                    continue;
                }
                let mark = refs.len();
                if let Some(folded) = self.fold_union(obj, side, refs, level) {
                    cur = Cow::Owned(folded);
                    continue;
                }
                refs.truncate(mark);
            }
            break;
        }
        if matches!(cur.as_ref(), Value::Bool(true)) {
            cur = Cow::Owned(Value::Object(Map::new()));
        }
        cur
    }

    /// Folds `anyOf`/`oneOf` whose branches are bare types (`{"type": "null"}`) plus at
    /// most one other branch into a single schema with a `type` array.
    pub(super) fn fold_union(
        &mut self,
        obj: &Map<String, Value>,
        side: Side,
        refs: &mut Vec<String>,
        level: usize,
    ) -> Option<Value> {
        let key = match (obj.contains_key("anyOf"), obj.contains_key("oneOf")) {
            (true, false) => "anyOf",
            (false, true) => "oneOf",
            _ => return None,
        };
        if obj.contains_key("type") {
            return None;
        }
        let branches = obj.get(key)?.as_array()?;
        if branches.is_empty() {
            return None;
        }
        let mut bare: Vec<String> = Vec::new();
        let mut complex: Option<Map<String, Value>> = None;
        for b in branches {
            let p = self.prepare(b, side, refs, level + 1);
            let m = p.as_object()?;
            let is_bare = m.contains_key("type")
                && m.keys()
                    .all(|k| k == "type" || DOC_KEYS.contains(&k.as_str()));
            if is_bare {
                bare.extend(type_names(m.get("type")?)?);
            } else if complex.is_some() {
                return None;
            } else {
                complex = Some(m.clone());
            }
        }
        if key == "oneOf" && overlapping(&bare) {
            return None;
        }
        let mut out = obj.clone();
        out.remove(key);
        let mut types: BTreeSet<String> = bare.iter().cloned().collect();
        let mut typed = true;
        if let Some(mut c) = complex {
            if UNFOLDABLE.iter().any(|k| c.contains_key(*k)) {
                return None;
            }
            // A branch without `type` already accepts every bare type (its keywords do not
            // apply to them), unless it lists its values.
            let own = match c.get("type") {
                Some(t) => type_names(t)?,
                None => {
                    typed = false;
                    Vec::new()
                }
            };
            let mut all = own.clone();
            all.extend(bare.iter().cloned());
            if typed && overlapping(&all) {
                return None;
            }
            if c.contains_key("enum") || c.contains_key("const") {
                if bare.iter().any(|t| t != "null")
                    || (c.contains_key("enum") && c.contains_key("const"))
                {
                    return None;
                }
                let mut values = match (c.remove("enum"), c.remove("const")) {
                    (Some(Value::Array(values)), None) => values,
                    (None, Some(value)) => vec![value],
                    _ => return None,
                };
                if !bare.is_empty() && !values.contains(&Value::Null) {
                    values.push(Value::Null);
                }
                c.insert("enum".into(), Value::Array(values));
            }
            c.remove("type");
            for (k, v) in c {
                if out.contains_key(&k) {
                    if DOC_KEYS.contains(&k.as_str()) {
                        continue; // the outer description wins
                    }
                    return None;
                }
                out.insert(k, v);
            }
            types.extend(own);
        }
        if typed {
            out.insert("type".into(), type_value(&types));
        }
        Some(Value::Object(out))
    }

    pub(super) fn keywords(
        &mut self,
        path: &str,
        a: &Map<String, Value>,
        b: &Map<String, Value>,
        depth: usize,
    ) {
        // A schema that is one union and another that is not: the other is read as a union
        // of one branch, so `string` → `anyOf: [string, {…}]` is a branch gained.
        let (a, b) = (wrap_as_union(a, b), wrap_as_union(b, a));
        // Keywords that restrict nothing (`minLength: 0`, `propertyNames: {"type":
        // "string"}`, `minimum: 0` of a `uint32`, …) are compared as absent.
        let (a, gone_old) = strip_vacuous(a.as_ref());
        let (b, gone_new) = strip_vacuous(b.as_ref());
        let (a, b) = (a.as_ref(), b.as_ref());
        self.vacuous_keywords(path, &gone_old, &gone_new, a, b);
        // Keywords that constrain one JSON type only matter for values both sides accept as
        // that type: a required field inside a newly accepted object shape narrows nothing.
        let shared = shared_types(a, b);
        let keys: BTreeSet<&str> = a.keys().chain(b.keys()).map(String::as_str).collect();
        let mut did_properties = false;
        let mut did_values = false;
        let mut did_union = false;
        for key in keys {
            let (x, y) = (a.get(key), b.get(key));
            if let Some(scope) = type_scope(key)
                && !shared.as_ref().is_none_or(|s| s.contains(scope))
            {
                continue;
            }
            match key {
                "properties" | "required" => {
                    if !did_properties {
                        did_properties = true;
                        self.properties(path, a, b, depth);
                    }
                }
                "enum" | "const" => {
                    if !did_values {
                        did_values = true;
                        self.values(path, a, b);
                    }
                }
                "type" => self.types(path, a, b),
                "additionalProperties" => self.additional(path, x, y, depth),
                "items" | "prefixItems" => self.items(path, key, x, y, depth),
                "propertyNames" => {
                    let child = child_path(path, key);
                    let (x, y) = (key_schema(x), key_schema(y));
                    self.cmp(&child, &x, &y, depth + 1);
                }
                "additionalItems" | "unevaluatedItems" | "unevaluatedProperties" => {
                    let child = child_path(path, key);
                    self.cmp(&child, x.unwrap_or(&TRUE), y.unwrap_or(&TRUE), depth + 1);
                }
                "contains" => match (x, y) {
                    (Some(x), Some(y)) => self.cmp(&child_path(path, key), x, y, depth + 1),
                    (None, Some(_)) => self.emit(path, Effect::Narrowed, "`contains` added"),
                    (Some(_), None) => self.emit(path, Effect::Widened, "`contains` removed"),
                    (None, None) => {}
                },
                "patternProperties" => self.pattern_properties(path, x, y, depth),
                "anyOf" | "oneOf" => {
                    if !did_union {
                        did_union = true;
                        self.any_or_one_of(path, a, b, depth);
                    }
                }
                "allOf" => self.union(path, key, x, y, depth, true),
                "not" => match (x, y) {
                    (None, Some(_)) => self.emit(path, Effect::Narrowed, "`not` added"),
                    (Some(_), None) => self.emit(path, Effect::Widened, "`not` removed"),
                    _ => self.unanalysed(path, key, x, y),
                },
                "$ref" => {
                    // Only unresolvable references are left at this point.
                    if x != y {
                        self.emit(
                            path,
                            Effect::Changed,
                            format!(
                                "cannot tell: reference changed {} (not resolvable in this document)",
                                from_to(x, y)
                            ),
                        );
                    }
                }
                // Root definitions are compared where they are used (`unreferenced_defs`
                // reports the rest); nested ones are reached through their pointers.
                "$defs" | "definitions" => {}
                "$schema" => {
                    if x != y {
                        self.emit(
                            path,
                            Effect::Equivalent,
                            format!(
                                "{} (the keywords are compared as written)",
                                changed_words("dialect $schema", x, y)
                            ),
                        );
                    }
                }
                "multipleOf" => self.multiple_of(path, x, y),
                "uniqueItems" => self.unique_items(path, x, y),
                k if DOC_KEYS.contains(&k) => {
                    if x != y {
                        self.emit(path, Effect::Docs, changed_words(k, x, y));
                    }
                }
                k if NEUTRAL_KEYS.contains(&k) || k.starts_with("x-") => {
                    if x != y {
                        self.emit(path, Effect::Neutral, changed_words(k, x, y));
                    }
                }
                k if LOWER_BOUNDS.contains(&k) => self.bound(path, k, x, y, true),
                k if UPPER_BOUNDS.contains(&k) => self.bound(path, k, x, y, false),
                k if RESTRICTIONS.contains(&k) => {
                    let effect = match (x, y) {
                        (None, Some(_)) => Effect::Narrowed,
                        (Some(_), None) => Effect::Widened,
                        _ => Effect::Changed,
                    };
                    if x != y {
                        self.emit(path, effect, changed_words(k, x, y));
                    }
                }
                k if UNANALYSED.contains(&k) => self.unanalysed(path, k, x, y),
                k => {
                    // Not a JSON Schema keyword: validators ignore it.
                    if x != y {
                        self.emit(
                            path,
                            Effect::Neutral,
                            format!(
                                "{} (not a JSON Schema keyword: no effect on validation)",
                                changed_words(k, x, y)
                            ),
                        );
                    }
                }
            }
        }
    }

    /// `anyOf` and `oneOf` together: the same keyword on both sides is a union compare;
    /// `anyOf` ↔ `oneOf` over branches that cannot overlap is the same union spelled
    /// differently; otherwise `oneOf` also rejects values matching several branches.
    fn any_or_one_of(
        &mut self,
        path: &str,
        a: &Map<String, Value>,
        b: &Map<String, Value>,
        depth: usize,
    ) {
        fn one(m: &Map<String, Value>) -> Option<(&'static str, &Value)> {
            match (m.get("anyOf"), m.get("oneOf")) {
                (Some(x), None) => Some(("anyOf", x)),
                (None, Some(x)) => Some(("oneOf", x)),
                _ => None,
            }
        }
        if let (Some((ka, x)), Some((kb, y))) = (one(a), one(b))
            && ka != kb
        {
            let (Some(xs), Some(ys)) = (x.as_array(), y.as_array()) else {
                return self.opaque(path, kb, Some(x), Some(y));
            };
            let one_of = if ka == "oneOf" { xs } else { ys };
            if self.disjoint(one_of, if ka == "oneOf" { Side::Old } else { Side::New }) {
                self.emit(
                    path,
                    Effect::Equivalent,
                    format!("`{ka}` spelled as `{kb}` (its branches cannot overlap)"),
                );
            } else if kb == "oneOf" {
                self.emit(
                    path,
                    Effect::Narrowed,
                    "`anyOf` became `oneOf`: a value matching several branches is now rejected",
                );
            } else {
                self.emit(
                    path,
                    Effect::Widened,
                    "`oneOf` became `anyOf`: a value matching several branches is now accepted",
                );
            }
            self.union(path, kb, Some(x), Some(y), depth, false);
            return;
        }
        for key in ["anyOf", "oneOf"] {
            self.union(path, key, a.get(key), b.get(key), depth, false);
        }
    }

    /// True when no value can match two of the branches: their types, their allowed values
    /// or a required discriminator property's values do not overlap.
    pub(super) fn disjoint(&mut self, branches: &[Value], side: Side) -> bool {
        let prepared: Vec<Map<String, Value>> = branches
            .iter()
            .map(|b| {
                let mut refs = Vec::new();
                self.prepare(b, side, &mut refs, 0)
                    .as_object()
                    .cloned()
                    .unwrap_or_default()
            })
            .collect();
        prepared
            .iter()
            .enumerate()
            .all(|(i, p)| prepared[i + 1..].iter().all(|q| branches_disjoint(p, q)))
    }

    /// A keyword the classifier does not analyse (`if`/`then`/`else`, `dependentSchemas`,
    /// `dependentRequired`, a changed `not`): added it may narrow, removed it can only
    /// widen, changed it cannot tell.
    pub(super) fn unanalysed(
        &mut self,
        path: &str,
        key: &str,
        x: Option<&Value>,
        y: Option<&Value>,
    ) {
        match (x, y) {
            (None, Some(_)) => self.emit(
                path,
                Effect::Narrowed,
                format!("`{key}` added: a constraint not analysed here; it may reject values"),
            ),
            (Some(_), None) => self.emit(
                path,
                Effect::Widened,
                format!("`{key}` removed: one constraint fewer, so no value is newly rejected"),
            ),
            _ => self.opaque(path, key, x, y),
        }
    }

    /// A keyword compared as plain JSON: any difference is a change. Local references it
    /// holds are followed so a changed definition behind an unchanged keyword is seen too.
    pub(super) fn opaque(&mut self, path: &str, key: &str, x: Option<&Value>, y: Option<&Value>) {
        if x != y {
            self.emit(
                path,
                Effect::Changed,
                format!("cannot tell: `{key}` changed (not analysed here)"),
            );
            return;
        }
        let Some(x) = x else { return };
        let mut pending: Vec<String> = Vec::new();
        collect_refs(x, &mut pending);
        let mut seen = BTreeSet::new();
        let mut changed = false;
        while let Some(pointer) = pending.pop() {
            if !seen.insert(pointer.clone()) {
                continue;
            }
            self.visited.insert(pointer.clone());
            let a = self.old_root.pointer(&pointer);
            let b = self.new_root.pointer(&pointer);
            if a != b {
                changed = true;
            }
            for v in [a, b].into_iter().flatten() {
                collect_refs(v, &mut pending);
            }
        }
        if changed {
            self.emit(
                path,
                Effect::Changed,
                format!("cannot tell: `{key}` refers to a changed definition (not analysed here)"),
            );
        }
    }
}
