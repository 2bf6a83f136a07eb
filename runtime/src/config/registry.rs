//! Finding and reading the registry file: [`Registry`] and its two loaders, which parse
//! their shape and hand every entry to the one builder in `raw`.

use std::path::{Path, PathBuf};

use super::ServerConfig;
use super::raw::{JsonFile, RawServer, Shape, TomlFile};
use crate::error::{Error, Result};

/// A parsed registry: servers sorted by alias.
#[derive(Debug, Clone, PartialEq)]
pub struct Registry {
    /// The file it was read from.
    pub path: PathBuf,
    servers: Vec<ServerConfig>,
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
        match mcp_codegen::project::find_registry(&cwd) {
            Some(path) => Self::load(path),
            None => Err(not_found(
                cwd.join(mcp_codegen::project::FIXTURES_DIR)
                    .join(mcp_codegen::project::REGISTRY_FILE),
                "no fixtures/servers.toml next to a Cargo.toml in this directory or its parents \
                 (run the program inside its project, or read the registry with Registry::load(path))"
                    .to_string(),
            )),
        }
    }

    /// Reads a registry: TOML (`servers.toml`) or JSON (`{"mcpServers": …}`), chosen by the
    /// file's extension (`.json` → JSON).
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
        let servers = file.servers.into_iter().map(|(alias, raw)| {
            let position = line_col(text, alias.span().start);
            (alias.into_inner(), raw.into_inner(), Some(position))
        });
        Self::from_entries(path, Shape::Toml, servers)
    }

    /// Parses the Claude-Desktop / Cursor JSON shape `{"mcpServers": {…}}`.
    pub fn from_json_str(text: &str, path: &Path) -> Result<Self> {
        let syntax = |e: serde_json::Error| Error::RegistrySyntax {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        };
        let file: JsonFile = serde_json::from_str(text).map_err(syntax)?;
        let servers = file
            .servers
            .0
            .into_iter()
            .map(|(alias, raw)| (alias, raw, None));
        Self::from_entries(path, Shape::Json, servers)
    }

    /// Builds every entry (alias, raw server, position of the alias where the shape has one,
    /// which then prefixes the entry's errors) in file order; stops at the first error.
    fn from_entries(
        path: &Path,
        shape: Shape,
        entries: impl Iterator<Item = (String, RawServer, Option<(usize, usize)>)>,
    ) -> Result<Self> {
        let base_dir = base_dir(path);
        let mut servers = entries
            .map(|(alias, raw, position)| {
                raw.into_server(&alias, shape, &base_dir)
                    .map_err(|message| Error::InvalidServer {
                        path: path.to_path_buf(),
                        message: match position {
                            Some((line, column)) => format!("line {line}:{column}: {message}"),
                            None => message,
                        },
                        alias,
                    })
            })
            .collect::<Result<Vec<_>>>()?;
        servers.sort_by(|a, b| a.alias.cmp(&b.alias));
        Ok(Registry {
            path: path.to_path_buf(),
            servers,
        })
    }

    /// All servers, sorted by alias.
    pub fn servers(&self) -> &[ServerConfig] {
        &self.servers
    }

    /// The server with this alias.
    pub fn get(&self, alias: &str) -> Result<&ServerConfig> {
        self.servers
            .iter()
            .find(|s| s.alias == alias)
            .ok_or_else(|| Error::UnknownServer {
                alias: alias.to_string(),
                known: self
                    .servers
                    .iter()
                    .map(|s| s.alias.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
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
}
