//! Registry files as other MCP clients write them: disabled servers, other clients' keys,
//! server names that are no aliases, VS Code's shape, and agents and models in the file.

use std::path::Path;

use super::Registry;
use super::test_support::toml_err;
use crate::error::ErrorKind;
use crate::toolbox::{AgentConfig, ModelPolicy, ModelRef, check_rules};

fn json(text: &str, file: &str) -> Registry {
    Registry::from_json_str(text, Path::new(file)).unwrap_or_else(|e| panic!("{e}"))
}

fn json_err(text: &str, file: &str) -> String {
    Registry::from_json_str(text, Path::new(file))
        .unwrap_err()
        .to_string()
}

fn toml(text: &str) -> Registry {
    Registry::from_toml_str(text, Path::new("fixtures/servers.toml"))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn aliases(r: &Registry) -> Vec<&str> {
    r.servers().iter().map(|s| s.alias()).collect()
}

/// A Claude Desktop `claude_desktop_config.json` as the app and Cline-era tooling leave it.
const CLAUDE_DESKTOP: &str = r#"{
  "globalShortcut": "Alt+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]
    },
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
      "disabled": true,
      "autoApprove": []
    },
    "brave search": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-brave-search"],
      "env": {"BRAVE_API_KEY": "${BRAVE_API_KEY}"},
      "autoApprove": ["brave_web_search"]
    }
  }
}"#;

#[test]
fn claude_desktop_file_disabled_server_foreign_keys_and_alias() {
    let r = json(CLAUDE_DESKTOP, "claude_desktop_config.json");
    assert_eq!(aliases(&r), ["brave_search", "filesystem"]);
    assert_eq!(r.disabled(), ["github"]);
    let e = r.get("github").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Config);
    assert_eq!(
        e.to_string(),
        "claude_desktop_config.json: server \"github\": disabled in claude_desktop_config.json by `\"disabled\": true`; remove that key to use the server"
    );
    let unknown = r.get("gitlab").unwrap_err().to_string();
    assert!(
        unknown.contains("known: brave_search, filesystem; disabled: github"),
        "{unknown}"
    );
    assert_eq!(
        r.warnings(),
        [
            "claude_desktop_config.json: server \"brave search\" is used as alias \"brave_search\" (aliases match [a-z][a-z0-9_-]*)",
            "claude_desktop_config.json: ignoring what mcp-bindgen does not read: keys of other MCP clients: `autoApprove` (Cline) in server \"github\", server \"brave search\"",
        ]
    );
}

#[test]
fn enabled_false_and_disabled_true_in_both_shapes() {
    let r = toml(
        "[servers.a]\ncommand = \"x\"\nenabled = false\n[servers.b]\ncommand = \"x\"\ndisabled = true\n[servers.c]\ncommand = \"x\"\nenabled = false\ndisabled = true\n[servers.d]\ncommand = \"x\"\nenabled = true\ndisabled = false\n",
    );
    assert_eq!(aliases(&r), ["d"]);
    assert_eq!(r.disabled(), ["a", "b", "c"]);
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    let e = r.get("a").unwrap_err().to_string();
    assert!(
        e.contains("disabled in fixtures/servers.toml by `enabled = false`"),
        "{e}"
    );
    let r = json(
        r#"{"mcpServers": {"a": {"command": "x", "enabled": false}, "b": {"command": "x", "disabled": false}}}"#,
        "m.json",
    );
    assert_eq!(
        (aliases(&r), r.disabled()),
        (vec!["b"], &["a".to_string()][..])
    );
    // A disabled entry is not built: what only a live server would need is not checked.
    let r = json(
        r#"{"mcpServers": {"off": {"disabled": true}, "on": {"command": "x"}}}"#,
        "m.json",
    );
    assert_eq!(r.disabled(), ["off"]);
    // The two keys saying opposite things are an error naming both.
    let e = toml_err("[servers.a]\ncommand = \"x\"\nenabled = true\ndisabled = true\n");
    assert!(
        e.contains(
            "server \"a\": line 1:10: `enabled = true` and `disabled = true` contradict each other"
        ),
        "{e}"
    );
    let e = json_err(
        r#"{"mcpServers": {"a": {"command": "x", "enabled": false, "disabled": false}}}"#,
        "m.json",
    );
    assert!(
        e.contains("`\"enabled\": false` and `\"disabled\": false` contradict each other"),
        "{e}"
    );
    let e = toml_err("[servers.a]\ncommand = \"x\"\ndisabled = \"yes\"\n");
    assert!(e.contains("invalid type"), "{e}");
}

