//! The token budget: counts written by `generate` (`tokens`, `max_tokens`), the compact
//! definitions (every format's check still passes and every value valid under the full
//! schema is valid under the compact one, on every corpus), and names that a reordered or
//! grown tool list leaves alone.

use std::path::{Path, PathBuf};

use mcp_bindgen_codegen::budget;
use mcp_bindgen_codegen::instances;
use mcp_bindgen_codegen::{Error, Options, generate};
use mcp_bindgen_core::fixture::Fixture;
use mcp_bindgen_core::provider::{self, Format, Tokens};
use serde_json::{Value, json};

use crate::support;

fn github() -> Fixture {
    let doc = json!({ "server": { "alias": "github" }, "tools": support::github_corpus() });
    Fixture::from_slice(
        doc.to_string().as_bytes(),
        Path::new("github-official/tools.json"),
    )
    .expect("fixture")
}

/// Every corpus: GitHub's 117 tools, the real servers' snapshots, the committed fixtures and
/// the property test's sample (`tests/ui/fixtures/sample_*.json`).
fn corpora() -> Vec<(String, Fixture)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = vec![("github".to_string(), github())];
    for (dir, prefix) in [
        ("tests/corpus/real-servers", ""),
        ("fixtures", ""),
        ("tests/ui/fixtures", "sample_"),
    ] {
        let dir: PathBuf = root.join(dir);
        let loaded = mcp_bindgen_core::fixture::load_dir(&dir)
            .unwrap_or_else(|e| panic!("{} is part of the repository: {e}", dir.display()));
        let loaded: Vec<_> = loaded
            .into_iter()
            .filter(|(path, _)| {
                path.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
            })
            .collect();
        assert!(!loaded.is_empty(), "no fixture in {}", dir.display());
        for (path, fixture) in loaded {
            let fixture = fixture.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let alias = mcp_bindgen_codegen::verify::alias_of(&fixture);
            out.push((alias, fixture));
        }
    }
    out
}

#[test]
fn tokens_are_written_per_tool_and_in_total() {
    let fixture = github();
    let generated = generate(&fixture, "github", &Options::default().with_tokens()).unwrap();
    let code: String = generated.code.split_whitespace().collect();
    let mut sum = Tokens::default();
    for tool in &fixture.tools {
        let t = budget::tool_tokens("github", tool).unwrap();
        assert!(
            t.full > 0 && t.compact > 0 && t.compact <= t.full,
            "{}: {t:?}",
            tool.name
        );
        sum = sum.plus(t);
        let constant = format!("Tokens::new({},{})", t.full, t.compact);
        assert!(code.contains(&constant), "{}: {constant}", tool.name);
    }
    let total = format!(
        "constTOKENS:::mcp_bindgen::toolbox::Tokens=::mcp_bindgen::toolbox::Tokens::new({},{})",
        sum.full, sum.compact
    );
    assert_eq!(
        code.matches("pubconstTOKENS").count(),
        fixture.tools.len() + 1
    );
    assert!(code.contains(&total), "{total}");
    println!(
        "github: {} tools, {} tokens as OpenAI functions, {} compact",
        fixture.tools.len(),
        sum.full,
        sum.compact
    );
    // Without the option, no counts.
    let plain = generate(&fixture, "github", &Options::default()).unwrap();
    assert!(!plain.code.contains("TOKENS"));
}

#[test]
fn a_tool_list_over_its_budget_is_an_error_that_says_how_to_fit() {
    let fixture = github();
    let e = generate(
        &fixture,
        "github",
        &Options::default().with_max_tokens(5000),
    )
    .expect_err("117 tools take more than 5000 tokens");
    let Error::OverBudget(over) = &e else {
        panic!("{e}")
    };
    let text = e.to_string();
    assert!(text.contains("over max_tokens = 5000"), "{text}");
    assert!(text.contains("the 117 tools bound cost"), "{text}");
    assert!(text.contains("ToolboxBuilder::progressive"), "{text}");
    // The compact form (25 711 tokens) does not fit 5 000: not offered.
    assert!(!text.contains("ToolboxBuilder::compact"), "{text}");
    assert_eq!(e.option_entry(), Some(("max_tokens", String::new())));
    // The advice is right: skipping the named tools fits.
    let skip = over.skip_to_fit.clone().expect("a list fits");
    let fits = generate(
        &fixture,
        "github",
        &Options::default()
            .with_max_tokens(5000)
            .with_skip(skip.clone()),
    );
    // Skipping the largest tools until the rest fit leaves many tools: name them to fit.
    if skip.len() < 117 {
        fits.expect("the rest fit");
    }
    // A budget it meets is no error.
    generate(
        &fixture,
        "github",
        &Options::default().with_max_tokens(1_000_000),
    )
    .unwrap();
}

#[test]
fn compact_definitions_pass_every_check_and_accept_every_valid_value() {
    let mut tools = 0;
    let mut instances_checked = 0;
    for (alias, fixture) in corpora() {
        for tool in &fixture.tools {
            tools += 1;
            let name = mcp_bindgen_core::naming::openai_name(&alias, &tool.name);
            for format in Format::ALL {
                let (d, _) = provider::compact_definition(
                    format,
                    &name,
                    tool.description.as_deref(),
                    &tool.input_schema,
                );
                provider::check(format, &d)
                    .unwrap_or_else(|e| panic!("{alias}/{}: {format}: {e}", tool.name));
            }
            // Every instance valid under the full schema is valid under the compact one.
            let full = instances::arguments_schema(&tool.input_schema);
            let Ok(full_validator) = jsonschema::validator_for(&full) else {
                continue; // a schema the validator cannot compile (none is lost: not compacted either)
            };
            for format in [Format::OpenAi, Format::Gemini] {
                let compact = provider::compact::compact(format, &full);
                let validator = jsonschema::validator_for(&compact)
                    .unwrap_or_else(|e| panic!("{alias}/{}: compact schema: {e}", tool.name));
                for value in instances::generate(&full, &instances::Options::default()).instances {
                    if full_validator.is_valid(&value) {
                        instances_checked += 1;
                        assert!(
                            validator.is_valid(&value),
                            "{alias}/{}: {value} is valid under the full schema, not the compact one",
                            tool.name
                        );
                    }
                }
            }
        }
    }
    println!("compact: {tools} tools, {instances_checked} valid values accepted by both forms");
    assert!(tools > 1000, "{tools}");
    assert!(instances_checked > 10_000, "{instances_checked}");
}

