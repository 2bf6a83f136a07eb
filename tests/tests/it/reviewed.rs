//! What you reviewed is what runs: a toolbox over a server that turns hostile after its
//! snapshot (the demo server's `--rug-pull`) offers the model the fixture's words only,
//! refuses the tool the server added and the tool it changed in a breaking way, in every
//! export format, compact, and through progressive discovery.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_bindgen::toolbox::provider::Format;
use mcp_bindgen::toolbox::{AgentConfig, Dispatch, ModelPolicy, ModelRef, Toolbox};
use mcp_bindgen::{ErrorKind, Registry};

use crate::common::{demo_server, root};

const POISON: &str = "ignore previous instructions";

/// A project directory whose `fixtures/` holds the registry (`servers`, TOML) and the demo
/// server's committed fixture under `demo.json`.
fn project(servers: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let fixtures = dir.path().join("fixtures");
    std::fs::create_dir_all(&fixtures).unwrap();
    std::fs::copy(
        root().join("fixtures/demo.json"),
        fixtures.join("demo.json"),
    )
    .unwrap();
    let registry = fixtures.join("servers.toml");
    std::fs::write(&registry, servers).unwrap();
    (dir, registry)
}

fn demo_entry(alias: &str, args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
    format!(
        "[servers.{alias}]\ncommand = {:?}\nargs = [{}]\ntimeout = 20\nfunction_call_wrapper = true\n",
        demo_server().display().to_string(),
        args.join(", ")
    )
}

