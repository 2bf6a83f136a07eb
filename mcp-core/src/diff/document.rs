//! The document layer: tools' fields, annotations, execution, the server block, prompts
//! and resource templates.

use serde_json::{Map, Value};

use super::*;

// ---------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------

pub(super) fn diff_tool(old: &Value, new: &Value) -> Vec<Detail> {
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
            // Absent or `null`: no schema given, any arguments object.
            let a = non_null(x).unwrap_or(&default_input);
            let b = non_null(y).unwrap_or(&default_input);
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

pub(super) fn diff_annotations(x: Option<&Value>, y: Option<&Value>, out: &mut Vec<Detail>) {
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
    each_field(a, b, |key, x, y| {
        let default = annotation_default(key);
        let (severity, note) = if key == "title" {
            (Severity::Docs, "")
        } else if x.or(default.as_ref()) == y.or(default.as_ref()) {
            (Severity::None, " (its default value: no change in meaning)")
        } else {
            (Severity::Additive, "")
        };
        out.push(detail(
            severity,
            format!("annotations.{key}"),
            format!("annotation {}{note}", changed_words(key, x, y)),
        ));
    });
}

/// The value a client assumes for an absent tool annotation (MCP `ToolAnnotations`).
fn annotation_default(key: &str) -> Option<Value> {
    match key {
        "readOnlyHint" | "idempotentHint" => Some(Value::Bool(false)),
        "destructiveHint" | "openWorldHint" => Some(Value::Bool(true)),
        _ => None,
    }
}

/// `execution.taskSupport` (MCP 2025-11-25): a tool that now *requires* task-augmented
/// calls breaks plain callers; every other change is additive.
pub(super) fn diff_execution(x: Option<&Value>, y: Option<&Value>, out: &mut Vec<Detail>) {
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

pub(super) fn diff_server(x: Option<&Value>, y: Option<&Value>, out: &mut Vec<Detail>) {
    let empty = Map::new();
    let (Some(a), Some(b)) = (
        x.map_or(Some(&empty), Value::as_object),
        y.map_or(Some(&empty), Value::as_object),
    ) else {
        out.push(detail(Severity::Docs, "server", "server info changed"));
        return;
    };
    each_field(a, b, |key, x, y| {
        let severity = match key {
            "protocolVersion" | "capabilities" => Severity::Additive,
            _ => Severity::Docs,
        };
        out.push(detail(
            severity,
            format!("server.{key}"),
            format!("server {}", changed_words(key, x, y)),
        ));
    });
}

type Object = Map<String, Value>;

/// A listed item's change: removed (breaking) and added (additive) are reported here; for a
/// changed item, the old and new objects (or `None` after reporting what cannot be
/// classified).
fn changed_objects<'v>(
    change: Change<'v>,
    path: &str,
    subject: &str,
    out: &mut Vec<Detail>,
) -> Option<(&'v Object, &'v Object)> {
    let (severity, message) = match change {
        Change::Removed => (Severity::Breaking, format!("{subject} removed")),
        Change::Added(_) => (Severity::Additive, format!("new {subject}")),
        Change::Changed(p, q) => match (p.as_object(), q.as_object()) {
            (Some(p), Some(q)) => return Some((p, q)),
            _ => (
                Severity::Breaking,
                format!("{subject} changed (cannot classify)"),
            ),
        },
    };
    out.push(detail(severity, path.to_string(), message));
    None
}

pub(super) fn diff_prompts(x: Option<&Value>, y: Option<&Value>, out: &mut Vec<Detail>) {
    each_change(x, y, &["name"], |name, change| {
        let path = format!("prompts.{name}");
        let subject = format!("prompt \"{name}\"");
        let Some((p, q)) = changed_objects(change, &path, &subject, out) else {
            return;
        };
        each_field(p, q, |key, x, y| {
            let at = format!("{path}.{key}");
            match key {
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
        });
    });
}

pub(super) fn diff_prompt_arguments(
    subject: &str,
    path: &str,
    x: Option<&Value>,
    y: Option<&Value>,
    out: &mut Vec<Detail>,
) {
    let required = |v: &Value| v.get("required").and_then(Value::as_bool).unwrap_or(false);
    each_change(x, y, &["name"], |name, change| {
        let at = format!("{path}.{name}");
        let (p, q) = match change {
            Change::Removed => {
                return out.push(detail(
                    Severity::Breaking,
                    at,
                    format!("{subject}: argument \"{name}\" removed"),
                ));
            }
            Change::Added(q) => {
                let (severity, kind) = if required(q) {
                    (Severity::Breaking, "required")
                } else {
                    (Severity::Additive, "optional")
                };
                return out.push(detail(
                    severity,
                    at,
                    format!("{subject}: new {kind} argument \"{name}\""),
                ));
            }
            Change::Changed(p, q) => (p, q),
        };
        let (Some(po), Some(qo)) = (p.as_object(), q.as_object()) else {
            return out.push(detail(
                Severity::Breaking,
                at,
                format!("{subject}: argument \"{name}\" changed (cannot classify)"),
            ));
        };
        each_field(po, qo, |key, x, y| {
            let (severity, message) = match key {
                "name" => return,
                "required" => match (required(p), required(q)) {
                    (false, true) => (Severity::Breaking, "is now required".to_string()),
                    (true, false) => (Severity::Additive, "is now optional".to_string()),
                    _ => return,
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
        });
    });
}

/// Static resources (`resources`, recorded with `record_resources = true`), matched by URI:
/// one removed is breaking (its generated method goes), one added additive, a renamed one
/// breaking (the method's name follows the resource's name).
pub(super) fn diff_resources(x: Option<&Value>, y: Option<&Value>, out: &mut Vec<Detail>) {
    diff_resource_items(x, y, ("resources", "resource", "uri"), &["uri"], out);
}

pub(super) fn diff_templates(x: Option<&Value>, y: Option<&Value>, out: &mut Vec<Detail>) {
    diff_resource_items(
        x,
        y,
        ("resourceTemplates", "resource template", "name"),
        &["name", "uriTemplate"],
        out,
    );
}

/// Resources or resource templates, each matched by `keys`: `(list, what, identity)` name
/// the fixture's key, the item in words and the field that identifies it (not compared).
/// Descriptive fields are docs, annotations additive, anything else breaking (a URI or
/// template, a MIME type, a name that names a generated function).
fn diff_resource_items(
    x: Option<&Value>,
    y: Option<&Value>,
    (list, what, identity): (&str, &str, &str),
    keys: &[&str],
    out: &mut Vec<Detail>,
) {
    each_change(x, y, keys, |id, change| {
        let path = format!("{list}.{id}");
        let subject = format!("{what} \"{id}\"");
        let Some((p, q)) = changed_objects(change, &path, &subject, out) else {
            return;
        };
        each_field(p, q, |key, x, y| {
            let severity = match key {
                k if k == identity => return,
                "description" | "title" | "icons" | "_meta" | "size" => Severity::Docs,
                "annotations" => Severity::Additive,
                _ => Severity::Breaking,
            };
            out.push(detail(
                severity,
                format!("{path}.{key}"),
                format!("{subject}: {}", changed_words(key, x, y)),
            ));
        });
    });
}
