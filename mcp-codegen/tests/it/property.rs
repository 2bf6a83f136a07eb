//! Property test: random (often hostile) tool schemas → `generate` returns code that `syn`
//! parses as a file, or an error; it never panics.
//!
//! Case count: `PROPTEST_CASES` (default 256 in debug builds, 10 000 in release builds:
//! `cargo test -p mcp-bindgen-codegen --release --test it property::`).
//!
//! A sample of them is compiled: `sampled_fixtures_are_current` draws 28 tools from the same
//! strategy with a fixed seed (24 fully typed, 4 fallbacks, covering every shape the
//! strategy produces) and checks them in as fixtures of the `mcp-bindgen-tests` package,
//! with a trybuild pass file that binds them with `mcp_tools!` (see "The compiled sample"
//! below).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use mcp_bindgen_codegen::{Generated, Options, Typing, generate};
use mcp_bindgen_core::fixture::{Fixture, build_document, canonical_json};
use mcp_bindgen_core::naming;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
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

/// One tool object of a fixture.
fn tool_value((name, input, output): (String, Value, Option<Value>)) -> Value {
    let mut t = json!({"name": name, "description": "random", "inputSchema": input});
    if let Some(o) = output {
        t["outputSchema"] = o;
    }
    t
}

/// The fixture of drawn tools (name, input schema, output schema), as JSON and loaded. A
/// fixture lists each tool once (a snapshot refuses a server that does not): later tools of
/// a name already drawn are left out.
fn random_fixture(tools: Vec<(String, Value, Option<Value>)>) -> (Value, Fixture) {
    let mut names = std::collections::HashSet::new();
    let tools: Vec<Value> = tools
        .into_iter()
        .filter(|(name, _, _)| names.insert(name.clone()))
        .map(tool_value)
        .collect();
    let doc = json!({ "tools": tools });
    let fixture =
        Fixture::from_slice(doc.to_string().as_bytes(), Path::new("random.json")).expect("fixture");
    (doc, fixture)
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 256 } else { 10_000 })
}

/// How long one random fixture may take to generate (a debug build takes about 10 ms a
/// case: 10 000 cases in about 100 s).
const CASE_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

proptest! {
    // Shrinking a failure is bounded too (2 minutes): a slow case would otherwise be tried
    // again for every smaller schema.
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, max_shrink_time: 120_000, ..ProptestConfig::default() })]

    #[test]
    fn generator_never_panics(
        tools in prop::collection::vec((tool_name(), root(), prop::option::of(root())), 1..4),
    ) {
        let (doc, fixture) = random_fixture(tools);
        if let Some(dump) = std::env::var_os("MCPBG_DUMP_CASE") {
            // Debugging aid: the last case survives a crash (stack overflow aborts).
            let _ = std::fs::write(dump, doc.to_string());
        }
        // On a thread of its own, so that a schema the generator never finishes with fails
        // the test within a minute, naming the schema, instead of holding up the run.
        let (sent, received) = std::sync::mpsc::channel();
        let input = fixture.clone();
        std::thread::spawn(move || {
            let _ = sent.send(generate(&input, "random", &Options::default()).map_err(|e| e.to_string()));
        });
        match received.recv_timeout(CASE_LIMIT) {
            Ok(Ok(generated)) => {
                let parsed = syn::parse_str::<syn::File>(&generated.code);
                prop_assert!(parsed.is_ok(), "does not parse: {:?}\n{}", parsed.err(), doc);
                prop_assert_eq!(generated.stats.tools, fixture.tools.len());
            }
            Ok(Err(text)) => prop_assert!(!text.is_empty()),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                prop_assert!(false, "the generator ran over {CASE_LIMIT:?} on {}", doc)
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                prop_assert!(false, "the generator panicked on {}", doc)
            }
        }
    }

    /// The direct path (plain object schemas written without typify) writes what typify's
    /// path writes: the same expansion, byte for byte, or the same error.
    #[test]
    fn the_direct_path_matches_typify(
        tools in prop::collection::vec((tool_name(), root(), prop::option::of(root())), 1..4),
    ) {
        let (doc, fixture) = random_fixture(tools);
        let direct = mcp_bindgen_codegen::expand_to_string(&fixture, "random", &Options::default()).map_err(|e| e.to_string());
        let typify = mcp_bindgen_codegen::expand_to_string(&fixture, "random", &Options::default().with_typify_only()).map_err(|e| e.to_string());
        prop_assert!(direct == typify, "the paths differ on {}\n--- direct\n{:?}\n--- typify\n{:?}", doc, direct, typify);
    }
}

