//! The round-trip oracle: is a generated type *faithful* to its schema?
//!
//! A tool's argument (or output) type is faithful when every valid instance of its schema
//! (from [`crate::instances`]) deserializes into it and serializes back to a value that
//! 1. validates against the original schema (draft 2020-12, and draft-07 where the schema is
//!    draft-07 compatible), and
//! 2. equals the instance, up to optional `null`s left out and properties left at their
//!    `default` (added or left out); numbers compare by value (`1` equals `1.0`).
//!
//! [`Oracle`] does the checking for one schema; the round trip itself runs in a program
//! that links the generated types (`verify --deep` builds one). [`RoundTrip`] collects the
//! per-tool verdicts and prints the summary line
//! `round-trip: N tools, P passed, F failed, S skipped`.

use serde_json::Value;

/// What is wrong with one value, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// JSON pointer into the instance (`""` for the whole value).
    pub pointer: String,
    /// What is wrong there.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "at {at}: {}", self.message)
    }
}

/// The checks for one schema: validators for the drafts that apply, and the schema itself
/// for the equality rules.
pub struct Oracle {
    schema: Value,
    validators: Vec<(&'static str, jsonschema::Validator)>,
}

/// Keywords draft-07 does not know: a schema using them is checked under 2020-12 only.
const MODERN: [&str; 5] = [
    "\"$anchor\"",
    "\"$dynamicRef\"",
    "\"$dynamicAnchor\"",
    "\"prefixItems\"",
    "\"unevaluated",
];

impl Oracle {
    /// Builds the validators; `Err` when no draft accepts the schema, or when it nests
    /// deeper than [`mcp_bindgen_core::schema::MAX_NESTING`] allows.
    pub fn new(schema: &Value) -> Result<Self, String> {
        // Also bounds the validator's memory: building a 2020-12 validator costs about 6 MB
        // per nesting level (its meta-schema check compiles `$dynamicRef` once per level).
        if let Some(deep) = crate::schema::too_deep(schema) {
            return Err(deep.to_string());
        }
        if let Some(at) = crate::schema::same_value_cycle(schema) {
            return Err(format!(
                "the schema at {} refers to itself without reaching into the value (a `$ref` cycle through anyOf/allOf/oneOf/not): no validator can check it",
                if at.is_empty() { "/" } else { &at }
            ));
        }
        let text = schema.to_string();
        let modern = MODERN.iter().any(|k| text.contains(k));
        let mut validators = Vec::new();
        let mut errors = Vec::new();
        match jsonschema::draft202012::new(schema) {
            Ok(v) => validators.push(("2020-12", v)),
            Err(e) => errors.push(format!("2020-12: {e}")),
        }
        // Draft-07 too, unless the schema uses what only 2020-12 knows (then it is the
        // fallback when 2020-12 rejects the schema, e.g. array-form `items`).
        if !modern || validators.is_empty() {
            match jsonschema::draft7::new(schema) {
                Ok(v) => validators.push(("draft-07", v)),
                Err(e) => errors.push(format!("draft-07: {e}")),
            }
        }
        if validators.is_empty() {
            return Err(format!("the schema does not build: {}", errors.join("; ")));
        }
        Ok(Oracle {
            schema: schema.clone(),
            validators,
        })
    }

    /// Whether `value` is valid under every draft that applies; the first problem otherwise.
    pub fn validate(&self, value: &Value) -> Result<(), Problem> {
        for (draft, validator) in &self.validators {
            if let Some(e) = validator.iter_errors(value).next() {
                return Err(Problem {
                    pointer: e.instance_path.to_string(),
                    message: format!("invalid ({draft}): {e}"),
                });
            }
        }
        Ok(())
    }

    /// Checks what came back from the round trip of `instance`: valid, and equal up to
    /// optional nulls and defaults.
    pub fn check(&self, instance: &Value, returned: &Value) -> Result<(), Problem> {
        self.validate(returned)?;
        let mut c = Compare {
            root: &self.schema,
            pointer: String::new(),
        };
        match c.compare(&[&self.schema], instance, returned) {
            None => Ok(()),
            Some(message) => Err(Problem {
                pointer: c.pointer,
                message,
            }),
        }
    }
}

/// The equality walk: `pointer` is where the first difference was found.
struct Compare<'a> {
    root: &'a Value,
    pointer: String,
}

/// `$ref` chains are followed this far.
const MAX_REF: usize = 32;
/// Sub-schemas searched through combinators this deep.
const MAX_BRANCH_DEPTH: usize = 8;