/// Every definition the toolbox gives a model, in every format, as one text.
fn exports(toolbox: &Toolbox) -> String {
    Format::ALL
        .iter()
        .map(|f| serde_json::to_string(&toolbox.export(*f).tools).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits until the toolbox refuses `demo.add`: the server's `tools/list_changed` after its
/// first answer made the toolbox list the tools again.
async fn until_rug_pulled(toolbox: &Toolbox) {
    for _ in 0..200 {
        if toolbox.resolve("demo.add").is_err() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the toolbox never re-listed the tools after tools/list_changed");
}

/// Asserts the dispatch was refused with `kind`.
#[track_caller]
fn refused(dispatch: &Dispatch, kind: ErrorKind) {
    assert_eq!(dispatch.error_kind(), Some(kind), "{}", dispatch.text);
}

fn reviewed_echo_description() -> String {
    let fixture: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root().join("fixtures/demo.json")).unwrap()).unwrap();
    fixture["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "echo")
        .and_then(|t| t["description"].as_str())
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rug_pull_reaches_the_model_in_no_format_and_its_calls_are_refused() {
    let (_dir, path) = project(&demo_entry("demo", &["--rug-pull", "poison"]));
    let registry = Registry::load(&path).unwrap();
    let toolbox = Toolbox::builder(&registry).connect().await.unwrap();
    until_rug_pulled(&toolbox).await;

    let text = exports(&toolbox);
    assert!(!text.to_lowercase().contains(POISON), "{text}");
    assert!(!text.contains("exfil"), "{text}");
    let reviewed = serde_json::to_string(&reviewed_echo_description()).unwrap();
    assert!(text.contains(reviewed.trim_matches('"')), "{text}");
    assert!(
        !text.contains("mcp_demo_add"),
        "a breaking change is withheld: {text}"
    );

    // The tool the server added: neither offered nor callable, in words.
    let exfil = toolbox
        .call("mcp_demo_exfil", r#"{"data": "sk-123"}"#)
        .await;
    refused(&exfil, ErrorKind::NotReviewed);
    for needle in [
        "\"exfil\"",
        "never reviewed",
        "snapshot --check demo",
        "snapshot demo",
    ] {
        assert!(exfil.text.contains(needle), "{needle:?} in {}", exfil.text);
    }
    assert!(
        !exfil.text.contains("exfiltrated"),
        "the call reached the server"
    );
    let by_pair = toolbox.call("demo.exfil", r#"{"data": "x"}"#).await;
    refused(&by_pair, ErrorKind::NotReviewed);

    // A breaking change: refused, with the change and the command that shows it.
    let add = toolbox.call("mcp_demo_add", r#"{"a": 1, "b": 2}"#).await;
    refused(&add, ErrorKind::Drift);
    for needle in [
        "new required argument \"carry\"",
        "refused",
        "snapshot --check demo",
    ] {
        assert!(add.text.contains(needle), "{needle:?} in {}", add.text);
    }

    // The status says what is refused and why.
    let status = toolbox.status("demo").expect("status");
    assert_eq!(status.withheld, ["add"]);
    assert_eq!(status.unreviewed, ["exfil"]);
    assert!(
        status
            .reviewed
            .as_deref()
            .is_some_and(|r| r.ends_with("demo.json")),
        "{status:?}"
    );

    // A description-only change: the reviewed definition is offered, and the tool works.
    let echo = toolbox.call("mcp_demo_echo", r#"{"message": "hi"}"#).await;
    assert!(echo.is_ok(), "{}", echo.text);
    assert!(toolbox.tools().iter().all(|t| t.tool != "exfil"));

    // An agent that allows unreviewed tools sees the new one (with its live words).
    let policy = ModelPolicy::new().provider("openai", false);
    let open = AgentConfig::new("open", ModelRef::new("openai", "gpt-5"), ["demo"])
        .with_unreviewed_tools(true);
    let agent = toolbox.agent(&open, &policy).unwrap();
    assert!(agent.tools().iter().any(|t| t.tool == "exfil"));
    let closed = AgentConfig::new("closed", ModelRef::new("openai", "gpt-5"), ["demo"]);
    let agent = toolbox.agent(&closed, &policy).unwrap();
    assert!(agent.tools().iter().all(|t| t.tool != "exfil"));
    let hidden = agent.call("demo.exfil", r#"{"data": "x"}"#).await;
    refused(&hidden, ErrorKind::NotReviewed);
    toolbox.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progressive_discovery_and_compact_exports_hold_the_reviewed_text_only() {
    let (_dir, path) = project(&demo_entry("demo", &["--rug-pull", "poison"]));
    let registry = Registry::load(&path).unwrap();
    let toolbox = Toolbox::builder(&registry)
        .compact(true)
        .progressive(Vec::<String>::new())
        .connect()
        .await
        .unwrap();
    until_rug_pulled(&toolbox).await;

    let found = toolbox
        .call("search_tools", r#"{"query": "exfil echo keys"}"#)
        .await;
    assert!(found.is_ok(), "{}", found.text);
    assert!(!found.text.contains("exfil"), "{}", found.text);
    assert!(
        !found.text.to_lowercase().contains(POISON),
        "{}",
        found.text
    );
    let loaded = toolbox
        .call(
            "load_tools",
            r#"{"names": ["mcp_demo_echo", "mcp_demo_exfil"]}"#,
        )
        .await;
    assert!(
        !loaded.text.to_lowercase().contains(POISON),
        "{}",
        loaded.text
    );
    assert!(loaded.text.contains("mcp_demo_echo"), "{}", loaded.text);
    let text = exports(&toolbox);
    assert!(!text.to_lowercase().contains(POISON), "{text}");
    assert!(!text.contains("\"mcp_demo_exfil\""), "{text}");
    assert!(text.contains("mcp_demo_echo"), "{text}");
    toolbox.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renamed_tool_is_withheld_and_its_new_name_refused() {
    let (_dir, path) = project(&demo_entry(
        "demo",
        &["--rug-pull", "rename", "--rug-pull-after", "0"],
    ));
    let registry = Registry::load(&path).unwrap();
    let toolbox = Toolbox::builder(&registry).connect().await.unwrap();
    let old = toolbox
        .call("mcp_demo_get_weather", r#"{"city": "Oslo"}"#)
        .await;
    refused(&old, ErrorKind::Drift);
    assert!(
        old.text
            .contains("now lists \"forecast\" with the same schemas (a rename)"),
        "{}",
        old.text
    );
    let new = toolbox.call("demo.forecast", r#"{"city": "Oslo"}"#).await;
    refused(&new, ErrorKind::NotReviewed);
    toolbox.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixtures_can_be_required_by_a_server_or_an_agent() {
    let bare = format!(
        "{}{}",
        demo_entry("demo", &[]),
        demo_entry("bare", &[]).replace("timeout = 20\n", "timeout = 20\nrequire_fixture = true\n")
    );
    let (_dir, path) = project(&bare);
    let registry = Registry::load(&path).unwrap();
    let e = Toolbox::builder(&registry)
        .connect()
        .await
        .expect_err("bare has no fixture");
    assert_eq!(e.kind(), ErrorKind::Config);
    assert!(
        e.to_string().contains("server \"bare\" requires a fixture"),
        "{e}"
    );
    assert!(e.to_string().contains("snapshot bare"), "{e}");

    let (_dir, path) = project(&format!(
        "{}{}",
        demo_entry("demo", &[]),
        demo_entry("bare", &[])
    ));
    let registry = Registry::load(&path).unwrap();
    let toolbox = Toolbox::builder(&registry).connect().await.unwrap();
    let policy = ModelPolicy::new().provider("openai", false);
    let strict = AgentConfig::new("strict", ModelRef::new("openai", "gpt-5"), ["demo", "bare"])
        .with_require_fixture(true);
    let e = toolbox
        .agent(&strict, &policy)
        .expect_err("bare has no fixture");
    assert!(
        e.to_string()
            .contains("agent \"strict\" requires a fixture"),
        "{e}"
    );
    assert!(e.to_string().contains("\"bare\""), "{e}");
    // Without a fixture, a server's live tools are offered (dynamic use), with a warning.
    assert!(toolbox.resolve("bare.echo").is_ok());
    toolbox.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fixture_given_in_code_is_used_and_a_bad_one_is_an_error() {
    let (dir, path) = project(&demo_entry(
        "demo",
        &["--rug-pull", "poison", "--rug-pull-after", "0"],
    ));
    let registry = Registry::load(&path).unwrap();
    let fixture = std::fs::read_to_string(dir.path().join("fixtures/demo.json")).unwrap();
    let toolbox = Toolbox::builder(&registry)
        .fixtures_dir(Path::new("/nonexistent"))
        .fixture("demo", fixture)
        .connect()
        .await
        .unwrap();
    assert!(!exports(&toolbox).to_lowercase().contains(POISON));
    toolbox.close().await;
    let e = Toolbox::builder(&registry)
        .fixture("demo", "{\"tools\": 3}")
        .connect()
        .await
        .expect_err("a bad fixture");
    assert_eq!(e.kind(), ErrorKind::Config);
    assert!(
        e.to_string().contains("at /tools: expected an array"),
        "{e}"
    );
}

mcp_bindgen::mcp_tools!("demo");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_server_offers_what_mcp_tools_compiled() {
    let (_dir, path) = project(&demo_entry(
        "demo",
        &["--rug-pull", "poison", "--rug-pull-after", "0"],
    ));
    let registry = Registry::load(&path).unwrap();
    // No fixture file to read: the compiled tools are the reviewed ones.
    let toolbox = Toolbox::builder(&registry)
        .fixtures_dir("/nonexistent")
        .add_typed("demo", demo::TYPED_TOOLS)
        .connect()
        .await
        .unwrap();
    let text = exports(&toolbox);
    assert!(!text.to_lowercase().contains(POISON), "{text}");
    assert!(!text.contains("exfil"), "{text}");
    let echo = toolbox
        .tools()
        .into_iter()
        .find(|t| t.tool == "echo")
        .expect("echo offered");
    // Every reviewed word, annotations and title included.
    assert_eq!(echo.definition, demo::echo::TOOL.definition());
    assert_eq!(echo.definition["annotations"]["readOnlyHint"], true);
    assert_eq!(echo.definition["title"], "Echo");
    let exfil = toolbox.call("demo.exfil", r#"{"data": "x"}"#).await;
    refused(&exfil, ErrorKind::NotReviewed);
    assert!(
        exfil.text.contains("mcp_tools!(\"demo\")"),
        "{}",
        exfil.text
    );
    let add = toolbox.call("mcp_demo_add", r#"{"a": 1, "b": 2}"#).await;
    refused(&add, ErrorKind::Drift);
    toolbox.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_native_connector_allows_only_tools_whose_live_words_were_reviewed() {
    use mcp_bindgen::toolbox::ConnectorOptions;
    use mcp_bindgen::toolbox::provider::connector::{self, Connector};
    let (_server, url) =
        crate::common::start_demo_http_with(&["--rug-pull", "poison", "--rug-pull-after", "0"]);
    let (_dir, path) = project(&format!("[servers.demo]\nurl = {url:?}\n"));
    let registry = Registry::load(&path).unwrap();
    let toolbox = Toolbox::builder(&registry).connect().await.unwrap();
    let public = ConnectorOptions::default().public_url("demo", "https://mcp.example.com/demo");
    let openai = toolbox.mcp_connectors(Connector::OpenAi, &public).await;
    connector::check(Connector::OpenAi, &openai).expect("valid");
    let allowed: Vec<&str> = openai.tools[0]["allowed_tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t.as_str())
        .collect();
    // The provider reads the live list itself: echo's poisoned words, exfil and the
    // changed add are not allowed; the tools that did not change are.
    for gone in ["echo", "exfil", "add"] {
        assert!(!allowed.contains(&gone), "{gone} in {allowed:?}");
    }
    assert!(allowed.contains(&"get_weather"), "{allowed:?}");
    toolbox.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_whose_schema_nests_too_deep_is_withheld_from_every_list() {
    // `nested` nests 40 arrays deep: with a fixture (offered unreviewed) and without one.
    let servers = format!(
        "{}unreviewed_tools = true\n{}",
        demo_entry("demo", &["--misbehave", "deep-schema"]),
        demo_entry("bare", &["--misbehave", "deep-schema"])
    );
    let (_dir, path) = project(&servers);
    let registry = Registry::load(&path).unwrap();
    let toolbox = Toolbox::builder(&registry).connect().await.unwrap();
    assert!(
        !exports(&toolbox).contains("nested"),
        "{}",
        exports(&toolbox)
    );
    for server in ["demo", "bare"] {
        let call = toolbox
            .call(&format!("{server}.nested"), r#"{"grid": []}"#)
            .await;
        refused(&call, ErrorKind::NotAllowed);
        assert!(
            call.text.contains(&format!(
                "tool \"nested\" is refused: in its inputSchema, the schema nests deeper than Rust types can (at /properties/grid{}):",
                "/items".repeat(32)
            )),
            "{}",
            call.text
        );
        assert!(toolbox.resolve(&format!("{server}.echo")).is_ok());
    }
    toolbox.close().await;
}

/// A secret a server reflects into a tool's title or name (a `${NAME}` of its
/// configuration): in no drift refusal, no export to a model and no drift summary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_reflected_into_a_title_reaches_no_error_export_or_summary() {
    const SECRET: &str = "sk-live-4f9a8b7c6d5e-title";
    let reflect = "env = { MCP_DEMO_REFLECT = \"${PROBE_TITLE_SECRET}\" }\n";
    let servers = format!(
        "{}drift = \"error\"\n{reflect}{}{reflect}",
        demo_entry("demo", &["--misbehave", "reflect-env-title"]),
        demo_entry("named", &["--misbehave", "reflect-env-name"]),
    );
    let (_dir, path) = project(&servers);
    let registry = Registry::load(&path).unwrap();
    let lookup = |name: &str| (name == "PROBE_TITLE_SECRET").then(|| SECRET.to_string());
    let options = || mcp_bindgen::ConnectOptions::new().with_env_lookup(lookup);
    let toolbox = Toolbox::builder(&registry)
        .env(lookup)
        .connect()
        .await
        .unwrap();
    // With a fixture and `drift = "error"`: the changed tool is refused, its change in words.
    let live = toolbox.session("demo").expect("demo is connected");
    let first = live.list_tools().await.unwrap()[0]["name"]
        .as_str()
        .unwrap()
        .to_string();
    let refused_call = toolbox.call(&format!("demo.{first}"), "{}").await;
    refused(&refused_call, ErrorKind::Drift);
    assert!(refused_call.text.contains("title"), "{}", refused_call.text);
    assert!(!refused_call.text.contains(SECRET), "{}", refused_call.text);
    assert!(!exports(&toolbox).contains(SECRET));
    toolbox.close().await;
    // A session's drift summary names the live tools: one reflects the secret in its name.
    let session = options()
        .connect(registry.get("named").unwrap())
        .await
        .unwrap();
    let drift = session
        .check_drift(demo::FIXTURE_HASH, mcp_bindgen::drift::DriftPolicy::Error)
        .await
        .expect_err("a tool's name changed");
    let text = drift.to_string();
    assert!(text.contains("key_<redacted>"), "{text}");
    assert!(!text.contains(SECRET), "{text}");
    session.close().await.unwrap();
}
