//! Schema drift classifier behind `snapshot --check` and `diff`.
//!
//! [`classify`] compares two fixture documents (the committed one and a fresh
//! snapshot) as JSON values and says, tool by tool, what changed on the wire and how much it
//! matters to callers, from the caller's side (arguments are what callers send, results
//! what they read):
//!
//! * [`Severity::Breaking`] — a call that worked may now be rejected, or a result may now
//!   hold values the old schema did not describe: tool removed (or renamed: a tool removed
//!   and one added with the same schema [fingerprint](crate::fingerprint)), new required argument,
//!   argument removed or made required, type changed or narrowed, enum value removed,
//!   `const` changed, stricter bounds, `additionalProperties` closed, `anyOf` → `oneOf` over
//!   branches that may overlap, a constraint the classifier does not analyse added (it may
//!   reject values) or changed ("cannot tell", with the keyword named), an output field
//!   removed, made optional or widened, output schema removed.
//! * [`Severity::Additive`] — existing callers keep working: new tool, new optional argument,
//!   enum value added, type widened (also by a new union branch: a required field *inside*
//!   the new branch constrains only the values that branch newly accepts), required argument
//!   made optional, bounds relaxed, a constraint removed (any keyword: removing one can only
//!   accept more values), output schema added, new output field, tool annotations changed
//!   from their protocol defaults, `default` values.
//! * [`Severity::Docs`] — only descriptions, titles, `examples`, icons or `_meta` changed.
//! * [`Severity::None`] — the JSON changed but not its meaning: `anyOf` ↔ `oneOf` over
//!   branches that cannot overlap (by type, by allowed values, or by a required
//!   discriminator property; `pattern`s are not compared, so branches told apart only by
//!   one count as overlapping), `const: x` ↔ `enum: [x]`, a `$defs` entry renamed or
//!   inlined with the same shape, a `$schema` switch, an annotation written or dropped at
//!   its protocol default (`readOnlyHint` false, `destructiveHint` true, `idempotentHint`
//!   false, `openWorldHint` true), `null` ↔ absent ↔ `{"type": "object"}` input schemas,
//!   a union nested in a union branch written flat (`anyOf: [{anyOf: [A, B]}, C]` ↔
//!   `anyOf: [A, B, C]`; with `oneOf` only where the branches cannot overlap), and a
//!   keyword that restricts nothing given the schema's other keywords (`propertyNames:
//!   {"type": "string"}`, a length of at least 0, `pattern: ".*"`, `multipleOf: 1` on
//!   integers, a bound a sized integer `format` such as `uint8` already implies, a
//!   `maxItems` a closed tuple meets, a bound every `enum` value meets).
//!
//! The effect on the generated Rust API is the second axis (`mcp_bindgen_codegen::review`,
//! which runs the generator): a renamed `$defs` entry is no change on the wire and a major
//! change in Rust. The review puts both together, as `snapshot --check` and `diff` print them.
//!
//! # How schemas are compared
//!
//! Input and output schemas are walked keyword by keyword. Each difference either *narrows*
//! the set of accepted values, *widens* it, or *changes* it in a way that is neither. For
//! an input schema narrowing is breaking (callers send values the server now rejects) and
//! widening is additive; for an output schema the direction flips (callers now receive
//! values their types do not describe). Nested objects, array items,
//! `additionalProperties` schemas and `anyOf`/`oneOf`/`allOf` branches are compared
//! recursively; a detail's [`Detail::path`] shows the nesting (`filter.state`, `labels[]`,
//! `meta.*`, `kind.anyOf[1]`; output paths start with `outputSchema`).
//!
//! * `required`, `enum` and `type` arrays are sets: reordering them is no change.
//! * `integer` is a subset of `number`; a missing `type` accepts anything.
//! * Keywords that constrain one JSON type (`properties`, `required`, `items`, `minLength`,
//!   `minimum`, …) are compared only when both sides accept that type: a value of a type
//!   only one side accepts is already told by the `type` difference.
//! * A schema that is a union (`anyOf`/`oneOf`) on one side only is compared as if the other
//!   side were a union of one branch: `string` → `anyOf: [string, {…}]` gains a branch.
//! * Same-document references (`#/$defs/…`, `#/definitions/…`, any `#/…` JSON pointer) are
//!   resolved on both sides before comparing, with a cycle guard, so a changed definition is
//!   reported at every argument that uses it. A reference that cannot be resolved (another
//!   document, a missing target) is compared by its text; a changed one is breaking. A root
//!   `$defs` entry that no compared schema reaches is reported as [`Severity::Docs`].
//! * The usual spellings of an optional value are folded before comparing, so moving between
//!   them is no change: `anyOf: [X, {"type": "null"}]` (pydantic) is read as X with `null`
//!   added to its `type` (and to its `enum`), `allOf: [{"$ref": …}]` with sibling keywords
//!   (pydantic v1) as the reference itself.
//! * Keywords that only annotate (`description`, `title`, `examples`, `$comment`,
//!   `deprecated`) are [`Severity::Docs`]; `default`, `readOnly`/`writeOnly`, `$id`, `x-*`
//!   extension keywords and words that are not JSON Schema keywords (validators ignore them)
//!   are [`Severity::Additive`]; `$schema` is [`Severity::None`]; conditionals
//!   (`if`/`then`/`else`), `dependentSchemas`/`dependentRequired` and `not` are not analysed:
//!   added they may narrow, removed they widen, changed they cannot tell.
//!
//! Tool annotations are hints, not a contract: a change of meaning is
//! [`Severity::Additive`] (the annotation `title` is [`Severity::Docs`]). Server info
//! (`version`, `name`, …) is [`Severity::Docs`]; prompts and resource templates follow the
//! same rules as tools (removed or new required argument: breaking; new: additive;
//! descriptions: docs) and are listed in [`Report::server`].
//!
//! The output is deterministic: tools sorted by name, details worst first, then by path.

