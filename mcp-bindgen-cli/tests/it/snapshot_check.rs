//! `snapshot --check` (the `cargo-mcp-bindgen` binary, run from this repository) against the
//! embedded demo server: an untouched fixture passes, a fixture edited to lack a required
//! argument fails with a BREAKING report, a missing fixture is drift with the fix named.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common;
use common::{demo_server, root};

/// Runs `cargo-mcp-bindgen` with `args` from the repository root: exit code, stdout and
/// stderr.
fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-bindgen"))
        .args(args)
        .current_dir(root())
        .env("MCP_DEMO_SERVER", demo_server())
        .env("NO_COLOR", "1")
        .output()
        .expect("run cargo-mcp-bindgen");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// Runs `snapshot ALIAS…` with the registry `toml` written to `dir`, which also holds the
/// fixtures: exit code and output.
fn snapshot_with(dir: &Path, toml: &str, aliases: &[&str]) -> (i32, String) {
    let registry = dir.join("servers.toml");
    std::fs::write(&registry, toml).expect("write registry");
    let (config, fixtures) = (registry.display().to_string(), dir.display().to_string());
    let mut args = vec!["snapshot"];
    args.extend(aliases);
    args.extend(["--config", &config, "--fixtures", &fixtures]);
    run(&args)
}

fn check(fixtures: &Path) -> (i32, String) {
    let fixtures = fixtures.display().to_string();
    run(&["snapshot", "demo", "--check", "--fixtures", &fixtures])
}

#[test]
fn untouched_fixture_passes() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(
        root().join("fixtures/demo.json"),
        dir.path().join("demo.json"),
    )
    .expect("copy fixture");
    let (code, text) = check(dir.path());
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("unchanged"), "{text}");
}

