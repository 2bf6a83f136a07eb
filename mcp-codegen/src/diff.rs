//! Schema drift classifier behind `cargo xtask snapshot --check`.
//!
//! [`classify`] compares two fixture documents (the committed one and a fresh
//! snapshot) as JSON values and says, tool by tool, what changed and how much it matters to
//! callers of the generated code:
//!
//! * [`Severity::Breaking`] — code that compiled and worked against the old fixture may stop
//!   compiling or be rejected by the server: tool removed, new required argument, argument
//!   removed or made required, type changed or narrowed, enum value removed, `const` changed,
//!   stricter bounds, `additionalProperties` closed, an output field removed, made optional or
//!   widened, output schema removed — and every change the classifier cannot analyse.
//! * [`Severity::Additive`] — existing callers keep working: new tool, new optional argument,
//!   enum value added, type widened, required argument made optional, bounds relaxed, output
//!   schema added, new output field, tool annotations (`readOnlyHint`, …), `default` values.
//! * [`Severity::Docs`] — only descriptions, titles, `examples`, icons or `_meta` changed.
//!
//! # How schemas are compared
//!
//! Input and output schemas are walked keyword by keyword. Each difference either *narrows*
//! the set of accepted values, *widens* it, or *changes* it in a way that is neither. For
//! an input schema narrowing is breaking (callers send values the server now rejects) and
//! widening is additive; for an output schema the direction flips (callers now receive
//! values their types do not describe). Unknown changes are breaking. Nested objects, array
//! items, `additionalProperties` schemas and `anyOf`/`oneOf`/`allOf` branches are compared
//! recursively; a detail's [`Detail::path`] shows the nesting (`filter.state`, `labels[]`,
//! `meta.*`, `kind.anyOf[1]`; output paths start with `outputSchema`).
//!
//! * `required`, `enum` and `type` arrays are sets: reordering them is no change.
//! * `integer` is a subset of `number`; a missing `type` accepts anything.
//! * Same-document references (`#/$defs/…`, `#/definitions/…`, any `#/…` JSON pointer) are
//!   resolved on both sides before comparing, with a cycle guard, so a changed definition is
//!   reported at every argument that uses it. A reference that cannot be resolved (another
//!   document, a missing target) is compared by its text; a changed one is breaking. A root
//!   `$defs` entry that no compared schema reaches is reported as [`Severity::Docs`].
//!   Codegen names Rust types after `$defs` entries, so an argument that now refers to a
//!   differently named definition, or moves between a definition and an inline schema, is
//!   [`Severity::Breaking`] ("the generated Rust type is renamed") even when the shapes match.
//! * The usual spellings of an optional value are folded before comparing, so moving between
//!   them is no change: `anyOf: [X, {"type": "null"}]` (pydantic) is read as X with `null`
//!   added to its `type` (and to its `enum`), `allOf: [{"$ref": …}]` with sibling keywords
//!   (pydantic v1) as the reference itself.
//! * Keywords that only annotate (`description`, `title`, `examples`, `$comment`,
//!   `deprecated`) are [`Severity::Docs`]; `default`, `readOnly`/`writeOnly`, `$schema`, `$id`
//!   and `x-*` extension keywords are [`Severity::Additive`]; conditionals (`if`/`then`/`else`),
//!   `dependentSchemas`/`dependentRequired`, `not` changes and any keyword not listed here
//!   are [`Severity::Breaking`] when they change.
//!
//! Tool annotations are hints, not a contract: every change is [`Severity::Additive`] (the
//! annotation `title` is [`Severity::Docs`]). Server info (`version`, `name`, …) is
//! [`Severity::Docs`]; prompts and resource templates follow the same rules as tools (removed
//! or new required argument: breaking; new: additive; descriptions: docs) and are listed in
//! [`Report::server`].
//!
//! The output is deterministic: tools sorted by name, details worst first, then by path.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::schema::{escape, json_type, local_pointer, truncate, unescape};
use serde_json::{Map, Value};

use crate::fixture::sort_keys;

/// How much a change matters to callers of the generated code (ordered: `Docs < Additive <
/// Breaking`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Only documentation changed (descriptions, titles, examples, icons, `_meta`).
    Docs,
    /// Existing callers keep working (something was added or relaxed).
    Additive,
    /// Existing callers may stop compiling or get errors at run time.
    Breaking,
}

impl Severity {
    /// The upper-case label used in reports: `DOCS`, `ADDITIVE` or `BREAKING`.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Docs => "DOCS",
            Severity::Additive => "ADDITIVE",
            Severity::Breaking => "BREAKING",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One classified difference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detail {
    /// How much it matters.
    pub severity: Severity,
    /// Where: an argument path (`owner`, `filter.state`, `labels[]`), `inputSchema` for the
    /// input schema itself, `outputSchema…` for the output side, a tool field
    /// (`description`, `annotations.readOnlyHint`) or `""` for the whole tool.
    pub path: String,
    /// What changed, in words, e.g. `argument "type" is now required`.
    pub message: String,
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.severity, self.message)
    }
}

/// The changes of one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolChange {
    /// The tool's name.
    pub tool: String,
    /// The worst severity among [`ToolChange::details`].
    pub severity: Severity,
    /// What changed, worst first, then by path and message; never empty.
    pub details: Vec<Detail>,
}

impl ToolChange {
    /// The one-line summary: the message of the worst detail.
    pub fn headline(&self) -> &str {
        self.details.first().map_or("", |d| d.message.as_str())
    }
}

impl fmt::Display for ToolChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_block(f, &self.tool, self.severity, &self.details)
    }
}

/// The classified differences between two fixture documents.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Changed tools, sorted by name (unchanged tools are not listed).
    pub changes: Vec<ToolChange>,
    /// Changes outside the tool list — the `server` block, `prompts`, `resourceTemplates`
    /// and other top-level keys — worst first, then by path. Paths start with `server.`,
    /// `prompts.` or `resourceTemplates.`.
    pub server: Vec<Detail>,
}

impl Report {
    /// True when the two documents are equivalent (key order, tool order and the order of
    /// `required`/`enum`/`type` arrays do not count).
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty() && self.server.is_empty()
    }

    /// `3 tools changed: 1 BREAKING, 2 DOCS` (tools counted by their worst change; changes
    /// outside the tool list counted as `the server`); `no changes` when empty.
    pub fn totals(&self) -> String {
        if self.is_empty() {
            return "no changes".to_string();
        }
        let mut parts = Vec::new();
        for severity in [Severity::Breaking, Severity::Additive, Severity::Docs] {
            let n = self
                .changes
                .iter()
                .filter(|c| c.severity == severity)
                .count();
            if n > 0 {
                parts.push(format!("{n} {severity}"));
            }
        }
        let tools = self.changes.len();
        let mut out = format!(
            "{tools} tool{} changed{}{}",
            if tools == 1 { "" } else { "s" },
            if parts.is_empty() { "" } else { ": " },
            parts.join(", ")
        );
        if let Some(worst) = self.server.iter().map(|d| d.severity).max() {
            out.push_str(&format!("; the server: {worst}"));
        }
        out
    }

    /// The worst severity in the report, `None` when it is empty.
    pub fn worst(&self) -> Option<Severity> {
        self.changes
            .iter()
            .map(|c| c.severity)
            .chain(self.server.iter().map(|d| d.severity))
            .max()
    }
}

/// One block per changed tool, then one `(server)` block: the worst reason as the headline,
/// then the others, e.g.
///
/// ```text
/// create_issue: BREAKING — new required argument "type"
///   - ADDITIVE new optional argument "labels"
/// ```
///
/// An empty report prints `no changes`.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return writeln!(f, "no changes");
        }
        for change in &self.changes {
            write!(f, "{change}")?;
        }
        if let Some(worst) = self.server.iter().map(|d| d.severity).max() {
            write_block(f, "(server)", worst, &self.server)?;
        }
        Ok(())
    }
}

fn write_block(
    f: &mut fmt::Formatter<'_>,
    title: &str,
    severity: Severity,
    details: &[Detail],
) -> fmt::Result {
    let headline = details.first().map_or("", |d| d.message.as_str());
    writeln!(f, "{title}: {severity} — {headline}")?;
    // The headline is the first detail: each reason once.
    for d in details.iter().skip(1) {
        writeln!(f, "  - {d}")?;
    }
    Ok(())
}

