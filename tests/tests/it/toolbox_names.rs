//! The runtime's exported-name rule agrees with the compile-time constants' (`mcp_bindgen_core`)
//! and its OpenAI definitions hold their rules over every tool of every committed fixture
//! and the GitHub corpus; names are valid and unique; every exported `parameters` schema is valid JSON Schema (draft 2020-12); Anthropic
//! and Gemini definitions pass their format's checks over 46 more real servers; the
//! runtime's small argument validator agrees with the `jsonschema` crate on sample inputs.

use crate::common;
#[path = "../../../mcp-codegen/tests/it/support.rs"]
mod corpus;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use mcp_bindgen::toolbox::names::{MAX_NAME_LEN, assign_names, exported_name, is_valid_name};
use mcp_bindgen::toolbox::provider::openai::{
    function_definition, inline_refs, strict_function_definition,
};
use mcp_bindgen::toolbox::provider::{self, Format};
use mcp_bindgen::toolbox::{ToolboxOptions, export_offline};
use mcp_bindgen::{ServerConfig, validate};
use mcp_bindgen_core::fixture::Fixture;
use serde_json::{Value, json};

/// `(alias, tools)` of every committed fixture, plus the GitHub corpus.
/// `export_offline` of `sets`, each server with a bare configuration.
fn offline(
    sets: &[(String, Vec<Value>)],
    format: Format,
) -> (
    mcp_bindgen::toolbox::provider::ToolExport,
    Vec<mcp_bindgen::toolbox::names::NameCollision>,
) {
    let configured: Vec<(ServerConfig, Vec<Value>)> = sets
        .iter()
        .map(|(alias, tools)| {
            (
                ServerConfig::stdio(alias.clone(), "", vec![]),
                tools.clone(),
            )
        })
        .collect();
    export_offline(&configured, &ToolboxOptions::default(), format)
}

fn tool_sets() -> Vec<(String, Vec<Value>)> {
    let dir = common::root().join("fixtures");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 9, "{paths:?}");
    let mut out = Vec::new();
    for p in paths {
        let f = Fixture::load(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let alias = f.alias().map(str::to_string).unwrap_or_else(|| stem(&p));
        out.push((alias, f.tools.iter().map(|t| t.raw.clone()).collect()));
    }
    let Value::Array(tools) = corpus::github_corpus() else {
        panic!("the GitHub corpus is a tools array");
    };
    out.push(("github-official".to_string(), tools));
    out
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn desc(tool: &Value) -> Option<&str> {
    tool.get("description").and_then(Value::as_str)
}

fn schema(tool: &Value) -> Value {
    tool.get("inputSchema")
        .cloned()
        .unwrap_or_else(|| json!({}))
}

fn name(tool: &Value) -> &str {
    tool.get("name").and_then(Value::as_str).expect("tool name")
}

#[test]
fn names_and_definitions_hold_on_every_fixture_tool() {
    let mut checked = 0;
    let mut without_refs = 0;
    let mut inlined = 0;
    for (alias, tools) in tool_sets() {
        for tool in &tools {
            let (tool_name, d, s) = (name(tool), desc(tool), schema(tool));
            let exported = exported_name(&alias, tool_name);
            // The toolbox's names are the compile-time constants' names (`mcp_bindgen_core`).
            assert_eq!(
                exported,
                mcp_bindgen_core::naming::openai_name(&alias, tool_name),
                "{alias}.{tool_name}"
            );
            let plain = function_definition(&exported, d, &s);
            assert_eq!(plain["type"], "function", "{alias}.{tool_name}");
            assert_eq!(plain["function"]["name"], exported.as_str());
            // The input schema as OpenAI accepts it (root unions merged, `oneOf` as `anyOf`).
            assert_eq!(
                plain["function"]["parameters"],
                mcp_bindgen_core::provider::openai::accepted_parameters(&s).schema
            );
            assert_eq!(
                plain["function"].get("description").and_then(Value::as_str),
                d
            );
            let ours = strict_function_definition(&exported, d, &s);
            let text = s.to_string();
            if !text.contains("\"$ref\"")
                && !text.contains("\"$defs\"")
                && !text.contains("\"definitions\"")
            {
                without_refs += 1;
            } else {
                // References are inlined first, then the same strict rules apply: the
                // definition of the inlined schema is the same definition.
                match inline_refs(&s) {
                    Ok(flat) => assert_eq!(
                        ours,
                        strict_function_definition(&exported, d, &flat),
                        "strict (inlined) {alias}.{tool_name}"
                    ),
                    Err(reason) => assert_eq!(ours, Err(reason)),
                }
                inlined += 1;
            }
            if let Ok(def) = &ours {
                assert!(!def.to_string().contains("\"$ref\""), "{alias}.{tool_name}");
                assert_eq!(def["function"]["strict"], true, "{alias}.{tool_name}");
                assert_eq!(def["function"]["name"], exported.as_str());
            }
            checked += 1;
        }
    }
    assert!(checked >= 80, "{checked}");
    assert!(without_refs > 0 && inlined > 0, "{without_refs} {inlined}");
}

#[test]
fn exported_names_are_valid_unique_and_capped() {
    let sets = tool_sets();
    let pairs: Vec<(&str, &str)> = sets
        .iter()
        .flat_map(|(a, tools)| tools.iter().map(move |t| (a.as_str(), name(t))))
        .collect();
    let assigned = assign_names(pairs.iter().copied());
    assert_eq!(assigned.names.len(), pairs.len());
    let unique: BTreeSet<&String> = assigned.names.values().collect();
    assert_eq!(unique.len(), pairs.len());
    assert!(
        assigned
            .names
            .values()
            .all(|n| is_valid_name(n) && n.len() <= MAX_NAME_LEN)
    );
    // The committed fixtures collide nowhere: every name is the plain rule.
    assert!(assigned.collisions.is_empty(), "{:?}", assigned.collisions);

    // Synthetic hard cases: long names, non-ASCII, `.` and `-`, cross-server collisions.
    let long = "x".repeat(80);
    let cases = [
        ("a", "b.c"),
        ("a", "b_c"),
        ("a_b", "c"),
        ("fs", "read-file"),
        ("fs", "read.file"),
        ("fs", "read_file"),
        ("ü", "größe"),
        ("x", "größe"),
        ("x", "gr__e"),
        ("srv", long.as_str()),
        ("srv", &long[1..]),
    ];
    let a = assign_names(cases);
    let unique: BTreeSet<&String> = a.names.values().collect();
    assert_eq!(unique.len(), cases.len(), "{:?}", a.names);
    assert!(a.names.values().all(|n| is_valid_name(n)), "{:?}", a.names);
    let contested: BTreeSet<&str> = a.collisions.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        contested,
        BTreeSet::from(["mcp_a_b_c", "mcp_fs_read_file", "mcp_x_gr__e"])
    );
    assert_eq!(
        a.names[&("fs".to_string(), "read-file".to_string())],
        "mcp_fs_read-file"
    );
    assert_eq!(a.names[&("srv".to_string(), long.clone())].len(), 64);
}

