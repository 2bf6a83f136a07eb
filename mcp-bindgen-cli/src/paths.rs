//! Where the project's registry and fixtures are: cargo's rules.
//!
//! * The project is found from the current directory, or from the directory of
//!   `--manifest-path PATH`.
//! * Its registry is `fixtures/servers.toml` and its fixtures `fixtures/<alias>.json` next to
//!   the nearest `Cargo.toml` that has them ([`mcp_bindgen_core::project::find_fixtures_dir`],
//!   the rule `mcp_tools!` uses from the crate's directory).
//! * `--config PATH` and `--fixtures DIR` override them, relative to the current directory;
//!   a `.json` registry is read in Claude Desktop's / Cursor's `{"mcpServers": …}` shape or
//!   VS Code's `{"servers": …}` shape.
//! * Every command reads the registry through [`Locate::load_registry`], which prints the
//!   warnings of reading it.

use std::path::{Path, PathBuf};

use mcp_bindgen_core::project::{
    FIXTURES_DIR, REGISTRY_FILE, find_fixtures_dir, find_manifest_dir, find_registry,
};

use mcp_bindgen::Registry;

use crate::args::Parser;
use crate::{Cli, Error, Result};

/// The options that say where things are.
#[derive(Debug, Default)]
pub(crate) struct Locate {
    manifest_path: Option<PathBuf>,
    config: Option<PathBuf>,
    fixtures: Option<PathBuf>,
}

