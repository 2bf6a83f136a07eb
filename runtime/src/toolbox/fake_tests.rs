//! A toolbox over fakes ([`ToolboxBuilder::add_fake`]): export, dispatch and lifecycle with
//! no process and no network.

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::provider::Format;
use super::{ServerState, Toolbox, TypedTool, normalize_as};
use crate::CallEvent;
use crate::config::ServerConfig;
use crate::error::ErrorKind;
use crate::fake::{Call, FakeServer, tool_error};
use crate::output::ToolOutput;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AddArgs {
    a: f64,
    b: f64,
}

#[derive(Debug, Serialize, Deserialize)]
struct AddOutput {
    sum: f64,
}

#[derive(Debug, Deserialize)]
struct EchoArgs {
    text: String,
}

const fn tool(
    name: &'static str,
    input_schema: &'static str,
    openai_name: &'static str,
) -> TypedTool {
    TypedTool::new(name, openai_name, input_schema)
}

const ADD: TypedTool = TypedTool {
    description: Some("Adds two numbers."),
    title: None,
    annotations: None,
    output_schema: Some(
        r#"{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}"#,
    ),
    normalize: Some(normalize_as::<AddArgs>),
    ..tool(
        "add",
        r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}"#,
        "mcp_x_add",
    )
};

/// Untyped arguments: checked against the schema only.
const ECHO: TypedTool = tool(
    "echo",
    r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#,
    "mcp_x_echo",
);

