//! Property test: random (often hostile) tool schemas → `generate` returns code that `syn`
//! parses as a file, or an error; it never panics.
//!
//! Case count: `PROPTEST_CASES` (default 256 in debug builds, 10 000 in release builds:
//! `cargo test -p mcp-codegen --release --test property`).

use std::path::Path;

use mcp_codegen::fixture::Fixture;
use mcp_codegen::{Options, generate};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

const NAMES: &[&str] = &[
    "a",
    "b",
    "type",
    "ref",
    "self",
    "Self",
    "static",
    "box",
    "raw",
    "extra",
    "$meta",
    "@timestamp",
    "repo-name",
    "fooBar",
    "foo_bar",
    "FooBar",
    "",
    "1st",
    "é",
    "a b",
    "subtype_0",
    "crate",
    "super",
    "x-y",
    "items",
];
const STRINGS: &[&str] = &[
    "a",
    "A",
    "",
    "_",
    "-1",
    "+1",
    "reactions-+1",
    "reactions--1",
    "utf-8",
    "UTF-8",
    "x'y",
    "'''",
    "1",
    "self",
    "Self",
    "type",
    "a b",
    "a_b",
    "é",
    "null",
];
const REFS: &[&str] = &[
    "#",
    "#/$defs/X",
    "#/$defs/Item",
    "#/definitions/Y",
    "#/properties/a",
    "#/properties/a/items",
    "#anchor",
    "#/nope",
    "https://example.com/s.json",
    "other.json#/x",
    "#/$defs/X/properties/a",
    "#/%24defs/X",
    "",
];
const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "uuid",
    "email",
    "ipv4",
    "ipv6",
    "ip",
    "int32",
    "uint8",
    "weird",
];
const PATTERNS: &[&str] = &["^[a-z]+$", "(", "\\d+", ""];

fn pick(list: &'static [&'static str]) -> impl Strategy<Value = Value> {
    (0..list.len()).prop_map(move |i| json!(list[i]))
}

fn scalar_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-5i64..5).prop_map(Value::from),
        (-1.0e3f64..1.0e3).prop_map(|f| json!(f)),
        pick(STRINGS),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({})),
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({"type": "string"})),
        Just(json!({"type": "boolean"})),
        Just(json!({"type": "null"})),
        Just(json!({"type": "number"})),
        pick(FORMATS).prop_map(|f| json!({"type": "string", "format": f})),
        pick(PATTERNS).prop_map(|p| json!({"type": "string", "pattern": p, "minLength": 1})),
        (
            prop::option::of(-3.0f64..3.0),
            prop::option::of(-3.0f64..300.0),
            prop::option::of(pick(FORMATS))
        )
            .prop_map(|(min, max, f)| {
                let mut m = Map::new();
                m.insert("type".into(), json!("integer"));
                if let Some(v) = min {
                    m.insert("minimum".into(), json!(v.round()));
                }
                if let Some(v) = max {
                    m.insert("maximum".into(), json!(v.round()));
                }
                if let Some(f) = f {
                    m.insert("format".into(), f);
                }
                Value::Object(m)
            }),
        prop::collection::vec(scalar_value(), 0..6).prop_map(|v| json!({"enum": v})),
        prop::collection::vec(pick(STRINGS), 1..6)
            .prop_map(|v| json!({"type": "string", "enum": v})),
        scalar_value().prop_map(|v| json!({"const": v})),
        pick(REFS).prop_map(|r| json!({"$ref": r})),
        Just(json!({"$dynamicRef": "#node"})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"type": ["boolean", "string", "integer"]})),
        Just(json!({"type": "object", "additionalProperties": {"type": "string"}})),
        Just(json!({"type": "object", "additionalProperties": true})),
        Just(json!({"type": "object"})),
        Just(json!({"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2})),
        Just(json!({"type": "array", "uniqueItems": true, "items": {"type": "number"}})),
    ]
}

fn annotate(schema: Value, extra: (Option<Value>, Option<Value>, bool)) -> Value {
    let (title, default, describe) = extra;
    let Value::Object(mut m) = schema else {
        return schema;
    };
    if let Some(t) = title {
        m.insert("title".into(), t);
    }
    if let Some(d) = default {
        m.insert("default".into(), d);
    }
    if describe {
        m.insert(
            "description".into(),
            json!("Docs with ```\ncode\n``` and    indentation [link]"),
        );
    }
    Value::Object(m)
}

fn annotations() -> impl Strategy<Value = (Option<Value>, Option<Value>, bool)> {
    (
        prop::option::of(pick(STRINGS)),
        prop::option::of(scalar_value()),
        any::<bool>(),
    )
}

fn schema() -> impl Strategy<Value = Value> {
    (leaf(), annotations()).prop_map(|(s, a)| annotate(s, a)).prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            (prop::collection::btree_map(pick(NAMES).prop_map(|v| v.as_str().unwrap_or("").to_string()), inner.clone(), 0..6), any::<u8>(), prop::option::of(prop_oneof![Just(json!(false)), Just(json!(true)), inner.clone()]))
                .prop_map(|(props, req_mask, additional)| {
                    let required: Vec<Value> = props.keys().enumerate().filter(|(i, _)| req_mask & (1 << (i % 8)) != 0).map(|(_, k)| json!(k)).collect();
                    let mut m = Map::new();
                    m.insert("type".into(), json!("object"));
                    m.insert("properties".into(), Value::Object(props.into_iter().collect()));
                    m.insert("required".into(), Value::Array(required));
                    if let Some(a) = additional {
                        m.insert("additionalProperties".into(), a);
                    }
                    Value::Object(m)
                }),
            inner.clone().prop_map(|i| json!({"type": "array", "items": i})),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"type": "array", "items": v})),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"prefixItems": v, "type": "array"})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({"anyOf": v})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({"oneOf": v})),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"allOf": v})),
            inner.clone().prop_map(|i| json!({"anyOf": [i, {"type": "null"}]})),
            inner.clone().prop_map(|i| json!({"not": i})),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({"if": a, "then": b, "else": {}})),
            (inner.clone(), annotations()).prop_map(|(i, a)| annotate(i, a)),
            (pick(STRINGS), inner.clone()).prop_map(|(k, i)| json!({"type": "object", "properties": {"kind": {"const": k}, "v": i}, "required": ["kind"]})),
        ]
    })
}

