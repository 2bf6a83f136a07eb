//! Finding and reading the registry file: [`Registry`] and its two loaders, which parse
//! their shape and hand every entry to the one builder in `raw`, judging the keys that are
//! not ours with `keys` on the way.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::ServerConfig;
use super::agents::{AgentConfig, ModelPolicy, RawAgent, RawModel, add_model};
use super::keys::{self, FOREIGN_TOP_LEVEL, Ignored, Key, normalize_alias};
use super::raw::{JsonFile, RawServer, Shape, TomlFile, UniqueMap};
use crate::error::{Error, ErrorKind, Result};

/// A parsed registry: the enabled servers sorted by alias, the disabled ones, the agents and
/// the model policy, and the warnings of loading it.
#[derive(Debug, Clone, PartialEq)]
pub struct Registry {
    /// The file it was read from.
    pub path: PathBuf,
    servers: Vec<ServerConfig>,
    /// Aliases of the disabled servers, sorted.
    disabled: Vec<String>,
    /// Alias of a disabled server → the key that disabled it, as written.
    disabled_by: BTreeMap<String, String>,
    warnings: Vec<String>,
    models: ModelPolicy,
    agents: Vec<AgentConfig>,
}

/// One entry as read: its name as written, its value, the position of its name where the
/// shape has one.
type Read<T> = (String, T, Option<(usize, usize)>);

/// The entries of one file, whatever its shape.
struct Entries {
    shape: Shape,
    servers: Vec<Read<RawServer>>,
    models: Vec<Read<RawModel>>,
    agents: Vec<Read<RawAgent>>,
    /// Top-level keys that are not read (key, clients).
    ignored: Vec<(&'static str, &'static str)>,
    /// The file's text where errors can point at a key (TOML).
    text: Option<String>,
}

impl Registry {
    /// Finds and reads the project's registry by the rule the command line and
    /// `mcp_tools!` use: `fixtures/servers.toml` next to the nearest `Cargo.toml`, from the
    /// current directory up. So a program run anywhere in its project (`cargo run`, tests)
    /// starts its servers exactly as `snapshot` did. A program deployed outside its project
    /// loads its registry with [`Registry::load`].
    pub fn discover() -> Result<Self> {
        let not_found = |path: PathBuf, why: String| Error::RegistryRead {
            path,
            source: std::io::Error::new(std::io::ErrorKind::NotFound, why),
        };
        let cwd = std::env::current_dir()
            .map_err(|e| not_found(PathBuf::from("."), format!("no current directory: {e}")))?;
        match mcp_bindgen_core::project::find_registry(&cwd) {
            Some(path) => Self::load(path),
            None => Err(not_found(
                cwd.join(mcp_bindgen_core::project::FIXTURES_DIR)
                    .join(mcp_bindgen_core::project::REGISTRY_FILE),
                "no fixtures/servers.toml next to a Cargo.toml in this directory or its parents \
                 (run the program inside its project, or read the registry with Registry::load(path))"
                    .to_string(),
            )),
        }
    }

