//! The agent layer's second part against real servers (the embedded demo server and
//! server-everything): local tools beside MCP tools, every provider's format over live tool
//! lists, image results per provider.

use crate::common;

use common::limited;

use mcp_bindgen::toolbox::provider::{self, Format};
use mcp_bindgen::toolbox::{AgentConfig, ModelPolicy, ModelRef, Toolbox};
use mcp_bindgen::{ErrorKind, ToolOutput};
use serde::Deserialize;
use serde_json::{Value, json};

/// A local tool's arguments: the schema models see comes from this type.
#[derive(Deserialize, mcp_bindgen::schemars::JsonSchema)]
#[schemars(crate = "mcp_bindgen::schemars")]
struct WeatherArgs {
    /// The city.
    city: String,
    /// Days ahead (0 = today).
    #[serde(default)]
    days: Option<u8>,
    /// Units.
    #[serde(default)]
    units: Option<Units>,
}

#[derive(Deserialize, mcp_bindgen::schemars::JsonSchema)]
#[schemars(crate = "mcp_bindgen::schemars")]
#[serde(rename_all = "lowercase")]
enum Units {
    Metric,
    Imperial,
}

#[derive(Deserialize, mcp_bindgen::schemars::JsonSchema)]
#[schemars(crate = "mcp_bindgen::schemars")]
struct Nothing {}

async fn weather(args: WeatherArgs) -> Result<String, String> {
    if args.city == "Atlantis" {
        return Err("no weather station in Atlantis".into());
    }
    let unit = match args.units {
        Some(Units::Imperial) => "F",
        _ => "C",
    };
    Ok(format!(
        "{} in {} day(s): 21 {unit}",
        args.city,
        args.days.unwrap_or(0)
    ))
}