/// Cline's `cline_mcp_settings.json`: marketplace names, `transportType`, `timeout`.
const CLINE: &str = r#"{
  "mcpServers": {
    "github.com/modelcontextprotocol/servers/tree/main/src/github": {
      "command": "node",
      "args": ["/Users/me/Documents/Cline/MCP/github/dist/index.js"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
      "disabled": false,
      "autoApprove": ["search_repositories"],
      "timeout": 60,
      "transportType": "stdio"
    },
    "weather": {
      "url": "http://localhost:8080/sse",
      "transportType": "sse",
      "disabled": true,
      "autoApprove": []
    },
    "remote": {
      "type": "streamableHttp",
      "url": "https://mcp.example.com/mcp",
      "alwaysAllow": ["search"],
      "disabledTools": ["delete"],
      "watchPaths": ["/tmp/x"]
    }
  }
}"#;

#[test]
fn cline_and_roo_file() {
    let r = json(CLINE, "cline_mcp_settings.json");
    let gh = "github_com_modelcontextprotocol_servers_tree_main_src_github";
    assert_eq!(aliases(&r), [gh, "remote"]);
    assert_eq!(r.disabled(), ["weather"]);
    let github = r.get(gh).unwrap();
    assert_eq!(github.transport().kind(), "stdio");
    assert_eq!(github.timeout(), Some(std::time::Duration::from_secs(60)));
    assert_eq!(
        r.get("remote").unwrap().transport().kind(),
        "streamable-http"
    );
    let ignored: Vec<&String> = r
        .warnings()
        .iter()
        .filter(|w| w.contains("ignoring"))
        .collect();
    assert_eq!(ignored.len(), 1, "{:?}", r.warnings());
    assert_eq!(
        ignored[0],
        "cline_mcp_settings.json: ignoring what mcp-bindgen does not read: keys of other MCP clients: \
         `alwaysAllow` (Roo Code) in server \"remote\"; \
         `autoApprove` (Cline) in server \"github.com/modelcontextprotocol/servers/tree/main/src/github\", server \"weather\"; \
         `disabledTools` (Roo Code, Windsurf) in server \"remote\"; \
         `watchPaths` (Roo Code) in server \"remote\""
    );
    let e = json_err(
        r#"{"mcpServers": {"a": {"url": "http://h/sse", "type": "sse", "transportType": "stdio"}}}"#,
        "m.json",
    );
    assert!(
        e.contains("`type = \"sse\"` and `transportType = \"stdio\"` disagree"),
        "{e}"
    );
}

#[test]
fn other_clients_spellings_of_our_keys_are_ours() {
    let r = json(
        r#"{"mcpServers": {
            "gemini": {"httpUrl": "https://h/mcp", "includeTools": ["a"], "excludeTools": ["b"], "trust": true, "timeout": 30000},
            "windsurf": {"serverUrl": "https://h/sse", "type": "sse"}
        }}"#,
        "settings.json",
    );
    let gemini = r.get("gemini").unwrap();
    assert_eq!(gemini.transport().kind(), "streamable-http");
    assert_eq!(gemini.tools(), Some(&["a".to_string()][..]));
    assert_eq!(gemini.exclude_tools(), ["b"]);
    assert_eq!(r.get("windsurf").unwrap().transport().kind(), "sse");
    assert_eq!(r.warnings().len(), 1);
    assert!(
        r.warnings()[0].ends_with("`trust` (Gemini CLI) in server \"gemini\""),
        "{:?}",
        r.warnings()
    );
}

