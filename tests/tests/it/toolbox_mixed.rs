//! One agent on both routes at once: the demo server over Streamable HTTP (behind a public
//! URL) as the provider's connector entry, the demo server over stdio wrapped as function
//! definitions, in Anthropic's and OpenAI Responses' request shapes; a stdio server without
//! a function-call wrapper refused with the fix, and calls of the wrapped tools dispatched.

use crate::common;

use common::limited;

use mcp_bindgen::Registry;
use mcp_bindgen::toolbox::provider::connector::{self, Connector};
use mcp_bindgen::toolbox::provider::{self, Format};
use mcp_bindgen::toolbox::{ConnectorOptions, Toolbox};

#[tokio::test]
async fn one_agent_reaches_a_remote_server_by_connector_and_a_stdio_server_by_functions() {
    limited(async {
        let (_guard, url) = common::start_demo_http();
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("servers.toml");
        std::fs::write(
            &path,
            format!(
                r#"[servers.remote]
url = {url:?}

[servers.local]
command = {demo:?}
function_call_wrapper = true

[servers.plain]
command = {demo:?}

[models."anthropic/claude-x"]
supports_mcp = true

[agents.mixed]
model = "anthropic/claude-x"
servers = ["remote", "local", "plain"]
"#,
                demo = common::demo_server().display().to_string()
            ),
        )
        .expect("write registry");
        let registry = Registry::load(&path).expect("registry");
        let tb = Toolbox::builder(&registry)
            .connect()
            .await
            .expect("connect");
        let agent = tb
            .agent(
                &registry.agent("mixed").expect("agent"),
                registry.model_policy(),
            )
            .expect("the agent");
        let options =
            ConnectorOptions::default().public_url("remote", "https://mcp.example.com/demo");

        for (connector, format) in [
            (Connector::Anthropic, Format::Anthropic),
            (Connector::OpenAi, Format::OpenAiResponses),
        ] {
            let mixed = agent.mixed_tools(connector, &options).await;
            connector::check(connector, &mixed.connectors)
                .unwrap_or_else(|e| panic!("{connector:?}: {e}"));
            // The remote server is the connector's, and only it.
            assert_eq!(mixed.connectors.tools.len(), 1, "{connector:?}");
            let entry = &mixed.connectors.tools[0];
            match connector {
                Connector::Anthropic => {
                    assert_eq!(entry["type"], "mcp_toolset");
                    assert_eq!(entry["mcp_server_name"], "remote");
                    assert_eq!(mixed.connectors.mcp_servers.len(), 1);
                    assert_eq!(
                        mixed.connectors.mcp_servers[0]["url"],
                        "https://mcp.example.com/demo"
                    );
                }
                Connector::OpenAi => {
                    assert_eq!(entry["type"], "mcp");
                    assert_eq!(entry["server_label"], "remote");
                    assert_eq!(entry["server_url"], "https://mcp.example.com/demo");
                }
            }
            // The stdio server with a wrapper: functions in the same provider's shape.
            let names: Vec<&str> = mixed
                .functions
                .tools
                .iter()
                .filter_map(|d| format.name_of(d))
                .collect();
            assert!(names.contains(&"mcp_local_add"), "{connector:?}: {names:?}");
            assert!(
                names.iter().all(|n| n.starts_with("mcp_local_")),
                "{connector:?}: only the wrapped server's tools: {names:?}"
            );
            for d in &mixed.functions.tools {
                provider::check(format, d).unwrap_or_else(|e| panic!("{format}: {e}"));
            }
            if format == Format::OpenAiResponses {
                assert!(
                    mixed
                        .functions
                        .tools
                        .iter()
                        .all(|d| d["type"] == "function")
                );
            }
            assert_eq!(mixed.request_tools().len(), 1 + mixed.functions.tools.len());
            let wrapped: Vec<&str> = mixed.wrapped.iter().map(|w| w.alias.as_str()).collect();
            assert_eq!(wrapped, ["local"]);
            assert!(mixed.wrapped[0].reason.starts_with("a stdio server"));
            // The stdio server without a wrapper is on neither route, with the fix.
            assert_eq!(
                mixed.connectors.refused.len(),
                1,
                "{:?}",
                mixed.connectors.refused
            );
            let plain = &mixed.connectors.refused[0];
            assert_eq!(plain.alias, "plain");
            assert!(
                plain
                    .reason
                    .contains("set `function_call_wrapper = true` in [servers.plain]"),
                "{}",
                plain.reason
            );
        }

        // A wrapped tool's call goes through the agent's dispatch.
        let d = agent.call("mcp_local_add", r#"{"a": 2, "b": 40}"#).await;
        assert!(d.is_ok(), "{}", d.text);
        assert!(d.text.contains("42"), "{}", d.text);

        // A server switched off leaves both routes.
        tb.switch_off("remote").expect("off");
        tb.switch_off("local").expect("off");
        let mixed = agent.mixed_tools(Connector::Anthropic, &options).await;
        assert!(mixed.connectors.tools.is_empty(), "{:?}", mixed.connectors);
        assert!(
            mixed.functions.tools.is_empty(),
            "{:?}",
            mixed.functions.tools
        );
        tb.close().await;
    })
    .await;
}