#[test]
fn every_exported_schema_is_valid_json_schema() {
    let sets = tool_sets();
    for strict in [false, true] {
        let format = if strict {
            Format::OpenAiStrict
        } else {
            Format::OpenAi
        };
        let (export, collisions) = offline(&sets, format);
        assert!(collisions.is_empty());
        let total: usize = sets.iter().map(|(_, t)| t.len()).sum();
        assert_eq!(export.tools.len(), total);
        for def in &export.tools {
            let f = &def["function"];
            let n = f["name"].as_str().expect("name");
            assert!(is_valid_name(n), "{n}");
            let params = &f["parameters"];
            if let Err(e) = jsonschema::draft202012::meta::validate(params) {
                panic!("{n} (strict: {strict}): invalid JSON Schema: {e}\n{params}");
            }
            jsonschema::validator_for(params)
                .unwrap_or_else(|e| panic!("{n}: does not compile: {e}"));
            if f.get("strict") == Some(&json!(true)) {
                assert_strict_shape(params, n);
            }
        }
        if strict {
            // Fallbacks name the tool and a reason.
            assert!(export.fallbacks.iter().all(|f| !f.reason.is_empty()));
            let strict_count = export
                .tools
                .iter()
                .filter(|t| t["function"]["strict"] == json!(true))
                .count();
            assert_eq!(strict_count + export.fallbacks.len(), total);
            assert!(strict_count > 0);
        }
    }
}

/// Anthropic and Gemini: one definition per tool of every fixture — the committed ones, 46
/// real servers' and the generator's edge cases — each passing its format's check; the JSON Schemas they carry as they are
/// (Anthropic's `input_schema`, Gemini's `parametersJsonSchema` fallback) valid under draft
/// 2020-12 and compilable; every fallback names an exported tool and a reason.
#[test]
fn anthropic_and_gemini_definitions_for_every_tool() {
    let mut sets = tool_sets();
    sets.extend(fixture_sets("tests/corpus/real-servers", "real"));
    sets.extend(fixture_sets("mcp-codegen/tests/fixtures", "edge"));
    let total: usize = sets.iter().map(|(_, t)| t.len()).sum();
    assert!(total > 500, "{total} tools");
    let originals: BTreeMap<String, Value> = {
        let (openai, _) = offline(&sets, Format::OpenAi);
        openai
            .tools
            .iter()
            .map(|d| {
                (
                    d["function"]["name"].as_str().expect("name").to_string(),
                    d["function"]["parameters"].clone(),
                )
            })
            .collect()
    };
    for format in [Format::Anthropic, Format::Gemini] {
        let (export, collisions) = offline(&sets, format);
        assert_eq!(export.tools.len(), total, "{format}");
        let names: BTreeSet<&str> = export
            .tools
            .iter()
            .map(|d| format.name_of(d).expect("name"))
            .collect();
        assert_eq!(names.len(), total, "{format}: names not unique");
        assert_eq!(collisions.len(), 0);
        for def in &export.tools {
            let n = format.name_of(def).expect("name");
            provider::check(format, def).unwrap_or_else(|e| panic!("{format}: {e}\n{def}"));
            let carried = match format {
                Format::Anthropic => def.get("input_schema"),
                _ => def.get("parametersJsonSchema"),
            };
            if let Some(schema) = carried {
                if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
                    panic!("{format} {n}: invalid JSON Schema: {e}\n{schema}");
                }
                jsonschema::validator_for(schema)
                    .unwrap_or_else(|e| panic!("{format} {n}: does not compile: {e}"));
            }
        }
        let fallbacks = export.fallbacks.len();
        eprintln!("{format}: {total} tools, {fallbacks} fallbacks");
        for f in &export.fallbacks {
            assert!(!f.reason.is_empty());
            assert!(originals.contains_key(&f.exported));
        }
        // Most tools keep the format's own form.
        assert!(
            fallbacks * 4 < total,
            "{format}: {fallbacks} of {total} fell back"
        );
    }
}