fn root() -> impl Strategy<Value = Value> {
    (
        schema(),
        prop::option::of(schema()),
        prop::option::of(schema()),
        any::<bool>(),
        prop::option::of(pick(STRINGS)),
    )
        .prop_map(|(body, x, item, anchor, title)| {
            let mut root = match body {
                Value::Object(m) if m.get("type") == Some(&json!("object")) => m,
                other => {
                    let mut m = Map::new();
                    m.insert("type".into(), json!("object"));
                    m.insert("properties".into(), json!({"a": other}));
                    m
                }
            };
            let mut defs = Map::new();
            if let Some(x) = x {
                defs.insert("X".into(), x);
            }
            if let Some(mut item) = item {
                if anchor && let Some(m) = item.as_object_mut() {
                    m.insert("$anchor".into(), json!("anchor"));
                }
                defs.insert("Item".into(), item);
            }
            if !defs.is_empty() {
                root.insert("$defs".into(), Value::Object(defs));
            }
            if let Some(t) = title {
                root.insert("title".into(), t);
            }
            Value::Object(root)
        })
}

fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![
        pick(STRINGS).prop_map(|v| v.as_str().unwrap_or("").to_string()),
        "[a-zA-Z0-9_.-]{1,20}",
        Just("new".to_string()),
        Just("x".repeat(130)),
    ]
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 256 } else { 10_000 })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generator_never_panics(
        tools in prop::collection::vec((tool_name(), root(), prop::option::of(root())), 1..4),
    ) {
        let tools: Vec<Value> = tools
            .into_iter()
            .map(|(name, input, output)| {
                let mut t = json!({"name": name, "description": "random", "inputSchema": input});
                if let Some(o) = output {
                    t["outputSchema"] = o;
                }
                t
            })
            .collect();
        let doc = json!({ "tools": tools });
        if let Some(dump) = std::env::var_os("MCPBG_DUMP_CASE") {
            // Debugging aid: the last case survives a crash (stack overflow aborts).
            let _ = std::fs::write(dump, doc.to_string());
        }
        let fixture = Fixture::from_slice(doc.to_string().as_bytes(), Path::new("random.json")).expect("fixture");
        match generate(&fixture, "random", &Options::default()) {
            Ok(generated) => {
                let parsed = syn::parse2::<syn::File>(generated.tokens);
                prop_assert!(parsed.is_ok(), "does not parse: {:?}\n{}", parsed.err(), doc);
                prop_assert_eq!(generated.stats.tools, fixture.tools.len());
            }
            Err(e) => {
                let text = e.to_string();
                prop_assert!(!text.is_empty());
            }
        }
    }
}
