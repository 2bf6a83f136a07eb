//! Where a project keeps its MCP files, and how to tell its user to refresh them.
//!
//! One rule, shared by `mcp_tools!` (which starts from the crate's manifest directory) and
//! the command line (which starts from the current directory, like cargo): the fixtures of
//! a project live in `fixtures/` next to the nearest `Cargo.toml` whose `fixtures/` folder
//! holds them, that is the registry `servers.toml`, or the one fixture being looked for.
//! A `fixtures/` folder of unrelated test data in a member crate is passed over; the
//! search stops at the file-system root.
//!
//! ```text
//! my-workspace/
//! ├── Cargo.toml
//! ├── fixtures/servers.toml    ← found from my-workspace/app/src, my-workspace/xtask, …
//! ├── fixtures/github.json
//! ├── app/Cargo.toml           ← mcp_tools!("github") here reads ../fixtures/github.json
//! └── xtask/Cargo.toml         ← fn main() -> ExitCode { mcp_bindgen_cli::main() }
//! ```

use std::path::{Path, PathBuf};

/// The folder, next to a `Cargo.toml`, that holds the registry and the fixtures.
pub const FIXTURES_DIR: &str = "fixtures";

/// The registry's file name inside [`FIXTURES_DIR`].
pub const REGISTRY_FILE: &str = "servers.toml";

/// The package name of the command-line crate (what `cargo install` takes).
pub const CLI_PACKAGE: &str = "mcp-bindgen-cli";

/// Writes `bytes` to `path` so that a reader (or a later run) sees the old file or the new
/// one, never a part: the bytes go to a temporary file in the same folder (created when
/// missing), are flushed to disk, and the file is renamed over `path`. A failed or killed
/// run leaves the previous file intact (and at worst a `.<name>.tmp<pid>` file beside it,
/// which a later write by the same process id replaces).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let written = (|| {
        {
            let mut file = std::fs::File::create(&tmp)?;
            file.write_all(bytes)?;
            file.sync_all()?;
        } // closed before the rename (Windows cannot rename an open file)
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The `fixtures/` folder of the project at or above `start`.
///
/// Walks from `start` up to the file-system root and returns `<dir>/fixtures` for the
/// first `dir` that has a `Cargo.toml` and whose `fixtures/` holds `servers.toml`, or
/// `file` when one is given (e.g. `"github.json"`). `None` when no directory qualifies.
pub fn find_fixtures_dir(start: &Path, file: Option<&str>) -> Option<PathBuf> {
    start.ancestors().find_map(|dir| {
        if !dir.join("Cargo.toml").is_file() {
            return None;
        }
        let fixtures = dir.join(FIXTURES_DIR);
        let holds = |name: &str| fixtures.join(name).is_file();
        (holds(REGISTRY_FILE) || file.is_some_and(holds)).then_some(fixtures)
    })
}

/// The fixture `mcp_tools!("alias")` reads: `<alias>.json` in `fixtures_dir` when given
/// (the build's `MCP_FIXTURES_DIR`, relative to `start`), else in the project's `fixtures/`
/// ([`find_fixtures_dir`] from `start`, the crate's manifest directory).
///
/// The error is one sentence for the user: the path looked at, a close alias when the
/// folder holds one (`did you mean "memory"?`), and the command that writes the fixture.
pub fn find_fixture(
    start: &Path,
    fixtures_dir: Option<&Path>,
    alias: &str,
) -> Result<PathBuf, String> {
    let file = format!("{alias}.json");
    if alias.is_empty() || alias.contains(['/', '\\']) || alias.starts_with('.') {
        return Err(format!(
            "\"{alias}\" is not a server alias (aliases match [a-z][a-z0-9_-]*, as in fixtures/servers.toml)"
        ));
    }
    let (dir, whence) = match fixtures_dir {
        Some(dir) => {
            let dir = start.join(dir);
            let whence = format!("MCP_FIXTURES_DIR={}", dir.display());
            (dir, whence)
        }
        None => match find_fixtures_dir(start, Some(&file)) {
            Some(dir) => {
                let whence = format!("next to the registry {}", dir.join(REGISTRY_FILE).display());
                (dir, whence)
            }
            None => {
                return Err(format!(
                    "no fixture for MCP server \"{alias}\": no fixtures/{file} (nor fixtures/{REGISTRY_FILE}) next to {} or a parent's Cargo.toml; list the server in fixtures/{REGISTRY_FILE} and run {}",
                    start.join("Cargo.toml").display(),
                    Runner::detect(start).command(&format!("snapshot {alias}"))
                ));
            }
        },
    };
    let path = dir.join(&file);
    if path.is_file() {
        return Ok(path);
    }
    // There, but not a file (a directory, a device such as /dev/zero, a pipe): never read.
    if let Ok(meta) = std::fs::metadata(&path) {
        let kind = if meta.is_dir() {
            "a directory"
        } else {
            "a device, a pipe or a socket"
        };
        return Err(format!(
            "the fixture of MCP server \"{alias}\" at {} is not a regular file but {kind}, so it is not read; a fixture is the JSON file that {} writes",
            path.display(),
            Runner::detect(&dir).command(&format!("snapshot {alias}"))
        ));
    }
    let runner = Runner::detect(&dir);
    let snapshot = |a: &str| runner.command(&format!("snapshot {a}"));
    let fix = missing_fixture_fix(&dir, alias, &snapshot, &|best| {
        format!("mcp_tools!(\"{best}\")")
    });
    Err(format!(
        "no fixture for MCP server \"{alias}\" at {} ({whence}); {fix}",
        path.display()
    ))
}