#[test]
fn every_format_accepts_every_value_the_server_accepts() {
    // The rewrites that make a definition acceptable to its provider (a root union merged,
    // `additionalProperties: {}` as `true`, `oneOf` as `anyOf`, Gemini's fallback) only widen:
    // every instance valid under the input schema is valid under each exported schema.
    let mut checked = 0;
    for (alias, fixture) in corpora() {
        for tool in &fixture.tools {
            let full = instances::arguments_schema(&tool.input_schema);
            let Ok(full_validator) = jsonschema::validator_for(&full) else {
                continue;
            };
            let values: Vec<serde_json::Value> =
                instances::generate(&full, &instances::Options::default())
                    .instances
                    .into_iter()
                    .filter(|v| full_validator.is_valid(v))
                    .collect();
            let name = mcp_bindgen_core::naming::openai_name(&alias, &tool.name);
            for format in [
                Format::OpenAi,
                Format::OpenAiResponses,
                Format::Anthropic,
                Format::Gemini,
            ] {
                let (d, _) = provider::definition(format, &name, None, &tool.input_schema);
                let exported = match format {
                    Format::OpenAi => &d["function"]["parameters"],
                    Format::OpenAiResponses if d["strict"] == false => &d["parameters"],
                    Format::Anthropic => &d["input_schema"],
                    Format::Gemini if d.get("parametersJsonSchema").is_some() => {
                        &d["parametersJsonSchema"]
                    }
                    _ => continue,
                };
                let validator = jsonschema::validator_for(exported)
                    .unwrap_or_else(|e| panic!("{alias}/{}: {format}: {e}", tool.name));
                for value in &values {
                    checked += 1;
                    assert!(
                        validator.is_valid(value),
                        "{alias}/{}: {format}: {value} is valid under the input schema, not the export",
                        tool.name
                    );
                }
            }
        }
    }
    println!("exports: {checked} valid values accepted by the plain exports");
    assert!(checked > 10_000, "{checked}");
}

/// The count remembers the pieces it has seen (`budget::count`); it must agree with the
/// encoding's own count on every definition of every corpus, on first sight and from
/// memory, and on text outside ASCII.
#[test]
fn remembered_counts_equal_the_encodings_own() {
    let encoding = bpe_openai::o200k_base();
    let mut texts = vec![
        "naïve café — 東京 🚀 \u{1F680}\n\ttabs".to_string(),
        "Ω≈ç√∫ 0123456789 ǅ".to_string(),
        String::new(),
    ];
    for (alias, fixture) in corpora() {
        for tool in &fixture.tools {
            let name = mcp_bindgen_core::naming::openai_name(&alias, &tool.name);
            let description = tool.description.as_deref();
            for format in Format::ALL {
                for (d, _) in [
                    provider::definition(format, &name, description, &tool.input_schema),
                    provider::compact_definition(format, &name, description, &tool.input_schema),
                ] {
                    texts.push(d.to_string());
                }
            }
        }
    }
    for round in ["first", "remembered"] {
        for text in &texts {
            assert_eq!(
                budget::count(text).unwrap(),
                encoding.count(text.as_str()),
                "{round}: {text}"
            );
        }
    }
    assert!(texts.len() > 10_000, "{}", texts.len());
}

/// Function names, exported names and the order of a tool list do not depend on the
/// order of the fixture's tools, and a tool added changes none of the others.
#[test]
fn reordering_or_adding_a_tool_changes_no_name() {
    let tools = support::github_corpus();
    let names = |tools: &Value| -> Vec<(String, String, String)> {
        let doc = json!({ "server": { "alias": "github" }, "tools": tools });
        let f = Fixture::from_slice(doc.to_string().as_bytes(), Path::new("g.json")).unwrap();
        let g = generate(&f, "github", &Options::default()).unwrap();
        let mut out: Vec<(String, String, String)> = g
            .tools
            .iter()
            .map(|r| {
                (
                    r.name.clone(),
                    r.function.clone(),
                    mcp_bindgen_core::naming::openai_name("github", &r.name),
                )
            })
            .collect();
        out.sort();
        out
    };
    let original = names(&tools);
    let mut reversed = tools.as_array().unwrap().clone();
    reversed.reverse();
    assert_eq!(names(&Value::Array(reversed.clone())), original);
    reversed.push(json!({"name": "get_me_too", "inputSchema": {"type": "object"}}));
    let grown = names(&Value::Array(reversed));
    let without_new: Vec<_> = grown
        .into_iter()
        .filter(|(n, _, _)| n != "get_me_too")
        .collect();
    assert_eq!(without_new, original);
}

#[test]
fn progressive_discovery_costs_little_up_front() {
    let upfront = budget::progressive_upfront().unwrap();
    println!("progressive discovery: {upfront} tokens up front");
    assert!(upfront > 50 && upfront <= 2_000, "{upfront}");
}
