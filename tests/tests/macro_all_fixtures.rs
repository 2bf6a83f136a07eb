//! `mcp_tools!` over every committed fixture compiles in one crate, and the generated
//! constants agree with the fixture (tool names, hash).

use std::path::Path;

use mcp_codegen::fixture::Fixture;

mcp_runtime::mcp_tools!("demo");
mcp_runtime::mcp_tools!("everything");
mcp_runtime::mcp_tools!("fetch");
mcp_runtime::mcp_tools!("filesystem");
mcp_runtime::mcp_tools!("git");
mcp_runtime::mcp_tools!("github");
mcp_runtime::mcp_tools!("memory");
mcp_runtime::mcp_tools!("sequential-thinking");
mcp_runtime::mcp_tools!("time");

fn fixture(alias: &str) -> Fixture {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(format!("{alias}.json"));
    Fixture::load(&path).expect("fixture loads")
}

#[test]
fn every_committed_fixture_is_bound() {
    let modules: [(&str, &[&str], &str); 9] = [
        ("demo", demo::TOOL_NAMES, demo::FIXTURE_HASH),
        (
            "everything",
            everything::TOOL_NAMES,
            everything::FIXTURE_HASH,
        ),
        ("fetch", fetch::TOOL_NAMES, fetch::FIXTURE_HASH),
        (
            "filesystem",
            filesystem::TOOL_NAMES,
            filesystem::FIXTURE_HASH,
        ),
        ("git", git::TOOL_NAMES, git::FIXTURE_HASH),
        ("github", github::TOOL_NAMES, github::FIXTURE_HASH),
        ("memory", memory::TOOL_NAMES, memory::FIXTURE_HASH),
        (
            "sequential-thinking",
            sequential_thinking::TOOL_NAMES,
            sequential_thinking::FIXTURE_HASH,
        ),
        ("time", time::TOOL_NAMES, time::FIXTURE_HASH),
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

    for (alias, names, hash) in modules {
        let f = fixture(alias);
        let expected: Vec<&str> = f.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, expected.as_slice(), "{alias}");
        assert_eq!(hash, f.tools_hash(), "{alias}");
    }
}