/// What fixes a missing fixture `<dir>/<alias>.json`, for an error message: `run <snapshot
/// alias>` when the registry beside it lists the server; else `did you mean <suggest(best)>?`
/// for the closest alias among the folder's fixtures and the registry's servers (with `then
/// run <snapshot best>` when that one has no fixture yet); else the registry table to add.
/// Only commands that can work are named.
pub fn missing_fixture_fix(
    dir: &Path,
    alias: &str,
    snapshot: &dyn Fn(&str) -> String,
    suggest: &dyn Fn(&str) -> String,
) -> String {
    let fixtures = fixture_aliases(dir);
    let registry = dir.join(REGISTRY_FILE);
    let configured = registry_aliases(&registry);
    let mut known: Vec<&str> = fixtures
        .iter()
        .chain(&configured)
        .map(String::as_str)
        .collect();
    known.sort_unstable();
    known.dedup();
    let has = |list: &[String], a: &str| list.iter().any(|x| x == a);
    if has(&configured, alias) {
        format!("run {}", snapshot(alias))
    } else if let Some(best) = crate::naming::close_matches(alias, known).first() {
        let then = if !has(&fixtures, best) && has(&configured, best) {
            format!(" (then run {})", snapshot(best))
        } else {
            String::new()
        };
        format!("did you mean {}?{then}", suggest(best))
    } else {
        format!(
            "add a [servers.{alias}] table to {}, then run {}",
            registry.display(),
            snapshot(alias)
        )
    }
}

/// The aliases a registry file lists (`[servers.<alias>]` table headers), without parsing
/// TOML: good enough to suggest a name. Empty when the file cannot be read.
fn registry_aliases(registry: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(registry).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let header = line.trim().strip_prefix("[servers.")?;
            let name = header.split(']').next()?.trim().trim_matches('"');
            (!name.is_empty() && !name.contains('.')).then(|| name.to_string())
        })
        .collect()
}

/// The aliases of the `*.json` files in `dir` (file stems), sorted.
fn fixture_aliases(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    out.sort();
    out
}

/// The project's registry, `fixtures/servers.toml`, at or above `start`: the registry of
/// [`find_fixtures_dir`]`(start, None)`, when that folder holds one.
pub fn find_registry(start: &Path) -> Option<PathBuf> {
    find_fixtures_dir(start, None).map(|dir| dir.join(REGISTRY_FILE))
}

/// The nearest directory at or above `start` that has a `Cargo.toml` (cargo's own rule
/// for finding the current package).
pub fn find_manifest_dir(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// How a user runs the mcp-bindgen commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    /// The workspace has an `xtask` crate that depends on `mcp-bindgen-cli`:
    /// `cargo xtask …`.
    Xtask,
    /// The installed cargo subcommand: `cargo mcp-bindgen …`.
    Installed,
    /// Not known (say both).
    Unknown,
}

impl Runner {
    /// The runner a user at `dir` has: an `xtask/Cargo.toml` naming `mcp-bindgen-cli` in
    /// `dir` or a parent, else `cargo-mcp-bindgen` on `PATH` (or in `$CARGO_HOME/bin`),
    /// else [`Runner::Unknown`]. Reads a few small files; meant for error paths.
    pub fn detect(dir: &Path) -> Runner {
        let wired = dir.ancestors().any(|d| {
            std::fs::read_to_string(d.join("xtask").join("Cargo.toml"))
                .is_ok_and(|text| text.contains(CLI_PACKAGE))
        });
        if wired {
            Runner::Xtask
        } else if installed() {
            Runner::Installed
        } else {
            Runner::Unknown
        }
    }