/// Classifies the differences between two fixture documents (`old`: committed, `new`: live).
///
/// Never fails: anything that is not shaped like a fixture is compared as plain JSON, and a
/// difference the classifier cannot analyse is reported as [`Severity::Breaking`] with its
/// path.
#[must_use]
pub fn classify(old: &Value, new: &Value) -> Report {
    let empty = Map::new();
    let o = old.as_object().unwrap_or(&empty);
    let n = new.as_object().unwrap_or(&empty);

    let old_tools = keyed(o.get("tools"), &["name"]);
    let new_tools = keyed(n.get("tools"), &["name"]);
    let mut changes = Vec::new();
    for name in union_keys(&old_tools, &new_tools) {
        let details = match (old_tools.get(name), new_tools.get(name)) {
            (Some(_), None) => vec![detail(Severity::Breaking, "", "tool removed")],
            (None, Some(_)) => vec![detail(Severity::Additive, "", "new tool")],
            (Some(a), Some(b)) => diff_tool(a, b),
            (None, None) => Vec::new(),
        };
        let details = finish(details);
        if let Some(severity) = details.iter().map(|d| d.severity).max() {
            changes.push(ToolChange {
                tool: name.clone(),
                severity,
                details,
            });
        }
    }

    let mut server = Vec::new();
    for key in union_keys(o, n) {
        let (x, y) = (o.get(key), n.get(key));
        if x == y {
            continue;
        }
        match key.as_str() {
            "tools" => {}
            "server" => diff_server(x, y, &mut server),
            "prompts" => diff_prompts(x, y, &mut server),
            "resourceTemplates" => diff_templates(x, y, &mut server),
            "format" => server.push(detail(
                Severity::Breaking,
                "format",
                format!("fixture format changed {}", from_to(x, y)),
            )),
            _ => server.push(detail(
                Severity::Breaking,
                key,
                format!("top-level key `{key}` changed (cannot classify)"),
            )),
        }
    }
    Report {
        changes,
        server: finish(server),
    }
}

// ---------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------

fn diff_tool(old: &Value, new: &Value) -> Vec<Detail> {
    let mut out = Vec::new();
    if old == new {
        return out;
    }
    let (Some(o), Some(n)) = (old.as_object(), new.as_object()) else {
        out.push(detail(
            Severity::Breaking,
            "",
            "tool entry changed (not a JSON object; cannot classify)",
        ));
        return out;
    };
    let default_input = serde_json::json!({"type": "object"});
    for key in union_keys(o, n) {
        let (x, y) = (o.get(key), n.get(key));
        if key == "inputSchema" {
            let a = x.unwrap_or(&default_input);
            let b = y.unwrap_or(&default_input);
            out.extend(diff_schema(Dir::Input, a, b));
            continue;
        }
        if x == y {
            continue;
        }
        match key.as_str() {
            "name" => {}
            "description" | "title" | "icons" | "_meta" => {
                out.push(detail(Severity::Docs, key, changed_words(key, x, y)));
            }
            "annotations" => diff_annotations(x, y, &mut out),
            "outputSchema" => match (non_null(x), non_null(y)) {
                (None, Some(_)) => out.push(detail(
                    Severity::Additive,
                    "outputSchema",
                    "output schema added",
                )),
                (Some(_), None) => out.push(detail(
                    Severity::Breaking,
                    "outputSchema",
                    "output schema removed",
                )),
                (Some(a), Some(b)) => out.extend(diff_schema(Dir::Output, a, b)),
                (None, None) => {}
            },
            "execution" => diff_execution(x, y, &mut out),
            _ => out.push(detail(
                Severity::Breaking,
                key,
                format!("tool field `{key}` changed (cannot classify)"),
            )),
        }
    }
    out
}

fn diff_annotations(x: Option<&Value>, y: Option<&Value>, out: &mut Vec<Detail>) {
    let empty = Map::new();
    let (a, b) = match (
        x.map_or(Some(&empty), Value::as_object),
        y.map_or(Some(&empty), Value::as_object),
    ) {
        (Some(a), Some(b)) => (a, b),
        _ => {
            out.push(detail(
                Severity::Additive,
                "annotations",
                "annotations changed",
            ));
            return;
        }
    };
    for key in union_keys(a, b) {
        let (x, y) = (a.get(key), b.get(key));
        if x == y {
            continue;
        }
        let severity = if key == "title" {
            Severity::Docs
        } else {
            Severity::Additive
        };
        out.push(detail(
            severity,
            format!("annotations.{key}"),
            format!("annotation {}", changed_words(key, x, y)),
        ));
    }
}

/// `execution.taskSupport` (MCP 2025-11-25): a tool that now *requires* task-augmented
/// calls breaks plain callers; every other change is additive.
fn diff_execution(x: Option<&Value>, y: Option<&Value>, out: &mut Vec<Detail>) {
    let support = |v: Option<&Value>| {
        v.and_then(|v| v.get("taskSupport"))
            .and_then(Value::as_str)
            .unwrap_or("forbidden")
            .to_string()
    };
    let rest = |v: Option<&Value>| {
        let mut m = v.and_then(Value::as_object).cloned().unwrap_or_default();
        m.remove("taskSupport");
        m
    };
    let (a, b) = (support(x), support(y));
    if a != b {
        let severity = if b == "required" {
            Severity::Breaking
        } else {
            Severity::Additive
        };
        out.push(detail(
            severity,
            "execution.taskSupport",
            format!("task support changed from \"{a}\" to \"{b}\""),
        ));
    }
    let valid = |v: Option<&Value>| v.is_none_or(Value::is_object);
    if rest(x) != rest(y) || !valid(x) || !valid(y) {
        out.push(detail(
            Severity::Breaking,
            "execution",
            "tool field `execution` changed (cannot classify)",
        ));
    }
}

// ---------------------------------------------------------------------------------------
// Server block, prompts, resource templates
// ---------------------------------------------------------------------------------------

fn diff_server(x: Option<&Value>, y: Option<&Value>, out: &mut Vec<Detail>) {
    let empty = Map::new();
    let (Some(a), Some(b)) = (
        x.map_or(Some(&empty), Value::as_object),
        y.map_or(Some(&empty), Value::as_object),
    ) else {
        out.push(detail(Severity::Docs, "server", "server info changed"));
        return;
    };
    for key in union_keys(a, b) {
        let (x, y) = (a.get(key), b.get(key));
        if x == y {
            continue;
        }
        let severity = match key.as_str() {
            "protocolVersion" | "capabilities" => Severity::Additive,
            _ => Severity::Docs,
        };
        out.push(detail(
            severity,
            format!("server.{key}"),
            format!("server {}", changed_words(key, x, y)),
        ));
    }
}

fn diff_prompts(x: Option<&Value>, y: Option<&Value>, out: &mut Vec<Detail>) {
    let (a, b) = (keyed(x, &["name"]), keyed(y, &["name"]));
    for name in union_keys(&a, &b) {
        let path = format!("prompts.{name}");
        let (p, q) = match (a.get(name), b.get(name)) {
            (Some(_), None) => {
                out.push(detail(
                    Severity::Breaking,
                    path,
                    format!("prompt \"{name}\" removed"),
                ));
                continue;
            }
            (None, Some(_)) => {
                out.push(detail(
                    Severity::Additive,
                    path,
                    format!("new prompt \"{name}\""),
                ));
                continue;
            }
            (Some(p), Some(q)) if p != q => (p, q),
            _ => continue,
        };
        let subject = format!("prompt \"{name}\"");
        let (Some(p), Some(q)) = (p.as_object(), q.as_object()) else {
            out.push(detail(
                Severity::Breaking,
                path,
                format!("{subject} changed (cannot classify)"),
            ));
            continue;
        };
        for key in union_keys(p, q) {
            let (x, y) = (p.get(key), q.get(key));
            if x == y {
                continue;
            }
            let at = format!("{path}.{key}");
            match key.as_str() {
                "name" => {}
                "description" | "title" | "icons" | "_meta" => out.push(detail(
                    Severity::Docs,
                    at,
                    format!("{subject}: {}", changed_words(key, x, y)),
                )),
                "arguments" => diff_prompt_arguments(&subject, &at, x, y, out),
                _ => out.push(detail(
                    Severity::Breaking,
                    at,
                    format!("{subject}: field `{key}` changed (cannot classify)"),
                )),
            }
        }
    }
}

fn diff_prompt_arguments(
    subject: &str,
    path: &str,
    x: Option<&Value>,
    y: Option<&Value>,
    out: &mut Vec<Detail>,
) {
    let (a, b) = (keyed(x, &["name"]), keyed(y, &["name"]));
    let required = |v: &Value| v.get("required").and_then(Value::as_bool).unwrap_or(false);
    for name in union_keys(&a, &b) {
        let at = format!("{path}.{name}");
        match (a.get(name), b.get(name)) {
            (Some(_), None) => out.push(detail(
                Severity::Breaking,
                at,
                format!("{subject}: argument \"{name}\" removed"),
            )),
            (None, Some(q)) => {
                let (severity, kind) = if required(q) {
                    (Severity::Breaking, "required")
                } else {
                    (Severity::Additive, "optional")
                };
                out.push(detail(
                    severity,
                    at,
                    format!("{subject}: new {kind} argument \"{name}\""),
                ));
            }
            (Some(p), Some(q)) if p != q => {
                let (Some(po), Some(qo)) = (p.as_object(), q.as_object()) else {
                    out.push(detail(
                        Severity::Breaking,
                        at,
                        format!("{subject}: argument \"{name}\" changed (cannot classify)"),
                    ));
                    continue;
                };
                for key in union_keys(po, qo) {
                    let (x, y) = (po.get(key), qo.get(key));
                    if x == y {
                        continue;
                    }
                    let (severity, message) = match key.as_str() {
                        "name" => continue,
                        "required" => match (required(p), required(q)) {
                            (false, true) => (Severity::Breaking, "is now required".to_string()),
                            (true, false) => (Severity::Additive, "is now optional".to_string()),
                            _ => continue,
                        },
                        "description" | "title" | "icons" | "_meta" => {
                            (Severity::Docs, changed_words(key, x, y))
                        }
                        _ => (
                            Severity::Breaking,
                            format!("field `{key}` changed (cannot classify)"),
                        ),
                    };
                    out.push(detail(
                        severity,
                        format!("{at}.{key}"),
                        format!("{subject}: argument \"{name}\" {message}"),
                    ));
                }
            }
            _ => {}
        }
    }
}