/// Usage lines of the options [`Locate`] takes.
pub(crate) const LOCATE_USAGE: &str = "  --manifest-path PATH   find the project from this Cargo.toml (default: the current directory)
  --config PATH          the registry (default: fixtures/servers.toml of the project); a .json
                         file: {\"mcpServers\": …} (Claude Desktop, Cursor) or {\"servers\": …}
                         (VS Code's .vscode/mcp.json)
  --fixtures DIR         where fixtures are (default: the project's fixtures/)";

impl Locate {
    /// Takes `flag` (and its value) when it is one of ours.
    pub fn take(&mut self, flag: &str, p: &mut Parser) -> Result<bool> {
        let slot = match flag {
            "--manifest-path" => &mut self.manifest_path,
            "--config" => &mut self.config,
            "--fixtures" => &mut self.fixtures,
            _ => return Ok(false),
        };
        *slot = Some(PathBuf::from(p.value(flag)?));
        Ok(true)
    }

    /// The directory the project is searched from.
    pub fn start(&self, cli: &Cli) -> Result<PathBuf> {
        let Some(manifest) = &self.manifest_path else {
            return Ok(cli.cwd.clone());
        };
        let manifest = cli.resolve(manifest);
        if !manifest.is_file() {
            return Err(Error::Project(format!(
                "--manifest-path {}: no such file",
                manifest.display()
            )));
        }
        Ok(manifest
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| cli.cwd.clone()))
    }

    /// The project's `fixtures/` (whether it exists yet or not), or `None` outside any
    /// cargo project.
    fn project_fixtures(&self, cli: &Cli) -> Result<Option<PathBuf>> {
        let start = self.start(cli)?;
        Ok(find_fixtures_dir(&start, None)
            .or_else(|| find_manifest_dir(&start).map(|d| d.join(FIXTURES_DIR))))
    }

    /// The registry: `--config`, else the project's `fixtures/servers.toml`.
    pub fn registry(&self, cli: &Cli) -> Result<PathBuf> {
        if let Some(path) = &self.config {
            return Ok(cli.resolve(path));
        }
        let start = self.start(cli)?;
        match find_registry(&start) {
            Some(path) => Ok(path),
            None => Err(Error::Project(format!(
                "no {FIXTURES_DIR}/{REGISTRY_FILE} next to a Cargo.toml in {} or its parents; \
                 create it (one [servers.<alias>] table per server, e.g.\n\n\
                 [servers.memory]\ncommand = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-memory\"]\n\n\
                 ) or pass --config PATH (a .json file of Claude Desktop, Cursor or VS Code works too)",
                start.display()
            ))),
        }
    }

    /// Reads the registry ([`Locate::registry`]) and prints each warning of reading it once
    /// to stderr as `<command>: warning: <text>` (nothing when there are none): the keys of
    /// other MCP clients it ignored, server names used under a normalized alias, agents using
    /// a disabled server. The one place the commands load the registry.
    pub fn load_registry(&self, cli: &Cli, command: &str) -> Result<Registry> {
        let path = self.registry(cli)?;
        // The runtime also logs each warning (`tracing::warn!`); printed here in the
        // command's own style instead, that log line would say it twice.
        let registry = tracing::subscriber::with_default(
            tracing::subscriber::NoSubscriber::default(),
            || Registry::load(&path),
        )?;
        for line in warning_lines(
            command,
            &registry.path.display().to_string(),
            &cli.show(&registry.path),
            registry.warnings(),
        ) {
            errln!("{line}");
        }
        Ok(registry)
    }

    /// Where fixtures are written and read: `--fixtures`, else the project's `fixtures/`,
    /// else (outside a cargo project) the registry's directory.
    pub fn fixtures_dir(&self, cli: &Cli, registry: Option<&Path>) -> Result<PathBuf> {
        if let Some(dir) = &self.fixtures {
            return Ok(cli.resolve(dir));
        }
        if let Some(dir) = self.project_fixtures(cli)? {
            return Ok(dir);
        }
        match registry.and_then(Path::parent) {
            Some(dir) => Ok(dir.to_path_buf()),
            None => Err(Error::Project(format!(
                "no Cargo.toml in {} or its parents, so no {FIXTURES_DIR}/ to use; run this in \
                 your project or pass --fixtures DIR",
                self.start(cli)?.display()
            ))),
        }
    }

    /// An existing fixtures directory (for commands that read them).
    pub fn existing_fixtures_dir(&self, cli: &Cli) -> Result<PathBuf> {
        let dir = self.fixtures_dir(cli, None)?;
        if dir.is_dir() {
            Ok(dir)
        } else {
            Err(Error::Project(format!(
                "no fixtures directory at {} (snapshot a server first, or pass --fixtures DIR)",
                dir.display()
            )))
        }
    }

    /// The fixture of `alias`: `<--fixtures>/<alias>.json`, else the project's (the
    /// nearest `fixtures/` holding `servers.toml` or the file itself, as `mcp_tools!`
    /// looks it up).
    pub fn fixture_file(&self, cli: &Cli, alias: &str) -> Result<PathBuf> {
        let file = format!("{alias}.json");
        if let Some(dir) = &self.fixtures {
            return Ok(cli.resolve(dir).join(file));
        }
        let start = self.start(cli)?;
        match find_fixtures_dir(&start, Some(&file)) {
            Some(dir) => Ok(dir.join(file)),
            None => self.fixtures_dir(cli, None).map(|d| d.join(file)),
        }
    }
}

/// The lines [`Locate::load_registry`] prints: `<command>: warning: <text>`, once each, with
/// the registry's path (`full`, how the runtime names it) shown as the user reads it
/// (`shown`, relative to the current directory).
fn warning_lines(command: &str, full: &str, shown: &str, warnings: &[String]) -> Vec<String> {
    let mut lines: Vec<String> = Vec::with_capacity(warnings.len());
    for warning in warnings {
        let text = match warning.strip_prefix(full) {
            Some(rest) if rest.starts_with(": ") => format!("{shown}{rest}"),
            _ => warning.clone(),
        };
        let line = format!("{command}: warning: {text}");
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines
}

/// Every fixture in `dir`, sorted by file name, with its alias (`server.alias`, else the
/// file stem, as `verify` names it); none is an error that says how to make one.
pub(crate) fn load_fixtures(
    cli: &Cli,
    dir: &Path,
) -> Result<Vec<(String, mcp_bindgen_core::fixture::Fixture)>> {
    let fixtures = mcp_bindgen_core::fixture::load_dir(dir)?;
    if fixtures.is_empty() {
        return Err(Error::Project(format!(
            "no fixture in {}; run {}",
            cli.show(dir),
            cli.hint("snapshot")
        )));
    }
    fixtures
        .into_iter()
        .map(|(_, loaded)| {
            let f = loaded?;
            Ok((mcp_bindgen_codegen::verify::alias_of(&f), f))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_warnings_are_printed_once_each_with_the_path_as_shown() {
        let full = "/home/me/app/mcp.json";
        let warnings = [
            format!("{full}: server \"Demo Server\" is used as alias \"demo_server\""),
            format!("{full}: server \"Demo Server\" is used as alias \"demo_server\""),
            "something else".to_string(),
        ];
        assert_eq!(
            warning_lines("snapshot", full, "mcp.json", &warnings),
            [
                "snapshot: warning: mcp.json: server \"Demo Server\" is used as alias \"demo_server\"",
                "snapshot: warning: something else",
            ]
        );
        assert!(warning_lines("call", full, "mcp.json", &[]).is_empty());
    }
}