const BOOM: TypedTool = tool("boom", r#"{"type":"object"}"#, "mcp_x_boom");

/// Never stubbed.
const NOSTUB: TypedTool = tool("nostub", r#"{"type":"object"}"#, "mcp_x_nostub");

static TOOLS: &[TypedTool] = &[ADD, ECHO, BOOM, NOSTUB];

/// A fake of server `x` with `add`, `echo` and `boom` stubbed.
fn fake() -> FakeServer {
    let fake = FakeServer::new("x", TOOLS);
    fake.stub_typed("add", |args: AddArgs| {
        Ok(AddOutput {
            sum: args.a + args.b,
        })
    });
    fake.stub_untyped("echo", |args: EchoArgs| {
        Ok(ToolOutput::from_text(format!("echo: {}", args.text)))
    });
    fake.stub_untyped("boom", |_: Value| Err(tool_error("boom")));
    fake
}

async fn toolbox(fake: &FakeServer) -> Toolbox {
    match Toolbox::from_servers(vec![])
        .add_fake(fake.clone())
        .connect()
        .await
    {
        Ok(t) => t,
        Err(e) => panic!("connect: {e}"),
    }
}

fn names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn a_fake_exports_its_typed_tools() {
    let tb = toolbox(&fake()).await;
    let expected = ["mcp_x_add", "mcp_x_boom", "mcp_x_echo", "mcp_x_nostub"];
    assert_eq!(names(&tb.openai_tools(false)), expected);
    assert_eq!(names(&tb.export(Format::OpenAi).tools), expected);
    let add = &tb.openai_tools(false)[0];
    assert_eq!(add["function"]["description"], "Adds two numbers.");
    assert_eq!(add["function"]["parameters"]["required"], json!(["a", "b"]));
    let tools = tb.tools();
    assert!(tools.iter().all(|t| t.typed && t.server == "x"));
    assert_eq!(tools[0].definition["name"], "add");
    assert_eq!(tools[0].definition["description"], "Adds two numbers.");
    assert_eq!(
        tb.resolve("x.add").map(|r| r.exported).ok().as_deref(),
        Some("mcp_x_add")
    );
    assert!(tb.collisions().is_empty());
}

#[tokio::test]
async fn a_model_call_reaches_the_stub() {
    let fake = fake();
    let tb = toolbox(&fake).await;
    let d = tb.call("mcp_x_add", r#"{"a":1,"b":2}"#).await;
    assert!(d.is_ok(), "{}", d.text);
    assert_eq!(d.text, r#"{"sum":3.0}"#);
    let output = d.result.as_ref().ok().cloned().unwrap_or_default();
    assert_eq!(output.structured, Some(json!({"sum": 3.0})));
    assert_eq!(d.tool.as_ref().map(|t| t.tool.as_str()), Some("add"));
    // The arguments as the generated type carries them.
    assert_eq!(
        fake.calls(),
        vec![Call {
            tool: "add".into(),
            arguments: json!({"a": 1.0, "b": 2.0}),
        }]
    );

    let d = tb.call("x.echo", r#"{"text":"hi"}"#).await;
    assert_eq!(d.text, "echo: hi");
    assert_eq!(fake.calls().len(), 2);
    assert_eq!(fake.calls()[1].arguments, json!({"text": "hi"}));
}

#[tokio::test]
async fn invalid_arguments_never_reach_the_fake() {
    let fake = fake();
    let tb = toolbox(&fake).await;
    for (name, args) in [
        ("mcp_x_add", r#"{"a":"one","b":2}"#),
        ("mcp_x_add", r#"{"a":1}"#),
        ("mcp_x_add", r#"{"a":1,"b":2,"c":3}"#),
        ("mcp_x_add", "[1, 2]"),
        ("mcp_x_echo", r#"{"text":5}"#),
        ("mcp_x_echo", "{}"),
    ] {
        let d = tb.call(name, args).await;
        assert_eq!(
            d.error_kind(),
            Some(ErrorKind::InvalidArguments),
            "{name} {args}: {}",
            d.text
        );
        assert!(
            d.text.starts_with("Error: invalid arguments for"),
            "{}",
            d.text
        );
    }
    assert!(fake.calls().is_empty(), "{:?}", fake.calls());
}

#[tokio::test]
async fn a_tool_without_stub_is_an_error_naming_it() {
    let fake = fake();
    let tb = toolbox(&fake).await;
    let d = tb.call("mcp_x_nostub", "{}").await;
    assert!(!d.is_ok());
    assert!(d.text.starts_with("Error: "), "{}", d.text);
    assert!(d.text.contains("\"nostub\""), "{}", d.text);
    assert!(d.error_kind().is_some());
    assert_eq!(fake.calls().len(), 1);
    // The fake stays usable.
    assert!(tb.call("mcp_x_add", r#"{"a":1,"b":1}"#).await.is_ok());
    assert_eq!(tb.status("x").map(|s| s.state), Some(ServerState::Active));
}

#[tokio::test]
async fn a_stubbed_tool_error_is_tool_failed() {
    let tb = toolbox(&fake()).await;
    let d = tb.call("mcp_x_boom", "").await;
    assert_eq!(d.error_kind(), Some(ErrorKind::ToolFailed), "{}", d.text);
    assert!(d.text.contains("boom"), "{}", d.text);
    let output = d.output().cloned().unwrap_or_default();
    assert!(output.is_error);
    assert_eq!(output.text(), "boom");
    assert_eq!(tb.status("x").map(|s| s.state), Some(ServerState::Active));
}

#[tokio::test]
async fn a_fake_is_active_and_lifecycle_leaves_it_alone() {
    let fake = fake();
    let tb = toolbox(&fake).await;
    let status = tb.status("x").unwrap_or_else(|| panic!("no status"));
    assert_eq!(status.transport, "fake");
    assert_eq!(status.state, ServerState::Active);
    assert!(status.typed);
    assert_eq!(status.tools, 4);
    assert_eq!(status.last_error, None);
    assert!(tb.skipped().is_empty());
    let before = tb.statuses();

    let report = tb.reconnect(false).await;
    assert!(
        report.reconnected.is_empty() && report.failed.is_empty(),
        "{report:?}"
    );
    let report = tb.reconnect(true).await;
    assert!(
        report.reconnected.is_empty() && report.failed.is_empty(),
        "{report:?}"
    );
    let report = tb.refresh().await;
    assert!(
        report.changed.is_empty() && report.failed.is_empty(),
        "{report:?}"
    );
    assert_eq!(tb.check_health().await, before);
    assert_eq!(tb.statuses(), before);

    // No session, nothing native, no prompts or resources.
    assert!(tb.session("x").is_none());
    assert!(tb.native_servers().is_empty());
    assert!(matches!(tb.list_prompts("x").await, Ok(p) if p.is_empty()));
    assert!(matches!(tb.list_resources("x").await, Ok(r) if r.is_empty()));
    assert!(tb.read_resource("x", "file:///a").await.is_err());

    // Still callable after all that.
    assert!(tb.call("mcp_x_add", r#"{"a":1,"b":2}"#).await.is_ok());

    tb.close().await;
    assert!(tb.is_closed());
    assert_eq!(tb.statuses(), before);
    let calls = fake.calls().len();
    let d = tb.call("mcp_x_add", r#"{"a":1,"b":2}"#).await;
    assert_eq!(d.error_kind(), Some(ErrorKind::Unavailable));
    assert_eq!(fake.calls().len(), calls);
}

#[tokio::test]
async fn call_stream_yields_the_fakes_result() {
    let fake = fake();
    let tb = toolbox(&fake).await;
    let events: Vec<CallEvent> = tb
        .call_stream("mcp_x_add", r#"{"a":2,"b":3}"#)
        .await
        .collect()
        .await;
    assert_eq!(events.len(), 1, "{events:?}");
    match &events[0] {
        CallEvent::Result { output, .. } => {
            assert_eq!(output.structured, Some(json!({"sum": 5.0})));
        }
        other => panic!("expected a result, got {other:?}"),
    }
    assert_eq!(fake.calls().len(), 1);

    let events: Vec<CallEvent> = tb.call_stream("mcp_x_nostub", "{}").await.collect().await;
    assert!(
        matches!(&events[..], [CallEvent::Error { error, .. }] if error.to_string().contains("nostub")),
        "{events:?}"
    );
    let events: Vec<CallEvent> = tb
        .call_stream("mcp_x_add", r#"{"a":"x"}"#)
        .await
        .collect()
        .await;
    assert!(
        matches!(&events[..], [CallEvent::Error { error, .. }] if error.kind() == ErrorKind::InvalidArguments),
        "{events:?}"
    );
    assert_eq!(fake.calls().len(), 2);
}

#[tokio::test]
async fn a_fake_replaces_the_registry_server_of_its_alias() {
    let fake = fake();
    let registry = vec![
        ServerConfig::stdio("x", "/nonexistent/binary", vec![])
            .with_required(true)
            .with_exclude_tools(["nostub"])
            .with_function_call_wrapper(true),
    ];
    let tb = match Toolbox::from_servers(registry)
        .add_fake(fake.clone())
        .connect()
        .await
    {
        Ok(t) => t,
        Err(e) => panic!("connect: {e}"),
    };
    assert!(tb.skipped().is_empty(), "{:?}", tb.skipped());
    let status = tb.status("x").unwrap_or_else(|| panic!("no status"));
    assert_eq!(
        (status.transport, status.state, status.tools),
        ("fake", ServerState::Active, 3)
    );
    // The registry's settings still apply.
    assert_eq!(
        names(&tb.openai_tools(false)),
        ["mcp_x_add", "mcp_x_boom", "mcp_x_echo"]
    );
    let configs = tb.server_configs();
    assert!(configs[0].function_call_wrapper());
    assert_eq!(
        tb.call("mcp_x_nostub", "{}").await.error_kind(),
        Some(ErrorKind::UnknownTool)
    );
    let d = tb.call("mcp_x_add", r#"{"a":1,"b":2}"#).await;
    assert!(d.is_ok(), "{}", d.text);
    assert_eq!(fake.calls().len(), 1);
    // Reconnecting does not try to start the registry's command.
    let report = tb.reconnect(false).await;
    assert!(report.failed.is_empty(), "{report:?}");
    assert_eq!(tb.status("x").map(|s| s.transport), Some("fake"));
}

#[tokio::test]
async fn only_selects_a_fake_like_any_server() {
    // Named by `only` without a registry entry: not an unknown server.
    let tb = Toolbox::from_servers(vec![])
        .add_fake(fake())
        .only(["x"])
        .connect()
        .await;
    assert!(tb.is_ok_and(|tb| tb.status("x").is_some()));

    // Not named: left out.
    let tb = Toolbox::from_servers(vec![ServerConfig::stdio(
        "other",
        "/nonexistent/binary",
        vec![],
    )])
    .add_fake(fake())
    .only(["other"])
    .connect()
    .await
    .unwrap_or_else(|e| panic!("connect: {e}"));
    assert!(tb.status("x").is_none());
    assert!(tb.openai_tools(false).is_empty());
    assert_eq!(tb.skipped().len(), 1);

    // Still an unknown server when neither the registry nor a fake has it.
    let e = Toolbox::from_servers(vec![])
        .add_fake(fake())
        .only(["y"])
        .connect()
        .await
        .err()
        .map(|e| e.kind());
    assert_eq!(e, Some(ErrorKind::Config));
}

#[tokio::test]
async fn the_later_fake_of_an_alias_wins_and_overrides_apply() {
    let first = fake();
    let second = fake();
    let tb = Toolbox::from_servers(vec![])
        .add_fake(first.clone())
        .add_fake(second.clone())
        .function_call_wrapper("x", true)
        .lazy("x")
        .connect()
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    assert!(tb.call("mcp_x_echo", r#"{"text":"a"}"#).await.is_ok());
    assert!(first.calls().is_empty());
    assert_eq!(second.calls().len(), 1);
    assert!(tb.server_configs()[0].function_call_wrapper());
    assert_eq!(tb.status("x").map(|s| s.state), Some(ServerState::Active));
}

/// Progressive discovery: the exports start as `search_tools` and `load_tools` (plus the
/// pinned tools), stay the same bytes until a tool is loaded, and a loaded tool is exported
/// and dispatched as without discovery.
#[tokio::test]
async fn progressive_discovery_searches_loads_and_calls() {
    let tb = Toolbox::from_servers(vec![])
        .add_fake(fake())
        .progressive(["x.echo"])
        .connect()
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    let first = tb.openai_tools(false);
    assert_eq!(names(&first), ["search_tools", "load_tools", "mcp_x_echo"]);
    for format in Format::ALL {
        let export = tb.export(format);
        assert_eq!(export.tools.len(), 3, "{format}");
        for d in &export.tools {
            super::provider::check(format, d).unwrap_or_else(|e| panic!("{format}: {e}"));
        }
    }

    // Search: the model finds the adder by a word of its description.
    let found = tb.call("search_tools", r#"{"query": "numbers"}"#).await;
    assert!(found.is_ok(), "{}", found.text);
    let json: Value = serde_json::from_str(&found.text).unwrap();
    assert_eq!(json["tools"][0]["name"], "mcp_x_add");
    assert_eq!(json["tools"][0]["summary"], "Adds two numbers.");
    // Nothing loaded yet: the same bytes as before.
    assert_eq!(
        serde_json::to_string(&tb.openai_tools(false)).unwrap(),
        serde_json::to_string(&first).unwrap()
    );

    // Load: the definition comes back and joins the exports.
    let loaded = tb
        .call("load_tools", r#"{"names": ["mcp_x_add", "nope"]}"#)
        .await;
    assert!(loaded.is_ok(), "{}", loaded.text);
    let json: Value = serde_json::from_str(&loaded.text).unwrap();
    assert_eq!(json["loaded"][0]["name"], "mcp_x_add");
    assert_eq!(
        json["loaded"][0]["parameters"]["required"],
        json!(["a", "b"])
    );
    assert_eq!(json["unknown"], json!(["nope"]));
    assert_eq!(tb.loaded_tools(), ["mcp_x_add"]);
    assert_eq!(
        names(&tb.openai_tools(false)),
        ["search_tools", "load_tools", "mcp_x_add", "mcp_x_echo"]
    );

    // The loaded tool is called through the typed path (its arguments checked by `AddArgs`).
    let sum = tb.call("mcp_x_add", r#"{"a": 2, "b": 3}"#).await;
    assert!(sum.is_ok(), "{}", sum.text);
    assert_eq!(
        sum.output().and_then(|o| o.json()),
        Some(json!({"sum": 5.0}))
    );
    let bad = tb.call("mcp_x_add", r#"{"a": 2}"#).await;
    assert_eq!(bad.error_kind(), Some(ErrorKind::InvalidArguments));

    // Bad discovery calls are model-readable errors.
    let none = tb.call("load_tools", r#"{"names": ["nope"]}"#).await;
    assert_eq!(none.error_kind(), Some(ErrorKind::UnknownTool));
    assert!(none.text.contains("call search_tools"), "{}", none.text);
    let invalid = tb.call("search_tools", "{}").await;
    assert_eq!(invalid.error_kind(), Some(ErrorKind::InvalidArguments));

    // The application can load tools too.
    assert_eq!(tb.load_tools(["x.boom"]).unwrap(), ["mcp_x_boom"]);
    assert!(tb.load_tools(["x.missing"]).is_err());
}

/// Without discovery, `search_tools` is just an unknown tool.
#[tokio::test]
async fn discovery_tools_exist_only_with_discovery_on() {
    let tb = toolbox(&fake()).await;
    let d = tb.call("search_tools", r#"{"query": "x"}"#).await;
    assert_eq!(d.error_kind(), Some(ErrorKind::UnknownTool));
}

/// The compact export drops what a model does not read; dispatch still checks the full schema.
#[tokio::test]
async fn the_compact_export_keeps_what_restricts() {
    const TITLED: TypedTool = tool(
        "titled",
        r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"titledArguments","type":"object","properties":{"owner":{"title":"Owner","type":"string","minLength":1}},"required":["owner"],"additionalProperties":true}"#,
        "mcp_y_titled",
    );
    static TITLED_TOOLS: &[TypedTool] = &[TITLED];
    let fake = FakeServer::new("y", TITLED_TOOLS);
    fake.stub_untyped("titled", |_: Value| Ok(ToolOutput::from_text("ok")));
    let tb = Toolbox::from_servers(vec![])
        .add_fake(fake)
        .compact(true)
        .connect()
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    let params = &tb.openai_tools(false)[0]["function"]["parameters"];
    assert_eq!(
        params,
        &json!({"type": "object", "properties": {"owner": {"type": "string", "minLength": 1}},
                "required": ["owner"]})
    );
    let anthropic = &tb.export(Format::Anthropic).tools[0]["input_schema"];
    assert!(anthropic.get("title").is_none() && anthropic.get("$schema").is_none());
    let strict = &tb.openai_tools(true)[0]["function"];
    assert_eq!(strict["strict"], true);
    // Dispatch checks the full schema: `minLength` still applies.
    let d = tb.call("mcp_y_titled", r#"{"owner": ""}"#).await;
    assert_eq!(
        d.error_kind(),
        Some(ErrorKind::InvalidArguments),
        "{}",
        d.text
    );
    assert!(tb.call("mcp_y_titled", r#"{"owner": "o"}"#).await.is_ok());
}

const SEARCH: TypedTool = TypedTool {
    description: Some(
        "Searches the catalogue. Results come newest first. \
         Pass region to narrow the search. Nothing else is needed.",
    ),
    ..tool(
        "search",
        r#"{"type":"object","properties":{"query":{"type":"string"},"region":{"type":"string","enum":["eu","us"]}},"required":["query"]}"#,
        "mcp_s_search",
    )
};

static SEARCH_TOOLS: &[TypedTool] = &[SEARCH];

fn search_fake() -> FakeServer {
    let fake = FakeServer::new("s", SEARCH_TOOLS);
    fake.stub_untyped("search", |args: Value| {
        Ok(ToolOutput::from_text(args.to_string()))
    });
    fake
}

#[tokio::test]
async fn a_description_cap_moves_what_it_cuts_into_the_argument_it_names() {
    let fake = search_fake();
    let tb = match Toolbox::from_servers(vec![])
        .add_fake(fake.clone())
        .max_description_chars(60)
        .connect()
        .await
    {
        Ok(t) => t,
        Err(e) => panic!("connect: {e}"),
    };
    for format in Format::ALL {
        let export = tb.export(format);
        assert!(
            export.left_out.is_empty(),
            "{format}: {:?}",
            export.left_out
        );
        let text = export.tools[0].to_string();
        assert!(
            text.contains(r#""Searches the catalogue. Results come newest first.""#),
            "{format}: {text}"
        );
        assert!(
            text.contains(r#""Pass region to narrow the search.""#),
            "{format}: {text}"
        );
        assert!(!text.contains("Nothing else"), "{format}: {text}");
    }
    // The arguments are still checked against the server's schema.
    let bad = tb
        .call("mcp_s_search", r#"{"query":"q","region":"mars"}"#)
        .await;
    assert_eq!(
        bad.error_kind(),
        Some(ErrorKind::InvalidArguments),
        "{}",
        bad.text
    );
    let good = tb
        .call("mcp_s_search", r#"{"query":"q","region":"eu"}"#)
        .await;
    assert!(good.is_ok(), "{}", good.text);
    assert_eq!(fake.calls().len(), 1);
    // The tool's MCP definition is the server's, untouched.
    let tools = tb.tools();
    assert_eq!(
        tools[0].definition["description"],
        SEARCH.description.unwrap_or_default()
    );
    assert!(
        tools[0].input_schema["properties"]["region"]
            .get("description")
            .is_none()
    );
}

#[tokio::test]
async fn a_servers_own_description_cap_wins_and_none_means_untouched() {
    let registry = vec![
        ServerConfig::stdio("s", "/nonexistent/binary", vec![]).with_max_description_chars(30),
    ];
    let tb = match Toolbox::from_servers(registry)
        .add_fake(search_fake())
        .max_description_chars(1000)
        .connect()
        .await
    {
        Ok(t) => t,
        Err(e) => panic!("connect: {e}"),
    };
    let function = &tb.openai_tools(false)[0]["function"];
    assert_eq!(function["description"], "Searches the catalogue.");
    assert_eq!(
        function["parameters"]["properties"]["region"]["description"],
        "Pass region to narrow the search."
    );
    // Off by default: the description as the server wrote it.
    let tb = match Toolbox::from_servers(vec![])
        .add_fake(search_fake())
        .connect()
        .await
    {
        Ok(t) => t,
        Err(e) => panic!("connect: {e}"),
    };
    assert_eq!(
        tb.openai_tools(false)[0]["function"]["description"],
        SEARCH.description.unwrap_or_default()
    );
}