#[test]
fn typos_of_our_keys_are_refused_with_the_key_meant() {
    let e = json_err(
        r#"{"mcpServers": {"fs": {"comand": "npx", "args": []}}}"#,
        "m.json",
    );
    assert_eq!(
        e,
        "m.json: server \"fs\": unknown field `comand`: did you mean `command`?"
    );
    let e = toml_err("[servers.a]\ncommand = \"x\"\narg = [\"y\"]\n");
    assert!(
        e.contains("server \"a\": line 3:1: unknown field `arg`: did you mean `args`?"),
        "{e}"
    );
    let e = toml_err("[servers.a]\ncommand = \"x\"\nexclude-tools = [\"y\"]\n");
    assert!(e.contains("did you mean `exclude_tools`?"), "{e}");
    let e = json_err(
        r#"{"mcpServers": {"a": {"command": "x", "disabeld": true}}}"#,
        "m.json",
    );
    assert!(e.contains("did you mean `disabled`?"), "{e}");
    // TOML keeps refusing every key it does not know; JSON ignores one that is no typo.
    let e = toml_err("[servers.a]\ncommand = \"x\"\nfavourite_colour = \"red\"\n");
    assert!(
        e.contains("unknown field `favourite_colour` (neither a key of mcp-bindgen"),
        "{e}"
    );
    let r = json(
        r#"{"mcpServers": {"a": {"command": "x", "favouriteColour": "red"}}}"#,
        "m.json",
    );
    assert_eq!(
        r.warnings(),
        [
            "m.json: ignoring what mcp-bindgen does not read: unknown keys: `favouriteColour` in server \"a\""
        ]
    );
    // Other clients' keys are ignored in the TOML shape too.
    let r = toml("[servers.a]\ncommand = \"x\"\nautoApprove = []\nroots = []\n");
    assert_eq!(r.warnings().len(), 1);
    assert!(
        r.warnings()[0].contains("`autoApprove` (Cline)") && !r.warnings()[0].contains("roots"),
        "{:?}",
        r.warnings()
    );
}

#[test]
fn server_names_are_normalized_and_collisions_refused() {
    let r = json(
        r#"{"mcpServers": {"my.server": {"command": "x"}, "Ünïcode": {"command": "x"}, "ok": {"command": "x"}}}"#,
        "m.json",
    );
    assert_eq!(aliases(&r), ["my_server", "ok", "unicode"]);
    assert_eq!(
        r.warnings(),
        [
            "m.json: server \"my.server\" is used as alias \"my_server\" (aliases match [a-z][a-z0-9_-]*)",
            "m.json: server \"Ünïcode\" is used as alias \"unicode\" (aliases match [a-z][a-z0-9_-]*)",
        ]
    );
    let e = json_err(
        r#"{"mcpServers": {"GitHub": {"command": "x"}, "github": {"command": "y"}}}"#,
        "m.json",
    );
    assert_eq!(
        e,
        "m.json: server \"github\": servers \"GitHub\" and \"github\" are both used as alias \"github\"; rename one of them"
    );
    let e = json_err(
        r#"{"mcpServers": {"brave search": {"command": "x"}, "brave_search": {"disabled": true}}}"#,
        "m.json",
    );
    assert!(e.contains("\"brave search\" and \"brave_search\""), "{e}");
    let e = json_err(r#"{"mcpServers": {"日本": {"command": "x"}}}"#, "m.json");
    assert!(e.contains("malformed alias \"日本\""), "{e}");
}

/// A VS Code `.vscode/mcp.json`.
const VSCODE: &str = r#"{
  "inputs": [
    {"type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true}
  ],
  "servers": {
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": {"PERPLEXITY_API_KEY": "${env:PERPLEXITY_API_KEY}"}
    },
    "fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"], "envFile": "${workspaceFolder}/.env"},
    "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${env:GITHUB_TOKEN}"}},
    "legacy": {"type": "sse", "url": "http://localhost:3001/sse"}
  }
}"#;