/// Keywords the instance generator does not model, or models approximately: instances of a
/// schema that uses one may be invalid (callers validate them and drop those). A value of
/// one `oneOf` branch may match another too, and `allOf` parts are merged into one schema
/// (an `additionalProperties` of one part then misses the others' properties).
const NOT_MODELLED: &[&str] = &[
    "\"not\"",
    "\"if\"",
    "\"$dynamicRef\"",
    "\"oneOf\"",
    "\"allOf\"",
];

proptest! {
    // Shrinking a failure is bounded (2 minutes), as above.
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, max_shrink_time: 120_000, ..ProptestConfig::default() })]

    /// The oracle's side of the round trip on random schemas: the instance generator never
    /// panics, and every instance it makes is valid for the schema (draft 2020-12, and
    /// draft-07 where it applies) unless the schema uses a keyword it does not model.
    #[test]
    fn oracle_instances_are_valid(schema in root()) {
        if let Some(dump) = std::env::var_os("MCPBG_DUMP_CASE") {
            let _ = std::fs::write(dump, schema.to_string());
        }
        let generated = mcp_bindgen_codegen::instances::generate(&schema, &mcp_bindgen_codegen::instances::Options::default());
        prop_assert!(generated.instances.is_empty() == generated.skipped.is_some());
        let Ok(oracle) = mcp_bindgen_codegen::oracle::Oracle::new(&schema) else {
            // Not valid JSON Schema under either draft (a `$ref` that does not resolve, an
            // invalid `pattern`): nothing to validate against.
            return Ok(());
        };
        let text = schema.to_string();
        if NOT_MODELLED.iter().any(|k| text.contains(k)) {
            return Ok(());
        }
        for instance in &generated.instances {
            let valid = oracle.validate(instance);
            prop_assert!(valid.is_ok(), "{instance} is invalid for {schema}: {valid:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// The compiled sample.
//
// A fixed-seed draw from the same strategy picks tools that cover the strategy's shapes
// (mostly fully typed, a few fallbacks) and commits them as fixtures under
// `tests/ui/fixtures/sample_*.json` of the `mcp-bindgen-tests` package, together with the
// trybuild pass file `tests/ui/property/sampled.rs` that expands `mcp_tools!` for each of
// them and round-trips sample instances through every generated argument and result type
// (run by `tests/tests/it/ui.rs`). `sampled_fixtures_are_current` regenerates
// both and compares; `UPDATE_GOLDENS=1 cargo test -p mcp-bindgen-codegen --test it property::` rewrites
// them (needed after a generator change that moves a sampled tool between typed and
// fallback, or a proptest update that changes the draw).
// ---------------------------------------------------------------------------------------

/// Fully typed tools in the sample.
const SAMPLE_TYPED: usize = 24;
/// Tools with untyped arguments or result in the sample.
const SAMPLE_FALLBACK: usize = 4;
/// Tools per sampled fixture file.
const SAMPLE_PER_FILE: usize = 7;
/// Each shape in at least this many typed tools (when the draw allows).
const SAMPLE_COVER: usize = 3;
/// After this many draws, take any typed tool (not only one adding coverage).
const SAMPLE_PICKY_DRAWS: usize = 500;
/// Give up after this many draws.
const SAMPLE_MAX_DRAWS: usize = 5_000;
/// Candidate instances per schema.
const SAMPLE_INSTANCES: usize = 4;
/// The sampler's ChaCha seed.
const SAMPLE_SEED: [u8; 32] = *b"mcp-bindgen property sample seed";

fn sample_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ui/property")
}

/// Where the sampled fixtures are committed: beside the UI tests' own fixtures (one
/// `MCP_FIXTURES_DIR` for every trybuild case), as `sample_<n>.json`.
fn sample_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ui/fixtures")
}

/// A sampled fixture (`sample_<n>.json`), not one of the UI tests' own.
fn is_sample(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("sample_") && n.ends_with(".json"))
}

/// Shapes a tool's schemas show (the sample covers each of them).
fn shapes(tool: &Value, report: &mcp_bindgen_codegen::ToolReport) -> BTreeSet<&'static str> {
    let mut out = BTreeSet::new();
    if !naming::is_plain_ident(tool["name"].as_str().unwrap_or("")) {
        out.insert("odd tool name");
    }
    match &report.args {
        Typing::NoArgs => {
            out.insert("no arguments");
        }
        Typing::Untyped(_) => {
            out.insert("untyped arguments");
        }
        Typing::Typed => {}
    }
    match &report.output {
        Some(Typing::Untyped(_)) => {
            out.insert("untyped output");
        }
        Some(_) => {
            out.insert("typed output");
        }
        None => {}
    }
    shapes_of(&tool["inputSchema"], 0, &mut out);
    if let Some(o) = tool.get("outputSchema") {
        shapes_of(o, 0, &mut out);
    }
    out
}

