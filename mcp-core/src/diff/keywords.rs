//! The schema layer, keyword by keyword: properties and `required`, values, types,
//! `additionalProperties`, items, unions, bounds.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::*;
use crate::schema::{escape, json_type};

impl<'r> SchemaDiff<'r> {
    pub(super) fn properties(
        &mut self,
        path: &str,
        a: &Map<String, Value>,
        b: &Map<String, Value>,
        depth: usize,
    ) {
        fn props<'m>(
            m: &'m Map<String, Value>,
            empty: &'m Map<String, Value>,
        ) -> Option<&'m Map<String, Value>> {
            match m.get("properties") {
                None => Some(empty),
                Some(v) => v.as_object(),
            }
        }
        let empty = Map::new();
        let required = |m: &Map<String, Value>| -> Option<BTreeSet<String>> {
            match m.get("required") {
                None => Some(BTreeSet::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect(),
                Some(_) => None,
            }
        };
        let (Some(pa), Some(pb)) = (props(a, &empty), props(b, &empty)) else {
            self.opaque(path, "properties", a.get("properties"), b.get("properties"));
            return;
        };
        let (Some(ra), Some(rb)) = (required(a), required(b)) else {
            self.opaque(path, "required", a.get("required"), b.get("required"));
            return;
        };
        let mut names: BTreeSet<&str> = pa.keys().chain(pb.keys()).map(String::as_str).collect();
        names.extend(ra.iter().chain(rb.iter()).map(String::as_str));
        for name in names {
            let child = child_path(path, name);
            let (was, is) = (ra.contains(name), rb.contains(name));
            match (pa.get(name), pb.get(name)) {
                (Some(x), Some(y)) => self.cmp(&child, x, y, depth + 1),
                (None, Some(y)) if was => self.cmp(&child, &TRUE, y, depth + 1),
                (None, Some(_)) => {
                    self.property_added(&child, is);
                    continue;
                }
                (Some(_), None) => {
                    // Removing only the schema of a name still listed in `required` takes
                    // the typed field away just the same.
                    self.property_removed(&child, is);
                    continue;
                }
                (None, None) => {}
            }
            self.required_changed(&child, was, is);
        }
    }

    pub(super) fn property_added(&mut self, path: &str, required: bool) {
        let (severity, message) = match (self.dir, required) {
            (Dir::Input, true) => (
                Severity::Breaking,
                format!("new required argument \"{path}\""),
            ),
            (Dir::Input, false) => (
                Severity::Additive,
                format!("new optional argument \"{path}\""),
            ),
            (Dir::Output, true) => (
                Severity::Additive,
                format!("new output field \"{path}\" (always present)"),
            ),
            (Dir::Output, false) => (Severity::Additive, format!("new output field \"{path}\"")),
        };
        self.emit_raw(path, severity, message);
    }

    pub(super) fn property_removed(&mut self, path: &str, still_required: bool) {
        let note = if still_required {
            " (still listed in `required`)"
        } else {
            ""
        };
        let message = match self.dir {
            Dir::Input => format!("argument \"{path}\" removed{note}"),
            Dir::Output => format!("output field \"{path}\" removed{note}"),
        };
        self.emit_raw(path, Severity::Breaking, message);
    }

    pub(super) fn required_changed(&mut self, path: &str, was: bool, is: bool) {
        let (severity, message) = match (self.dir, was, is) {
            (Dir::Input, false, true) => (
                Severity::Breaking,
                format!("argument \"{path}\" is now required"),
            ),
            (Dir::Input, true, false) => (
                Severity::Additive,
                format!("argument \"{path}\" is now optional"),
            ),
            (Dir::Output, false, true) => (
                Severity::Additive,
                format!("output field \"{path}\" is now always present (required)"),
            ),
            (Dir::Output, true, false) => (
                Severity::Breaking,
                format!("output field \"{path}\" may now be absent (no longer required)"),
            ),
            _ => return,
        };
        self.emit_raw(path, severity, message);
    }

    /// `enum` and `const`, compared as sets of allowed values.
    pub(super) fn values(&mut self, path: &str, a: &Map<String, Value>, b: &Map<String, Value>) {
        match (allowed_values(a), allowed_values(b)) {
            (None, None) => {}
            (None, Some(v)) => {
                let message = if b.contains_key("const") {
                    format!("now restricted to the constant {}", show_values(&v))
                } else {
                    format!("now restricted to the values {}", show_values(&v))
                };
                self.emit(path, Effect::Narrowed, message);
            }
            (Some(_), None) => self.emit(
                path,
                Effect::Widened,
                "no longer restricted to a fixed set of values",
            ),
            (Some(x), Some(y)) => {
                if x == y {
                    return;
                }
                if a.contains_key("const")
                    && b.contains_key("const")
                    && x.len() == 1
                    && y.len() == 1
                {
                    self.emit(
                        path,
                        Effect::Changed,
                        format!(
                            "const changed from {} to {}",
                            show_values(&x),
                            show_values(&y)
                        ),
                    );
                    return;
                }
                let removed: BTreeMap<String, Value> = x
                    .iter()
                    .filter(|(k, _)| !y.contains_key(*k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let added: BTreeMap<String, Value> = y
                    .iter()
                    .filter(|(k, _)| !x.contains_key(*k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                if !removed.is_empty() {
                    let noun = if removed.len() == 1 {
                        "value"
                    } else {
                        "values"
                    };
                    self.emit(
                        path,
                        Effect::Narrowed,
                        format!("enum {noun} {} removed", show_values(&removed)),
                    );
                }
                if !added.is_empty() {
                    let noun = if added.len() == 1 { "value" } else { "values" };
                    self.emit(
                        path,
                        Effect::Widened,
                        format!("enum {noun} {} added", show_values(&added)),
                    );
                }
            }
        }
    }

    /// `type` as a set (`None`: any type). When only one side has `type`, the other side's
    /// `enum`/`const` values stand for it (`{"enum": ["a"]}` is a string schema).
    pub(super) fn types(&mut self, path: &str, a: &Map<String, Value>, b: &Map<String, Value>) {
        let (x, y) = (a.get("type"), b.get("type"));
        if x == y {
            return;
        }
        let parse =
            |v: Option<&Value>, m: &Map<String, Value>| -> Option<Option<BTreeSet<String>>> {
                match v {
                    None => Some(allowed_values(m).map(|values| {
                        values.values().map(json_type).map(str::to_string).collect()
                    })),
                    Some(v) => type_names(v).map(|t| Some(t.into_iter().collect())),
                }
            };
        let (Some(a), Some(b)) = (parse(x, a), parse(y, b)) else {
            self.emit(
                path,
                Effect::Changed,
                format!("type changed {} (cannot classify)", from_to(x, y)),
            );
            return;
        };
        let widened = type_subset(a.as_ref(), b.as_ref());
        let narrowed = type_subset(b.as_ref(), a.as_ref());
        let (effect, verb) = match (widened, narrowed) {
            (true, true) => return,
            (true, false) => (Effect::Widened, "widened"),
            (false, true) => (Effect::Narrowed, "narrowed"),
            (false, false) => (Effect::Changed, "changed"),
        };
        self.emit(
            path,
            effect,
            format!(
                "type {verb} from {} to {}",
                show_types(a.as_ref()),
                show_types(b.as_ref())
            ),
        );
    }

    pub(super) fn additional(
        &mut self,
        path: &str,
        x: Option<&Value>,
        y: Option<&Value>,
        depth: usize,
    ) {
        enum Ap<'v> {
            Any,
            Nothing,
            Schema(&'v Value),
        }
        fn ap(v: Option<&Value>) -> Ap<'_> {
            match v {
                None | Some(Value::Bool(true)) => Ap::Any,
                Some(Value::Bool(false)) => Ap::Nothing,
                Some(Value::Object(m)) if m.is_empty() => Ap::Any,
                Some(other) => Ap::Schema(other),
            }
        }
        let child = child_path(path, "*");
        match (ap(x), ap(y)) {
            (Ap::Any, Ap::Any) | (Ap::Nothing, Ap::Nothing) => {}
            (Ap::Schema(x), Ap::Schema(y)) => self.cmp(&child, x, y, depth + 1),
            (Ap::Any, Ap::Schema(y)) => self.cmp(&child, &TRUE, y, depth + 1),
            (Ap::Schema(x), Ap::Any) => self.cmp(&child, x, &TRUE, depth + 1),
            (Ap::Any, Ap::Nothing) => self.emit(
                path,
                Effect::Narrowed,
                "additionalProperties changed from true to false (unknown keys are now rejected)",
            ),
            (Ap::Nothing, Ap::Any) => self.emit(
                path,
                Effect::Widened,
                "additionalProperties changed from false to true",
            ),
            (Ap::Nothing, Ap::Schema(_)) => self.emit(
                path,
                Effect::Widened,
                "additionalProperties changed from false to a schema",
            ),
            (Ap::Schema(_), Ap::Nothing) => self.emit(
                path,
                Effect::Narrowed,
                "additionalProperties changed from a schema to false",
            ),
        }
    }

    pub(super) fn items(
        &mut self,
        path: &str,
        key: &str,
        x: Option<&Value>,
        y: Option<&Value>,
        depth: usize,
    ) {
        let tuple = |v: Option<&Value>| v.and_then(Value::as_array).cloned();
        let is_tuple = |v: Option<&Value>| matches!(v, Some(Value::Array(_)));
        if key == "items" && !is_tuple(x) && !is_tuple(y) {
            let child = format!("{path}[]");
            self.cmp(&child, x.unwrap_or(&TRUE), y.unwrap_or(&TRUE), depth + 1);
            return;
        }
        // Tuple forms: `prefixItems`, or draft-07 `items: [...]`.
        let absent_is_tuple = key == "prefixItems";
        let (a, b) = match (tuple(x), tuple(y)) {
            (Some(a), Some(b)) => (a, b),
            (None, Some(b)) if absent_is_tuple && x.is_none() => (Vec::new(), b),
            (Some(a), None) if absent_is_tuple && y.is_none() => (a, Vec::new()),
            _ => {
                self.emit(
                    path,
                    Effect::Changed,
                    format!("`{key}` changed between list and tuple form (cannot classify)"),
                );
                return;
            }
        };
        for (i, (p, q)) in a.iter().zip(b.iter()).enumerate() {
            self.cmp(&format!("{path}[{i}]"), p, q, depth + 1);
        }
        if a.len() != b.len() {
            self.emit(
                path,
                Effect::Changed,
                format!("tuple length changed from {} to {}", a.len(), b.len()),
            );
        }
    }

    pub(super) fn pattern_properties(
        &mut self,
        path: &str,
        x: Option<&Value>,
        y: Option<&Value>,
        depth: usize,
    ) {
        let empty = Map::new();
        let (Some(a), Some(b)) = (
            x.map_or(Some(&empty), Value::as_object),
            y.map_or(Some(&empty), Value::as_object),
        ) else {
            self.opaque(path, "patternProperties", x, y);
            return;
        };
        for re in union_keys(a, b) {
            match (a.get(re), b.get(re)) {
                (Some(p), Some(q)) => {
                    self.cmp(&child_path(path, &format!("/{re}/")), p, q, depth + 1)
                }
                (None, Some(_)) => self.emit(
                    path,
                    Effect::Narrowed,
                    format!("patternProperties /{re}/ added"),
                ),
                (Some(_), None) => self.emit(
                    path,
                    Effect::Widened,
                    format!("patternProperties /{re}/ removed"),
                ),
                (None, None) => {}
            }
        }
    }

    /// `anyOf`/`oneOf` (`all == false`) or `allOf` (`all == true`): branches are paired
    /// (equal, then same `$ref`/`title`, then same type and constants) and compared; an
    /// unpaired branch was lost or gained.
    pub(super) fn union(
        &mut self,
        path: &str,
        key: &str,
        x: Option<&Value>,
        y: Option<&Value>,
        depth: usize,
        all: bool,
    ) {
        let (more, fewer) = if all {
            (Effect::Narrowed, Effect::Widened)
        } else {
            (Effect::Widened, Effect::Narrowed)
        };
        let (a, b) = match (x, y) {
            (None, None) => return,
            (None, Some(_)) => {
                return self.emit(path, Effect::Narrowed, format!("`{key}` added"));
            }
            (Some(_), None) => {
                return self.emit(path, Effect::Widened, format!("`{key}` removed"));
            }
            (Some(Value::Array(a)), Some(Value::Array(b))) => (a, b),
            _ => return self.opaque(path, key, x, y),
        };
        let mut paired_old = vec![false; a.len()];
        let mut paired_new = vec![false; b.len()];
        let mut pairs = Vec::new();
        let tiers: [fn(&Value, &Value) -> bool; 3] = [
            |p, q| p == q,
            |p, q| branch_ident(p).is_some() && branch_ident(p) == branch_ident(q),
            |p, q| branch_shape(p) == branch_shape(q),
        ];
        for tier in tiers {
            for (i, p) in a.iter().enumerate() {
                if paired_old[i] {
                    continue;
                }
                if let Some(j) = (0..b.len()).find(|&j| !paired_new[j] && tier(p, &b[j])) {
                    paired_old[i] = true;
                    paired_new[j] = true;
                    pairs.push((i, j));
                }
            }
        }
        pairs.sort_by_key(|&(_, j)| j);
        for (i, j) in pairs {
            self.cmp(
                &child_path(path, &format!("{key}[{j}]")),
                &a[i],
                &b[j],
                depth + 1,
            );
        }
        let (lost, gained) = if all {
            ("lost a constraint", "gained a constraint")
        } else {
            ("lost a branch", "gained a branch")
        };
        for (i, p) in a.iter().enumerate() {
            if !paired_old[i] {
                self.emit(path, fewer, format!("`{key}` {lost}: {}", short(p)));
            }
        }
        for (j, q) in b.iter().enumerate() {
            if !paired_new[j] {
                self.emit(path, more, format!("`{key}` {gained}: {}", short(q)));
            }
        }
    }

    pub(super) fn bound(
        &mut self,
        path: &str,
        key: &str,
        x: Option<&Value>,
        y: Option<&Value>,
        lower: bool,
    ) {
        if x == y {
            return;
        }
        let (effect, message) = match (x, y) {
            (None, Some(y)) => (Effect::Narrowed, format!("{key} {} added", compact(y))),
            (Some(x), None) => (
                Effect::Widened,
                format!("{key} removed (was {})", compact(x)),
            ),
            (Some(p), Some(q)) => match (p.as_f64(), q.as_f64()) {
                (Some(p), Some(q)) if p == q => return,
                (Some(pf), Some(qf)) => {
                    let raised = qf > pf;
                    let effect = if raised == lower {
                        Effect::Narrowed
                    } else {
                        Effect::Widened
                    };
                    let verb = if raised { "raised" } else { "lowered" };
                    (
                        effect,
                        format!("{key} {verb} from {} to {}", compact(p), compact(q)),
                    )
                }
                _ => (
                    Effect::Changed,
                    format!("{key} changed {} (cannot classify)", from_to(x, y)),
                ),
            },
            (None, None) => return,
        };
        self.emit(path, effect, message);
    }

    pub(super) fn multiple_of(&mut self, path: &str, x: Option<&Value>, y: Option<&Value>) {
        if x == y {
            return;
        }
        let effect = match (x.map(Value::as_f64), y.map(Value::as_f64)) {
            (None, Some(_)) => Effect::Narrowed,
            (Some(_), None) => Effect::Widened,
            (Some(Some(p)), Some(Some(q))) if p > 0.0 && q > 0.0 => {
                let whole = |r: f64| (r - r.round()).abs() < 1e-9;
                if p == q {
                    return;
                } else if whole(q / p) {
                    Effect::Narrowed
                } else if whole(p / q) {
                    Effect::Widened
                } else {
                    Effect::Changed
                }
            }
            _ => Effect::Changed,
        };
        self.emit(path, effect, changed_words("multipleOf", x, y));
    }

    pub(super) fn unique_items(&mut self, path: &str, x: Option<&Value>, y: Option<&Value>) {
        let flag = |v: Option<&Value>| match v {
            None => Some(false),
            Some(v) => v.as_bool(),
        };
        let effect = match (flag(x), flag(y)) {
            (Some(p), Some(q)) if p == q => return,
            (Some(false), Some(true)) => Effect::Narrowed,
            (Some(true), Some(false)) => Effect::Widened,
            _ => Effect::Changed,
        };
        self.emit(path, effect, changed_words("uniqueItems", x, y));
    }

    /// Root `$defs`/`definitions` entries that changed but that no compared schema reached.
    pub(super) fn unreferenced_defs(&mut self) {
        for key in ["$defs", "definitions"] {
            let empty = Map::new();
            let a = self
                .old_root
                .get(key)
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            let b = self
                .new_root
                .get(key)
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            for name in union_keys(a, b) {
                let (x, y) = (a.get(name), b.get(name));
                if x == y {
                    continue;
                }
                let pointer = format!("/{key}/{}", escape(name));
                let nested = format!("{pointer}/");
                if self
                    .visited
                    .iter()
                    .any(|v| *v == pointer || v.starts_with(&nested))
                {
                    continue;
                }
                let verb = match (x, y) {
                    (None, _) => "added",
                    (_, None) => "removed",
                    _ => "changed",
                };
                let path = format!("{key}.{name}");
                let message = format!(
                    "{}: definition \"{name}\" {verb} (not referenced by the schema)",
                    self.subject("")
                );
                self.emit_raw(&path, Severity::Docs, message);
            }
        }
    }
}