    /// The command that runs `args` (e.g. `"snapshot github"`), quoted in backticks, in
    /// the user's vocabulary: `` `cargo xtask snapshot github` ``, or both forms when the
    /// runner is not known.
    pub fn command(self, args: &str) -> String {
        match self {
            Runner::Xtask => format!("`cargo xtask {args}`"),
            Runner::Installed => format!("`cargo mcp-bindgen {args}`"),
            Runner::Unknown => format!(
                "`cargo xtask {args}` (an xtask on {CLI_PACKAGE}) or `cargo mcp-bindgen {args}` (`cargo install {CLI_PACKAGE}`)"
            ),
        }
    }
}

/// Both forms of the command that runs `args`, briefly, for messages of a program that
/// cannot know how its user runs the commands (run time, not build time):
/// `` `cargo xtask snapshot --check github` (or `cargo mcp-bindgen …`) ``.
pub fn either_command(args: &str) -> String {
    format!("`cargo xtask {args}` (or `cargo mcp-bindgen {args}`)")
}

/// Whether `cargo-mcp-bindgen` is on `PATH` or in `$CARGO_HOME/bin` (`~/.cargo/bin`).
fn installed() -> bool {
    let exe = format!("cargo-mcp-bindgen{}", std::env::consts::EXE_SUFFIX);
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let in_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    cargo_home
        .map(|h| h.join("bin"))
        .into_iter()
        .chain(in_path)
        .any(|dir| dir.join(&exe).is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "mcp-bindgen-codegen-project-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("mkdir");
        dir
    }

    #[test]
    fn nearest_manifest_with_a_registry_wins_over_unrelated_fixtures() {
        let root = scratch("nearest");
        touch(&root.join("Cargo.toml"), "[workspace]\n");
        touch(&root.join("fixtures/servers.toml"), "");
        // A member with its own test data in fixtures/: not MCP files.
        touch(&root.join("app/Cargo.toml"), "[package]\n");
        touch(&root.join("app/fixtures/data.csv"), "");
        std::fs::create_dir_all(root.join("app/src")).expect("mkdir");
        assert_eq!(
            find_fixtures_dir(&root.join("app/src"), None),
            Some(root.join("fixtures"))
        );
        assert_eq!(
            find_fixtures_dir(&root.join("app"), Some("github.json")),
            Some(root.join("fixtures"))
        );
        // The member's own fixture is nearer when it holds the file asked for.
        touch(&root.join("app/fixtures/github.json"), "{}");
        assert_eq!(
            find_fixtures_dir(&root.join("app"), Some("github.json")),
            Some(root.join("app/fixtures"))
        );
        assert_eq!(
            find_manifest_dir(&root.join("app/src")),
            Some(root.join("app"))
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_fixtures_folder_without_a_manifest_is_not_a_project() {
        let root = scratch("nomanifest");
        touch(&root.join("fixtures/servers.toml"), "");
        std::fs::create_dir_all(root.join("sub")).expect("mkdir");
        let found = find_fixtures_dir(&root.join("sub"), None);
        assert_ne!(found, Some(root.join("fixtures")));
        let _ = std::fs::remove_dir_all(&root);
    }

    /// A fixture path that is a link to a device (or a directory) is refused for what it is,
    /// never read and never taken for a missing fixture.
    #[cfg(unix)]
    #[test]
    fn a_fixture_that_is_not_a_file_is_refused_unread() {
        let root = scratch("not-a-file");
        touch(&root.join("Cargo.toml"), "[package]\n");
        touch(
            &root.join("fixtures/servers.toml"),
            "[servers.zero]\ncommand = \"x\"\n",
        );
        std::os::unix::fs::symlink("/dev/zero", root.join("fixtures/zero.json")).expect("link");
        let e = find_fixture(&root, None, "zero").unwrap_err();
        assert!(
            e.contains("is not a regular file but a device, a pipe or a socket"),
            "{e}"
        );
        assert!(!e.contains("did you mean"), "{e}");
        std::fs::create_dir_all(root.join("fixtures/dir.json")).expect("mkdir");
        let e = find_fixture(&root, None, "dir").unwrap_err();
        assert!(e.contains("but a directory"), "{e}");
    }

    #[test]
    fn find_fixture_names_the_path_a_close_alias_and_the_command() {
        let root = scratch("fixture");
        touch(&root.join("Cargo.toml"), "[workspace]\n");
        touch(
            &root.join("xtask/Cargo.toml"),
            "[dependencies]\nmcp-bindgen-cli = \"0.1\"\n",
        );
        touch(
            &root.join("fixtures/servers.toml"),
            "[servers.memory]\ncommand = \"x\"\n\n[servers.brave-search]\ncommand = \"y\"\n\n[servers.time]\ncommand = \"z\"\n",
        );
        touch(&root.join("fixtures/memory.json"), "{}");
        touch(&root.join("fixtures/brave-search.json"), "{}");
        touch(&root.join("app/Cargo.toml"), "[package]\n");
        let app = root.join("app");
        assert_eq!(
            find_fixture(&app, None, "memory"),
            Ok(root.join("fixtures/memory.json"))
        );
        // A close alias; the command named is one that can work (no `snapshot memry`).
        let e = find_fixture(&app, None, "memry").unwrap_err();
        assert!(e.contains("fixtures/memry.json"), "{e}");
        assert!(e.ends_with("did you mean mcp_tools!(\"memory\")?"), "{e}");
        // `_` for `-` is the closest match there is.
        let e = find_fixture(&app, None, "brave_search").unwrap_err();
        assert!(
            e.contains("did you mean mcp_tools!(\"brave-search\")?"),
            "{e}"
        );
        // In the registry, not snapshotted yet: the command that writes it.
        let e = find_fixture(&app, None, "time").unwrap_err();
        assert!(e.ends_with("run `cargo xtask snapshot time`"), "{e}");
        let e = find_fixture(&app, None, "tme").unwrap_err();
        assert!(
            e.contains("did you mean mcp_tools!(\"time\")? (then run `cargo xtask snapshot time`)"),
            "{e}"
        );
        // Nowhere: say where to list it.
        let e = find_fixture(&app, None, "github").unwrap_err();
        assert!(!e.contains("did you mean"), "{e}");
        assert!(
            e.contains("add a [servers.github] table to")
                && e.contains("`cargo xtask snapshot github`"),
            "{e}"
        );
        // MCP_FIXTURES_DIR, relative to the crate.
        touch(&root.join("app/other/memory.json"), "{}");
        assert_eq!(
            find_fixture(&app, Some(Path::new("other")), "memory"),
            Ok(root.join("app/other/memory.json"))
        );
        let e = find_fixture(&app, Some(Path::new("other")), "github").unwrap_err();
        assert!(e.contains("MCP_FIXTURES_DIR="), "{e}");
        assert!(
            find_fixture(&app, None, "../x")
                .unwrap_err()
                .contains("not a server alias")
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn outside_any_project_the_error_says_where_to_put_the_registry() {
        let root = scratch("outside");
        let e = find_fixture(&root, None, "memory").unwrap_err();
        assert!(
            e.contains("list the server in fixtures/servers.toml"),
            "{e}"
        );
        assert_eq!(find_registry(&root), None);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn xtask_that_runs_the_cli_is_detected() {
        let root = scratch("runner");
        touch(
            &root.join("xtask/Cargo.toml"),
            "[dependencies]\nmcp-bindgen-cli = \"0.1\"\n",
        );
        std::fs::create_dir_all(root.join("app/src")).expect("mkdir");
        assert_eq!(Runner::detect(&root.join("app/src")), Runner::Xtask);
        assert_eq!(
            Runner::Xtask.command("snapshot github"),
            "`cargo xtask snapshot github`"
        );
        let unknown = Runner::Unknown.command("snapshot github");
        assert!(
            unknown.contains("`cargo xtask snapshot github`"),
            "{unknown}"
        );
        assert!(
            unknown.contains("`cargo mcp-bindgen snapshot github`"),
            "{unknown}"
        );
        // An xtask that does not use the CLI does not count.
        touch(&root.join("xtask/Cargo.toml"), "[dependencies]\n");
        assert_ne!(Runner::detect(&root.join("app/src")), Runner::Xtask);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn atomic_writes_replace_whole_files() {
        let dir = std::env::temp_dir().join(format!("mcp-core-atomic-{}", std::process::id()));
        let path = dir.join("sub").join("f.json");
        write_atomic(&path, b"one").expect("first write");
        write_atomic(&path, b"two").expect("second write");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "two");
        let left: Vec<_> = std::fs::read_dir(dir.join("sub"))
            .expect("dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left.len(), 1, "no temporary file is left: {left:?}");
        // A folder in the way: the write fails and the old file stays.
        let blocked = dir.join("blocked");
        std::fs::create_dir_all(blocked.join("x")).expect("mkdir");
        assert!(write_atomic(&blocked, b"new").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