fn shapes_of(schema: &Value, depth: usize, out: &mut BTreeSet<&'static str>) {
    match schema {
        Value::Object(m) => {
            if let Some(Value::Object(props)) = m.get("properties") {
                if depth > 0 {
                    out.insert("nested object");
                }
                if props.keys().any(|k| !naming::is_plain_ident(k)) {
                    out.insert("odd property name");
                }
                let required = m.get("required").and_then(Value::as_array);
                if required.is_some_and(|r| !r.is_empty()) {
                    out.insert("required property");
                }
            }
            match m.get("type") {
                Some(Value::String(t)) if t == "array" => {
                    out.insert("array");
                }
                Some(Value::String(t)) if t == "null" => {
                    out.insert("null");
                }
                Some(Value::Array(ts)) if ts.contains(&json!("null")) => {
                    out.insert("nullable");
                }
                Some(Value::Array(_)) => {
                    out.insert("type list");
                }
                _ => {}
            }
            if let Some(Value::Array(branches)) = m.get("anyOf")
                && branches.contains(&json!({"type": "null"}))
            {
                out.insert("nullable");
            }
            if m.contains_key("prefixItems") || m.get("items").is_some_and(Value::is_array) {
                out.insert("tuple");
            }
            if matches!(m.get("additionalProperties"), Some(Value::Object(_))) {
                out.insert("map");
            }
            if m.contains_key("minimum") || m.contains_key("maximum") {
                out.insert("bounds");
            }
            for (key, shape) in [
                ("enum", "enum"),
                ("const", "const"),
                ("$ref", "$ref"),
                ("$defs", "$defs"),
                ("anyOf", "anyOf"),
                ("oneOf", "oneOf"),
                ("allOf", "allOf"),
                ("not", "not"),
                ("if", "if/then/else"),
                ("format", "format"),
                ("pattern", "pattern"),
                ("default", "default"),
                ("title", "title"),
                ("$anchor", "$anchor"),
            ] {
                if m.contains_key(key) {
                    out.insert(shape);
                }
            }
            for (k, v) in m {
                if !matches!(k.as_str(), "enum" | "const" | "default") {
                    shapes_of(v, depth + 1, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| shapes_of(v, depth, out)),
        _ => {}
    }
}

fn generate_doc(doc: &Value, alias: &str) -> Option<(Fixture, Generated)> {
    let fixture = Fixture::from_slice(doc.to_string().as_bytes(), Path::new("sample.json")).ok()?;
    let generated = generate(&fixture, alias, &Options::default()).ok()?;
    syn::parse_str::<syn::File>(&generated.code).ok()?;
    Some((fixture, generated))
}

/// The sampled fixtures (alias, tools), by a fixed-seed draw from the strategy.
fn draw_sample() -> Vec<(String, Vec<Value>)> {
    let config = Config {
        rng_algorithm: RngAlgorithm::ChaCha,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &SAMPLE_SEED);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let strategy = (tool_name(), root(), prop::option::of(root()));
    let files = (SAMPLE_TYPED + SAMPLE_FALLBACK).div_ceil(SAMPLE_PER_FILE);
    let mut groups: Vec<Vec<Value>> = vec![Vec::new(); files];
    let (mut typed, mut fallback) = (0, 0);
    let mut covered: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut fallback_reasons: BTreeSet<String> = BTreeSet::new();
    let mut draws = 0;
    for draw in 0..SAMPLE_MAX_DRAWS {
        if typed == SAMPLE_TYPED && fallback == SAMPLE_FALLBACK {
            break;
        }
        draws = draw + 1;
        let tool = tool_value(strategy.new_tree(&mut runner).expect("draw").current());
        let Some((_, g)) = generate_doc(&json!({ "tools": [tool.clone()] }), "sample") else {
            continue;
        };
        let report = &g.tools[0];
        let found = shapes(&tool, report);
        if report.fully_typed() {
            let new = found.iter().any(|s| {
                *s != "no arguments" && covered.get(s).copied().unwrap_or(0) < SAMPLE_COVER
            });
            let no_args = matches!(report.args, Typing::NoArgs);
            if typed == SAMPLE_TYPED || (no_args && covered.contains_key("no arguments")) {
                continue;
            }
            if !new && draw < SAMPLE_PICKY_DRAWS {
                continue;
            }
        } else {
            // One fallback per distinct reason kind (the reason's first words).
            let reason = report.reasons().join("; ");
            let kind: String = reason.split(' ').take(4).collect::<Vec<_>>().join(" ");
            if fallback == SAMPLE_FALLBACK || fallback_reasons.contains(&kind) {
                continue;
            }
            fallback_reasons.insert(kind);
        }
        // Into the first file where it does not clash with the tools already there.
        let mut placed = false;
        for (i, group) in groups.iter_mut().enumerate() {
            if group.len() == SAMPLE_PER_FILE {
                continue;
            }
            let mut tools = group.clone();
            tools.push(tool.clone());
            let alias = format!("sample_{}", i + 1);
            if let Some((_, g2)) = generate_doc(&json!({ "tools": tools }), &alias) {
                let before: usize = group.len();
                let typed_now = g2.tools.iter().filter(|t| t.fully_typed()).count();
                let typed_before = generate_doc(&json!({ "tools": group.clone() }), &alias)
                    .map(|(_, g)| g.tools.iter().filter(|t| t.fully_typed()).count())
                    .unwrap_or(0);
                let expected = typed_before + usize::from(report.fully_typed());
                if g2.tools.len() == before + 1 && typed_now == expected {
                    group.push(tool.clone());
                    placed = true;
                    break;
                }
            }
        }
        if !placed {
            continue;
        }
        if report.fully_typed() {
            typed += 1;
        } else {
            fallback += 1;
        }
        for s in found {
            *covered.entry(s).or_default() += 1;
        }
    }
    println!("sample: {draws} draws; shapes (tools covering each): {covered:?}");
    groups
        .into_iter()
        .enumerate()
        .filter(|(_, g)| !g.is_empty())
        .map(|(i, tools)| (format!("sample_{}", i + 1), tools))
        .collect()
}

/// Up to [`SAMPLE_INSTANCES`] instances of a schema, from the oracle's generator.
fn instances(schema: &Value) -> Vec<String> {
    let options = mcp_bindgen_codegen::instances::Options {
        max_instances: SAMPLE_INSTANCES,
        ..mcp_bindgen_codegen::instances::Options::default()
    };
    mcp_bindgen_codegen::instances::generate(schema, &options)
        .instances
        .iter()
        // Keys sorted: the same text with serde_json's `preserve_order` on or off.
        .map(|i| mcp_bindgen_core::fixture::sort_keys(i).to_string())
        .collect()
}

fn raw_string(text: &str) -> String {
    let mut hashes = String::from("#");
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    format!("r{hashes}\"{text}\"{hashes}")
}

fn instance_list(schema: &Value) -> String {
    let items: Vec<String> = instances(schema)
        .iter()
        .map(|i| format!("            {},\n", raw_string(i)))
        .collect();
    format!("&[\n{}        ]", items.concat())
}

/// The trybuild pass file for the sampled fixtures.
fn pass_file(samples: &[(String, Fixture, Generated)]) -> String {
    let mut out = String::new();
    out.push_str(
        "//! Generated by `mcp-codegen/tests/it/property.rs` (`UPDATE_GOLDENS=1 cargo test -p\n\
         //! mcp-bindgen-codegen --test it property::`); do not edit. `mcp_tools!` over the sampled random\n\
         //! fixtures `sample_*.json` in `tests/ui/fixtures/` compiles without warnings, and every generated argument and\n\
         //! result type round-trips the sample instances that are valid for its schema.\n",
    );
    let warns = samples.iter().any(|(_, _, g)| {
        g.warnings
            .iter()
            .any(|w| !matches!(w.kind, mcp_bindgen_codegen::WarningKind::Note))
    });
    out.push_str("#![deny(warnings)]\n");
    if warns {
        out.push_str("// Fallbacks are reported as deprecation warnings by the macro.\n#![allow(deprecated)]\n");
    }
    out.push('\n');
    for (alias, _, _) in samples {
        out.push_str(&format!("mcp_bindgen::mcp_tools!(\"{alias}\");\n"));
    }
    out.push_str("\n#[path = \"support/check.rs\"]\nmod check;\n\nfn main() {\n    let mut c = check::Checks::default();\n");
    for (alias, fixture, g) in samples {
        let module = naming::alias_module(alias);
        for (tool, report) in fixture.tools.iter().zip(&g.tools) {
            let path = format!("{module}::{}", report.function);
            out.push_str(&format!("    // {alias}: {:?}\n", tool.name));
            match &report.args {
                Typing::NoArgs => {}
                typing => out.push_str(&format!(
                    "    c.args::<{path}::Args>(\n        {path}::TOOL.name,\n        {},\n        {path}::TOOL.input_schema,\n        {},\n    );\n",
                    matches!(typing, Typing::Typed),
                    instance_list(&tool.input_schema)
                )),
            }
            if let (Some(Typing::Typed), Some(schema)) = (&report.output, &tool.output_schema) {
                out.push_str(&format!(
                    "    c.output::<{path}::Output>(\n        {path}::TOOL.name,\n        {path}::TOOL.output_schema,\n        {},\n    );\n",
                    instance_list(schema)
                ));
            }
        }
    }
    out.push_str("    c.finish();\n}\n");
    for (alias, _, g) in samples {
        let module = naming::alias_module(alias);
        out.push_str(&format!(
            "\n/// Every client method, with its argument and result types (compiled, never run).\n#[allow(dead_code)]\nasync fn api_{module}(client: &{module}::Client) {{\n"
        ));
        for report in &g.tools {
            let f = &report.function;
            let result = match &report.output {
                Some(Typing::Typed) => format!("{module}::{f}::Output"),
                _ => "::mcp_bindgen::ToolOutput".to_string(),
            };
            let args = match report.args {
                Typing::NoArgs => String::new(),
                _ => "check::any()".to_string(),
            };
            out.push_str(&format!(
                "    let _: ::mcp_bindgen::Result<{result}> = client.{f}({args}).await;\n    let _: ::mcp_bindgen::Result<{result}> = client\n        .with_options(::mcp_bindgen::CallOptions::default())\n        .{f}({args})\n        .await;\n"
            ));
        }
        out.push_str("}\n");
    }
    out
}

/// The sampled fixture files and the pass file: (path, content).
fn sample_files() -> Vec<(PathBuf, String)> {
    let dir = sample_dir();
    let mut files = Vec::new();
    let mut samples = Vec::new();
    let (mut typed, mut fallback) = (0, 0);
    for (alias, tools) in draw_sample() {
        let server = json!({"alias": alias, "name": "property-test sample (mcp-codegen/tests/it/property.rs)"});
        let doc = build_document(server, tools, Map::new());
        let text = canonical_json(&doc);
        let (fixture, g) = generate_doc(&doc, &alias).expect("sampled fixture generates");
        typed += g.stats.typed;
        fallback += g.stats.fallback;
        println!(
            "{alias}: {} tools, {} typed, {} fallback",
            g.stats.tools, g.stats.typed, g.stats.fallback
        );
        files.push((sample_fixtures().join(format!("{alias}.json")), text));
        samples.push((alias, fixture, g));
    }
    println!("sample: {typed} fully typed, {fallback} fallback");
    assert!(
        typed >= 20 && typed >= 4 * fallback,
        "the sample is mostly typed"
    );
    files.push((dir.join("sampled.rs"), pass_file(&samples)));
    files
}

/// The committed sample is what the fixed-seed draw gives (`UPDATE_GOLDENS=1` rewrites it).
#[test]
fn sampled_fixtures_are_current() {
    let files = sample_files();
    let update = std::env::var_os("UPDATE_GOLDENS").is_some();
    let fixtures = sample_fixtures();
    if update {
        for entry in std::fs::read_dir(&fixtures).expect("sample dir").flatten() {
            if is_sample(&entry.path()) {
                std::fs::remove_file(entry.path()).expect("remove a stale sample");
            }
        }
    }
    let mut on_disk: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| is_sample(p))
                .collect()
        })
        .unwrap_or_default();
    on_disk.sort();
    for (path, content) in &files {
        if update {
            std::fs::write(path, content).expect("write the sample");
            continue;
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == *content,
            "{} is stale; run `UPDATE_GOLDENS=1 cargo test -p mcp-bindgen-codegen --test it property::` and review the diff",
            path.display()
        );
    }
    if !update {
        let expected: Vec<&PathBuf> = files
            .iter()
            .map(|(p, _)| p)
            .filter(|p| is_sample(p))
            .collect();
        assert_eq!(
            on_disk.iter().collect::<Vec<_>>(),
            expected,
            "stale sampled fixtures"
        );
    }
}
