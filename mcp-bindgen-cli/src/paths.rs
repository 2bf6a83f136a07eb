//! Where the project's registry and fixtures are: cargo's rules.
//!
//! * The project is found from the current directory, or from the directory of
//!   `--manifest-path PATH`.
//! * Its registry is `fixtures/servers.toml` and its fixtures `fixtures/<alias>.json` next to
//!   the nearest `Cargo.toml` that has them ([`mcp_codegen::project::find_fixtures_dir`],
//!   the rule `mcp_tools!` uses from the crate's directory).
//! * `--config PATH` and `--fixtures DIR` override them, relative to the current directory.

use std::path::{Path, PathBuf};

use mcp_codegen::project::{
    FIXTURES_DIR, REGISTRY_FILE, find_fixtures_dir, find_manifest_dir, find_registry,
};

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
  --config PATH          the registry (default: fixtures/servers.toml of the project; a .json
                         file: the {\"mcpServers\": …} shape)
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
                 ) or pass --config PATH",
                start.display()
            ))),
        }
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