    /// Reads a registry: TOML (`servers.toml`) or JSON (`{"mcpServers": …}` or
    /// `{"servers": …}`), chosen by the file's extension (`.json` → JSON).
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| Error::RegistryRead {
            path: path.to_path_buf(),
            source,
        })?;
        if path.extension().is_some_and(|e| e == "json") {
            Self::from_json_str(&text, path)
        } else {
            Self::from_toml_str(&text, path)
        }
    }

    /// Parses the TOML shape; `path` names the file in errors and is the base of relative
    /// paths.
    pub fn from_toml_str(text: &str, path: &Path) -> Result<Self> {
        let file: TomlFile = toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((0, 0));
            Error::RegistrySyntax {
                path: path.to_path_buf(),
                line,
                column,
                message: e.message().trim().to_string(),
            }
        })?;
        let servers: Vec<Read<toml::Spanned<RawServer>>> = toml_entries(text, file.servers);
        Self::from_entries(
            path,
            Entries {
                shape: Shape::Toml,
                servers: servers
                    .into_iter()
                    .map(|(name, raw, position)| (name, raw.into_inner(), position))
                    .collect(),
                models: toml_entries(text, file.models),
                agents: toml_entries(text, file.agents),
                ignored: Vec::new(),
                text: Some(text.to_string()),
            },
        )
    }

    /// Parses the JSON shape: Claude Desktop's / Cursor's `{"mcpServers": {…}}` or VS Code's
    /// `{"servers": {…}}` (one of the two), with optional `"models"` and `"agents"`.
    pub fn from_json_str(text: &str, path: &Path) -> Result<Self> {
        let syntax = |e: serde_json::Error| Error::RegistrySyntax {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        };
        let shape_error = |message: &str| Error::RegistrySyntax {
            path: path.to_path_buf(),
            line: 1,
            column: 1,
            message: message.to_string(),
        };
        let file: JsonFile = serde_json::from_str(text).map_err(syntax)?;
        let servers = match (file.mcp_servers, file.servers) {
            (Some(_), Some(_)) => {
                return Err(shape_error(
                    "both \"mcpServers\" (Claude Desktop, Cursor) and \"servers\" (VS Code) are here; keep one of them",
                ));
            }
            (Some(servers), None) | (None, Some(servers)) => servers,
            (None, None) => {
                return Err(shape_error(
                    "no \"mcpServers\" object (Claude Desktop, Cursor) or \"servers\" object (VS Code's .vscode/mcp.json)",
                ));
            }
        };
        Self::from_entries(
            path,
            Entries {
                shape: Shape::Json,
                servers: servers
                    .0
                    .into_iter()
                    .map(|(name, raw)| (name, raw, None))
                    .collect(),
                models: entries(file.models),
                agents: entries(file.agents),
                ignored: file
                    .inputs
                    .map(|_| FOREIGN_TOP_LEVEL.to_vec())
                    .unwrap_or_default(),
                text: None,
            },
        )
    }

    /// Builds every entry in file order; stops at the first error. An entry's position,
    /// where the shape has one, prefixes its errors.
    fn from_entries(path: &Path, entries: Entries) -> Result<Self> {
        let file = path.display().to_string();
        let shape = entries.shape;
        let base_dir = base_dir(path);
        let mut ignored = Ignored::default();
        for (key, clients) in entries.ignored {
            ignored.add(key, Some(clients), "the top level".to_string());
        }
        let mut warnings = Vec::new();
        let mut servers = Vec::new();
        let mut disabled_by = BTreeMap::new();
        // alias → the name it was written as
        let mut names: BTreeMap<String, String> = BTreeMap::new();
        let text = entries.text.as_deref();
        for (name, mut raw, position) in entries.servers {
            let invalid = |message: String| {
                // At the key the message is about, when the file shows where it is.
                let position = text
                    .zip(position)
                    .and_then(|(text, (line, _))| key_position(text, line, &message))
                    .or(position);
                Error::InvalidServer {
                    path: path.to_path_buf(),
                    alias: name.clone(),
                    message: at(position, message),
                }
            };
            for key in std::mem::take(&mut raw.other).keys() {
                match keys::classify(key) {
                    Key::Foreign(clients) => {
                        ignored.add(key, Some(clients), format!("server \"{name}\""));
                    }
                    Key::Unknown if shape == Shape::Json => {
                        ignored.add(key, None, format!("server \"{name}\""));
                    }
                    Key::Typo(_) | Key::Unknown => return Err(invalid(keys::refusal(key))),
                }
            }
            let alias = normalize_alias(&name).map_err(invalid)?;
            if let Some(first) = names.get(&alias) {
                return Err(invalid(format!(
                    "servers \"{first}\" and \"{name}\" are both used as alias \"{alias}\"; rename one of them"
                )));
            }
            names.insert(alias.clone(), name.clone());
            if alias != name {
                warnings.push(format!(
                    "{file}: server \"{name}\" is used as alias \"{alias}\" (aliases match [a-z][a-z0-9_-]*)"
                ));
            }
            let off = match (raw.enabled, raw.disabled) {
                (Some(enabled), Some(disabled)) if enabled == disabled => {
                    return Err(invalid(format!(
                        "{} and {} contradict each other; keep one of them",
                        shape.key_value("enabled", enabled),
                        shape.key_value("disabled", disabled)
                    )));
                }
                (Some(false), _) => Some(shape.key_value("enabled", false)),
                (_, Some(true)) => Some(shape.key_value("disabled", true)),
                _ => None,
            };
            match off {
                Some(key) => {
                    disabled_by.insert(alias, key);
                }
                None => servers.push(raw.into_server(&alias, shape, &base_dir).map_err(invalid)?),
            }
        }
        servers.sort_by(|a, b| a.alias.cmp(&b.alias));
        warnings.extend(ignored.warning(&file));

        let mut models = ModelPolicy::new();
        for (key, raw, position) in entries.models {
            models = add_model(models, &key, raw).map_err(|message| {
                Error::toolbox(
                    ErrorKind::Config,
                    format!("{file}: model \"{key}\": {}", at(position, message)),
                )
            })?;
        }

        let known = servers
            .iter()
            .map(|s| s.alias.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let server = |written: &str| -> std::result::Result<String, String> {
            let alias = if names.contains_key(written) {
                written.to_string()
            } else if let Some((alias, _)) = names.iter().find(|(_, n)| *n == written) {
                alias.clone()
            } else {
                return Err(format!(
                    "server \"{written}\" is not in the registry (servers: {known})"
                ));
            };
            Ok(alias)
        };
        let mut agents = Vec::new();
        for (name, raw, position) in entries.agents {
            let agent = raw.into_agent(&name, server).map_err(|message| {
                Error::toolbox(
                    ErrorKind::Config,
                    format!("{file}: agent \"{name}\": {}", at(position, message)),
                )
            })?;
            for alias in &agent.servers {
                if let Some(key) = disabled_by.get(alias) {
                    warnings.push(format!(
                        "{file}: agent \"{name}\" uses server \"{alias}\", which is disabled ({key}); Registry::agent(\"{name}\") is an error until it is enabled"
                    ));
                }
            }
            agents.push(agent);
        }
        agents.sort_by(|a, b| a.name.cmp(&b.name));

        for warning in &warnings {
            tracing::warn!(registry = %file, "{warning}");
        }
        Ok(Registry {
            path: path.to_path_buf(),
            servers,
            disabled: disabled_by.keys().cloned().collect(),
            disabled_by,
            warnings,
            models,
            agents,
        })
    }

    /// The enabled servers, sorted by alias (the disabled ones are in
    /// [`Registry::disabled`]).
    pub fn servers(&self) -> &[ServerConfig] {
        &self.servers
    }

    /// The aliases of the servers the file disables (`enabled = false`, `"disabled": true`),
    /// sorted. They are in no other list, and [`Registry::get`] refuses them.
    pub fn disabled(&self) -> &[String] {
        &self.disabled
    }

    /// The warnings of loading the file (already logged with `tracing::warn!`): one for the
    /// keys it ignored (other clients' keys, and in JSON unknown ones), one per server name
    /// used under a normalized alias, one per agent using a disabled server.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The key that disabled a server, as written (`` `"disabled": true` ``,
    /// `` `enabled = false` ``); `None` for a server that is not disabled.
    pub fn disabled_by(&self, alias: &str) -> Option<&str> {
        self.disabled_by.get(alias).map(String::as_str)
    }

    /// The enabled server with this alias; a disabled one is an error saying so.
    pub fn get(&self, alias: &str) -> Result<&ServerConfig> {
        if let Some(key) = self.disabled_by.get(alias) {
            return Err(Error::InvalidServer {
                path: self.path.clone(),
                alias: alias.to_string(),
                message: format!(
                    "disabled in {} by {key}; remove that key to use the server",
                    self.path.display()
                ),
            });
        }
        self.servers
            .iter()
            .find(|s| s.alias == alias)
            .ok_or_else(|| Error::UnknownServer {
                alias: alias.to_string(),
                known: self.known(),
            })
    }

    /// Which models support MCP (`[models.<provider>]`, `[models."<provider>/<model>"]`);
    /// empty when the file declares none.
    pub fn model_policy(&self) -> &ModelPolicy {
        &self.models
    }

    /// The agents the file declares (`[agents.<name>]`), sorted by name; their servers are
    /// aliases of this registry.
    pub fn agents(&self) -> &[AgentConfig] {
        &self.agents
    }

    /// The agent with this name, ready for [`crate::toolbox::Toolbox::agent`] (with
    /// [`Registry::model_policy`]). An unknown name, or an agent using a disabled server,
    /// is an error ([`ErrorKind::Config`]).
    pub fn agent(&self, name: &str) -> Result<AgentConfig> {
        let file = self.path.display();
        let agent = self.agents.iter().find(|a| a.name == name).ok_or_else(|| {
            Error::toolbox(
                ErrorKind::Config,
                format!(
                    "no agent \"{name}\" in {file} (agents: {})",
                    self.agents
                        .iter()
                        .map(|a| a.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        if let Some((alias, key)) = agent
            .servers
            .iter()
            .find_map(|a| self.disabled_by.get(a).map(|key| (a, key)))
        {
            return Err(Error::toolbox(
                ErrorKind::Config,
                format!(
                    "{file}: agent \"{name}\" uses server \"{alias}\", which is disabled in {file} by {key}; remove that key or the server from the agent"
                ),
            ));
        }
        Ok(agent.clone())
    }

    /// The enabled aliases, and the disabled ones after `;`.
    fn known(&self) -> String {
        let enabled = self
            .servers
            .iter()
            .map(|s| s.alias.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        if self.disabled.is_empty() {
            enabled
        } else {
            format!("{enabled}; disabled: {}", self.disabled.join(", "))
        }
    }
}

/// The entries of a TOML table, with the position of each name in `text`.
fn toml_entries<T>(text: &str, map: BTreeMap<toml::Spanned<String>, T>) -> Vec<Read<T>> {
    // Where every line starts, found once: a position is then a binary search, so a file of
    // many servers loads in linear time.
    let newlines: Vec<usize> = memchr::memchr_iter(b'\n', text.as_bytes()).collect();
    map.into_iter()
        .map(|(name, raw)| {
            let offset = name.span().start.min(text.len());
            let line = newlines.partition_point(|&nl| nl < offset);
            let start = if line == 0 { 0 } else { newlines[line - 1] + 1 };
            let column = text.get(start..offset).map_or(0, |l| l.chars().count());
            (name.into_inner(), raw, Some((line + 1, column + 1)))
        })
        .collect()
}

/// The entries of a JSON object (no positions).
fn entries<T>(map: Option<UniqueMap<T>>) -> Vec<Read<T>> {
    map.map(|m| m.0)
        .unwrap_or_default()
        .into_iter()
        .map(|(name, raw)| (name, raw, None))
        .collect()
}

/// Where the first key that `message` names in backticks (`` `url` ``) is written in the
/// table whose header is on line `header` of `text`: the line and column of the key, if it
/// is written there (`key = …` on a line of its own, before the next table).
fn key_position(text: &str, header: usize, message: &str) -> Option<(usize, usize)> {
    let named = message
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    let lines: Vec<&str> = text.lines().collect();
    let table = lines.get(header..)?;
    let end = table
        .iter()
        .position(|l| l.trim_start().starts_with('['))
        .unwrap_or(table.len());
    for key in named {
        for (i, line) in table[..end].iter().enumerate() {
            let indent = line.len() - line.trim_start().len();
            let rest = &line[indent..];
            if rest
                .strip_prefix(key)
                .is_some_and(|after| after.trim_start().starts_with('='))
            {
                return Some((header + i + 1, line[..indent].chars().count() + 1));
            }
        }
    }
    None
}

/// `message` prefixed with `line L:C: ` where the position is known.
fn at(position: Option<(usize, usize)>, message: String) -> String {
    match position {
        Some((line, column)) => format!("line {line}:{column}: {message}"),
        None => message,
    }
}

fn base_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use super::*;
    use crate::config::test_support::toml_err;

    #[test]
    fn roots_are_uris_or_paths_relative_to_the_registry_file() {
        let r = Registry::from_toml_str(
            "[servers.fs]\ncommand = \"x\"\nroots = [\"data\", \"file:///srv/shared\"]\n",
            Path::new("/home/me/project/fixtures/servers.toml"),
        )
        .expect("parses");
        let roots = r.get("fs").expect("fs").roots();
        assert_eq!(
            roots,
            [
                crate::Root::new("file:///home/me/project/fixtures/data"),
                crate::Root::new("file:///srv/shared")
            ]
        );
        let none = Registry::from_toml_str("[servers.fs]\ncommand = \"x\"\n", Path::new("s.toml"))
            .expect("parses");
        assert!(none.get("fs").expect("fs").roots().is_empty());
    }

    /// `..` segments are resolved before a root goes out; a relative root that leads outside
    /// the registry's folder is refused (written absolute or as a URI, it is taken).
    #[test]
    fn roots_are_normalized_and_stay_inside_unless_written_absolute() {
        let file = Path::new("/home/me/project/fixtures/servers.toml");
        let r = Registry::from_toml_str(
            "[servers.fs]\ncommand = \"x\"\nroots = [\"data/../docs/./x\", \"/srv/a/../b\"]\n",
            file,
        )
        .expect("parses");
        assert_eq!(
            r.get("fs").expect("fs").roots(),
            [
                crate::Root::new("file:///home/me/project/fixtures/docs/x"),
                crate::Root::new("file:///srv/b")
            ]
        );
        for outside in ["..", "data/../../secrets", "../../.ssh"] {
            let e = Registry::from_toml_str(
                &format!("[servers.fs]\ncommand = \"x\"\nroots = [\"{outside}\"]\n"),
                file,
            )
            .expect_err("outside the registry's folder");
            let e = e.to_string();
            assert!(
                e.contains("leads outside the registry's folder") && e.contains("absolute path"),
                "{outside}: {e}"
            );
        }
    }

    #[test]
    fn parses_all_three_transports_sorted_by_alias() {
        let r = Registry::from_toml_str(
            r#"
[servers.b]
transport = "sse"
url = "http://127.0.0.1:1/sse"
headers = { Authorization = "Bearer ${TOKEN}" }
[servers.a]
command = "node"
args = ["x.js", "stdio"]
env = { K = "v" }
timeout = 2.5
required = true
tools = ["echo"]
[servers.c]
transport = "streamable-http"
url = "http://127.0.0.1:1/mcp"
exclude_tools = ["rm"]
"#,
            Path::new("dir/servers.toml"),
        )
        .unwrap();
        let aliases: Vec<_> = r.servers().iter().map(|s| s.alias.as_str()).collect();
        assert_eq!(aliases, ["a", "b", "c"]);
        let a = r.get("a").unwrap();
        assert_eq!(a.transport.kind(), "stdio");
        assert_eq!(a.timeout, Some(Duration::from_millis(2500)));
        assert!(a.required);
        assert!(a.allows_tool("echo") && !a.allows_tool("add"));
        assert_eq!(a.base_dir, Path::new("dir"));
        assert_eq!(r.get("b").unwrap().transport.kind(), "sse");
        let c = r.get("c").unwrap();
        assert!(c.allows_tool("echo") && !c.allows_tool("rm"));
        assert!(
            r.get("zz")
                .unwrap_err()
                .to_string()
                .contains("known: a, b, c")
        );
    }

    #[test]
    fn toml_syntax_error_has_file_line_and_column() {
        let e = toml_err("[servers.a]\ncommand = \"x\"\nargs = [\n");
        assert!(e.starts_with("fixtures/servers.toml:3:"), "{e}");
    }

    #[test]
    fn duplicate_alias_is_rejected() {
        let e = toml_err("[servers.a]\ncommand = \"x\"\n[servers.a]\ncommand = \"y\"\n");
        assert!(e.starts_with("fixtures/servers.toml:3:"), "{e}");
        assert!(e.to_lowercase().contains("duplicate"), "{e}");
        let e = Registry::from_json_str(
            r#"{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}"#,
            Path::new("m.json"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("duplicate server alias \"a\""), "{e}");
    }

    #[test]
    fn claude_desktop_json_shape() {
        let r = Registry::from_json_str(
            r#"{"mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "x"], "env": {"A": "b"}},
                "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"X": "y"}},
                "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
                "h": {"type": "http", "url": "http://127.0.0.1:9/mcp"}
            }}"#,
            Path::new("claude_desktop_config.json"),
        )
        .unwrap();
        let kinds: Vec<_> = r
            .servers()
            .iter()
            .map(|s| (s.alias.as_str(), s.transport.kind()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("fs", "stdio"),
                ("h", "streamable-http"),
                ("legacy", "sse"),
                ("remote", "streamable-http")
            ]
        );
        let e = Registry::from_json_str(r#"{"mcpServers": {"a": {}}}"#, Path::new("m.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no `command` or `url`"), "{e}");
        let e = Registry::from_json_str("{\"mcpServers\": [}", Path::new("m.json"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m.json:1:"), "{e}");
    }

    #[test]
    fn server_errors_point_at_the_key() {
        let text =
            "[servers.a]\ncommand = \"x\"\n  url = \"http://x\"\n\n[servers.b]\nurl = \"y\"\n";
        assert_eq!(
            key_position(text, 1, "`url`, `headers` are for HTTP"),
            Some((3, 3))
        );
        assert_eq!(key_position(text, 1, "`nothing` here"), None);
        // Not past the next table.
        assert_eq!(key_position(text, 1, "`urlx`"), None);
        let e = Registry::from_toml_str(
            "[servers.a]\ncommand = \"x\"\nargs = [\"y\"]\ntimeoutt = 3\n",
            Path::new("servers.toml"),
        )
        .expect_err("a typo");
        assert!(
            e.to_string().contains("line 4:1: unknown field `timeoutt`"),
            "{e}"
        );
    }
}