fn diff_templates(x: Option<&Value>, y: Option<&Value>, out: &mut Vec<Detail>) {
    let (a, b) = (
        keyed(x, &["name", "uriTemplate"]),
        keyed(y, &["name", "uriTemplate"]),
    );
    for name in union_keys(&a, &b) {
        let path = format!("resourceTemplates.{name}");
        let subject = format!("resource template \"{name}\"");
        let (p, q) = match (a.get(name), b.get(name)) {
            (Some(_), None) => {
                out.push(detail(
                    Severity::Breaking,
                    path,
                    format!("{subject} removed"),
                ));
                continue;
            }
            (None, Some(_)) => {
                out.push(detail(Severity::Additive, path, format!("new {subject}")));
                continue;
            }
            (Some(p), Some(q)) if p != q => (p, q),
            _ => continue,
        };
        let (Some(p), Some(q)) = (p.as_object(), q.as_object()) else {
            out.push(detail(
                Severity::Breaking,
                path,
                format!("{subject} changed (cannot classify)"),
            ));
            continue;
        };
        for key in union_keys(p, q) {
            let (x, y) = (p.get(key), q.get(key));
            if x == y {
                continue;
            }
            let severity = match key.as_str() {
                "name" => continue,
                "description" | "title" | "icons" | "_meta" => Severity::Docs,
                "annotations" => Severity::Additive,
                // uriTemplate, mimeType and anything unknown.
                _ => Severity::Breaking,
            };
            out.push(detail(
                severity,
                format!("{path}.{key}"),
                format!("{subject}: {}", changed_words(key, x, y)),
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------

/// Which side of the call a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dir {
    /// Arguments: callers produce values, the server validates them.
    Input,
    /// Results: the server produces values, callers read them.
    Output,
}

/// What a difference does to the set of values a schema accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
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
}

impl Dir {
    fn severity(self, effect: Effect) -> Severity {
        match (self, effect) {
            (_, Effect::Docs) => Severity::Docs,
            (_, Effect::Neutral) => Severity::Additive,
            (_, Effect::Changed) => Severity::Breaking,
            (Dir::Input, Effect::Narrowed) | (Dir::Output, Effect::Widened) => Severity::Breaking,
            (Dir::Input, Effect::Widened) | (Dir::Output, Effect::Narrowed) => Severity::Additive,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Old,
    New,
}

/// Nesting depth after which two different schemas are reported as changed without looking
/// further (a backstop; the cycle guard normally stops recursion through `$ref`).
const MAX_DEPTH: usize = 64;
/// Upper bound on schema node comparisons per schema pair (guards against exponential
/// re-comparison of heavily shared `$defs`).
const BUDGET: usize = 50_000;
/// Upper bound on `$ref`/fold steps when preparing one node.
const MAX_HOPS: usize = 32;

/// Keywords that only document.
const DOC_KEYS: &[&str] = &[
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
const NEUTRAL_KEYS: &[&str] = &[
    "default",
    "readOnly",
    "writeOnly",
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$vocabulary",
];
/// Lower bounds: raising one narrows.
const LOWER_BOUNDS: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
    "minContains",
];
/// Upper bounds: lowering one narrows.
const UPPER_BOUNDS: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "maxContains",
];
/// Restrictions that cannot be ordered: adding one narrows, removing one widens, changing
/// one is a change.
const RESTRICTIONS: &[&str] = &["pattern", "format", "contentEncoding", "contentMediaType"];
/// Keywords that may hold a type-independent constraint: a union branch holding one of
/// them cannot be folded into a `type` array.
const UNFOLDABLE: &[&str] = &[
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

static TRUE: Value = Value::Bool(true);

fn diff_schema(dir: Dir, old: &Value, new: &Value) -> Vec<Detail> {
    let mut d = SchemaDiff {
        dir,
        old_root: old,
        new_root: new,
        details: Vec::new(),
        active: BTreeSet::new(),
        visited: BTreeSet::new(),
        budget: BUDGET,
        exhausted: false,
    };
    // The roots themselves are "#": a `{"$ref": "#"}` inside is a cycle back to here.
    d.active.insert((vec![String::new()], vec![String::new()]));
    d.cmp("", old, new, 0);
    d.unreferenced_defs();
    d.details
}

struct SchemaDiff<'r> {
    dir: Dir,
    old_root: &'r Value,
    new_root: &'r Value,
    details: Vec<Detail>,
    /// `$ref` chains being compared right now (cycle guard).
    active: BTreeSet<(Vec<String>, Vec<String>)>,
    /// JSON pointers reached through `$ref` on either side.
    visited: BTreeSet<String>,
    budget: usize,
    exhausted: bool,
}

impl<'r> SchemaDiff<'r> {
    fn root(&self, side: Side) -> &'r Value {
        match side {
            Side::Old => self.old_root,
            Side::New => self.new_root,
        }
    }

    /// The path as shown in a [`Detail`].
    fn shown_path(&self, path: &str) -> String {
        match (self.dir, path.is_empty()) {
            (Dir::Input, true) => "inputSchema".to_string(),
            (Dir::Input, false) => path.to_string(),
            (Dir::Output, true) => "outputSchema".to_string(),
            (Dir::Output, false) => format!("outputSchema.{path}"),
        }
    }

    /// What a message is about: `argument "x"`, `output field "x"`, `input schema`, …
    fn subject(&self, path: &str) -> String {
        match (self.dir, path.is_empty()) {
            (Dir::Input, true) => "input schema".to_string(),
            (Dir::Input, false) => format!("argument \"{path}\""),
            (Dir::Output, true) => "output schema".to_string(),
            (Dir::Output, false) => format!("output field \"{path}\""),
        }
    }

    /// Records a keyword-level difference; the message is prefixed with the subject.
    fn emit(&mut self, path: &str, effect: Effect, message: impl fmt::Display) {
        let severity = self.dir.severity(effect);
        let message = format!("{}: {message}", self.subject(path));
        self.details
            .push(detail(severity, self.shown_path(path), message));
    }

    /// Records a difference with a complete message.
    fn emit_raw(&mut self, path: &str, severity: Severity, message: String) {
        self.details
            .push(detail(severity, self.shown_path(path), message));
    }

    fn cmp(&mut self, path: &str, old: &Value, new: &Value, depth: usize) {
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
        let o = self.prepare(old, Side::Old, &mut old_refs, 0);
        let n = self.prepare(new, Side::New, &mut new_refs, 0);
        let (old_name, new_name) = (def_name(&old_refs), def_name(&new_refs));
        if old_name != new_name {
            let show = |n: Option<&str>| {
                n.map_or_else(
                    || "an inline schema".to_string(),
                    |n| format!("definition \"{n}\""),
                )
            };
            self.emit(
                path,
                Effect::Changed,
                format!(
                    "now {} (was {}): the generated Rust type is renamed",
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
    fn prepare<'v>(
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
    fn fold_union(
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

    fn keywords(
        &mut self,
        path: &str,
        a: &Map<String, Value>,
        b: &Map<String, Value>,
        depth: usize,
    ) {
        let keys: BTreeSet<&str> = a.keys().chain(b.keys()).map(String::as_str).collect();
        let mut did_properties = false;
        let mut did_values = false;
        for key in keys {
            let (x, y) = (a.get(key), b.get(key));
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
                "additionalItems"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "propertyNames" => {
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
                "anyOf" | "oneOf" => self.union(path, key, x, y, depth, false),
                "allOf" => self.union(path, key, x, y, depth, true),
                "not" => match (x, y) {
                    (None, Some(_)) => self.emit(path, Effect::Narrowed, "`not` added"),
                    (Some(_), None) => self.emit(path, Effect::Widened, "`not` removed"),
                    _ => self.opaque(path, key, x, y),
                },
                "$ref" => {
                    // Only unresolvable references are left at this point.
                    if x != y {
                        self.emit(
                            path,
                            Effect::Changed,
                            format!(
                                "reference changed {} (not resolvable in this document)",
                                from_to(x, y)
                            ),
                        );
                    }
                }
                // Root definitions are compared where they are used (`unreferenced_defs`
                // reports the rest); nested ones are reached through their pointers.
                "$defs" | "definitions" => {}
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
                _ => self.opaque(path, key, x, y),
            }
        }
    }

    /// A keyword compared as plain JSON: any difference is a change. Local references it
    /// holds are followed so a changed definition behind an unchanged keyword is seen too.
    fn opaque(&mut self, path: &str, key: &str, x: Option<&Value>, y: Option<&Value>) {
        if x != y {
            self.emit(
                path,
                Effect::Changed,
                format!("`{key}` changed (cannot classify)"),
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
                format!("`{key}` refers to a changed definition (cannot classify)"),
            );
        }
    }

    fn properties(
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

    fn property_added(&mut self, path: &str, required: bool) {
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

    fn property_removed(&mut self, path: &str, still_required: bool) {
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

    fn required_changed(&mut self, path: &str, was: bool, is: bool) {
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
    fn values(&mut self, path: &str, a: &Map<String, Value>, b: &Map<String, Value>) {
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
    fn types(&mut self, path: &str, a: &Map<String, Value>, b: &Map<String, Value>) {
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

    fn additional(&mut self, path: &str, x: Option<&Value>, y: Option<&Value>, depth: usize) {
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

    fn items(&mut self, path: &str, key: &str, x: Option<&Value>, y: Option<&Value>, depth: usize) {
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

    fn pattern_properties(
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
    fn union(
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

    fn bound(&mut self, path: &str, key: &str, x: Option<&Value>, y: Option<&Value>, lower: bool) {
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

    fn multiple_of(&mut self, path: &str, x: Option<&Value>, y: Option<&Value>) {
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

    fn unique_items(&mut self, path: &str, x: Option<&Value>, y: Option<&Value>) {
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
    fn unreferenced_defs(&mut self) {
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

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn detail(severity: Severity, path: impl Into<String>, message: impl Into<String>) -> Detail {
    Detail {
        severity,
        path: path.into(),
        message: message.into(),
    }
}

/// Sorts worst first, then by path and message, and drops duplicates.
fn finish(mut details: Vec<Detail>) -> Vec<Detail> {
    details.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.message.cmp(&b.message))
    });
    details.dedup();
    details
}

/// The keys of two maps (JSON objects or `BTreeMap`s), merged and sorted.
fn union_keys<'m, K: Keys + ?Sized>(a: &'m K, b: &'m K) -> BTreeSet<&'m String> {
    a.key_iter().chain(b.key_iter()).collect()
}

/// Maps keyed by `String`.
trait Keys {
    fn key_iter(&self) -> Box<dyn Iterator<Item = &String> + '_>;
}

impl Keys for Map<String, Value> {
    fn key_iter(&self) -> Box<dyn Iterator<Item = &String> + '_> {
        Box::new(self.keys())
    }
}

impl<V> Keys for BTreeMap<String, V> {
    fn key_iter(&self) -> Box<dyn Iterator<Item = &String> + '_> {
        Box::new(self.keys())
    }
}

/// Entries of a JSON array of objects keyed by the first string field of `fields` (the
/// first entry wins on duplicates; entries without such a field are keyed by position).
fn keyed<'v>(v: Option<&'v Value>, fields: &[&str]) -> BTreeMap<String, &'v Value> {
    let mut out = BTreeMap::new();
    if let Some(items) = v.and_then(Value::as_array) {
        for (i, item) in items.iter().enumerate() {
            let name = fields
                .iter()
                .find_map(|f| item.get(f).and_then(Value::as_str))
                .map_or_else(|| format!("#{i}"), str::to_string);
            out.entry(name).or_insert(item);
        }
    }
    out
}

fn non_null(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !v.is_null())
}

fn child_path(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// The `$defs`/`definitions` entry a chain of followed pointers starts at: codegen names
/// the generated Rust type after it.
fn def_name(refs: &[String]) -> Option<String> {
    refs.iter().find_map(|r| {
        let rest = r
            .strip_prefix("/$defs/")
            .or_else(|| r.strip_prefix("/definitions/"))?;
        (!rest.contains('/')).then(|| unescape(rest))
    })
}

fn contains_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => m
            .iter()
            .any(|(k, v)| (k == "$ref" && v.is_string()) || contains_ref(v)),
        Value::Array(items) => items.iter().any(contains_ref),
        _ => false,
    }
}

fn collect_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                if k == "$ref" {
                    if let Some(p) = v.as_str().and_then(local_pointer) {
                        out.push(p);
                    }
                } else {
                    collect_refs(v, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

/// The target of a `$ref` with the referring object's sibling keywords applied. Sibling
/// documentation wins; a sibling constraint on a keyword the target also has makes the two
/// an `allOf`.
fn merge_ref(target: &Value, referrer: &Map<String, Value>) -> Value {
    let mut siblings = referrer.clone();
    siblings.remove("$ref");
    if siblings.is_empty() {
        return target.clone();
    }
    match target {
        Value::Bool(true) => Value::Object(siblings),
        Value::Bool(false) => Value::Bool(false),
        Value::Object(t) => {
            let clash = siblings
                .keys()
                .any(|k| t.contains_key(k) && !DOC_KEYS.contains(&k.as_str()));
            if clash {
                let mut m = Map::new();
                m.insert(
                    "allOf".into(),
                    Value::Array(vec![target.clone(), Value::Object(siblings)]),
                );
                Value::Object(m)
            } else {
                let mut m = t.clone();
                m.extend(siblings);
                Value::Object(m)
            }
        }
        other => other.clone(),
    }
}

/// `allOf` with one branch, merged into its parent when no keyword clashes.
fn fold_all_of(obj: &Map<String, Value>) -> Option<Value> {
    let branches = obj.get("allOf")?.as_array()?;
    let [only] = branches.as_slice() else {
        return None;
    };
    let branch = match only {
        Value::Bool(true) => Map::new(),
        Value::Object(m) => m.clone(),
        _ => return None,
    };
    let mut out = obj.clone();
    out.remove("allOf");
    for (k, v) in branch {
        if out.contains_key(&k) {
            if DOC_KEYS.contains(&k.as_str()) {
                continue;
            }
            return None;
        }
        out.insert(k, v);
    }
    Some(Value::Object(out))
}

/// The names in a `type` keyword (a string or an array of strings).
fn type_names(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::String(s) => Some(vec![s.clone()]),
        Value::Array(items) => items
            .iter()
            .map(|t| t.as_str().map(str::to_string))
            .collect(),
        _ => None,
    }
}

fn type_value(types: &BTreeSet<String>) -> Value {
    match types.iter().collect::<Vec<_>>().as_slice() {
        [only] => Value::String((*only).clone()),
        all => Value::Array(all.iter().map(|t| Value::String((*t).clone())).collect()),
    }
}

/// True when two of the types accept a common value (`integer` lies inside `number`).
fn overlapping(types: &[String]) -> bool {
    let mut seen = BTreeSet::new();
    for t in types {
        if !seen.insert(t.as_str()) {
            return true;
        }
    }
    seen.contains("integer") && seen.contains("number")
}

const ALL_TYPES: &[&str] = &["array", "boolean", "null", "number", "object", "string"];

/// `a ⊆ b` for type sets, `None` meaning every type.
fn type_subset(a: Option<&BTreeSet<String>>, b: Option<&BTreeSet<String>>) -> bool {
    let covers = |t: &str| match b {
        None => true,
        Some(b) => b.contains(t) || (t == "integer" && b.contains("number")),
    };
    match a {
        None => ALL_TYPES.iter().all(|t| covers(t)),
        Some(a) => a.iter().all(|t| covers(t)),
    }
}

fn show_types(t: Option<&BTreeSet<String>>) -> String {
    match t {
        None => "any".to_string(),
        Some(t) if t.is_empty() => "nothing".to_string(),
        Some(t) => {
            let mut names: Vec<&str> = t
                .iter()
                .map(String::as_str)
                .filter(|t| *t != "null")
                .collect();
            if t.contains("null") {
                names.push("null");
            }
            names.join("|")
        }
    }
}

/// The allowed values of `enum`/`const`, keyed by their canonical JSON.
fn allowed_values(m: &Map<String, Value>) -> Option<BTreeMap<String, Value>> {
    let set = |values: &[Value]| -> BTreeMap<String, Value> {
        values.iter().map(|v| (compact(v), v.clone())).collect()
    };
    let from_enum = m.get("enum").map(|e| match e {
        Value::Array(values) => set(values),
        other => set(std::slice::from_ref(other)),
    });
    match (from_enum, m.get("const")) {
        (None, None) => None,
        (Some(e), None) => Some(e),
        (None, Some(c)) => Some(set(std::slice::from_ref(c))),
        (Some(e), Some(c)) => {
            let key = compact(c);
            Some(e.into_iter().filter(|(k, _)| *k == key).collect())
        }
    }
}

fn show_values(values: &BTreeMap<String, Value>) -> String {
    const SHOWN: usize = 10;
    let mut out: Vec<String> = values.keys().take(SHOWN).map(|k| truncate(k, 60)).collect();
    if values.len() > SHOWN {
        out.push(format!("… and {} more", values.len() - SHOWN));
    }
    out.join(", ")
}

/// Identity of a union branch: its `$ref` or its `title`.
fn branch_ident(v: &Value) -> Option<&str> {
    v.get("$ref")
        .or_else(|| v.get("title"))
        .and_then(Value::as_str)
}

/// Shape of a union branch: its type, its `const` and the `const`s of its properties
/// (tagged-union discriminators).
fn branch_shape(v: &Value) -> String {
    let mut shape = Map::new();
    for key in ["type", "const"] {
        if let Some(x) = v.get(key) {
            shape.insert(key.into(), x.clone());
        }
    }
    if let Some(props) = v.get("properties").and_then(Value::as_object) {
        for (name, p) in props {
            if let Some(c) = p.get("const") {
                shape.insert(format!("properties.{name}"), c.clone());
            }
        }
    }
    compact(&Value::Object(shape))
}

/// Canonical compact JSON (keys sorted).
fn compact(v: &Value) -> String {
    serde_json::to_string(&sort_keys(v)).unwrap_or_default()
}

fn short(v: &Value) -> String {
    truncate(&compact(v), 80)
}

fn from_to(x: Option<&Value>, y: Option<&Value>) -> String {
    let show = |v: Option<&Value>| v.map_or_else(|| "(absent)".to_string(), short);
    format!("from {} to {}", show(x), show(y))
}

/// `key changed from a to b` / `key a added` / `key removed (was a)`; long values (texts,
/// nested objects) are not quoted.
fn changed_words(key: &str, x: Option<&Value>, y: Option<&Value>) -> String {
    let quotable = |v: &Value| match v {
        Value::String(s) => s.chars().count() <= 60 && !s.contains('\n'),
        Value::Array(_) | Value::Object(_) => compact(v).chars().count() <= 60,
        _ => true,
    };
    match (x, y) {
        (None, Some(y)) if quotable(y) => format!("{key} {} added", compact(y)),
        (None, _) => format!("{key} added"),
        (Some(x), None) if quotable(x) => format!("{key} removed (was {})", compact(x)),
        (Some(_), None) => format!("{key} removed"),
        (Some(x), Some(y)) if quotable(x) && quotable(y) => {
            format!("{key} changed from {} to {}", compact(x), compact(y))
        }
        _ => format!("{key} changed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(tools: Value) -> Value {
        json!({"format": 1, "server": {"alias": "t", "version": "1.0"}, "tools": tools})
    }

    fn input(props: Value, required: Value) -> Value {
        json!({"type": "object", "properties": props, "required": required})
    }

    /// Report for one tool `t` whose input schema changes from `old` to `new`.
    fn input_change(old: Value, new: Value) -> Report {
        classify(
            &doc(json!([{"name": "t", "inputSchema": old}])),
            &doc(json!([{"name": "t", "inputSchema": new}])),
        )
    }

    /// Report for one tool `t` whose output schema changes from `old` to `new`.
    fn output_change(old: Value, new: Value) -> Report {
        let tool = |out: Value| json!([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": out}]);
        classify(&doc(tool(old)), &doc(tool(new)))
    }

    fn details(r: &Report) -> Vec<(Severity, String, String)> {
        r.changes
            .iter()
            .flat_map(|c| c.details.iter())
            .chain(r.server.iter())
            .map(|d| (d.severity, d.path.clone(), d.message.clone()))
            .collect()
    }

    /// Asserts the report has exactly one detail, with this severity and path, whose
    /// message contains `needle`.
    #[track_caller]
    fn only(r: &Report, severity: Severity, path: &str, needle: &str) {
        let d = details(r);
        assert_eq!(d.len(), 1, "expected one detail, got {d:#?}");
        let (s, p, m) = &d[0];
        assert_eq!((*s, p.as_str()), (severity, path), "{m}");
        assert!(m.contains(needle), "{m:?} should contain {needle:?}");
    }

    /// Asserts the report has a detail with this severity and path whose message contains
    /// `needle`.
    #[track_caller]
    fn has(r: &Report, severity: Severity, path: &str, needle: &str) {
        let d = details(r);
        assert!(
            d.iter()
                .any(|(s, p, m)| *s == severity && p == path && m.contains(needle)),
            "no {severity} detail at {path:?} containing {needle:?} in {d:#?}"
        );
    }

    fn string() -> Value {
        json!({"type": "string"})
    }

    // --- no change -------------------------------------------------------------------

    #[test]
    fn identical_documents_give_an_empty_report() {
        let d = doc(json!([
            {"name": "a", "inputSchema": input(json!({"x": string()}), json!(["x"]))},
            {"name": "b", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}
        ]));
        let r = classify(&d, &d);
        assert!(r.is_empty(), "{r:#?}");
        assert_eq!(r.worst(), None);
        assert_eq!(r.to_string(), "no changes\n");
    }

    #[test]
    fn reordering_tools_keys_required_enum_and_type_is_no_change() {
        let old = doc(json!([
            {"name": "a", "description": "A", "inputSchema": {
                "type": "object",
                "properties": {
                    "x": {"type": ["string", "null"], "enum": ["p", "q", null]},
                    "y": {"type": "integer"}
                },
                "required": ["x", "y"]
            }},
            {"name": "b", "inputSchema": {"type": "object"}}
        ]));
        let new = json!({
            "tools": [
                {"name": "b", "inputSchema": {"type": "object"}},
                {"inputSchema": {
                    "required": ["y", "x"],
                    "properties": {
                        "y": {"type": "integer"},
                        "x": {"enum": [null, "q", "p"], "type": ["null", "string"]}
                    },
                    "type": "object"
                }, "description": "A", "name": "a"}
            ],
            "server": {"version": "1.0", "alias": "t"},
            "format": 1
        });
        let r = classify(&old, &new);
        assert!(r.is_empty(), "{r:#?}");
    }

    #[test]
    fn missing_input_schema_equals_an_empty_object_schema() {
        let r = classify(
            &doc(json!([{"name": "t"}])),
            &doc(json!([{"name": "t", "inputSchema": {"type": "object", "properties": {}}}])),
        );
        assert!(r.is_empty(), "{r:#?}");
    }

    // --- tools -----------------------------------------------------------------------

    #[test]
    fn tool_removed_is_breaking() {
        let r = classify(
            &doc(json!([{"name": "a"}, {"name": "b"}])),
            &doc(json!([{"name": "a"}])),
        );
        only(&r, Severity::Breaking, "", "tool removed");
        assert_eq!(r.changes[0].tool, "b");
    }

    #[test]
    fn new_tool_is_additive() {
        let r = classify(
            &doc(json!([{"name": "a"}])),
            &doc(json!([{"name": "a"}, {"name": "b"}])),
        );
        only(&r, Severity::Additive, "", "new tool");
        assert_eq!(r.changes[0].tool, "b");
    }

    // --- arguments -------------------------------------------------------------------

    #[test]
    fn new_required_argument_is_breaking() {
        let r = input_change(
            input(json!({"title": string()}), json!(["title"])),
            input(
                json!({"title": string(), "type": string()}),
                json!(["title", "type"]),
            ),
        );
        only(
            &r,
            Severity::Breaking,
            "type",
            "new required argument \"type\"",
        );
    }

    #[test]
    fn new_optional_argument_is_additive() {
        let r = input_change(
            input(json!({"title": string()}), json!(["title"])),
            input(
                json!({"title": string(), "labels": {"type": "array", "items": string()}}),
                json!(["title"]),
            ),
        );
        only(
            &r,
            Severity::Additive,
            "labels",
            "new optional argument \"labels\"",
        );
    }

    #[test]
    fn argument_removed_is_breaking() {
        let r = input_change(
            input(json!({"a": string(), "b": string()}), json!([])),
            input(json!({"a": string()}), json!([])),
        );
        only(&r, Severity::Breaking, "b", "argument \"b\" removed");
        let r = input_change(
            input(json!({"a": string(), "b": string()}), json!(["b"])),
            input(json!({"a": string()}), json!(["b"])),
        );
        only(
            &r,
            Severity::Breaking,
            "b",
            "argument \"b\" removed (still listed in `required`)",
        );
    }

    #[test]
    fn optional_argument_becoming_required_is_breaking() {
        let r = input_change(
            input(json!({"a": string()}), json!([])),
            input(json!({"a": string()}), json!(["a"])),
        );
        only(
            &r,
            Severity::Breaking,
            "a",
            "argument \"a\" is now required",
        );
    }

    #[test]
    fn required_argument_becoming_optional_is_additive() {
        let r = input_change(
            input(json!({"a": string()}), json!(["a"])),
            input(json!({"a": string()}), json!([])),
        );
        only(
            &r,
            Severity::Additive,
            "a",
            "argument \"a\" is now optional",
        );
    }

    #[test]
    fn display_matches_the_reviewer_story() {
        let r = classify(
            &doc(
                json!([{"name": "create_issue", "inputSchema": input(json!({"title": string()}), json!(["title"]))}]),
            ),
            &doc(json!([{"name": "create_issue", "inputSchema": input(
                json!({"title": string(), "type": string(), "labels": {"type": "array", "items": string()}}),
                json!(["title", "type"])
            )}])),
        );
        assert_eq!(
            r.to_string(),
            "create_issue: BREAKING — new required argument \"type\"\n\
             \x20 - ADDITIVE new optional argument \"labels\"\n"
        );
        assert_eq!(r.totals(), "1 tool changed: 1 BREAKING");
        assert_eq!(r.worst(), Some(Severity::Breaking));
        assert_eq!(r.changes[0].severity, Severity::Breaking);
        assert_eq!(r.changes[0].headline(), "new required argument \"type\"");
    }

    // --- types -----------------------------------------------------------------------

    #[test]
    fn type_changed_is_breaking() {
        let r = input_change(
            input(json!({"n": string()}), json!([])),
            input(json!({"n": {"type": "integer"}}), json!([])),
        );
        only(
            &r,
            Severity::Breaking,
            "n",
            "type changed from string to integer",
        );
    }

    #[test]
    fn nullable_type_narrowed_is_breaking_and_widened_is_additive() {
        let nullable = input(json!({"n": {"type": ["string", "null"]}}), json!([]));
        let plain = input(json!({"n": string()}), json!([]));
        let r = input_change(nullable.clone(), plain.clone());
        only(
            &r,
            Severity::Breaking,
            "n",
            "type narrowed from string|null to string",
        );
        let r = input_change(plain, nullable);
        only(
            &r,
            Severity::Additive,
            "n",
            "type widened from string to string|null",
        );
    }

    #[test]
    fn number_to_integer_is_breaking_and_integer_to_number_is_additive() {
        let number = input(json!({"n": {"type": "number"}}), json!([]));
        let integer = input(json!({"n": {"type": "integer"}}), json!([]));
        only(
            &input_change(number.clone(), integer.clone()),
            Severity::Breaking,
            "n",
            "narrowed",
        );
        only(
            &input_change(integer, number),
            Severity::Additive,
            "n",
            "widened",
        );
    }

    #[test]
    fn pydantic_optional_spelling_is_folded() {
        // Same type, other spelling: no change at all.
        let typed = input(
            json!({"n": {"type": ["string", "null"], "description": "d"}}),
            json!([]),
        );
        let any_of = input(
            json!({"n": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "d"}}),
            json!([]),
        );
        let r = input_change(typed, any_of.clone());
        assert!(r.is_empty(), "{r:#?}");
        // Optional[X] added by pydantic: widened.
        let r = input_change(
            input(
                json!({"n": {"type": "string", "description": "d"}}),
                json!([]),
            ),
            any_of,
        );
        only(
            &r,
            Severity::Additive,
            "n",
            "type widened from string to string|null",
        );
        // Optional[Literal[...]]: the enum gains null, values still compared as a set.
        let r = input_change(
            input(
                json!({"s": {"type": ["string", "null"], "enum": ["a", "b", null]}}),
                json!([]),
            ),
            input(
                json!({"s": {"anyOf": [{"enum": ["b"], "type": "string"}, {"type": "null"}]}}),
                json!([]),
            ),
        );
        only(&r, Severity::Breaking, "s", "enum value \"a\" removed");
    }

    #[test]
    fn optional_spellings_without_type_are_folded() {
        // Optional[Literal["a"]] spelled without `type`, and an enum without `type` against
        // one with it.
        let r = input_change(
            input(json!({"s": {"enum": ["a", null]}}), json!([])),
            input(
                json!({"s": {"anyOf": [{"enum": ["a"]}, {"type": "null"}]}}),
                json!([]),
            ),
        );
        assert!(r.is_empty(), "{r:#?}");
        let r = input_change(
            input(json!({"s": {"enum": ["a", "b"]}}), json!([])),
            input(
                json!({"s": {"type": "string", "enum": ["a", "b"]}}),
                json!([]),
            ),
        );
        assert!(r.is_empty(), "{r:#?}");
    }

    #[test]
    fn any_of_losing_a_branch_is_breaking_and_gaining_one_is_additive() {
        let two = input(
            json!({"v": {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "array", "items": string()}]}}),
            json!([]),
        );
        let three = input(
            json!({"v": {"anyOf": [
                {"type": "string", "maxLength": 3},
                {"type": "array", "items": string()},
                {"type": "object", "properties": {"k": string()}}
            ]}}),
            json!([]),
        );
        let r = input_change(three.clone(), two.clone());
        only(&r, Severity::Breaking, "v", "`anyOf` lost a branch");
        let r = input_change(two, three);
        only(&r, Severity::Additive, "v", "`anyOf` gained a branch");
    }

    #[test]
    fn any_of_branches_are_paired_and_compared() {
        let make = |max: u64| {
            input(
                json!({"v": {"anyOf": [
                    {"type": "array", "items": string()},
                    {"type": "string", "maxLength": max}
                ]}}),
                json!([]),
            )
        };
        let r = input_change(make(3), make(5));
        only(
            &r,
            Severity::Additive,
            "v.anyOf[1]",
            "maxLength raised from 3 to 5",
        );
        let r = input_change(make(5), make(3));
        only(
            &r,
            Severity::Breaking,
            "v.anyOf[1]",
            "maxLength lowered from 5 to 3",
        );
    }

    #[test]
    fn additional_properties_closed_is_breaking_and_opened_is_additive() {
        let open =
            json!({"type": "object", "properties": {"a": string()}, "additionalProperties": true});
        let closed =
            json!({"type": "object", "properties": {"a": string()}, "additionalProperties": false});
        let r = input_change(open.clone(), closed.clone());
        only(
            &r,
            Severity::Breaking,
            "inputSchema",
            "additionalProperties changed from true to false",
        );
        let r = input_change(closed, open);
        only(
            &r,
            Severity::Additive,
            "inputSchema",
            "additionalProperties changed from false to true",
        );
        // A map's value schema is compared like any other schema.
        let r = input_change(
            input(
                json!({"m": {"type": "object", "additionalProperties": string()}}),
                json!([]),
            ),
            input(
                json!({"m": {"type": "object", "additionalProperties": {"type": "integer"}}}),
                json!([]),
            ),
        );
        only(
            &r,
            Severity::Breaking,
            "m.*",
            "type changed from string to integer",
        );
    }

    // --- bounds ----------------------------------------------------------------------

    #[test]
    fn stricter_bounds_are_breaking() {
        let with = |extra: Value| {
            let mut s = json!({"type": "string"});
            if let (Some(m), Some(e)) = (s.as_object_mut(), extra.as_object()) {
                m.extend(e.clone());
            }
            input(json!({"s": s}), json!([]))
        };
        only(
            &input_change(with(json!({})), with(json!({"maxLength": 10}))),
            Severity::Breaking,
            "s",
            "maxLength 10 added",
        );
        only(
            &input_change(
                with(json!({"maxLength": 10})),
                with(json!({"maxLength": 5})),
            ),
            Severity::Breaking,
            "s",
            "maxLength lowered from 10 to 5",
        );
        only(
            &input_change(with(json!({"minLength": 1})), with(json!({"minLength": 2}))),
            Severity::Breaking,
            "s",
            "minLength raised from 1 to 2",
        );
        only(
            &input_change(with(json!({})), with(json!({"pattern": "^a"}))),
            Severity::Breaking,
            "s",
            "pattern \"^a\" added",
        );
        only(
            &input_change(
                with(json!({"pattern": "^a"})),
                with(json!({"pattern": "^b"})),
            ),
            Severity::Breaking,
            "s",
            "pattern changed from \"^a\" to \"^b\"",
        );
        only(
            &input_change(with(json!({})), with(json!({"format": "uri"}))),
            Severity::Breaking,
            "s",
            "format \"uri\" added",
        );
        let n = |extra: Value| {
            let mut s = json!({"type": "number"});
            if let (Some(m), Some(e)) = (s.as_object_mut(), extra.as_object()) {
                m.extend(e.clone());
            }
            input(json!({"n": s}), json!([]))
        };
        only(
            &input_change(n(json!({"minimum": 0})), n(json!({"minimum": 1}))),
            Severity::Breaking,
            "n",
            "minimum raised from 0 to 1",
        );
        only(
            &input_change(n(json!({"maximum": 10})), n(json!({"maximum": 9}))),
            Severity::Breaking,
            "n",
            "maximum lowered",
        );
        only(
            &input_change(n(json!({"multipleOf": 2})), n(json!({"multipleOf": 4}))),
            Severity::Breaking,
            "n",
            "multipleOf",
        );
        let items = |max: Value| {
            input(
                json!({"l": {"type": "array", "items": string(), "maxItems": max}}),
                json!([]),
            )
        };
        only(
            &input_change(items(json!(5)), items(json!(3))),
            Severity::Breaking,
            "l",
            "maxItems lowered from 5 to 3",
        );
    }

    #[test]
    fn relaxed_bounds_are_additive() {
        let s = |extra: Value| {
            let mut s = json!({"type": "integer"});
            if let (Some(m), Some(e)) = (s.as_object_mut(), extra.as_object()) {
                m.extend(e.clone());
            }
            input(json!({"n": s}), json!([]))
        };
        only(
            &input_change(s(json!({"maximum": 5})), s(json!({"maximum": 10}))),
            Severity::Additive,
            "n",
            "maximum raised from 5 to 10",
        );
        only(
            &input_change(s(json!({"minimum": 1})), s(json!({}))),
            Severity::Additive,
            "n",
            "minimum removed (was 1)",
        );
        only(
            &input_change(s(json!({"multipleOf": 4})), s(json!({"multipleOf": 2}))),
            Severity::Additive,
            "n",
            "multipleOf",
        );
    }

    // --- enum / const ----------------------------------------------------------------

    #[test]
    fn enum_value_removed_is_breaking() {
        let r = input_change(
            input(
                json!({"state": {"type": "string", "enum": ["open", "closed", "all"]}}),
                json!([]),
            ),
            input(
                json!({"state": {"type": "string", "enum": ["all", "open"]}}),
                json!([]),
            ),
        );
        only(
            &r,
            Severity::Breaking,
            "state",
            "enum value \"closed\" removed",
        );
    }

    #[test]
    fn enum_value_added_is_additive() {
        let r = input_change(
            input(
                json!({"state": {"type": "string", "enum": ["open", "closed"]}}),
                json!([]),
            ),
            input(
                json!({"state": {"type": "string", "enum": ["closed", "open", "all"]}}),
                json!([]),
            ),
        );
        only(&r, Severity::Additive, "state", "enum value \"all\" added");
    }

    #[test]
    fn const_changed_is_breaking() {
        let r = input_change(
            input(json!({"kind": {"const": "a"}}), json!([])),
            input(json!({"kind": {"const": "b"}}), json!([])),
        );
        only(
            &r,
            Severity::Breaking,
            "kind",
            "const changed from \"a\" to \"b\"",
        );
        // A one-value enum and a const are the same restriction.
        let r = input_change(
            input(json!({"kind": {"const": "a"}}), json!([])),
            input(json!({"kind": {"enum": ["a"]}}), json!([])),
        );
        assert!(r.is_empty(), "{r:#?}");
    }

    // --- nesting ---------------------------------------------------------------------

    #[test]
    fn nested_properties_follow_the_same_rules_with_dotted_paths() {
        let filter = |state: Value, props_extra: Value, required: Value| {
            let mut props = json!({"state": state});
            if let (Some(m), Some(e)) = (props.as_object_mut(), props_extra.as_object()) {
                m.extend(e.clone());
            }
            input(
                json!({"filter": {"type": "object", "properties": props, "required": required}}),
                json!([]),
            )
        };
        let r = input_change(
            filter(json!({"enum": ["open", "closed"]}), json!({}), json!([])),
            filter(json!({"enum": ["open"]}), json!({}), json!([])),
        );
        only(
            &r,
            Severity::Breaking,
            "filter.state",
            "argument \"filter.state\": enum value \"closed\" removed",
        );
        let r = input_change(
            filter(json!({}), json!({}), json!([])),
            filter(json!({}), json!({"kind": string()}), json!(["kind"])),
        );
        only(
            &r,
            Severity::Breaking,
            "filter.kind",
            "new required argument \"filter.kind\"",
        );
        // Array items: `[]`.
        let r = input_change(
            input(
                json!({"l": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}}}}),
                json!([]),
            ),
            input(
                json!({"l": {"type": "array", "items": {"type": "object", "properties": {"id": string()}}}}),
                json!([]),
            ),
        );
        only(
            &r,
            Severity::Breaking,
            "l[].id",
            "type changed from integer to string",
        );
    }

    // --- output ----------------------------------------------------------------------

    fn out(props: Value, required: Value) -> Value {
        json!({"type": "object", "properties": props, "required": required})
    }

    #[test]
    fn output_field_removed_is_breaking() {
        let r = output_change(
            out(
                json!({"id": {"type": "integer"}, "url": string()}),
                json!(["id", "url"]),
            ),
            out(json!({"id": {"type": "integer"}}), json!(["id"])),
        );
        only(
            &r,
            Severity::Breaking,
            "outputSchema.url",
            "output field \"url\" removed",
        );
    }

    #[test]
    fn output_field_becoming_optional_is_breaking_and_required_is_additive() {
        let req = out(json!({"id": {"type": "integer"}}), json!(["id"]));
        let opt = out(json!({"id": {"type": "integer"}}), json!([]));
        only(
            &output_change(req.clone(), opt.clone()),
            Severity::Breaking,
            "outputSchema.id",
            "may now be absent",
        );
        only(
            &output_change(opt, req),
            Severity::Additive,
            "outputSchema.id",
            "is now always present",
        );
    }

    #[test]
    fn output_field_becoming_nullable_or_changing_type_is_breaking() {
        let r = output_change(
            out(json!({"id": {"type": "integer"}}), json!(["id"])),
            out(json!({"id": {"type": ["integer", "null"]}}), json!(["id"])),
        );
        only(
            &r,
            Severity::Breaking,
            "outputSchema.id",
            "type widened from integer to integer|null",
        );
        let r = output_change(
            out(json!({"id": {"type": "integer"}}), json!(["id"])),
            out(json!({"id": string()}), json!(["id"])),
        );
        only(&r, Severity::Breaking, "outputSchema.id", "type changed");
        // Narrowing what the server returns is harmless to callers.
        let r = output_change(
            out(json!({"id": {"type": "number"}}), json!(["id"])),
            out(json!({"id": {"type": "integer"}}), json!(["id"])),
        );
        only(&r, Severity::Additive, "outputSchema.id", "type narrowed");
    }

    #[test]
    fn output_enum_value_added_is_breaking_and_removed_is_additive() {
        let e = |values: Value| {
            out(
                json!({"s": {"type": "string", "enum": values}}),
                json!(["s"]),
            )
        };
        only(
            &output_change(e(json!(["a"])), e(json!(["a", "b"]))),
            Severity::Breaking,
            "outputSchema.s",
            "enum value \"b\" added",
        );
        only(
            &output_change(e(json!(["a", "b"])), e(json!(["a"]))),
            Severity::Additive,
            "outputSchema.s",
            "enum value \"b\" removed",
        );
    }

    #[test]
    fn new_output_field_is_additive() {
        let r = output_change(
            out(json!({"id": {"type": "integer"}}), json!(["id"])),
            out(
                json!({"id": {"type": "integer"}, "url": string()}),
                json!(["id"]),
            ),
        );
        only(
            &r,
            Severity::Additive,
            "outputSchema.url",
            "new output field \"url\"",
        );
    }

    #[test]
    fn output_schema_added_is_additive_and_removed_is_breaking() {
        let with = doc(json!([{"name": "t", "outputSchema": {"type": "object"}}]));
        let without = doc(json!([{"name": "t"}]));
        only(
            &classify(&without, &with),
            Severity::Additive,
            "outputSchema",
            "output schema added",
        );
        only(
            &classify(&with, &without),
            Severity::Breaking,
            "outputSchema",
            "output schema removed",
        );
    }

    // --- $ref / $defs ----------------------------------------------------------------

    #[test]
    fn refs_are_resolved_and_changed_definitions_reported_where_used() {
        let schema = |state_enum: Value| {
            json!({
                "type": "object",
                "properties": {"filter": {"$ref": "#/$defs/Filter"}},
                "$defs": {"Filter": {"type": "object", "properties": {"state": {"enum": state_enum}}}}
            })
        };
        let r = input_change(schema(json!(["open", "closed"])), schema(json!(["open"])));
        only(
            &r,
            Severity::Breaking,
            "filter.state",
            "enum value \"closed\" removed",
        );
        // Inlining or renaming a definition renames the generated type.
        let inlined = json!({"type": "object", "properties": {"filter": {
            "type": "object", "properties": {"state": {"enum": ["open"]}}
        }}});
        let r = input_change(schema(json!(["open"])), inlined);
        only(
            &r,
            Severity::Breaking,
            "filter",
            "now an inline schema (was definition \"Filter\"): the generated Rust type is renamed",
        );
        let renamed = json!({"type": "object", "properties": {"filter": {"$ref": "#/$defs/IssueFilter"}},
            "$defs": {"IssueFilter": {"type": "object", "properties": {"state": {"enum": ["open"]}}}}});
        let r = input_change(schema(json!(["open"])), renamed);
        only(
            &r,
            Severity::Breaking,
            "filter",
            "now definition \"IssueFilter\" (was definition \"Filter\")",
        );
        // `definitions` and pydantic v1's `allOf: [{$ref}]` with a description.
        let v1 = json!({"type": "object",
            "properties": {"filter": {"allOf": [{"$ref": "#/definitions/F"}], "description": "d"}},
            "definitions": {"F": {"type": "object", "properties": {"state": {"enum": ["open"]}}}}});
        let v2 = json!({"type": "object",
            "properties": {"filter": {"$ref": "#/$defs/F", "description": "d"}},
            "$defs": {"F": {"type": "object", "properties": {"state": {"enum": ["open"]}}}}});
        let r = input_change(v1, v2);
        assert!(r.is_empty(), "{r:#?}");
    }

    #[test]
    fn recursive_definitions_terminate_and_changes_are_found() {
        let tree = |leaf: &str| {
            json!({
                "type": "object",
                "properties": {"root": {"$ref": "#/$defs/Node"}},
                "$defs": {"Node": {
                    "type": "object",
                    "properties": {
                        "value": {"type": leaf},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                        "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}
                    }
                }}
            })
        };
        let r = input_change(tree("string"), tree("string"));
        assert!(r.is_empty(), "{r:#?}");
        let r = input_change(tree("string"), tree("integer"));
        only(
            &r,
            Severity::Breaking,
            "root.value",
            "type changed from string to integer",
        );
        // A self-referencing root.
        let me = |t: &str| json!({"type": "object", "properties": {"v": {"type": t}, "me": {"$ref": "#"}}});
        let r = input_change(me("string"), me("integer"));
        only(&r, Severity::Breaking, "v", "type changed");
    }

    #[test]
    fn unresolvable_ref_changed_is_breaking_and_unreferenced_definition_is_docs() {
        let r = input_change(
            input(
                json!({"a": {"$ref": "https://example.com/a.json"}}),
                json!([]),
            ),
            input(
                json!({"a": {"$ref": "https://example.com/b.json"}}),
                json!([]),
            ),
        );
        only(&r, Severity::Breaking, "a", "reference changed");
        let r = input_change(
            json!({"type": "object", "$defs": {"Unused": {"type": "string"}}}),
            json!({"type": "object", "$defs": {"Unused": {"type": "integer"}}}),
        );
        only(&r, Severity::Docs, "$defs.Unused", "not referenced");
    }

    // --- docs and annotations --------------------------------------------------------

    #[test]
    fn descriptions_titles_examples_icons_and_meta_are_docs() {
        let old = doc(json!([{"name": "t", "description": "old", "title": "T",
            "icons": [{"src": "a.png"}], "_meta": {"k": 1},
            "inputSchema": {"type": "object", "description": "x",
                "properties": {"a": {"type": "string", "description": "a", "examples": ["x"]}}}}]));
        let new = doc(json!([{"name": "t", "description": "new", "title": "T2",
            "icons": [{"src": "b.png"}], "_meta": {"k": 2},
            "inputSchema": {"type": "object", "description": "y",
                "properties": {"a": {"type": "string", "description": "b", "examples": ["y"]}}}}]));
        let r = classify(&old, &new);
        assert_eq!(r.worst(), Some(Severity::Docs), "{r:#?}");
        assert_eq!(r.changes[0].details.len(), 7, "{r:#?}");
        has(
            &r,
            Severity::Docs,
            "a",
            "argument \"a\": description changed",
        );
        has(
            &r,
            Severity::Docs,
            "title",
            "title changed from \"T\" to \"T2\"",
        );
    }

    #[test]
    fn annotation_changes_are_additive() {
        let with = |v: Value| doc(json!([{"name": "t", "annotations": v}]));
        let r = classify(
            &with(json!({"readOnlyHint": false, "title": "x"})),
            &with(json!({"readOnlyHint": true, "destructiveHint": true, "title": "y"})),
        );
        has(
            &r,
            Severity::Additive,
            "annotations.readOnlyHint",
            "annotation readOnlyHint changed from false to true",
        );
        has(
            &r,
            Severity::Additive,
            "annotations.destructiveHint",
            "annotation destructiveHint true added",
        );
        has(
            &r,
            Severity::Docs,
            "annotations.title",
            "annotation title changed",
        );
        assert_eq!(r.worst(), Some(Severity::Additive));
    }

    #[test]
    fn default_change_is_additive() {
        let r = input_change(
            input(json!({"n": {"type": "integer", "default": 10}}), json!([])),
            input(json!({"n": {"type": "integer", "default": 30}}), json!([])),
        );
        only(&r, Severity::Additive, "n", "default changed from 10 to 30");
    }

    // --- unclassifiable --------------------------------------------------------------

    #[test]
    fn unknown_changes_are_breaking_with_their_path() {
        let r = input_change(
            input(
                json!({"a": {"type": "string", "if": {"minLength": 1}}}),
                json!([]),
            ),
            input(
                json!({"a": {"type": "string", "if": {"minLength": 2}}}),
                json!([]),
            ),
        );
        only(
            &r,
            Severity::Breaking,
            "a",
            "`if` changed (cannot classify)",
        );
        let r = input_change(
            input(
                json!({"a": {"type": "string", "x-weird": 1, "frobnicate": 1}}),
                json!([]),
            ),
            input(
                json!({"a": {"type": "string", "x-weird": 2, "frobnicate": 2}}),
                json!([]),
            ),
        );
        has(
            &r,
            Severity::Breaking,
            "a",
            "`frobnicate` changed (cannot classify)",
        );
        has(&r, Severity::Additive, "a", "x-weird changed from 1 to 2");
        let r = classify(
            &doc(json!([{"name": "t", "flavour": "a"}])),
            &doc(json!([{"name": "t", "flavour": "b"}])),
        );
        only(
            &r,
            Severity::Breaking,
            "flavour",
            "tool field `flavour` changed (cannot classify)",
        );
    }

    // --- server level ----------------------------------------------------------------

    #[test]
    fn server_version_is_docs() {
        let mut new = doc(json!([]));
        new["server"]["version"] = json!("2.0");
        let r = classify(&doc(json!([])), &new);
        only(
            &r,
            Severity::Docs,
            "server.version",
            "server version changed from \"1.0\" to \"2.0\"",
        );
        assert!(
            r.to_string()
                .starts_with("(server): DOCS — server version changed"),
            "{r}"
        );
    }

    #[test]
    fn prompts_and_resource_templates_are_classified() {
        let mut old = doc(json!([]));
        old["prompts"] = json!([
            {"name": "p", "arguments": [{"name": "a", "required": true}]},
            {"name": "gone"}
        ]);
        old["resourceTemplates"] = json!([{"name": "file", "uriTemplate": "file:///{path}"}]);
        let mut new = doc(json!([]));
        new["prompts"] = json!([
            {"name": "p", "description": "d", "arguments": [{"name": "a"}, {"name": "b", "required": true}]},
            {"name": "fresh"}
        ]);
        new["resourceTemplates"] = json!([{"name": "file", "uriTemplate": "file:///{+path}"}]);
        let r = classify(&old, &new);
        has(
            &r,
            Severity::Breaking,
            "prompts.gone",
            "prompt \"gone\" removed",
        );
        has(
            &r,
            Severity::Additive,
            "prompts.fresh",
            "new prompt \"fresh\"",
        );
        has(
            &r,
            Severity::Additive,
            "prompts.p.arguments.a.required",
            "argument \"a\" is now optional",
        );
        has(
            &r,
            Severity::Breaking,
            "prompts.p.arguments.b",
            "new required argument \"b\"",
        );
        has(&r, Severity::Docs, "prompts.p.description", "description");
        has(
            &r,
            Severity::Breaking,
            "resourceTemplates.file.uriTemplate",
            "uriTemplate changed",
        );
        assert!(r.changes.is_empty());
    }

    // --- ordering --------------------------------------------------------------------

    #[test]
    fn output_order_is_deterministic() {
        let old = doc(json!([
            {"name": "b", "inputSchema": input(json!({"x": string(), "y": string()}), json!([]))},
            {"name": "a"}
        ]));
        let new = doc(json!([
            {"name": "c"},
            {"name": "b", "description": "d", "inputSchema": input(json!({"z": string()}), json!(["z"]))}
        ]));
        let r = classify(&old, &new);
        let tools: Vec<&str> = r.changes.iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(tools, ["a", "b", "c"]);
        let paths: Vec<&str> = r.changes[1]
            .details
            .iter()
            .map(|d| d.path.as_str())
            .collect();
        assert_eq!(paths, ["x", "y", "z", "description"]);
        assert_eq!(r.to_string(), classify(&old, &new).to_string());
    }
}