impl<'a> Compare<'a> {
    /// `None` when `got` is `want` up to the rules; otherwise what differs (and
    /// `self.pointer` says where).
    fn compare(&mut self, schemas: &[&'a Value], want: &Value, got: &Value) -> Option<String> {
        match (want, got) {
            (Value::Number(a), Value::Number(b)) => {
                let same = a == b || a.as_f64().zip(b.as_f64()).is_some_and(|(x, y)| x == y);
                (!same).then(|| format!("sent {want}, came back {got}"))
            }
            (Value::Array(a), Value::Array(b)) => {
                if a.len() != b.len() {
                    return Some(format!(
                        "sent {} items, came back {}: {want} became {got}",
                        a.len(),
                        b.len()
                    ));
                }
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    let items = self.items(schemas, i);
                    let len = self.pointer.len();
                    self.pointer.push_str(&format!("/{i}"));
                    if let Some(m) = self.compare(&items, x, y) {
                        return Some(m);
                    }
                    self.pointer.truncate(len);
                }
                None
            }
            (Value::Object(a), Value::Object(b)) => {
                let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
                keys.sort();
                keys.dedup();
                for key in keys {
                    let props = self.property(schemas, key);
                    let len = self.pointer.len();
                    self.pointer.push('/');
                    self.pointer.push_str(&crate::schema::escape(key));
                    let verdict = match (a.get(key), b.get(key)) {
                        (Some(x), Some(y)) => self.compare(&props, x, y),
                        // A null left out: the output is validated, so a required one
                        // shows up there.
                        (Some(Value::Null), None) => None,
                        (Some(x), None) if self.is_default(&props, x) => None,
                        (Some(x), None) => Some(format!("sent {x}, left out on the way back")),
                        (None, Some(y)) if self.is_default(&props, y) => None,
                        (None, Some(y)) => Some(format!("not sent, came back as {y}")),
                        (None, None) => None,
                    };
                    if verdict.is_some() {
                        return verdict;
                    }
                    self.pointer.truncate(len);
                }
                None
            }
            _ if want == got => None,
            _ => Some(format!("sent {want}, came back {got}")),
        }
    }