use std::fmt;

use serde_json::{Map, Value};

/// How much a change matters to callers of the generated code (ordered: `None < Docs <
/// Additive < Breaking`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// No effect on the wire: the JSON changed, but not the values it accepts or what it
    /// tells a model (an equivalent spelling, a `$schema` switch, an annotation written at
    /// its default value, a `$defs` entry renamed with the same shape).
    None,
    /// Only documentation changed (descriptions, titles, examples, icons, `_meta`).
    Docs,
    /// Existing callers keep working (something was added or relaxed).
    Additive,
    /// Existing callers may stop compiling or get errors at run time.
    Breaking,
}

impl Severity {
    /// The upper-case label used in reports: `NONE`, `DOCS`, `ADDITIVE` or `BREAKING`.
    pub fn label(self) -> &'static str {
        match self {
            Severity::None => "NONE",
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
        let classes: Vec<Severity> = self.changes.iter().map(|c| c.severity).collect();
        let server = self.server.iter().map(|d| d.severity).max();
        totals_line(&classes, server)
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

/// `3 tools changed: 1 BREAKING, 2 DOCS; the server: DOCS` for these tool classes and the
/// worst change outside the tool list.
pub fn totals_line(classes: &[Severity], server: Option<Severity>) -> String {
    let mut parts = Vec::new();
    for severity in [
        Severity::Breaking,
        Severity::Additive,
        Severity::Docs,
        Severity::None,
    ] {
        let n = classes.iter().filter(|c| **c == severity).count();
        if n > 0 {
            parts.push(format!("{n} {severity}"));
        }
    }
    let tools = classes.len();
    let mut out = format!(
        "{tools} tool{} changed{}{}",
        if tools == 1 { "" } else { "s" },
        if parts.is_empty() { "" } else { ": " },
        parts.join(", ")
    );
    if let Some(worst) = server {
        out.push_str(&format!("; the server: {worst}"));
    }
    out
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
/// difference the classifier cannot tell is reported as [`Severity::Breaking`] with its path
/// and the keyword named.
#[must_use]
pub fn classify(old: &Value, new: &Value) -> Report {
    let empty = Map::new();
    let o = old.as_object().unwrap_or(&empty);
    let n = new.as_object().unwrap_or(&empty);

    // A removed tool whose Rust name a new tool takes (`getTinyImage` → `get-tiny-image`).
    let names = |doc: &Map<String, Value>| -> Vec<String> {
        keyed(doc.get("tools"), &["name"]).into_keys().collect()
    };
    let (old_names, new_names) = (names(o), names(n));
    let successor = |name: &str| {
        let rust = crate::naming::fn_name(name);
        new_names
            .iter()
            .find(|m| !old_names.contains(m) && crate::naming::fn_name(m) == rust)
    };
    // A removed tool and a new one with the same schemas (fingerprint): a rename.
    let prints = |doc: &Map<String, Value>| {
        crate::fingerprint::fingerprints(
            doc.get("tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        )
    };
    let renames = crate::fingerprint::renames(&prints(o), &prints(n));
    let renamed_to = |name: &str| {
        renames
            .iter()
            .find(|(from, _)| from == name)
            .map(|(_, to)| to)
    };
    let renamed_from = |name: &str| {
        renames
            .iter()
            .find(|(_, to)| to == name)
            .map(|(from, _)| from)
    };
    let mut changes = Vec::new();
    each_change(o.get("tools"), n.get("tools"), &["name"], |name, change| {
        let details = finish(match change {
            Change::Removed => vec![detail(
                Severity::Breaking,
                "",
                match (renamed_to(name), successor(name)) {
                    (Some(new), _) => format!(
                        "tool renamed to \"{new}\" (removed; \"{new}\" is new with the same input and output schemas)"
                    ),
                    (None, Some(new)) => {
                        format!("tool removed (new tool \"{new}\" has its Rust name)")
                    }
                    (None, None) => "tool removed".to_string(),
                },
            )],
            Change::Added(_) => vec![detail(
                Severity::Additive,
                "",
                match renamed_from(name) {
                    Some(old) => {
                        format!("new tool: \"{old}\" renamed (the same input and output schemas)")
                    }
                    None => "new tool".to_string(),
                },
            )],
            Change::Changed(a, b) => {
                let details = diff_tool(a, b);
                if details.is_empty() && sets_sorted(a) != sets_sorted(b) {
                    // Not a reordering: written differently, meaning the same.
                    vec![detail(
                        Severity::None,
                        "",
                        "written differently, same meaning (e.g. an empty `properties`, a `null` schema, a nested union written flat)",
                    )]
                } else {
                    details
                }
            }
        });
        if let Some(severity) = details.iter().map(|d| d.severity).max() {
            changes.push(ToolChange {
                tool: name.to_string(),
                severity,
                details,
            });
        }
    });

    let mut server = Vec::new();
    each_field(o, n, |key, x, y| match key {
        // The fingerprints follow from the tools, whose changes are reported above.
        "tools" | "fingerprints" => {}
        "server" => diff_server(x, y, &mut server),
        "prompts" => diff_prompts(x, y, &mut server),
        "resourceTemplates" => diff_templates(x, y, &mut server),
        "resources" => diff_resources(x, y, &mut server),
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
    });
    Report {
        changes,
        server: finish(server),
    }
}

mod document;
mod keywords;
mod schema;
mod spelling;
mod support;

use document::*;
use schema::*;
use spelling::*;
use support::*;

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

    /// Asserts the report lists only changes of spelling ([`Severity::None`]), if any.
    #[track_caller]
    fn same_meaning(r: &Report) {
        assert!(
            r.worst().is_none_or(|w| w == Severity::None),
            "expected no change in meaning, got {r}"
        );
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
        same_meaning(&r);
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
    fn a_tool_removed_and_one_added_with_its_schemas_is_a_rename() {
        let weather =
            json!({"type": "object", "properties": {"city": string()}, "required": ["city"]});
        let r = classify(
            &doc(
                json!([{"name": "get_weather", "description": "Weather.", "inputSchema": weather},
                {"name": "keep", "inputSchema": {"type": "object"}}]),
            ),
            &doc(
                json!([{"name": "forecast", "description": "Weather now.", "inputSchema": weather},
                {"name": "keep", "inputSchema": {"type": "object"}},
                {"name": "fresh", "inputSchema": {"type": "object", "properties": {"q": string()}}}]),
            ),
        );
        let by_tool: Vec<(&str, Severity, &str)> = r
            .changes
            .iter()
            .map(|c| (c.tool.as_str(), c.severity, c.headline()))
            .collect();
        assert_eq!(
            by_tool,
            [
                (
                    "forecast",
                    Severity::Additive,
                    "new tool: \"get_weather\" renamed (the same input and output schemas)"
                ),
                ("fresh", Severity::Additive, "new tool"),
                (
                    "get_weather",
                    Severity::Breaking,
                    "tool renamed to \"forecast\" (removed; \"forecast\" is new with the same input and output schemas)"
                ),
            ]
        );
        // The `fingerprints` key follows the tools: never a change of its own.
        let mut with_prints = doc(json!([{"name": "a"}]));
        with_prints["fingerprints"] = json!({"a": {"model": "1", "schema": "2"}});
        assert!(classify(&doc(json!([{"name": "a"}])), &with_prints).is_empty());
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
        same_meaning(&r);
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
        same_meaning(&r);
        let r = input_change(
            input(json!({"s": {"enum": ["a", "b"]}}), json!([])),
            input(
                json!({"s": {"type": "string", "enum": ["a", "b"]}}),
                json!([]),
            ),
        );
        same_meaning(&r);
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
        same_meaning(&r);
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
        // Inlining or renaming a definition with the same shape: no change on the wire
        // (the Rust axis reports the renamed type).
        let inlined = json!({"type": "object", "properties": {"filter": {
            "type": "object", "properties": {"state": {"enum": ["open"]}}
        }}});
        let r = input_change(schema(json!(["open"])), inlined);
        only(
            &r,
            Severity::None,
            "filter",
            "now an inline schema (was definition \"Filter\")",
        );
        let renamed = json!({"type": "object", "properties": {"filter": {"$ref": "#/$defs/IssueFilter"}},
            "$defs": {"IssueFilter": {"type": "object", "properties": {"state": {"enum": ["open"]}}}}});
        let r = input_change(schema(json!(["open"])), renamed);
        only(
            &r,
            Severity::None,
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
        same_meaning(&r);
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
        same_meaning(&r);
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
        // Written at its default value: no change in meaning.
        has(
            &r,
            Severity::None,
            "annotations.destructiveHint",
            "annotation destructiveHint true added (its default value",
        );
        has(
            &r,
            Severity::Docs,
            "annotations.title",
            "annotation title changed",
        );
        assert_eq!(r.worst(), Some(Severity::Additive));
        let r = classify(
            &with(json!({"openWorldHint": true, "idempotentHint": false})),
            &with(json!({"destructiveHint": false})),
        );
        has(
            &r,
            Severity::Additive,
            "annotations.destructiveHint",
            "annotation destructiveHint false added",
        );
        has(
            &r,
            Severity::None,
            "annotations.openWorldHint",
            "removed (was true) (its default value",
        );
        assert_eq!(r.changes[0].details.len(), 3, "{r:#?}");
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
    fn unanalysed_and_unknown_keywords() {
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
        only(&r, Severity::Breaking, "a", "cannot tell: `if` changed");
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
            Severity::Additive,
            "a",
            "frobnicate changed from 1 to 2 (not a JSON Schema keyword",
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

    // --- real-world drift classes ----------------------------------------------------

    #[test]
    fn removing_an_unanalysed_constraint_is_additive_adding_one_may_narrow() {
        // A Zod discriminated form: `if`/`then` ties `query` to `mode: "search"`.
        let conditional = json!({"type": "object",
            "properties": {"mode": {"enum": ["search", "list"]}, "query": {"type": "string"}},
            "if": {"properties": {"mode": {"const": "search"}}},
            "then": {"required": ["query"]},
            "dependentSchemas": {"query": {"required": ["mode"]}}});
        let plain = json!({"type": "object",
            "properties": {"mode": {"enum": ["search", "list"]}, "query": {"type": "string"}}});
        let r = input_change(conditional.clone(), plain.clone());
        assert_eq!(r.worst(), Some(Severity::Additive), "{r}");
        has(
            &r,
            Severity::Additive,
            "inputSchema",
            "`if` removed: one constraint fewer",
        );
        has(
            &r,
            Severity::Additive,
            "inputSchema",
            "`dependentSchemas` removed",
        );
        let r = input_change(plain.clone(), conditional.clone());
        assert_eq!(r.worst(), Some(Severity::Breaking), "{r}");
        has(
            &r,
            Severity::Breaking,
            "inputSchema",
            "`then` added: a constraint not analysed here; it may reject values",
        );
        // On the output side the direction flips: a new constraint narrows what arrives.
        let r = output_change(plain, conditional);
        assert_eq!(r.worst(), Some(Severity::Additive), "{r}");
    }

    #[test]
    fn a_required_field_inside_a_new_union_branch_is_not_a_new_required_argument() {
        // github `assignees`: logins, now also `{login}` objects.
        let old = input(
            json!({"assignees": {"type": "array", "items": string()}}),
            json!([]),
        );
        let new = input(
            json!({"assignees": {"type": "array", "items": {"anyOf": [
                string(),
                {"type": "object", "properties": {"login": string()}, "required": ["login"]}
            ]}}}),
            json!([]),
        );
        let r = input_change(old.clone(), new.clone());
        only(
            &r,
            Severity::Additive,
            "assignees[]",
            "type widened from string to object|string",
        );
        // Two object shapes: the old one stays a branch, the new one is gained.
        let shape = |name: &str| json!({"type": "object", "properties": {name: string()}, "required": [name]});
        let r = input_change(
            input(json!({"target": shape("path")}), json!(["target"])),
            input(
                json!({"target": {"oneOf": [shape("path"), shape("url")]}}),
                json!(["target"]),
            ),
        );
        only(&r, Severity::Additive, "target", "`oneOf` gained a branch");
        // The output side: callers now receive objects their types do not describe.
        let r = output_change(old, new);
        assert_eq!(r.worst(), Some(Severity::Breaking), "{r}");
    }

    #[test]
    fn equivalent_spellings_are_no_change_on_the_wire() {
        let tagged = |key: &str, kind: Value| {
            json!({"type": "object", "properties": {"event": {key: [
                {"type": "object", "properties": {"kind": kind, "id": {"type": "integer"}}, "required": ["kind", "id"]},
                {"type": "object", "properties": {"kind": {"const": "label"}, "name": string()}, "required": ["kind", "name"]}
            ]}}})
        };
        // anyOf -> oneOf over branches told apart by a discriminator.
        let r = input_change(
            tagged("anyOf", json!({"const": "issue"})),
            tagged("oneOf", json!({"const": "issue"})),
        );
        only(
            &r,
            Severity::None,
            "event",
            "`anyOf` spelled as `oneOf` (its branches cannot overlap)",
        );
        // const: x -> enum: [x] inside a branch.
        let r = input_change(
            tagged("oneOf", json!({"const": "issue"})),
            tagged("oneOf", json!({"enum": ["issue"]})),
        );
        same_meaning(&r);
        // Overlapping branches: oneOf rejects a value matching both.
        let r = input_change(
            json!({"anyOf": [{"type": "object", "properties": {"a": string()}}, {"type": "object", "properties": {"b": string()}}]}),
            json!({"oneOf": [{"type": "object", "properties": {"a": string()}}, {"type": "object", "properties": {"b": string()}}]}),
        );
        only(
            &r,
            Severity::Breaking,
            "inputSchema",
            "`anyOf` became `oneOf`",
        );
        // A dialect switch.
        let body = |dialect: &str| json!({"$schema": dialect, "type": "object", "properties": {"q": string()}});
        let r = input_change(
            body("http://json-schema.org/draft-07/schema#"),
            body("https://json-schema.org/draft/2020-12/schema"),
        );
        only(&r, Severity::None, "inputSchema", "dialect $schema changed");
        assert_eq!(r.totals(), "1 tool changed: 1 NONE");
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

    #[test]
    fn static_resources_are_classified_by_uri() {
        let mut old = doc(json!([]));
        old["resources"] = json!([
            {"uri": "docs://a", "name": "a.md"},
            {"uri": "docs://gone", "name": "gone.md"},
            {"uri": "docs://r", "name": "r.md", "description": "old"}
        ]);
        let mut new = doc(json!([]));
        new["resources"] = json!([
            {"uri": "docs://a", "name": "renamed.md"},
            {"uri": "docs://fresh", "name": "fresh.md"},
            {"uri": "docs://r", "name": "r.md", "description": "new"}
        ]);
        let r = classify(&old, &new);
        has(&r, Severity::Breaking, "resources.docs://gone", "removed");
        has(
            &r,
            Severity::Additive,
            "resources.docs://fresh",
            "new resource",
        );
        has(&r, Severity::Breaking, "resources.docs://a.name", "name");
        has(
            &r,
            Severity::Docs,
            "resources.docs://r.description",
            "description",
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
