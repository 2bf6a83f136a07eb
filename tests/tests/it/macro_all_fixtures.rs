//! `mcp_tools!` over every committed fixture compiles in one crate, and the generated
//! constants agree with the fixture (tool names, hash).

use std::path::Path;

use mcp_bindgen_core::fixture::Fixture;
use serde_json::Value;

mcp_bindgen::mcp_tools!("demo");
mcp_bindgen::mcp_tools!("everything");
mcp_bindgen::mcp_tools!("fetch");
mcp_bindgen::mcp_tools!("filesystem");
mcp_bindgen::mcp_tools!("git");
mcp_bindgen::mcp_tools!("github");
mcp_bindgen::mcp_tools!("memory");
mcp_bindgen::mcp_tools!("sequential-thinking");
mcp_bindgen::mcp_tools!("time");

fn fixture(alias: &str) -> Fixture {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(format!("{alias}.json"));
    Fixture::load(&path).expect("fixture loads")
}

#[test]
fn every_committed_fixture_is_bound() {
    let modules: [(&str, &[mcp_bindgen::toolbox::TypedTool], &str); 9] = [
        ("demo", demo::TYPED_TOOLS, demo::FIXTURE_HASH),
        (
            "everything",
            everything::TYPED_TOOLS,
            everything::FIXTURE_HASH,
        ),
        ("fetch", fetch::TYPED_TOOLS, fetch::FIXTURE_HASH),
        (
            "filesystem",
            filesystem::TYPED_TOOLS,
            filesystem::FIXTURE_HASH,
        ),
        ("git", git::TYPED_TOOLS, git::FIXTURE_HASH),
        ("github", github::TYPED_TOOLS, github::FIXTURE_HASH),
        ("memory", memory::TYPED_TOOLS, memory::FIXTURE_HASH),
        (
            "sequential-thinking",
            sequential_thinking::TYPED_TOOLS,
            sequential_thinking::FIXTURE_HASH,
        ),
        ("time", time::TYPED_TOOLS, time::FIXTURE_HASH),
    ];
    // Every fixture in fixtures/ is in this list.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("fixtures dir")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".json").map(str::to_string)
        })
        .collect();
    on_disk.sort();
    let bound: Vec<String> = modules.iter().map(|(a, _, _)| a.to_string()).collect();
    assert_eq!(on_disk, bound, "add mcp_tools! for new fixtures here");

    for (alias, tools, hash) in modules {
        let f = fixture(alias);
        let names: Vec<&str> = tools.iter().map(|t| t.name).collect();
        let expected: Vec<&str> = f.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, expected, "{alias}");
        assert_eq!(hash, f.tools_hash(), "{alias}");
    }
}

/// Every committed fixture's `TYPED_TOOLS`.
fn typed_servers() -> [(&'static str, &'static [mcp_bindgen::toolbox::TypedTool]); 9] {
    [
        ("demo", demo::TYPED_TOOLS),
        ("everything", everything::TYPED_TOOLS),
        ("fetch", fetch::TYPED_TOOLS),
        ("filesystem", filesystem::TYPED_TOOLS),
        ("git", git::TYPED_TOOLS),
        ("github", github::TYPED_TOOLS),
        ("memory", memory::TYPED_TOOLS),
        ("sequential-thinking", sequential_thinking::TYPED_TOOLS),
        ("time", time::TYPED_TOOLS),
    ]
}

/// `value` as a strict-mode model sends it: every property of every object present, the
/// ones it leaves out as `null` (strict mode makes all properties required and the optional
/// ones nullable).
fn strict_shape(root: &Value, schema: &Value, value: Value, depth: usize) -> Value {
    let mut schema = schema;
    while let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        match r.strip_prefix('#').and_then(|p| root.pointer(p)) {
            Some(s) if depth < 16 => schema = s,
            _ => return value,
        }
    }
    match value {
        Value::Object(mut map) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (key, sub) in props {
                    let v = map.remove(key).unwrap_or(Value::Null);
                    let v = strict_shape(root, sub, v, depth + 1);
                    map.insert(key.clone(), v);
                }
            }
            Value::Object(map)
        }
        Value::Array(items) => match schema.get("items") {
            Some(item) if item.is_object() => Value::Array(
                items
                    .into_iter()
                    .map(|v| strict_shape(root, item, v, depth + 1))
                    .collect(),
            ),
            _ => Value::Array(items),
        },
        other => other,
    }
}

/// Strict-shaped arguments (optional → `null`) dispatch for every tool of every fixture,
/// typed (through the generated `Args`) and untyped (the schema alone): the nulls the
/// schema does not allow are dropped, the rest is sent as the types say.
#[test]
fn strict_shaped_arguments_are_accepted_for_every_tool() {
    use mcp_bindgen::toolbox::prepare_arguments;
    let mut checked = 0;
    let mut failures = Vec::new();
    for (alias, tools) in typed_servers() {
        for t in tools {
            let schema: Value = serde_json::from_str(t.input_schema).expect("schema");
            let generated = mcp_bindgen_codegen::instances::generate(
                &schema,
                &mcp_bindgen_codegen::instances::Options::default(),
            );
            assert!(
                !generated.instances.is_empty(),
                "{alias}/{}: no instance ({:?})",
                t.name,
                generated.skipped
            );
            // The smallest instance (required properties only) and the largest.
            let mut picks = vec![generated.instances[0].clone()];
            picks.extend(generated.instances.get(1).cloned());
            for instance in picks {
                if !jsonschema::is_valid(&schema, &instance) {
                    continue;
                }
                let strict = strict_shape(&schema, &schema, instance.clone(), 0);
                for (how, normalize) in [("typed", t.normalize), ("untyped", None)] {
                    checked += 1;
                    match prepare_arguments(&schema, normalize, strict.clone()) {
                        // What is sent is valid for the server (checked by `jsonschema` too).
                        Ok(sent) if jsonschema::is_valid(&schema, &sent) => {}
                        Ok(sent) => failures.push(format!(
                            "{alias}/{} ({how}): {strict} was sent as the invalid {sent}",
                            t.name
                        )),
                        Err(e) => failures.push(format!(
                            "{alias}/{} ({how}): {strict} rejected: {e}",
                            t.name
                        )),
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 2 * 86, "only {checked} dispatches checked");
}

/// `types` values resolve where `mcp_tools!` is written (here: a module's own type alias and
/// a relative module path), not only from a crate root.
mod callers_types {
    pub type IssueNumber = u64;
    pub mod ids {
        pub type Owner = String;
    }
    mcp_bindgen::mcp_tools!("github",
        only = ["get_issue"],
        types = { "get_issue.issue_number" = "IssueNumber", "get_issue.owner" = "ids::Owner" }
    );
}

#[test]
fn types_resolve_in_the_callers_scope() {
    use callers_types::github::get_issue;
    let number: callers_types::IssueNumber = 42;
    // Every argument is required and two share a type: the struct literal names them all.
    let args = get_issue::Args {
        owner: String::from("octo"),
        repo: "hello-world".into(),
        issue_number: number,
    };
    let sent = serde_json::to_value(&args).expect("encodes");
    assert_eq!(
        sent,
        serde_json::json!({"owner": "octo", "repo": "hello-world", "issue_number": 42})
    );
}