    /// `schema` with its `$ref` chain followed (local pointers only).
    fn deref(&self, mut schema: &'a Value) -> &'a Value {
        for _ in 0..MAX_REF {
            let Some(r) = schema.get("$ref").and_then(Value::as_str) else {
                break;
            };
            match crate::schema::resolve_local(self.root, r) {
                Some(t) => schema = t,
                None => break,
            }
        }
        schema
    }

    /// Every sub-schema that applies to the same value: the schema and its combinator
    /// branches (any of which may be the one the value matched).
    fn expand(&self, schemas: &[&'a Value]) -> Vec<&'a Value> {
        let mut out: Vec<&'a Value> = Vec::new();
        let mut stack: Vec<(&'a Value, usize)> = schemas.iter().map(|s| (*s, 0)).collect();
        while let Some((s, depth)) = stack.pop() {
            let s = self.deref(s);
            if out.iter().any(|o| std::ptr::eq(*o, s)) {
                continue;
            }
            out.push(s);
            if depth >= MAX_BRANCH_DEPTH {
                continue;
            }
            for key in ["allOf", "anyOf", "oneOf"] {
                if let Some(Value::Array(branches)) = s.get(key) {
                    stack.extend(branches.iter().map(|b| (b, depth + 1)));
                }
            }
            for key in ["then", "else"] {
                if let Some(b) = s.get(key) {
                    stack.push((b, depth + 1));
                }
            }
        }
        out
    }

    /// The schemas of property `key`.
    fn property(&self, schemas: &[&'a Value], key: &str) -> Vec<&'a Value> {
        let mut out = Vec::new();
        for s in self.expand(schemas) {
            if let Some(p) = s.get("properties").and_then(|p| p.get(key)) {
                out.push(p);
            } else if let Some(extra) = s.get("additionalProperties").filter(|a| a.is_object()) {
                out.push(extra);
            }
        }
        out
    }

    /// The schemas of item `i`.
    fn items(&self, schemas: &[&'a Value], i: usize) -> Vec<&'a Value> {
        let mut out = Vec::new();
        for s in self.expand(schemas) {
            match (s.get("prefixItems"), s.get("items")) {
                (Some(Value::Array(prefix)), _) if i < prefix.len() => out.push(&prefix[i]),
                (_, Some(Value::Array(tuple))) if i < tuple.len() => out.push(&tuple[i]),
                (_, Some(items)) if items.is_object() => out.push(items),
                _ => {}
            }
            if let Some(extra) = s.get("additionalItems").filter(|a| a.is_object()) {
                out.push(extra);
            }
        }
        out
    }

    /// Whether `value` is the `default` of one of `schemas`.
    fn is_default(&self, schemas: &[&'a Value], value: &Value) -> bool {
        self.expand(schemas)
            .iter()
            .filter_map(|s| s.get("default"))
            .any(|d| {
                let mut c = Compare {
                    root: self.root,
                    pointer: String::new(),
                };
                c.compare(&[], d, value).is_none()
            })
    }
}

/// Which side of a tool a check is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The arguments (`inputSchema`, the `Args` type).
    Input,
    /// The structured result (`outputSchema`, the `Output` type).
    Output,
}

impl Side {
    /// `arguments` or `result`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Input => "arguments",
            Side::Output => "result",
        }
    }
}

/// One instance that did not survive the round trip.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// Arguments or result.
    pub side: Side,
    /// The instance sent.
    pub instance: Value,
    /// What came back: the value, or the type's error.
    pub returned: Result<Value, String>,
    /// What is wrong, and where.
    pub problem: Problem,
}

/// One tool's verdict.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Every instance survived; how many were checked.
    Passed(usize),
    /// Instances that did not.
    Failed(Vec<Failure>),
    /// No instance could be checked: why.
    Skipped(String),
}

/// The round trip of one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRoundTrip {
    /// The fixture's server alias.
    pub server: String,
    /// The tool's name.
    pub tool: String,
    /// The verdict.
    pub verdict: Verdict,
}

/// The check of one resource template's generated `Args::uri`: values set through its
/// fields must make the URI that RFC 6570 expansion of the `uriTemplate` makes of them.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateRoundTrip {
    /// The fixture's server alias.
    pub server: String,
    /// The template's name.
    pub template: String,
    /// How many sets of values were checked.
    pub checked: usize,
    /// Each set whose URI differed: the values, what `Args::uri` made, what was expected.
    pub failures: Vec<String>,
}

/// Every tool's round trip; [`RoundTrip::summary_line`] is the line tooling parses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoundTrip {
    /// Per tool, in fixture then tool order.
    pub tools: Vec<ToolRoundTrip>,
    /// Per generated resource template with variables, in fixture then template order.
    pub templates: Vec<TemplateRoundTrip>,
}

impl RoundTrip {
    fn count(&self, f: impl Fn(&Verdict) -> bool) -> usize {
        self.tools.iter().filter(|t| f(&t.verdict)).count()
    }

