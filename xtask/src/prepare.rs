//! Readies this repository's own servers before a delegated `snapshot` or `call`: installs
//! the pinned npm/PyPI servers that are selected and builds the embedded demo server.
//!
//! Nothing here changes what a server sees: `fixtures/servers.toml` defaults every path
//! (`${MCP_SERVERS_DIR:-…}`, `${MCP_DEMO_SERVER:-…}`) to where this module puts things, so
//! the snapshot, the examples and the tests start the same servers the same way. The one
//! exception is a non-default `CARGO_TARGET_DIR`, where the demo server is elsewhere: then
//! [`prepare`] returns `MCP_DEMO_SERVER` for the commands it readies (this process's own
//! environment is never changed), and says so.

use std::path::PathBuf;

/// What a command line of `snapshot` or `call` selects from the default registry: `None`
/// when it names another registry or project (`--config`, `--manifest-path`), which this
/// repository does not prepare; `Some(vec![])` for every server.
pub fn selected(command: &str, words: &[String]) -> Option<Vec<String>> {
    let mut aliases = Vec::new();
    let mut it = words.iter();
    while let Some(word) = it.next() {
        let flag = word.split_once('=').map_or(word.as_str(), |(f, _)| f);
        match flag {
            "--config" | "--manifest-path" => return None,
            "--fixtures" | "--timeout" if !word.contains('=') => {
                it.next();
            }
            f if f.starts_with('-') && f.len() > 1 => {}
            alias => aliases.push(alias.to_string()),
        }
    }
    if command == "call" {
        // `call ALIAS TOOL [JSON]`: only the alias is a server.
        aliases.truncate(1);
    }
    Some(aliases)
}

/// Installs the pinned servers among `aliases` (all when empty) and builds the demo server
/// when it is among them. Returns the placeholder values the commands that use them need
/// (`MCP_DEMO_SERVER` when the demo server is not where the registry looks by default).
pub fn prepare(aliases: &[String]) -> Result<Vec<(String, String)>, String> {
    let mut env = Vec::new();
    let root = crate::workspace_root();
    let wants = |alias: &str| aliases.is_empty() || aliases.iter().any(|a| a == alias);
    let pinned: Vec<&str> = crate::servers::SERVERS
        .iter()
        .map(|p| p.alias)
        .filter(|a| wants(a))
        .collect();
    if !pinned.is_empty() {
        crate::servers::install(&root, &pinned)?;
    }
    if wants("demo") {
        let path = build_demo_server()?;
        let default = root.join("target").join("debug").join("mcp-demo-server");
        if path != default && std::env::var_os("MCP_DEMO_SERVER").is_none() {
            eprintln!(
                "note: CARGO_TARGET_DIR is not target/: MCP_DEMO_SERVER={}",
                path.display()
            );
            env.push(("MCP_DEMO_SERVER".to_string(), path.display().to_string()));
        }
    }
    Ok(env)
}

/// Builds the embedded demo server (debug) and returns its path.
pub fn build_demo_server() -> Result<PathBuf, String> {
    let path = target_dir().join("debug").join("mcp-demo-server");
    // A first build shows cargo's progress (it takes minutes on a small machine); a
    // rebuild that has nothing to do stays quiet.
    let first = !path.exists();
    if first {
        eprintln!("building the embedded demo MCP server (mcp-demo-server)…");
    }
    // No `--package`: the workspace's one feature set, so the binary `cargo test
    // --workspace` built is up to date and nothing is built again.
    let mut args = vec!["build", "--bin", "mcp-demo-server"];
    if !first {
        args.push("--quiet");
    }
    crate::cargo(&args)?;
    if path.exists() {
        Ok(path)
    } else {
        Err(format!(
            "built the demo server but {} is missing",
            path.display()
        ))
    }
}

/// `$CARGO_TARGET_DIR`, else `<workspace>/target`.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::workspace_root().join("target"))
}

#[cfg(test)]
mod tests {
    use super::selected;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn selection_follows_the_command_line() {
        assert_eq!(selected("snapshot", &[]), Some(vec![]));
        assert_eq!(
            selected("snapshot", &words("demo --check --fixtures /tmp/x time")),
            Some(words("demo time"))
        );
        assert_eq!(
            selected("snapshot", &words("--fixtures=/tmp/x demo")),
            Some(words("demo"))
        );
        assert_eq!(selected("snapshot", &words("demo --config x.toml")), None);
        assert_eq!(
            selected("call", &words("--manifest-path a/Cargo.toml demo")),
            None
        );
        assert_eq!(
            selected("call", &words("memory read_graph {} --json")),
            Some(words("memory"))
        );
    }
}