#[test]
fn vscode_mcp_json_shape() {
    let r = json(VSCODE, ".vscode/mcp.json");
    let kinds: Vec<_> = r
        .servers()
        .iter()
        .map(|s| (s.alias(), s.transport().kind()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("fetch", "stdio"),
            ("github", "streamable-http"),
            ("legacy", "sse"),
            ("perplexity", "stdio"),
        ]
    );
    assert_eq!(r.get("fetch").unwrap().base_dir(), Path::new(".vscode"));
    assert_eq!(
        r.warnings(),
        [
            ".vscode/mcp.json: server \"Perplexity\" is used as alias \"perplexity\" (aliases match [a-z][a-z0-9_-]*)",
            ".vscode/mcp.json: ignoring what mcp-bindgen does not read: keys of other MCP clients: `envFile` (VS Code, Cursor) in server \"fetch\"; `inputs` (VS Code) in the top level",
        ]
    );
    // `${env:NAME}` is `${NAME}`.
    let look = super::test_support::env(&[("PERPLEXITY_API_KEY", "pplx-123456")]);
    let resolved = r.get("perplexity").unwrap().resolve(&look).unwrap();
    match resolved.transport {
        super::TransportConfig::Stdio { env, .. } => {
            assert_eq!(env["PERPLEXITY_API_KEY"], "pplx-123456");
        }
        other => panic!("{other:?}"),
    }
    // `${input:…}` cannot be read here: a load-time error saying what to write instead.
    let e = json_err(
        r#"{"servers": {"p": {"command": "npx", "env": {"KEY": "${input:perplexity-key}"}}}}"#,
        ".vscode/mcp.json",
    );
    assert!(
        e.contains("is a VS Code input") && e.contains("${env:NAME}"),
        "{e}"
    );
}

#[test]
fn json_file_needs_exactly_one_of_mcp_servers_and_servers() {
    let e = json_err(
        r#"{"mcpServers": {"a": {"command": "x"}}, "servers": {"b": {"command": "y"}}}"#,
        "m.json",
    );
    assert_eq!(
        e,
        "m.json:1:1: both \"mcpServers\" (Claude Desktop, Cursor) and \"servers\" (VS Code) are here; keep one of them"
    );
    let e = json_err(r#"{"globalShortcut": ""}"#, "m.json");
    assert!(e.starts_with("m.json:1:1: no \"mcpServers\" object"), "{e}");
    let r = json(r#"{"servers": {}}"#, "mcp.json");
    assert!(r.servers().is_empty());
}

const AGENTS_TOML: &str = r#"
[servers.github]
command = "x"
function_call_wrapper = true
[servers.fetch]
command = "y"
[servers.old]
command = "z"
enabled = false

[models.openai]
supports_mcp = false
[models."openai/gpt-5"]
supports_mcp = true
[models.anthropic]
supports_mcp = true

[agents.researcher]
model = "openai/gpt-5"
servers = ["github", "fetch"]
tools = ["github.search_code", "fetch.fetch"]

[agents.cheap]
model = "openai/gpt-4o-mini"
servers = ["github"]

[agents.archivist]
model = "anthropic/claude-sonnet-4"
servers = ["old"]
"#;

#[test]
fn agents_and_models_from_the_toml_file() {
    let r = toml(AGENTS_TOML);
    let policy = r.model_policy();
    assert!(policy.supports_mcp(&ModelRef::new("openai", "gpt-5")));
    assert!(!policy.supports_mcp(&ModelRef::new("openai", "gpt-4o")));
    assert!(policy.supports_mcp(&ModelRef::new("anthropic", "claude-sonnet-4")));
    assert_eq!(
        *policy,
        ModelPolicy::new()
            .provider("openai", false)
            .model("openai", "gpt-5", true)
            .provider("anthropic", true)
    );
    let names: Vec<_> = r.agents().iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["archivist", "cheap", "researcher"]);
    let researcher = r.agent("researcher").unwrap();
    assert_eq!(
        researcher,
        AgentConfig::new(
            "researcher",
            ModelRef::new("openai", "gpt-5"),
            ["github", "fetch"]
        )
        .with_tools(["github.search_code", "fetch.fetch"])
    );
    // Usable as they are: the rules of the agent layer take the loaded values.
    let check = check_rules(&researcher, policy, r.servers()).unwrap();
    assert_eq!(check.route, crate::toolbox::Route::Native);
    assert_eq!(check.warnings.len(), 1, "github has a wrapper: {check:?}");
    let cheap = check_rules(&r.agent("cheap").unwrap(), policy, r.servers()).unwrap();
    assert_eq!(cheap.route, crate::toolbox::Route::FunctionCalls);
    // An agent on a disabled server loads (with a warning) but is not handed out.
    assert_eq!(r.warnings().len(), 1, "{:?}", r.warnings());
    assert!(r.warnings()[0].contains("agent \"archivist\" uses server \"old\", which is disabled"));
    let e = r.agent("archivist").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Config);
    assert!(
        e.to_string()
            .contains("which is disabled in fixtures/servers.toml by `enabled = false`"),
        "{e}"
    );
    let e = r.agent("writer").unwrap_err().to_string();
    assert_eq!(
        e,
        "no agent \"writer\" in fixtures/servers.toml (agents: archivist, cheap, researcher)"
    );
}