/// The fixtures of `dir` (relative to the workspace; `*.options.json` sidecars left out)
/// under the aliases `<prefix>-<file stem>`.
fn fixture_sets(dir: &str, prefix: &str) -> Vec<(String, Vec<Value>)> {
    let dir = common::root().join(dir);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| !stem(p).ends_with(".options"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let f = Fixture::load(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let alias = format!("{prefix}-{}", stem(p));
            (alias, f.tools.iter().map(|t| t.raw.clone()).collect())
        })
        .collect()
}

/// Every object closed with every property required; no `format`, no `$ref`.
fn assert_strict_shape(schema: &Value, name: &str) {
    let Value::Object(o) = schema else { return };
    assert!(!o.contains_key("format"), "{name}: format left in {schema}");
    assert!(!o.contains_key("$ref"), "{name}: $ref left in {schema}");
    if let Some(Value::Object(props)) = o.get("properties") {
        assert_eq!(o.get("additionalProperties"), Some(&json!(false)), "{name}");
        let required: BTreeSet<&str> = o["required"]
            .as_array()
            .expect("required")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let keys: BTreeSet<&str> = props.keys().map(String::as_str).collect();
        assert_eq!(required, keys, "{name}");
        for p in props.values() {
            assert_strict_shape(p, name);
        }
    }
    for k in ["items", "anyOf"] {
        match o.get(k) {
            Some(Value::Array(list)) => list.iter().for_each(|s| assert_strict_shape(s, name)),
            Some(s) => assert_strict_shape(s, name),
            None => {}
        }
    }
}

#[test]
fn argument_validator_agrees_with_jsonschema_on_samples() {
    let mut compared = 0;
    for (alias, tools) in tool_sets() {
        for tool in &tools {
            let s = schema(tool);
            let Ok(reference) = jsonschema::validator_for(&s) else {
                continue;
            };
            // Samples: empty, an unexpected key, every property with a wrong-typed value,
            // and a value built from the required properties' types.
            let mut samples = vec![json!({}), json!({"__unexpected__": 1})];
            if let Some(props) = s.get("properties").and_then(Value::as_object) {
                let mut wrong = serde_json::Map::new();
                let mut right = serde_json::Map::new();
                for (k, p) in props {
                    wrong.insert(k.clone(), json!({"wrong": [true]}));
                    if let Some(v) = sample_for(p) {
                        right.insert(k.clone(), v);
                    }
                }
                samples.push(Value::Object(wrong));
                samples.push(Value::Object(right));
            }
            for sample in samples {
                if uses_unchecked_keywords(&s) {
                    continue;
                }
                let ours = validate::validate(&s, &sample).is_ok();
                let theirs = reference.is_valid(&sample);
                assert_eq!(
                    ours,
                    theirs,
                    "{alias}.{}: {sample} ({:?})",
                    name(tool),
                    validate::validate(&s, &sample)
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 200, "{compared}");
}

/// Keywords the runtime validator documents as not checked.
fn uses_unchecked_keywords(schema: &Value) -> bool {
    let t = schema.to_string();
    [
        "\"pattern\"",
        "\"format\"",
        "\"patternProperties\"",
        "\"dependencies\"",
        "\"if\"",
    ]
    .iter()
    .any(|k| t.contains(k))
}

fn sample_for(p: &Value) -> Option<Value> {
    let t = match p.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.first()?.as_str()?,
        _ => return None,
    };
    if let Some(Value::Array(e)) = p.get("enum") {
        return e.first().cloned();
    }
    Some(match t {
        "string" => json!("s"),
        "integer" => json!(p.get("minimum").and_then(Value::as_i64).unwrap_or(1).max(1)),
        "number" => json!(1.5),
        "boolean" => json!(true),
        "array" => json!([]),
        "object" => json!({}),
        "null" => Value::Null,
        _ => return None,
    })
}
