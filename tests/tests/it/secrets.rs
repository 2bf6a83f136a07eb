//! A `${TOKEN}` used in `env`, `args` or `headers` never appears in a fixture, a log line, an
//! error or a `Debug` print, even when the server itself writes it to stderr or stdout.

use crate::common;

use mcp_bindgen::{ConnectOptions, Registry};

const SECRET: &str = "ghp_s3cr3t-token-value-0123456789";

#[test]
fn secrets_stay_out_of_fixtures_logs_errors_and_debug() {
    let (logs, _guard) = common::capture_logs(tracing::Level::TRACE);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");

    let (_http, url) = common::start_demo_http();
    let dir = tempfile::tempdir().expect("tempdir");
    let registry_path = dir.path().join("servers.toml");
    std::fs::write(
        &registry_path,
        format!(
            r#"
[servers.stdio]
command = "{demo}"
env = {{ API_TOKEN = "${{TEST_SECRET_TOKEN}}" }}

[servers.http]
transport = "streamable-http"
url = "{url}"
headers = {{ Authorization = "Bearer ${{TEST_SECRET_TOKEN}}", X-Api-Key = "${{TEST_SECRET_TOKEN}}" }}

[servers.noisy]
command = "sh"
args = ["-c", "echo \"starting with token $API_TOKEN and arg $1\" >&2; exec \"$0\"", "{demo}", "${{TEST_SECRET_TOKEN}}"]
env = {{ API_TOKEN = "${{TEST_SECRET_TOKEN}}" }}

[servers.chatty]
command = "sh"
args = ["-c", "echo \"booting with token $API_TOKEN\"; exec cat > /dev/null"]
env = {{ API_TOKEN = "${{TEST_SECRET_TOKEN}}" }}
connect_timeout = 1.5

[servers.missing]
command = "{demo}"
env = {{ OTHER = "${{TEST_SECRET_TOKEN}}", NEVER_SET = "${{MCP_BINDGEN_TEST_UNSET_VARIABLE}}" }}
"#,
            demo = common::demo_server().display()
        ),
    )
    .expect("write registry");
    let registry = Registry::load(&registry_path).expect("registry loads");
    let lookup = |name: &str| match name {
        "TEST_SECRET_TOKEN" => Some(SECRET.to_string()),
        other => common::lookup(other),
    };

    let options = || ConnectOptions::new().with_env_lookup(lookup);

    let mut seen = String::new();
    seen.push_str(&format!("{registry:?}"));
    // A server that prints its secrets to stderr: the log line and the kept tail say
    // `<redacted>` (issue: stderr went verbatim to `tracing` and into errors).
    let noisy = registry.get("noisy").expect("alias").clone();
    let session = runtime
        .block_on(options().connect(&noisy))
        .unwrap_or_else(|e| panic!("noisy: {e}"));
    // The stderr reader runs on its own task: give it a moment.
    let mut tail = String::new();
    for _ in 0..100 {
        tail = session.stderr_tail().join("\n");
        if !tail.is_empty() {
            break;
        }
        runtime.block_on(tokio::time::sleep(std::time::Duration::from_millis(20)));
    }
    assert!(
        tail.contains("starting with token <redacted> and arg <redacted>"),
        "{tail}"
    );
    seen.push_str(&tail);
    runtime.block_on(session.close()).expect("close");
    for alias in ["stdio", "http"] {
        let config = registry.get(alias).expect("alias").clone();
        let session = runtime
            .block_on(options().connect(&config))
            .unwrap_or_else(|e| panic!("{alias}: {e}"));
        let tools = runtime.block_on(session.list_tools()).expect("tools/list");
        assert!(!tools.is_empty());
        seen.push_str(&serde_json::to_string(&tools).expect("json"));
        seen.push_str(&format!("{session:?} {config:?}"));
        // An error path that includes the server's details.
        let err = runtime
            .block_on(session.call("no_such_tool", &mcp_bindgen::NoArgs {}))
            .expect_err("unknown tool");
        seen.push_str(&format!("{err} {err:?}"));
        runtime.block_on(session.close()).expect("close");
    }
    // A server that prints its secret to stdout and never answers: the error quotes the
    // line, redacted, and so does the warning logged for it.
    let chatty = registry.get("chatty").expect("alias").clone();
    let err = runtime
        .block_on(options().connect(&chatty))
        .expect_err("no answer to initialize");
    let text = err.to_string();
    assert!(text.contains("\"booting with token <redacted>\""), "{text}");
    seen.push_str(&format!("{text} {err:?}"));
    // A server whose other variable is missing: the error names the variable, not the secret.
    let missing = registry.get("missing").expect("alias").clone();
    let err = runtime
        .block_on(options().connect(&missing))
        .expect_err("undefined variable");
    let text = err.to_string();
    assert!(text.contains("MCP_BINDGEN_TEST_UNSET_VARIABLE"), "{text}");
    seen.push_str(&format!("{text} {err:?}"));

    let logs = logs.text();
    assert!(
        !logs.is_empty(),
        "tracing captured nothing: the test would prove nothing"
    );
    assert!(!logs.contains(SECRET), "secret in logs:\n{logs}");
    assert!(!seen.contains(SECRET), "secret in output:\n{seen}");
}