#[tokio::test]
async fn local_tools_are_exported_and_dispatched_like_mcp_tools() {
    limited(async {
        let tb = Toolbox::from_servers(vec![common::demo_config("demo")])
            .env(common::lookup)
            .function_call_wrapper("demo", true)
            .max_output_bytes(300)
            .add_local("weather", "The weather in a city.", weather)
            .add_local("panics", "Always panics.", |_: Nothing| async {
                if true {
                    panic!("the handler's bug");
                }
                Ok::<_, String>("never")
            })
            .connect()
            .await
            .expect("connect");
        // Added after start-up too; its result is structured JSON, and long.
        tb.add_local("report", "A long report.", |_: Nothing| async {
            Ok::<_, String>(json!({"lines": vec!["line of the report"; 100]}))
        })
        .expect("add_local");

        // Exported in every format beside the demo server's tools, the schema from the type.
        for format in Format::ALL {
            let export = tb.export(format);
            let names: Vec<&str> = export
                .tools
                .iter()
                .filter_map(|d| format.name_of(d))
                .collect();
            assert!(names.contains(&"weather"), "{format}: {names:?}");
            assert!(names.contains(&"mcp_demo_echo"), "{format}: {names:?}");
            for d in &export.tools {
                provider::check(format, d).unwrap_or_else(|e| panic!("{format}: {e}"));
            }
        }
        let anthropic = tb.export(Format::Anthropic);
        let w = anthropic
            .tools
            .iter()
            .find(|d| d["name"] == "weather")
            .expect("weather");
        assert_eq!(w["description"], "The weather in a city.");
        assert_eq!(w["input_schema"]["required"], json!(["city"]));
        assert_eq!(
            w["input_schema"]["properties"]["city"]["description"],
            "The city."
        );
        let gemini = tb.export(Format::Gemini);
        let w = gemini
            .tools
            .iter()
            .find(|d| d["name"] == "weather")
            .expect("weather");
        assert_eq!(
            w["parameters"]["properties"]["units"]["enum"],
            json!(["metric", "imperial"])
        );
        let strict = tb.export(Format::OpenAiStrict);
        assert!(
            strict
                .tools
                .iter()
                .any(|d| d["function"]["name"] == "weather" && d["function"]["strict"] == true)
        );

        // Dispatch: valid, invalid (by the schema, then by the type), the handler's error,
        // a panic, truncation.
        let d = tb
            .call(
                "weather",
                r#"{"city": "Oslo", "days": 2, "units": "imperial"}"#,
            )
            .await;
        assert!(d.is_ok(), "{}", d.text);
        assert_eq!(d.text, "Oslo in 2 day(s): 21 F");
        let t = d.tool.expect("resolved");
        assert_eq!((t.server.as_str(), t.exported.as_str()), ("", "weather"));

        let d = tb.call("weather", r#"{"days": 2}"#).await;
        assert_eq!(
            d.error_kind(),
            Some(ErrorKind::InvalidArguments),
            "{}",
            d.text
        );
        assert!(d.text.contains("city"), "{}", d.text);
        let d = tb
            .call("weather", r#"{"city": "Oslo", "units": "kelvin"}"#)
            .await;
        assert_eq!(
            d.error_kind(),
            Some(ErrorKind::InvalidArguments),
            "{}",
            d.text
        );
        assert!(d.text.contains("units"), "{}", d.text);
        let d = tb.call("weather", r#"{"city": "Oslo", "days": 300}"#).await;
        assert_eq!(
            d.error_kind(),
            Some(ErrorKind::InvalidArguments),
            "{}",
            d.text
        );

        let d = tb.call("weather", r#"{"city": "Atlantis"}"#).await;
        assert_eq!(d.error_kind(), Some(ErrorKind::ToolFailed));
        assert_eq!(
            d.text,
            "Error: tool weather failed: no weather station in Atlantis"
        );
        let d = tb.call("panics", "{}").await;
        assert_eq!(d.error_kind(), Some(ErrorKind::ToolFailed));
        assert!(d.text.contains("panicked"), "{}", d.text);

        let d = tb.call("report", "").await;
        assert!(d.is_ok(), "{}", d.text);
        assert!(d.truncation.is_some(), "{}", d.text);
        assert!(d.text.len() <= 300, "{}", d.text.len());
        let full = d.output().and_then(ToolOutput::json).expect("structured");
        assert_eq!(full["lines"].as_array().map(Vec::len), Some(100));

        // MCP tools still work beside them.
        let d = tb.call("mcp_demo_add", r#"{"a": 1, "b": 2}"#).await;
        assert_eq!(d.text, "3");

        // Names: invalid, `mcp_`-prefixed and duplicate names are refused.
        for bad in ["bad name", "mcp_weather", "weather"] {
            let e = tb
                .add_local(bad, "x", |_: Nothing| async { Ok::<_, String>("x") })
                .expect_err(bad);
            assert_eq!(e.kind(), ErrorKind::Config, "{e}");
        }

        // Agents: local tools are visible unless the agent's tool list leaves them out.
        let policy = ModelPolicy::new();
        let model = ModelRef::new("openai", "gpt-4o");
        let all = tb
            .agent(&AgentConfig::new("all", model.clone(), ["demo"]), &policy)
            .expect("agent");
        assert!(all.call("weather", r#"{"city": "Oslo"}"#).await.is_ok());
        let mut only_echo = AgentConfig::new("echo-only", model, ["demo"]);
        only_echo.tools = Some(vec!["demo.echo".into()]);
        let view = tb.agent(&only_echo, &policy).expect("agent");
        let d = view.call("weather", r#"{"city": "Oslo"}"#).await;
        assert_eq!(d.error_kind(), Some(ErrorKind::NotAllowed), "{}", d.text);
        assert!(
            d.text
                .contains("not available to agent \"echo-only\": local tool \"weather\" is not in its tool list"),
            "{}",
            d.text
        );
        assert_eq!(view.export(Format::Gemini).tools.len(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_bad_local_tool_fails_the_builder() {
    limited(async {
        let e = Toolbox::from_servers(vec![])
            .add_local("has space", "x", |_: Nothing| async {
                Ok::<_, String>("x")
            })
            .connect()
            .await
            .expect_err("bad name");
        assert!(e.to_string().contains("\"has space\" is not valid"), "{e}");
        let e = Toolbox::from_servers(vec![])
            .add_local("twice", "x", |_: Nothing| async { Ok::<_, String>("x") })
            .add_local("twice", "y", |_: Nothing| async { Ok::<_, String>("y") })
            .connect()
            .await
            .expect_err("duplicate");
        assert!(e.to_string().contains("already in the toolbox"), "{e}");
    })
    .await;
}

/// server-everything's and the demo server's live tools in every format: one valid
/// definition per tool, the same names in each.
#[tokio::test]
async fn every_format_over_live_servers() {
    limited(async {
        let tb = Toolbox::from_servers(vec![
            common::installed("everything"),
            common::demo_config("demo"),
        ])
        .env(common::lookup)
        .connect()
        .await
        .expect("connect");
        assert!(tb.skipped().is_empty(), "{:?}", tb.skipped());
        let openai: Vec<String> = tb
            .export(Format::OpenAi)
            .tools
            .iter()
            .filter_map(|d| Format::OpenAi.name_of(d).map(str::to_string))
            .collect();
        assert!(openai.len() > 20, "{openai:?}");
        for format in [Format::Anthropic, Format::Gemini, Format::OpenAiStrict] {
            let export = tb.export(format);
            let names: Vec<String> = export
                .tools
                .iter()
                .filter_map(|d| format.name_of(d).map(str::to_string))
                .collect();
            assert_eq!(names, openai, "{format}");
            for d in &export.tools {
                provider::check(format, d).unwrap_or_else(|e| panic!("{format}: {e}"));
            }
            for f in &export.fallbacks {
                assert!(!f.reason.is_empty() && !f.server.is_empty(), "{f:?}");
            }
        }
    })
    .await;
}

/// server-everything's `get-tiny-image`: the image reaches each provider as an image part.
#[tokio::test]
async fn image_results_become_image_parts() {
    limited(async {
        let tb = Toolbox::from_servers(vec![common::installed("everything")])
            .env(common::lookup)
            .connect()
            .await
            .expect("connect");
        let name = "mcp_everything_get-tiny-image";
        let d = tb.call(name, "{}").await;
        assert!(d.is_ok(), "{}", d.text);
        let image = d
            .output()
            .and_then(|o| {
                o.content.iter().find_map(|c| match c {
                    mcp_bindgen::Content::Image { data, mime_type } => {
                        Some((mime_type.clone(), data.clone()))
                    }
                    _ => None,
                })
            })
            .expect("the tool returns an image");
        assert_eq!(image.0, "image/png");

        let a = d.anthropic_tool_result("toolu_1");
        assert_eq!(a["type"], "tool_result");
        assert_eq!(a["tool_use_id"], "toolu_1");
        assert!(a.get("is_error").is_none());
        let blocks = a["content"].as_array().expect("blocks");
        let img = blocks
            .iter()
            .find(|b| b["type"] == "image")
            .expect("an image block");
        assert_eq!(
            img["source"],
            json!({"type": "base64", "media_type": "image/png", "data": image.1})
        );
        let text: Vec<&Value> = blocks.iter().filter(|b| b["type"] == "text").collect();
        assert!(
            text.iter()
                .all(|t| !t["text"].as_str().unwrap_or("").contains("[image")),
            "no placeholder beside the image part: {text:?}"
        );

        let g = d.gemini_function_response(name, Some("call-1"));
        let r = &g["functionResponse"];
        assert_eq!(
            (r["name"].as_str(), r["id"].as_str()),
            (Some(name), Some("call-1"))
        );
        assert!(r["response"]["output"].is_string());
        assert_eq!(
            r["parts"],
            json!([{"inlineData": {"mimeType": "image/png", "data": image.1}}])
        );

        let o = d.openai_tool_messages("call_1");
        assert_eq!(o.len(), 2);
        assert_eq!(o[0]["role"], "tool");
        assert_eq!(o[0]["tool_call_id"], "call_1");
        assert_eq!(
            o[1]["content"][1]["image_url"]["url"],
            format!("data:image/png;base64,{}", image.1)
        );

        // A text result stays one string; a failure is marked as one.
        let d = tb.call("mcp_everything_echo", r#"{"message": "hi"}"#).await;
        assert!(d.is_ok(), "{}", d.text);
        assert_eq!(d.anthropic_tool_result("t")["content"], json!(d.text));
        assert_eq!(d.openai_tool_messages("c").len(), 1);
        let d = tb.call("mcp_everything_echo", r#"{}"#).await;
        assert!(!d.is_ok());
        assert_eq!(d.anthropic_tool_result("t")["is_error"], true);
        assert!(
            d.gemini_function_response("f", None)["functionResponse"]["response"]["error"]
                .is_string()
        );
    })
    .await;
}

/// server-everything's prompts and resources, opted in as tools: exported, dispatched, and
/// rendered as context text.
#[tokio::test]
async fn prompts_and_resources_as_tools_and_context() {
    limited(async {
        let tb = Toolbox::from_servers(vec![
            common::installed("everything"),
            common::demo_config("demo"),
        ])
        .env(common::lookup)
        .prompts_as_tools(true)
        .resources_as_tools(true)
        .connect()
        .await
        .expect("connect");
        let export = tb.export(Format::Anthropic);
        let names: Vec<&str> = export
            .tools
            .iter()
            .filter_map(|d| d["name"].as_str())
            .collect();
        assert!(
            names.contains(&"mcp_everything_get_prompt_args-prompt"),
            "{names:?}"
        );
        assert!(names.contains(&"mcp_everything_read_resource"), "{names:?}");
        // The demo server has neither: no extra tools.
        assert!(!names.iter().any(|n| n.starts_with("mcp_demo_get_prompt")));
        assert!(!names.contains(&"mcp_demo_read_resource"));
        for d in &export.tools {
            provider::check(Format::Anthropic, d).unwrap_or_else(|e| panic!("{e}"));
        }
        let prompt = export
            .tools
            .iter()
            .find(|d| d["name"] == "mcp_everything_get_prompt_args-prompt")
            .expect("prompt tool");
        assert_eq!(
            prompt["input_schema"]["properties"]["city"]["type"],
            "string"
        );
        assert!(
            prompt["input_schema"]["required"]
                .as_array()
                .is_some_and(|r| r.contains(&json!("city"))),
            "{prompt}"
        );

        let d = tb
            .call(
                "mcp_everything_get_prompt_args-prompt",
                r#"{"city": "Lisbon"}"#,
            )
            .await;
        assert!(d.is_ok(), "{}", d.text);
        assert!(
            d.text.contains("[user]") && d.text.contains("Lisbon"),
            "{}",
            d.text
        );
        let d = tb.call("mcp_everything_get_prompt_args-prompt", "{}").await;
        assert_eq!(
            d.error_kind(),
            Some(ErrorKind::InvalidArguments),
            "{}",
            d.text
        );

        let resources = tb.list_resources("everything").await.expect("resources");
        let uri = resources[0]["uri"].as_str().expect("uri").to_string();
        let read = export
            .tools
            .iter()
            .find(|d| d["name"] == "mcp_everything_read_resource")
            .expect("read tool");
        assert!(
            read["description"].as_str().unwrap_or("").contains(&uri),
            "the description lists the resources: {read}"
        );
        let d = tb
            .call(
                "mcp_everything_read_resource",
                &json!({"uri": uri}).to_string(),
            )
            .await;
        assert!(d.is_ok(), "{}", d.text);
        let direct = tb.read_resource("everything", &uri).await.expect("read");
        let text = direct["contents"][0]["text"].as_str().unwrap_or_default();
        if !text.is_empty() {
            assert_eq!(d.text, text);
        }

        let context = tb
            .resources_context(&[
                ("everything", uri.as_str()),
                ("everything", "demo://resource/dynamic/text/7"),
            ])
            .await
            .expect("context");
        assert!(
            context.starts_with(&format!("<resource server=\"everything\" uri=\"{uri}\">\n")),
            "{context}"
        );
        assert_eq!(context.matches("</resource>").count(), 2, "{context}");
        let e = tb
            .resources_context(&[("everything", "demo://nope/nothing")])
            .await
            .expect_err("unknown resource");
        assert!(
            e.to_string()
                .contains("cannot read resource demo://nope/nothing"),
            "{e}"
        );
    })
    .await;
}

/// A model's call as a stream through the toolbox: the demo server's progress then the
/// result; a local tool's result alone; refusals as the single final event.
#[tokio::test]
async fn call_stream_through_the_toolbox_and_an_agent() {
    use futures::StreamExt;
    use mcp_bindgen::CallEvent;
    limited(async {
        let tb = Toolbox::from_servers(vec![common::demo_config("demo")])
            .env(common::lookup)
            .function_call_wrapper("demo", true)
            .add_local("weather", "The weather in a city.", weather)
            .connect()
            .await
            .expect("connect");
        let events: Vec<CallEvent> = tb
            .call_stream("mcp_demo_long_task", r#"{"steps": 5, "delay_ms": 10}"#)
            .await
            .collect()
            .await;
        let seqs: Vec<u64> = events.iter().map(CallEvent::seq).collect();
        assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
        let progress = events
            .iter()
            .filter(|e| matches!(e, CallEvent::Progress { .. }))
            .count();
        assert_eq!(progress, 5, "{events:?}");
        let last = events.into_iter().last().expect("events");
        let output = last.into_result().expect("final").expect("ok");
        assert_eq!(
            output.text(),
            tb.call("mcp_demo_long_task", r#"{"steps": 5, "delay_ms": 10}"#)
                .await
                .text
        );

        let events: Vec<CallEvent> = tb
            .call_stream("weather", r#"{"city": "Oslo"}"#)
            .await
            .collect()
            .await;
        assert_eq!(events.len(), 1);
        let only = events.into_iter().next().expect("one event");
        assert_eq!(only.seq(), 0);
        assert_eq!(
            only.into_result().expect("final").expect("ok").text(),
            "Oslo in 0 day(s): 21 C"
        );

        let events: Vec<CallEvent> = tb.call_stream("weather", "{}").await.collect().await;
        assert_eq!(events.len(), 1);
        let e = events
            .into_iter()
            .next()
            .and_then(CallEvent::into_result)
            .expect("final")
            .expect_err("invalid arguments");
        assert_eq!(e.kind(), ErrorKind::InvalidArguments);

        let mut config = AgentConfig::new("echo-only", ModelRef::new("openai", "gpt-4o"), ["demo"]);
        config.tools = Some(vec!["demo.echo".into()]);
        let view = tb.agent(&config, &ModelPolicy::new()).expect("agent");
        let events: Vec<CallEvent> = view
            .call_stream("mcp_demo_long_task", r#"{"steps": 1}"#)
            .await
            .collect()
            .await;
        let e = events
            .into_iter()
            .next()
            .and_then(CallEvent::into_result)
            .expect("final")
            .expect_err("not allowed");
        assert_eq!(e.kind(), ErrorKind::NotAllowed);
    })
    .await;
}

/// Agents and the model policy come from the registry file, beside a disabled server.
#[tokio::test]
async fn agents_and_models_from_the_registry_file() {
    use mcp_bindgen::Registry;
    use mcp_bindgen::toolbox::Route;
    limited(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("servers.toml");
        std::fs::write(
            &path,
            format!(
                r#"[servers.demo]
command = '{demo}'
function_call_wrapper = true

[servers.off]
command = "/nonexistent/server"
enabled = false

[models.openai]
supports_mcp = false

[models."anthropic/claude-x"]
supports_mcp = true

[agents.helper]
model = "openai/gpt-4o"
servers = ["demo"]
tools = ["demo.echo"]

[agents.native]
model = "anthropic/claude-x"
servers = ["demo"]
"#,
                demo = common::demo_server().display()
            ),
        )
        .expect("write");
        let registry = Registry::load(&path).expect("registry");
        assert_eq!(registry.disabled(), ["off".to_string()]);
        let tb = Toolbox::builder(&registry)
            .connect()
            .await
            .expect("connect");
        assert!(tb.skipped().is_empty(), "{:?}", tb.skipped());
        assert_eq!(tb.statuses().len(), 1, "the disabled server is not started");

        let helper = tb
            .agent(
                &registry.agent("helper").expect("agent"),
                registry.model_policy(),
            )
            .expect("view");
        assert_eq!(helper.route(), Some(Route::FunctionCalls));
        let export = helper.export(Format::Gemini);
        assert_eq!(export.tools.len(), 1);
        assert_eq!(export.tools[0]["name"], "mcp_demo_echo");
        assert_eq!(
            helper
                .call("mcp_demo_echo", r#"{"message": "hi"}"#)
                .await
                .text,
            "hi"
        );
        let native = tb
            .agent(
                &registry.agent("native").expect("agent"),
                registry.model_policy(),
            )
            .expect("view");
        assert_eq!(native.route(), Some(Route::Native));

        let e = Toolbox::builder(&registry)
            .only(["off"])
            .connect()
            .await
            .expect_err("disabled");
        assert!(e.to_string().contains("is disabled in the registry"), "{e}");
        let e = registry.agent("nobody").expect_err("unknown agent");
        assert!(e.to_string().contains("no agent \"nobody\""), "{e}");
    })
    .await;
}

/// Provider-native MCP from a live toolbox: server-everything over Streamable HTTP (its
/// live tools and annotations) and the demo server over stdio.
#[tokio::test]
async fn live_servers_become_connector_entries_or_are_refused_with_the_reason() {
    use mcp_bindgen::toolbox::ConnectorOptions;
    use mcp_bindgen::toolbox::provider::connector::{self, Approval, Connector};
    limited(async {
        let (_guard, port) = common::start_everything_http("streamableHttp");
        let remote = mcp_bindgen::ServerConfig::http(
            "everything",
            false,
            format!("http://127.0.0.1:{port}/mcp"),
        )
        .with_tools(["echo", "get-sum", "toggle-simulated-logging"]);
        let tb = Toolbox::from_servers(vec![remote, common::demo_config("demo")])
            .connect()
            .await
            .expect("connect");
        assert!(tb.skipped().is_empty(), "{:?}", tb.skipped());

        // As this machine reaches it (loopback), no provider can: refused, and why.
        let local = tb
            .mcp_connectors(Connector::OpenAi, &ConnectorOptions::default())
            .await;
        assert!(local.tools.is_empty(), "{:?}", local.tools);
        let reasons: Vec<String> = local
            .refused
            .iter()
            .map(|r| format!("{}: {}", r.alias, r.reason))
            .collect();
        assert_eq!(reasons.len(), 2, "{reasons:?}");
        assert!(reasons[0].starts_with("demo: a stdio server"), "{reasons:?}");
        assert!(
            reasons[1].starts_with("everything: 127.0.0.1 is a loopback or private address"),
            "{reasons:?}"
        );

        // Behind a public gateway: the live tools the toolbox allows, approval from their
        // annotations (echo and get-sum are read-only, toggle-simulated-logging is not).
        let public = ConnectorOptions::default()
            .approval(Approval::Auto)
            .public_url("everything", "https://mcp.example.com/everything");
        let openai = tb.mcp_connectors(Connector::OpenAi, &public).await;
        connector::check(Connector::OpenAi, &openai).expect("valid");
        assert_eq!(openai.tools.len(), 1, "{:?}", openai.refused);
        let entry = &openai.tools[0];
        assert_eq!(entry["server_url"], "https://mcp.example.com/everything");
        assert_eq!(
            entry["allowed_tools"],
            json!(["echo", "get-sum", "toggle-simulated-logging"])
        );
        assert_eq!(
            entry["require_approval"],
            json!({"never": {"tool_names": ["echo", "get-sum"]},
                   "always": {"tool_names": ["toggle-simulated-logging"]}})
        );
        let anthropic = tb.mcp_connectors(Connector::Anthropic, &public).await;
        connector::check(Connector::Anthropic, &anthropic).expect("valid");
        assert_eq!(
            anthropic.mcp_servers,
            [json!({"type": "url", "url": "https://mcp.example.com/everything", "name": "everything"})]
        );
        assert_eq!(
            anthropic.tools[0]["configs"],
            json!({"echo": {"enabled": true}, "get-sum": {"enabled": true},
                   "toggle-simulated-logging": {"enabled": true}})
        );
    })
    .await;
}
