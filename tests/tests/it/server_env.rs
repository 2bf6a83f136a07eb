//! What a stdio server sees of its parent's environment, asked of server-everything's
//! `get-env` tool (it prints its whole environment): by default only the allowlist of the
//! official SDKs (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`) plus the configured
//! `env`; `env_passthrough` adds named variables; `inherit_env = true` passes everything.

use crate::common;

use common::limited;
use mcp_bindgen::{ConnectOptions, InheritEnv, Registry, ServerConfig};
use serde_json::{Map, Value};

const SECRET: &str = "host-secret-7c1f0e2a9b";

/// The parent's environment as the sessions see it: the real one plus a secret only this
/// test sets.
fn lookup(name: &str) -> Option<String> {
    match name {
        "MCP_BINDGEN_TEST_HOST_SECRET" => Some(SECRET.to_string()),
        other => common::lookup(other),
    }
}

/// server-everything (stdio) with `policy`.
fn everything(policy: InheritEnv) -> ServerConfig {
    ServerConfig::stdio(
        "everything",
        "node",
        vec![
            common::everything_js().display().to_string(),
            "stdio".into(),
        ],
    )
    .with_env("CONFIGURED", "yes")
    .with_inherit_env(policy)
}

/// The environment the server reports.
async fn server_env(config: &ServerConfig) -> Map<String, Value> {
    let session = ConnectOptions::new()
        .with_env_lookup(lookup)
        .connect(config)
        .await
        .expect("connect");
    let out = session
        .call("get-env", &mcp_bindgen::NoArgs {})
        .await
        .expect("get-env");
    session.close().await.expect("close");
    let text = out.text();
    let start = text
        .find('{')
        .unwrap_or_else(|| panic!("no JSON in {text}"));
    match serde_json::from_str(&text[start..]) {
        Ok(Value::Object(map)) => map,
        other => panic!("get-env printed {text}: {other:?}"),
    }
}

#[tokio::test]
async fn servers_see_the_allowlist_unless_the_registry_says_more() {
    limited(async {
        // Default: the allowlist and the configured env, nothing else of the host.
        let env = server_env(&everything(InheritEnv::default())).await;
        assert_eq!(env.get("CONFIGURED"), Some(&Value::from("yes")));
        assert!(env.contains_key("PATH"), "{env:?}");
        assert!(!env.contains_key("MCP_BINDGEN_TEST_HOST_SECRET"), "{env:?}");
        assert!(!env.values().any(|v| v == SECRET), "{env:?}");
        // Cargo sets this for the test process: a host variable that is not allowlisted.
        assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
        assert!(!env.contains_key("CARGO_MANIFEST_DIR"), "{env:?}");
        let allowed: Vec<&str> = InheritEnv::ALLOWLIST.to_vec();
        for key in env.keys() {
            assert!(
                allowed.contains(&key.as_str()) || key == "CONFIGURED",
                "{key} leaked into the server's environment"
            );
        }

        // Passthrough: exactly the named variables more.
        let env = server_env(&everything(InheritEnv::Allowlist(vec![
            "MCP_BINDGEN_TEST_HOST_SECRET".into(),
        ])))
        .await;
        assert_eq!(
            env.get("MCP_BINDGEN_TEST_HOST_SECRET"),
            Some(&Value::from(SECRET))
        );
        assert!(!env.contains_key("CARGO_MANIFEST_DIR"), "{env:?}");

        // Everything, as before this policy existed.
        let env = server_env(&everything(InheritEnv::All)).await;
        assert!(env.contains_key("CARGO_MANIFEST_DIR"), "{env:?}");
        assert_eq!(env.get("CONFIGURED"), Some(&Value::from("yes")));
    })
    .await;
}

#[test]
fn the_registry_spells_the_policy() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("servers.toml");
    std::fs::write(
        &path,
        r#"
[servers.plain]
command = "node"

[servers.some]
command = "node"
env_passthrough = ["AWS_PROFILE", "KUBECONFIG"]

[servers.all]
command = "node"
inherit_env = true
"#,
    )
    .expect("write");
    let r = Registry::load(&path).expect("loads");
    let inherit = |alias: &str| match r.get(alias).expect("alias").transport() {
        mcp_bindgen::TransportConfig::Stdio { inherit, .. } => inherit.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(inherit("plain"), InheritEnv::default());
    assert_eq!(
        inherit("some"),
        InheritEnv::Allowlist(vec!["AWS_PROFILE".into(), "KUBECONFIG".into()])
    );
    assert_eq!(inherit("all"), InheritEnv::All);

    // The JSON shape too, in camelCase.
    let json = dir.path().join("mcp.json");
    std::fs::write(
        &json,
        r#"{"mcpServers": {"a": {"command": "node", "envPassthrough": ["X"]}, "b": {"command": "node", "inheritEnv": true}}}"#,
    )
    .expect("write");
    let r = Registry::load(&json).expect("loads");
    assert!(matches!(
        r.get("a").expect("a").transport(),
        mcp_bindgen::TransportConfig::Stdio { inherit: InheritEnv::Allowlist(v), .. } if v == &["X".to_string()]
    ));

    // Mistakes are named.
    for (text, needle) in [
        (
            "[servers.x]\ncommand = \"node\"\ninherit_env = true\nenv_passthrough = [\"A\"]\n",
            "keep one of the two",
        ),
        (
            "[servers.x]\nurl = \"http://127.0.0.1:1/mcp\"\ninherit_env = true\n",
            "are for stdio servers",
        ),
        (
            "[servers.x]\ncommand = \"node\"\nenv_passthrough = [\"A=B\"]\n",
            "is not a variable name",
        ),
    ] {
        std::fs::write(&path, text).expect("write");
        let e = Registry::load(&path).expect_err(text).to_string();
        assert!(e.contains(needle), "{e}");
    }
}