#[test]
fn fixture_without_a_required_argument_is_breaking_drift() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(root().join("fixtures/demo.json")).expect("fixture");
    let mut doc: Value = serde_json::from_str(&text).expect("json");
    let add = doc["tools"]
        .as_array_mut()
        .expect("tools")
        .iter_mut()
        .find(|t| t["name"] == "add")
        .expect("demo has `add`");
    let schema = &mut add["inputSchema"];
    schema["properties"]
        .as_object_mut()
        .expect("properties")
        .remove("b")
        .expect("`add` has `b`");
    schema["required"]
        .as_array_mut()
        .expect("required")
        .retain(|r| r != "b");
    std::fs::write(
        dir.path().join("demo.json"),
        serde_json::to_string_pretty(&doc).expect("encode"),
    )
    .expect("write");
    let (code, out) = check(dir.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("add: BREAKING"), "{out}");
    assert!(out.contains("\"b\""), "{out}");
    // Each reason once, the totals, and the command that accepts the change.
    assert_eq!(
        out.matches("new required argument \"b\"").count(),
        1,
        "{out}"
    );
    assert!(
        out.contains(
            "demo: 1 tool changed: 1 BREAKING; Rust API: major; accept them with `cargo mcp-bindgen snapshot demo`"
        ),
        "{out}"
    );
    assert!(out.contains("DRIFT"), "{out}");
    // The Rust axis names the changed item.
    assert!(
        out.contains("Rust major: struct `add::Args` gains field `b: f64`"),
        "{out}"
    );
    // The unified diff follows the classification.
    assert!(out.contains("@@"), "{out}");
    // `--fail-on` raises the threshold; a BREAKING change reaches every level.
    let fixtures = dir.path().display().to_string();
    let (code, out) = run(&[
        "snapshot",
        "demo",
        "--check",
        "--fail-on",
        "breaking",
        "--fixtures",
        &fixtures,
    ]);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn additive_drift_passes_a_breaking_gate_and_fails_the_default_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(root().join("fixtures/demo.json")).expect("fixture");
    let mut doc: Value = serde_json::from_str(&text).expect("json");
    // The committed fixture lacks `echo`: the live server has a new tool.
    doc["tools"]
        .as_array_mut()
        .expect("tools")
        .retain(|t| t["name"] != "echo");
    std::fs::write(
        dir.path().join("demo.json"),
        serde_json::to_string_pretty(&doc).expect("encode"),
    )
    .expect("write");
    let fixtures = dir.path().display().to_string();
    let (code, out) = check(dir.path());
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("echo: ADDITIVE, Rust minor — new tool"),
        "{out}"
    );
    let gate = |level: &str| {
        run(&[
            "snapshot",
            "demo",
            "--check",
            "--fail-on",
            level,
            "--fixtures",
            &fixtures,
        ])
    };
    let (code, out) = gate("breaking");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("DRIFT (below --fail-on)"), "{out}");
    let (code, out) = gate("additive");
    assert_eq!(code, 1, "{out}");
    // The JSON form of the same review: stdout is one JSON document (the table goes to
    // stderr).
    let (code, out, err) = run_in(
        &root(),
        &[
            "snapshot",
            "demo",
            "--check",
            "--format",
            "json",
            "--fixtures",
            &fixtures,
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    let report: Value = serde_json::from_str(&out).expect("stdout is JSON");
    let echo = &report["fixtures"]["demo"]["tools"]["echo"];
    assert_eq!(
        (&echo["class"], &echo["rust"]),
        (&Value::from("ADDITIVE"), &Value::from("minor")),
        "{out}"
    );
    assert!(err.contains("DRIFT"), "{err}");
}

/// Runs `git` in `dir` (a scratch repository, committer set on the command line).
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=test", "-c", "user.email=test@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `cargo-mcp-bindgen <args>` run from `dir`, as a user in their project.
fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-bindgen"))
        .args(args)
        .current_dir(dir)
        .env("MCP_DEMO_SERVER", demo_server())
        .env("NO_COLOR", "1")
        .output()
        .expect("run cargo-mcp-bindgen");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn diff_base_reviews_a_commit_that_resnapshots_a_server() {
    // A user's project in git: the demo server snapshotted with its fault tools, then
    // re-snapshotted without them (10 tools gone), each snapshot a commit.
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path();
    std::fs::write(
        project.join("Cargo.toml"),
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    )
    .expect("write manifest");
    std::fs::create_dir(project.join("fixtures")).expect("mkdir");
    let registry = |args: &str| {
        let server = demo_server().display().to_string().replace('\\', "/");
        std::fs::write(
            project.join("fixtures/servers.toml"),
            format!("[servers.demo]\ncommand = \"{server}\"\nargs = [{args}]\n"),
        )
        .expect("write registry");
    };
    // A JSON file beside the fixtures that is not one (changed between the commits too).
    let other = |n: u32| {
        std::fs::write(
            project.join("fixtures/other.json"),
            format!("{{\"n\": {n}}}"),
        )
        .expect("write")
    };
    git(project, &["init", "-q"]);
    for (n, (args, message)) in [("\"--faults\"", "snapshot demo"), ("", "re-snapshot demo")]
        .into_iter()
        .enumerate()
    {
        registry(args);
        other(n as u32);
        let (code, out, err) = run_in(project, &["snapshot"]);
        assert_eq!(code, 0, "{out}{err}");
        git(project, &["add", "-A"]);
        git(project, &["commit", "-q", "-m", message]);
    }
    let (code, out, err) = run_in(project, &["diff", "--base", "HEAD~1"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("── fixtures/demo.json: 17 tools changed: 17 BREAKING; Rust API: major"),
        "{out}"
    );
    assert!(
        out.contains("slow_sum: BREAKING, Rust major — tool removed"),
        "{out}"
    );
    assert!(
        out.contains("Rust major: module `slow_sum` and method `Client::slow_sum` removed"),
        "{out}"
    );
    assert!(
        err.contains("fixtures/other.json is not a fixture (no `tools` array); skipped"),
        "{err}"
    );
    // The markdown form for a pull-request comment, and the reverse direction.
    let (_, out, _) = run_in(
        project,
        &["diff", "--base", "HEAD~1", "--format", "markdown"],
    );
    assert!(out.contains("| `ask` | BREAKING | major |"), "{out}");
    let (code, out, _) = run_in(project, &["diff", "--base", "HEAD", "--format", "json"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        serde_json::from_str::<Value>(&out).expect("json")["fixtures"]["demo"]["tools"],
        serde_json::json!({}),
        "{out}"
    );
    // Two revisions' files side by side: the additive direction.
    let old = project.join("old.json");
    let out = Command::new("git")
        .args(["show", "HEAD~1:fixtures/demo.json"])
        .current_dir(project)
        .output()
        .expect("git show");
    std::fs::write(&old, &out.stdout).expect("write");
    let (code, out, err) = run_in(
        project,
        &[
            "diff",
            "fixtures/demo.json",
            "old.json",
            "--fail-on",
            "breaking",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("ask: ADDITIVE, Rust minor — new tool"),
        "{out}"
    );
    // A revision that does not exist is an error that says so.
    let (code, _, err) = run_in(project, &["diff", "--base", "no-such-rev"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("--base no-such-rev: not a git revision"),
        "{err}"
    );
}

#[test]
fn missing_fixture_is_drift() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, out) = check(dir.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("no committed fixture"), "{out}");
    // Run directly (not through cargo), the binary names the fix as `cargo mcp-bindgen`.
    assert!(out.contains("`cargo mcp-bindgen snapshot demo`"), "{out}");
}

/// `cargo-mcp-bindgen snapshot <args>` with a registry of the demo server and a server that
/// cannot start, fixtures in `fixtures`.
fn with_unreachable(fixtures: &Path, args: &[&str]) -> (i32, String) {
    let registry = fixtures.join("servers.toml");
    std::fs::write(
        &registry,
        format!(
            "[servers.demo]\ncommand = {:?}\n\n[servers.gone]\ncommand = \"/nonexistent/mcp-server\"\n",
            demo_server().display().to_string()
        ),
    )
    .expect("write registry");
    let (registry, fixtures) = (
        registry.display().to_string(),
        fixtures.display().to_string(),
    );
    let mut words = vec!["snapshot"];
    words.extend(args);
    words.extend(["--config", &registry, "--fixtures", &fixtures]);
    run(&words)
}

/// A drift gate cannot pass by accident: a server it could not reach fails `--check`, and a
/// plain snapshot, unless the user says `--allow-unreachable`; a snapshot in which no server
/// answered fails.
#[test]
fn unreachable_servers_fail_the_gate_unless_allowed() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(
        root().join("fixtures/demo.json"),
        dir.path().join("demo.json"),
    )
    .expect("copy fixture");
    let (code, out) = with_unreachable(dir.path(), &["--check"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("error: server \"gone\": cannot start"),
        "{out}"
    );
    assert!(out.contains("so \"gone\" was not checked"), "{out}");
    assert!(out.contains("--allow-unreachable"), "{out}");
    assert!(out.contains("NOT CHECKED"), "{out}");

    let (code, out) = with_unreachable(dir.path(), &["--check", "--allow-unreachable"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("warning: server \"gone\": cannot start"),
        "{out}"
    );
    assert!(out.contains("; skipped"), "{out}");

    // A plain snapshot fails too: the fixtures of the servers that answered are written,
    // the unreachable one's is not, and the exit code says so.
    let (code, out) = with_unreachable(dir.path(), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("gone.json was not written"), "{out}");
    assert!(out.contains("FAILED"), "{out}");
    assert!(!dir.path().join("gone.json").exists());
    let (code, out) = with_unreachable(dir.path(), &["--allow-unreachable"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("; skipped"), "{out}");

    // Nothing answered: a plain snapshot fails too, and writes nothing.
    let (code, out) = with_unreachable(dir.path(), &["gone"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("none of the 1 selected server(s) answered; no fixture was written"),
        "{out}"
    );
    assert!(!dir.path().join("gone.json").exists());
}

/// Servers of older SDKs declare `resources` (or `prompts`) but answer the listing with
/// "method not found": the snapshot still records their tools (it skipped such servers).
#[test]
fn a_listing_the_server_does_not_know_is_empty_not_fatal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("old_sdk.py");
    std::fs::write(
        &script,
        r#"import sys, json
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    method = m.get("method")
    if method == "initialize":
        out = {"result": {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}, "resources": {}, "prompts": {}}, "serverInfo": {"name": "old-sdk", "version": "0.6.2"}}}
    elif method == "tools/list":
        out = {"result": {"tools": [{"name": "query", "inputSchema": {"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]}}]}}
    else:
        out = {"error": {"code": -32601, "message": "Method not found"}}
    print(json.dumps(dict(jsonrpc="2.0", id=m["id"], **out)), flush=True)
"#,
    )
    .expect("script");
    let python = std::env::var("MCP_PYTHON").unwrap_or_else(|_| "python3".into());
    let registry = dir.path().join("servers.toml");
    std::fs::write(
        &registry,
        format!(
            "[servers.old]\ncommand = {python:?}\nargs = [{:?}]\n",
            script.display().to_string()
        ),
    )
    .expect("registry");
    let (code, text) = run(&[
        "snapshot".as_ref(),
        "--config".as_ref(),
        registry.as_os_str(),
        "--fixtures".as_ref(),
        dir.path().as_os_str(),
    ]);
    assert_eq!(code, 0, "{text}");
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("old.json")).expect("fixture written"),
    )
    .expect("json");
    assert_eq!(fixture["tools"][0]["name"], "query");
    // Nothing to list: the optional keys are left out.
    assert!(fixture.get("prompts").is_none(), "{fixture}");
    assert!(fixture.get("resourceTemplates").is_none(), "{fixture}");
}

/// A tool whose `x-mcp-header` annotation breaks the protocol's rules is reported by name and
/// rule, and left out of the fixture; the valid one is written.
#[test]
fn a_tool_with_an_invalid_x_mcp_header_is_reported_and_left_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let toml = format!(
        "[servers.faults]\ncommand = {:?}\nargs = [\"--faults\"]\n",
        demo_server().display().to_string()
    );
    let (code, text) = snapshot_with(dir.path(), &toml, &["faults"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("tool \"bad_header\" left out of the fixture: property \"score\""),
        "{text}"
    );
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("faults.json")).expect("fixture written"),
    )
    .expect("json");
    let names: Vec<&str> = fixture["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"region") && !names.contains(&"bad_header"),
        "{names:?}"
    );
}

/// A snapshot gives the same tool list on both protocol wires, and records the revision
/// each one used.
#[test]
fn the_snapshot_is_the_same_on_both_wires() {
    let dir = tempfile::tempdir().expect("tempdir");
    let command = format!("{:?}", demo_server().display().to_string());
    let toml = format!(
        "[servers.initialize]\ncommand = {command}\nprotocol = \"2025-11-25\"\n\n[servers.stateless]\ncommand = {command}\nprotocol = \"2026-07-28\"\n"
    );
    let (code, text) = snapshot_with(dir.path(), &toml, &[]);
    assert_eq!(code, 0, "{text}");
    let read = |alias: &str| -> Value {
        serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(format!("{alias}.json"))).expect("fixture"),
        )
        .expect("json")
    };
    let (old, new) = (read("initialize"), read("stateless"));
    assert_eq!(old["server"]["protocolVersion"], "2025-11-25");
    assert_eq!(new["server"]["protocolVersion"], "2026-07-28");
    assert_eq!(old["tools"], new["tools"]);
    let committed = read_committed("demo");
    assert_eq!(new["tools"], committed["tools"]);
}

fn read_committed(alias: &str) -> Value {
    let text = std::fs::read_to_string(root().join(format!("fixtures/{alias}.json")))
        .expect("committed fixture");
    serde_json::from_str(&text).expect("json")
}

/// A snapshot never writes a fixture from an answer it had to reject: a server listing a
/// tool twice, or paging in a cycle, fails the command and leaves the fixture as it was.
#[test]
fn a_rejected_answer_fails_the_snapshot_and_leaves_the_fixture_alone() {
    for (mode, says) in [
        (
            "duplicate-tool",
            "server lists tool \"add\" twice (a server bug)",
        ),
        (
            "cursor-cycle",
            "server returned cursor \"page-2\" twice: pagination cycle",
        ),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let fixture = dir.path().join("broken.json");
        std::fs::write(&fixture, "{\"tools\": []}\n").expect("write fixture");
        let toml = format!(
            "[servers.broken]\ncommand = {:?}\nargs = [\"--misbehave\", \"{mode}\"]\n",
            demo_server().display().to_string()
        );
        let (code, text) = snapshot_with(dir.path(), &toml, &["broken"]);
        assert_eq!(code, 1, "{mode}: {text}");
        assert!(text.contains(says), "{mode}: {text}");
        assert!(
            text.contains("REJECTED") && text.contains("was not written"),
            "{mode}: {text}"
        );
        assert_eq!(
            std::fs::read_to_string(&fixture).expect("fixture"),
            "{\"tools\": []}\n",
            "{mode}: the fixture changed"
        );
    }
}