#[test]
fn agents_and_models_from_the_json_file_follow_normalized_aliases() {
    let r = json(
        r#"{
          "mcpServers": {"GitHub": {"command": "x"}, "fetch": {"command": "y"}},
          "models": {"openai": {"supportsMcp": false}, "openai/gpt-5": {"supports_mcp": true}},
          "agents": {"researcher": {"model": "openai/gpt-5", "servers": ["GitHub", "fetch"], "tools": ["GitHub.search_code"]}}
        }"#,
        "claude_desktop_config.json",
    );
    assert!(
        r.model_policy()
            .supports_mcp(&ModelRef::new("openai", "gpt-5"))
    );
    let a = r.agent("researcher").unwrap();
    assert_eq!(a.servers, ["github", "fetch"]);
    assert_eq!(
        a.tools.as_deref(),
        Some(&["github.search_code".to_string()][..])
    );
}

#[test]
fn agent_and_model_mistakes_are_named() {
    let e = toml_err(
        "[servers.github]\ncommand = \"x\"\n[agents.researcher]\nmodel = \"openai/gpt-5\"\nservers = [\"github\", \"gitlab\"]\n",
    );
    assert_eq!(
        e,
        "fixtures/servers.toml: agent \"researcher\": line 3:9: server \"gitlab\" is not in the registry (servers: github)"
    );
    let e = json_err(
        r#"{"mcpServers": {}, "agents": {"r": {"model": "gpt-5", "servers": []}}}"#,
        "m.json",
    );
    assert!(
        e.contains("m.json: agent \"r\": `model = \"gpt-5\"` is not \"provider/model\""),
        "{e}"
    );
    let e = toml_err("[agents.r]\nmodel = \"a/b\"\nservers = []\nserver = []\n");
    assert!(e.contains("unknown field `server`"), "{e}");
    let e = toml_err("[models.openai.gpt-5]\nsupports_mcp = true\n");
    assert!(
        e.contains("model \"openai\": line 1:9: unknown key `gpt-5`")
            && e.contains("[models.\"openai/gpt-5\"]"),
        "{e}"
    );
    let e = toml_err("[models.openai]\n");
    assert!(e.contains("missing `supports_mcp = true|false`"), "{e}");
    let e = json_err(
        r#"{"mcpServers": {}, "agents": {"a": {"model": "p/m", "servers": []}, "a": {"model": "p/m", "servers": []}}}"#,
        "m.json",
    );
    assert!(e.contains("duplicate agent \"a\""), "{e}");
}

#[test]
fn max_description_chars_in_both_shapes() {
    let r = toml(
        "[servers.a]\ncommand = \"x\"\nmax_description_chars = 2048\n[servers.b]\ncommand = \"x\"\n",
    );
    assert_eq!(r.get("a").unwrap().max_description_chars(), Some(2048));
    assert_eq!(r.get("b").unwrap().max_description_chars(), None);
    let r = json(
        r#"{"mcpServers": {"a": {"command": "x", "maxDescriptionChars": 1024}}}"#,
        ".mcp.json",
    );
    assert_eq!(r.get("a").unwrap().max_description_chars(), Some(1024));
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
}