    /// Tools whose every instance survived.
    pub fn passed(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Passed(_)))
    }

    /// Tools with at least one failed instance.
    pub fn failed(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Failed(_)))
    }

    /// Tools without any instance to check.
    pub fn skipped(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Skipped(_)))
    }

    /// Templates with at least one set of values whose URI differed.
    pub fn templates_failed(&self) -> usize {
        self.templates
            .iter()
            .filter(|t| !t.failures.is_empty())
            .count()
    }

    /// `round-trip: N resource templates, P passed, F failed` — `None` without templates.
    pub fn templates_line(&self) -> Option<String> {
        (!self.templates.is_empty()).then(|| {
            format!(
                "round-trip: {} resource templates, {} passed, {} failed",
                self.templates.len(),
                self.templates.len() - self.templates_failed(),
                self.templates_failed()
            )
        })
    }

    /// `round-trip: N tools, P passed, F failed, S skipped` — parsed by tooling, keep
    /// verbatim.
    pub fn summary_line(&self) -> String {
        format!(
            "round-trip: {} tools, {} passed, {} failed, {} skipped",
            self.tools.len(),
            self.passed(),
            self.failed(),
            self.skipped()
        )
    }

    /// One line per failed instance (at most `per_tool` per tool) and per skipped tool.
    pub fn detail_lines(&self, per_tool: usize) -> Vec<String> {
        let mut out = Vec::new();
        for t in &self.tools {
            match &t.verdict {
                Verdict::Passed(_) => {}
                Verdict::Skipped(why) => {
                    out.push(format!("{}/{}: skipped: {why}", t.server, t.tool));
                }
                Verdict::Failed(failures) => {
                    for f in failures.iter().take(per_tool) {
                        let back = match &f.returned {
                            Ok(v) => format!("came back {v}"),
                            Err(e) => format!("the type rejected it: {e}"),
                        };
                        out.push(format!(
                            "{}/{} ({}): FAILED {}\n    sent {}\n    {back}",
                            t.server,
                            t.tool,
                            f.side.as_str(),
                            f.problem,
                            f.instance
                        ));
                    }
                    if failures.len() > per_tool {
                        out.push(format!(
                            "{}/{}: … and {} more failed instances",
                            t.server,
                            t.tool,
                            failures.len() - per_tool
                        ));
                    }
                }
            }
        }
        for t in &self.templates {
            for f in t.failures.iter().take(per_tool) {
                out.push(format!(
                    "{}/resource template {}: FAILED {f}",
                    t.server, t.template
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn oracle(schema: Value) -> Oracle {
        Oracle::new(&schema).expect("builds")
    }

    #[test]
    fn equal_up_to_nulls_defaults_and_number_representation() {
        let o = oracle(json!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"]},
                "n": {"type": "number"},
                "page": {"type": "integer", "default": 1},
                "deep": {"$ref": "#/$defs/D"}
            },
            "$defs": {"D": {"type": "object", "properties": {"k": {"type": "boolean", "default": false}}}}
        }));
        // null dropped, 2 vs 2.0, default added, nested default dropped.
        o.check(
            &json!({"a": null, "n": 2, "deep": {"k": false}}),
            &json!({"n": 2.0, "page": 1, "deep": {}}),
        )
        .expect("equivalent");
    }

    #[test]
    fn differences_name_the_pointer() {
        let o = oracle(json!({
            "type": "object",
            "properties": {"tags": {"type": "array", "items": {"type": "object",
                "properties": {"name": {"type": "string"}}}}, "x": {}}
        }));
        let p = o
            .check(
                &json!({"tags": [{"name": "a"}, {"name": "b"}]}),
                &json!({"tags": [{"name": "a"}, {}]}),
            )
            .unwrap_err();
        assert_eq!(p.pointer, "/tags/1/name");
        assert!(p.message.contains("left out"), "{p}");
        let p = o.check(&json!({"tags": []}), &json!({})).unwrap_err();
        assert_eq!(p.pointer, "/tags");
        let p = o
            .check(&json!({"x": 1}), &json!({"x": {"1": null}}))
            .unwrap_err();
        assert_eq!(p.pointer, "/x");
    }

    #[test]
    fn invalid_output_is_a_problem_under_either_draft() {
        let o = oracle(
            json!({"type": "object", "properties": {"n": {"type": "integer",
            "minimum": 1}}, "required": ["n"]}),
        );
        let p = o.check(&json!({"n": 1}), &json!({})).unwrap_err();
        assert!(p.message.contains("invalid"), "{p}");
        let p = o.check(&json!({"n": 1}), &json!({"n": 0})).unwrap_err();
        assert_eq!(p.pointer, "/n");
    }

    #[test]
    fn summary_line_is_verbatim() {
        let mut r = RoundTrip::default();
        for (tool, verdict) in [
            ("a", Verdict::Passed(3)),
            ("b", Verdict::Skipped("the schema is `false`".into())),
            (
                "c",
                Verdict::Failed(vec![Failure {
                    side: Side::Input,
                    instance: json!({"d": 1}),
                    returned: Err("can only flatten structs and maps".into()),
                    problem: Problem {
                        pointer: String::new(),
                        message: "rejected".into(),
                    },
                }]),
            ),
        ] {
            r.tools.push(ToolRoundTrip {
                server: "s".into(),
                tool: tool.into(),
                verdict,
            });
        }
        assert_eq!(
            r.summary_line(),
            "round-trip: 3 tools, 1 passed, 1 failed, 1 skipped"
        );
        let lines = r.detail_lines(5);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[1].contains("s/c (arguments): FAILED at /: rejected"));
        assert!(lines[1].contains("can only flatten"));
        assert_eq!(r.templates_line(), None);
        for (template, failures) in [("ok", vec![]), ("bad", vec!["x".to_string()])] {
            r.templates.push(TemplateRoundTrip {
                server: "s".into(),
                template: template.into(),
                checked: 7,
                failures,
            });
        }
        assert_eq!(
            r.templates_line().as_deref(),
            Some("round-trip: 2 resource templates, 1 passed, 1 failed")
        );
        assert_eq!(
            r.detail_lines(5).last().map(String::as_str),
            Some("s/resource template bad: FAILED x")
        );
    }
}
