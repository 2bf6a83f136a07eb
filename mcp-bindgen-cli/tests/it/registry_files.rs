//! Registry files as users have them, through the door users use: the built
//! `cargo-mcp-bindgen` run (as cargo runs it, `mcp-bindgen` first) in a project outside this
//! repository, against the demo server over stdio.
//!
//! - a Claude Desktop-style `{"mcpServers": …}` file: a server named `"Demo Server"` with
//!   Cline's `autoApprove`, and a disabled server whose command does not exist: `snapshot`
//!   and `snapshot --check` print each warning once, skip the disabled server without
//!   starting it, and `snapshot <disabled>` is the registry's error;
//! - VS Code's `{"servers": …, "inputs": []}` shape works for `call`;
//! - the project's own `fixtures/servers.toml` with `enabled = false`, and no warnings.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::common;
use common::demo_server;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `cargo-mcp-bindgen mcp-bindgen <args>` in `project`, as `cargo mcp-bindgen` does.
fn cli(project: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-bindgen"))
        .arg("mcp-bindgen")
        .args(args)
        .current_dir(project)
        .env("NO_COLOR", "1")
        .env_remove("MCP_BINDGEN_LOG")
        .output()
        .expect("run cargo-mcp-bindgen");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A cargo project in a temporary directory (outside this repository), with `files`.
fn project(files: &[(&str, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"user\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    )
    .expect("Cargo.toml");
    for (path, text) in files {
        let path = dir.path().join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("directory");
        }
        std::fs::write(path, text).expect("file");
    }
    dir
}

fn demo() -> String {
    demo_server().display().to_string()
}

/// The lines of `text` that contain `needle`.
fn lines_with<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

#[test]
fn claude_desktop_file_warns_once_and_skips_the_disabled_server() {
    let registry = json!({
        "globalShortcut": "Alt+Space",
        "mcpServers": {
            "Demo Server": {"command": demo(), "autoApprove": ["echo"]},
            "broken": {
                "command": "/nonexistent/mcp-bindgen-never-started",
                "disabled": true
            }
        }
    });
    let project = project(&[(
        "claude_desktop_config.json",
        serde_json::to_string_pretty(&registry).expect("json"),
    )]);
    let dir = project.path();
    let config = ["--config", "claude_desktop_config.json"];

    for check in [false, true] {
        let mut args = vec!["snapshot"];
        if check {
            args.push("--check");
        }
        args.extend(config);
        let run = cli(dir, &args);
        let all = format!("{}{}", run.stdout, run.stderr);
        assert_eq!(run.code, 0, "{args:?}:\n{all}");
        assert!(
            dir.join("fixtures/demo_server.json").is_file(),
            "fixture written:\n{all}"
        );
        let warnings = lines_with(&run.stderr, "warning:");
        assert_eq!(warnings.len(), 2, "{args:?}: two warnings:\n{all}");
        assert_eq!(
            lines_with(&run.stderr, "autoApprove"),
            [
                "snapshot: warning: claude_desktop_config.json: ignoring what mcp-bindgen does not read: keys of other MCP clients: `autoApprove` (Cline) in server \"Demo Server\""
            ],
            "{all}"
        );
        assert_eq!(
            lines_with(&run.stderr, "is used as alias"),
            [
                "snapshot: warning: claude_desktop_config.json: server \"Demo Server\" is used as alias \"demo_server\" (aliases match [a-z][a-z0-9_-]*)"
            ],
            "{all}"
        );
        // The runtime's own log line of the same warnings is not printed beside them.
        assert!(!run.stderr.contains("WARN"), "{all}");
        // The disabled server: one line saying it was skipped, and never started (a start
        // of its missing command would fail and be reported).
        assert_eq!(
            lines_with(&all, "broken"),
            [
                "snapshot: skipped server \"broken\": disabled in claude_desktop_config.json by `\"disabled\": true`"
            ],
            "{all}"
        );
        assert!(!all.contains('✗') && !all.contains("failed"), "{all}");
        assert!(!dir.join("fixtures/broken.json").exists());
        let status = if check { "unchanged" } else { "written" };
        assert!(
            lines_with(&run.stdout, "demo_server")
                .iter()
                .any(|l| l.contains(status)),
            "{all}"
        );
    }

    let mut args = vec!["snapshot", "broken"];
    args.extend(config);
    let run = cli(dir, &args);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let error = lines_with(&run.stderr, "snapshot: error:");
    assert_eq!(error.len(), 1, "{}", run.stderr);
    assert!(
        error[0].contains("server \"broken\": disabled in ")
            && error[0].contains("by `\"disabled\": true`; remove that key to use the server"),
        "{}",
        run.stderr
    );
    // The warnings of reading the file come before the error, once.
    assert_eq!(
        lines_with(&run.stderr, "warning:").len(),
        2,
        "{}",
        run.stderr
    );
}

#[test]
fn vscode_servers_shape_works_for_call() {
    let registry = json!({
        "servers": {"demo": {"type": "stdio", "command": demo()}},
        "inputs": []
    });
    let project = project(&[(
        ".vscode/mcp.json",
        serde_json::to_string_pretty(&registry).expect("json"),
    )]);
    let run = cli(
        project.path(),
        &[
            "call",
            "demo",
            "echo",
            r#"{"message":"hi"}"#,
            "--config",
            ".vscode/mcp.json",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stdout.trim(), "hi", "{}", run.stderr);
    let warnings = lines_with(&run.stderr, "warning:");
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    assert!(
        warnings[0].starts_with("call: warning: .vscode/mcp.json: ignoring ")
            && warnings[0].contains("`inputs`"),
        "{}",
        run.stderr
    );
}

#[test]
fn project_toml_with_enabled_false_prints_no_warning() {
    let registry = format!(
        "[servers.demo]\ncommand = {demo:?}\n\n[servers.off]\ncommand = \"/nonexistent/mcp-bindgen-never-started\"\nenabled = false\n",
        demo = demo()
    );
    let project = project(&[("fixtures/servers.toml", registry)]);
    let dir = project.path();
    let run = cli(dir, &["snapshot"]);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(run.code, 0, "{all}");
    assert!(dir.join("fixtures/demo.json").is_file(), "{all}");
    assert!(!dir.join("fixtures/off.json").exists(), "{all}");
    assert!(!run.stderr.contains("warning"), "{all}");
    assert_eq!(
        lines_with(&all, "\"off\""),
        [
            "snapshot: skipped server \"off\": disabled in fixtures/servers.toml by `enabled = false`"
        ],
        "{all}"
    );

    let run = cli(dir, &["call", "demo", "echo", r#"{"message":"hi"}"#]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stdout.trim(), "hi");
    assert_eq!(run.stderr, "", "nothing extra on stderr");

    let run = cli(dir, &["snapshot", "off"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("server \"off\": disabled in ")
            && run.stderr.contains("by `enabled = false`"),
        "{}",
        run.stderr
    );
}

/// `tools --format anthropic-mcp|openai-mcp`: the registry's remote servers as a provider's
/// connector entries, `${NAME}`s as written (never resolved, so no secret is printed), stdio
/// servers refused with the reason.
#[test]
fn remote_servers_become_connector_entries_with_placeholders_as_written() {
    let fixture = std::fs::read_to_string(common::root().join("fixtures/everything.json"))
        .expect("everything.json");
    let dir = project(&[
        (
            "fixtures/servers.toml",
            format!(
                "[servers.remote]\nurl = \"https://mcp.example.com/mcp\"\nheaders = {{ Authorization = \"Bearer ${{REMOTE_TOKEN}}\" }}\nexclude_tools = [\"get-env\"]\n\n[servers.demo]\ncommand = {:?}\n",
                demo_server().display().to_string()
            ),
        ),
        (
            "fixtures/remote.json",
            fixture.replace("\"alias\": \"everything\"", "\"alias\": \"remote\""),
        ),
    ]);
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-bindgen"))
            .arg("mcp-bindgen")
            .args(args)
            .current_dir(dir.path())
            .env("REMOTE_TOKEN", "s3cr3t-value-never-printed")
            .env("NO_COLOR", "1")
            .output()
            .expect("run");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            !stdout.contains("s3cr3t") && !stderr.contains("s3cr3t"),
            "{stdout}{stderr}"
        );
        (out.status.code(), stdout, stderr)
    };
    let (code, stdout, stderr) = run(&["tools", "--format", "openai-mcp"]);
    assert_eq!(code, Some(0), "{stderr}");
    let out: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let entry = &out["tools"][0];
    assert_eq!(entry["type"], "mcp");
    assert_eq!(entry["server_label"], "remote");
    assert_eq!(
        entry["headers"],
        json!({"Authorization": "Bearer ${REMOTE_TOKEN}"})
    );
    let allowed = entry["allowed_tools"].as_array().expect("allowed_tools");
    assert!(!allowed.contains(&json!("get-env")), "{allowed:?}");
    assert!(allowed.contains(&json!("echo")), "{allowed:?}");
    assert_eq!(out["refused"][0]["server"], "demo");
    assert!(stderr.contains("1 openai-mcp entries"), "{stderr}");
    assert!(stderr.contains("demo: a stdio server"), "{stderr}");

    let (code, stdout, stderr) = run(&["tools", "--format", "anthropic-mcp"]);
    assert_eq!(code, Some(0), "{stderr}");
    let out: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(out["anthropic_beta"], "mcp-client-2025-11-20");
    assert_eq!(
        out["mcp_servers"],
        json!([{"type": "url", "url": "https://mcp.example.com/mcp", "name": "remote",
                "authorization_token": "${REMOTE_TOKEN}"}])
    );
    assert_eq!(out["tools"][0]["type"], "mcp_toolset");

    // A misspelled connector names both kinds of formats.
    let (code, _, stderr) = run(&["tools", "--format", "openai-mpc"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("anthropic-mcp or openai-mcp"), "{stderr}");
}

/// `tools --tokens`: a table per server (every format, full and compact, largest tools
/// first) that agrees with the generator's counts; the registry's `max_tokens` (after
/// `exclude_tools`) and `--max-tokens` fail `--check` with the largest tools and what fits.
#[cfg(feature = "tokens")]
#[test]
fn token_counts_per_server_and_the_budget_gate() {
    let everything = std::fs::read_to_string(common::root().join("fixtures/everything.json"))
        .expect("everything.json");
    let demo_fixture =
        std::fs::read_to_string(common::root().join("fixtures/demo.json")).expect("demo.json");
    let dir = project(&[
        (
            "fixtures/servers.toml",
            format!(
                "[servers.everything]\ncommand = \"npx\"\nexclude_tools = [\"gzip-file-as-resource\"]\nmax_tokens = 600\n\n[servers.demo]\ncommand = {:?}\n",
                demo()
            ),
        ),
        ("fixtures/everything.json", everything.clone()),
        ("fixtures/demo.json", demo_fixture.clone()),
    ]);
    let run = cli(dir.path(), &["tools", "--tokens"]);
    assert_eq!(run.code, 1, "everything is over 600 tokens: {}", run.stderr);
    // The table: both servers, every format, largest tool first.
    let header = lines_with(&run.stdout, "openai-strict");
    assert_eq!(header.len(), 2, "{}", run.stdout);
    assert!(header[0].contains("anthropic") && header[0].contains("gemini"));
    assert!(run.stdout.contains("demo (8 tools)"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("everything (12 tools, max_tokens = 600)"),
        "the excluded tool is not counted: {}",
        run.stdout
    );
    assert!(!run.stdout.contains("gzip-file-as-resource"));
    // The demo's numbers are the generator's.
    let f = mcp_bindgen_core::fixture::Fixture::from_slice(
        demo_fixture.as_bytes(),
        Path::new("demo.json"),
    )
    .expect("demo fixture");
    let total: u32 = f
        .tools
        .iter()
        .map(|t| {
            mcp_bindgen_codegen::budget::tool_tokens("demo", t)
                .expect("count")
                .full
        })
        .sum();
    let demo_total = lines_with(&run.stdout, "(all, full)")[0];
    assert_eq!(
        demo_total.split_whitespace().nth(2),
        Some(total.to_string().as_str()),
        "{demo_total}"
    );
    let first_demo_tool = run
        .stdout
        .lines()
        .skip_while(|l| !l.contains("(all, compact)"))
        .nth(1)
        .expect("a tool row");
    assert!(
        first_demo_tool.contains("create_issue"),
        "largest first: {first_demo_tool}"
    );
    // The gate: the registry's budget, named.
    assert!(
        run.stderr.contains("server \"everything\"")
            && run.stderr.contains("over max_tokens = 600")
            && run
                .stderr
                .contains("max_tokens of [servers.everything] in the registry"),
        "{}",
        run.stderr
    );
    // `--check` prints only the summary and the failure; `--max-tokens` sets every budget.
    let check = cli(
        dir.path(),
        &["tools", "--tokens", "--check", "--max-tokens", "100000"],
    );
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert!(check.stdout.is_empty(), "{}", check.stdout);
    assert!(check.stderr.contains("0 over budget"), "{}", check.stderr);
    let tight = cli(
        dir.path(),
        &["tools", "--tokens", "--check", "--max-tokens", "100"],
    );
    assert_eq!(tight.code, 1);
    assert!(tight.stderr.contains("2 over budget"), "{}", tight.stderr);
    assert!(
        tight.stderr.contains("budget set by --max-tokens"),
        "{}",
        tight.stderr
    );
    let usage = cli(dir.path(), &["tools", "--max-tokens", "5"]);
    assert_eq!(usage.code, 2, "{}", usage.stderr);
    assert!(
        usage.stderr.contains("--max-tokens is for --tokens"),
        "{}",
        usage.stderr
    );
}
