//! Two checks of the published crates beyond this machine's build, run by `cargo xtask test`:
//!
//! * [`minimal_versions`]: the publishable crates build with the lowest versions their
//!   dependency requirements allow (as tokio and sqlx check), so a requirement such as
//!   `serde_json = "1.0.127"` is a promise the code keeps. The workspace is copied to
//!   `target/minimal-versions/ws` (the committed `Cargo.lock` stays as it is), the copy's lock
//!   file is rewritten by `cargo +nightly update -Z direct-minimal-versions` (direct
//!   dependencies at their lowest allowed version, the rest as high as they resolve), and the
//!   five crates are type-checked there with the stable toolchain.
//! * [`windows`]: `cargo check --target x86_64-pc-windows-gnu -p mcp-bindgen` with its default
//!   features: every `cfg(windows)` path of the runtime compiles. The standard library for the
//!   target comes from `rustup target add`; the C of `aws-lc-sys` (the default TLS provider)
//!   is compiled by zig's clang, the pinned PyPI package `ziglang` (`xtask/servers/zig`),
//!   through two small wrapper scripts written next to it.
//! * [`wasm`]: `cargo check --target wasm32-unknown-unknown` of `mcp-bindgen-core` with every
//!   feature and of `mcp-bindgen --no-default-features --features wasm` (the runtime over the
//!   host's `fetch`).
//! * [`wasm_node`]: the wasm32 build of a typed client of the demo server
//!   (`tests/wasm`) runs its tests under Node 22 with wasm-bindgen-test's runner (the pinned
//!   `wasm-bindgen-cli`), against the demo server over HTTP on 127.0.0.1 that requires a
//!   bearer token.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The publishable crates, in dependency order.
pub const PUBLISHED: [&str; 5] = [
    "mcp-bindgen-core",
    "mcp-bindgen-codegen",
    "mcp-bindgen-macros",
    "mcp-bindgen",
    "mcp-bindgen-cli",
];

/// `cargo xtask portability [CHECK…]`: the checks named (`minimal-versions`, `windows`,
/// `wasm`, `wasm-node`; all without a name), with the closing `N passed, M failed` line.
pub fn run(root: &Path, names: &[String]) -> std::process::ExitCode {
    type Check = fn(&Path) -> Result<(), String>;
    let checks: [(&str, &str, Check); 4] = [
        ("minimal-versions", "minimal versions", minimal_versions),
        ("windows", "the Windows check", windows),
        ("wasm", "the wasm32 check", |_| wasm()),
        ("wasm-node", "the wasm32 tests under Node", wasm_node),
    ];
    if let Some(unknown) = names
        .iter()
        .find(|n| !checks.iter().any(|(name, ..)| name == n))
    {
        let known: Vec<&str> = checks.iter().map(|(name, ..)| *name).collect();
        eprintln!(
            "portability: unknown check {unknown:?} (known: {})",
            known.join(", ")
        );
        return std::process::ExitCode::from(2);
    }
    let mut failures = Vec::new();
    let mut passed = 0;
    for (name, what, check) in checks {
        if !names.is_empty() && !names.iter().any(|n| n == name) {
            continue;
        }
        match check(root) {
            Ok(()) => passed += 1,
            Err(e) => {
                eprintln!("portability: {what}: {e}");
                failures.push(what.to_string());
            }
        }
    }
    crate::summary(passed, failures.len() as u64, &failures)
}

/// The Windows target checked.
const WINDOWS: &str = "x86_64-pc-windows-gnu";
/// The WebAssembly target checked.
const WASM: &str = "wasm32-unknown-unknown";

/// Builds the publishable crates against their lowest allowed direct dependencies.
pub fn minimal_versions(root: &Path) -> Result<(), String> {
    let base = root.join("target").join("minimal-versions");
    let ws = base.join("ws");
    let _ = std::fs::remove_dir_all(&ws);
    copy_tracked(root, &ws)?;
    let mut update = Command::new("cargo");
    update
        .args(["+nightly", "update", "-Z", "direct-minimal-versions"])
        .current_dir(&ws);
    status(&mut update)?;
    let mut check = Command::new(cargo());
    check
        .args(["check", "--locked"])
        .args(PUBLISHED.iter().flat_map(|p| ["--package", p]))
        .env("CARGO_TARGET_DIR", base.join("target"))
        .current_dir(&ws);
    status(&mut check)
}

/// `cargo check --target wasm32-unknown-unknown -p mcp-bindgen-core --all-features` and
/// `… -p mcp-bindgen --no-default-features --features wasm` (the target's standard library
/// from `rustup target add`).
pub fn wasm() -> Result<(), String> {
    let mut add = Command::new("rustup");
    add.args(["target", "add", WASM]);
    status(&mut add)?;
    crate::cargo_with_env(
        &[
            "check",
            "--target",
            WASM,
            "--package",
            "mcp-bindgen-core",
            "--all-features",
        ],
        &[],
    )?;
    crate::cargo_with_env(
        &[
            "check",
            "--target",
            WASM,
            "--package",
            "mcp-bindgen",
            "--no-default-features",
            "--features",
            "wasm",
        ],
        &[],
    )
}

/// `cargo test --target wasm32-unknown-unknown -p mcp-bindgen-wasm-tests`, run by
/// wasm-bindgen-test's runner under the pinned Node 22, against the demo server over HTTP
/// (`--require-header "Authorization:Bearer <token>"`), once answering with event streams
/// and once with JSON bodies (`--json-response`); its URL and token reach the tests in
/// `MCP_WASM_DEMO_URL` and `MCP_WASM_DEMO_TOKEN`; server-everything (npm) in its Streamable
/// HTTP mode beside it, in `MCP_WASM_EVERYTHING_URL`, a demo server that pages its tools in
/// a cycle, in `MCP_WASM_CYCLE_URL`, and one with the fault tools, in `MCP_WASM_FAULTS_URL`.
pub fn wasm_node(root: &Path) -> Result<(), String> {
    crate::servers::install(root, &["node22", "wasm-bindgen", "everything"])?;
    let pinned = |alias| {
        crate::servers::find(alias)
            .map(|p| p.entry_path(root))
            .ok_or(format!("the {alias} pin is missing from xtask's table"))
    };
    let runner = pinned("wasm-bindgen")?;
    let node = pinned("node22")?;
    let node_dir = node.parent().ok_or("the Node 22 pin has no directory")?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![node_dir.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    let path = std::env::join_paths(dirs).map_err(|e| e.to_string())?;

    let demo = crate::prepare::build_demo_server()?;
    let token = format!(
        "wasm-{:016x}",
        crate::process::fnv1a(
            format!("{:?}{}", std::time::SystemTime::now(), std::process::id()).as_bytes()
        )
    );
    let everything = Server::everything(root, &node)?;
    // The fault tools (`x-mcp-header` annotations, valid and invalid), stateless.
    let faults = Server::demo(&demo, &token, &["--faults", "--protocol", "2026-07-28"])?;
    // A server that pages its tools in a cycle: the client must stop, not loop.
    let cycle = Server::demo(
        &demo,
        &token,
        &["--misbehave", "cursor-cycle", "--page-size", "2"],
    )?;
    let target_env = WASM.replace('-', "_").to_uppercase();
    // The demo server answering with event streams, with JSON bodies, and speaking only
    // the initialize lifecycle of 2025-11-25 (`protocol = "auto"` falls back to it).
    // The first pages its tools 3 at a time.
    for extra in [
        &["--page-size", "3"][..],
        &["--json-response"],
        &["--protocol", "2025-11-25"],
    ] {
        let server = Server::demo(&demo, &token, extra)?;
        let only = match extra {
            ["--protocol", revision] => revision,
            _ => "",
        };
        crate::cargo_with_env(
            &[
                "test",
                "--target",
                WASM,
                "--package",
                "mcp-bindgen-wasm-tests",
            ],
            &[
                (
                    format!("CARGO_TARGET_{target_env}_RUNNER"),
                    runner.display().to_string(),
                ),
                ("PATH".to_string(), path.to_string_lossy().into_owned()),
                ("MCP_WASM_DEMO_URL".to_string(), server.url.clone()),
                ("MCP_WASM_DEMO_TOKEN".to_string(), token.clone()),
                ("MCP_WASM_DEMO_ONLY".to_string(), only.to_string()),
                (
                    "MCP_WASM_EVERYTHING_URL".to_string(),
                    everything.url.clone(),
                ),
                ("MCP_WASM_CYCLE_URL".to_string(), cycle.url.clone()),
                ("MCP_WASM_FAULTS_URL".to_string(), faults.url.clone()),
            ],
        )
        .map_err(|e| format!("{e} (demo server with [{}])", extra.join(" ")))?;
    }
    Ok(())
}

/// A server the wasm32 tests call over HTTP, stopped when dropped.
struct Server {
    child: std::process::Child,
    url: String,
}

impl Server {
    /// server-everything (the pinned npm package) in its Streamable HTTP mode on a free port.
    fn everything(root: &Path, node: &Path) -> Result<Self, String> {
        let pinned = crate::servers::find("everything").ok_or("the everything pin is missing")?;
        let script = pinned
            .dir(root)
            .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        let child = Command::new(node)
            .arg(&script)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", script.display()))?;
        let mut server = Server {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        };
        for _ in 0..600 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Ok(server);
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!(
                    "server-everything exited before listening: {status}"
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Err(format!(
            "server-everything does not listen on {port} after 30 s"
        ))
    }

    /// The demo server over HTTP on a free port of 127.0.0.1, requiring `token`.
    fn demo(binary: &Path, token: &str, extra: &[&str]) -> Result<Self, String> {
        use std::io::BufRead;
        let mut child = Command::new(binary)
            .args(["--transport", "http", "--port", "0", "--require-header"])
            .arg(format!("Authorization:Bearer {token}"))
            .args(extra)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let mut line = String::new();
        if let Some(stdout) = child.stdout.take() {
            let _ = std::io::BufReader::new(stdout).read_line(&mut line);
        }
        let mut server = Server {
            child,
            url: String::new(),
        };
        match line.trim().strip_prefix("listening on ") {
            Some(url) => {
                server.url = url.to_string();
                Ok(server)
            }
            None => Err(format!(
                "the demo server did not say where it listens (it printed {line:?})"
            )),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `cargo check --target x86_64-pc-windows-gnu -p mcp-bindgen` (default features).
pub fn windows(root: &Path) -> Result<(), String> {
    let mut add = Command::new("rustup");
    add.args(["target", "add", WINDOWS]);
    status(&mut add)?;
    let zig = crate::servers::find("zig").ok_or("the zig pin is missing from xtask's table")?;
    crate::servers::install(root, &["zig"])?;
    let (cc, ar) = zig_wrappers(&zig.dir(root), &zig.entry_path(root))?;
    let target_env = WINDOWS.replace('-', "_");
    crate::cargo_with_env(
        &["check", "--target", WINDOWS, "--package", "mcp-bindgen"],
        &[
            (format!("CC_{target_env}"), cc.display().to_string()),
            (format!("AR_{target_env}"), ar.display().to_string()),
        ],
    )
}

/// Writes `zcc` and `zar` (zig's `cc` and `ar` for x86_64-windows-gnu) beside zig's venv.
fn zig_wrappers(dir: &Path, python: &Path) -> Result<(PathBuf, PathBuf), String> {
    let python = python.display();
    // The cc crate passes its own `--target=x86_64-pc-windows-gnu`, a name zig does not
    // parse; the wrapper drops it and names the target zig's way.
    let cc = format!(
        "#!/bin/sh\n# Written by `cargo xtask test`: zig's C compiler for {WINDOWS}.\n\
         for a do\n  shift\n  case \"$a\" in --target=*) ;; *) set -- \"$@\" \"$a\" ;; esac\ndone\n\
         exec \"{python}\" -m ziglang cc -target x86_64-windows-gnu \"$@\"\n"
    );
    let ar = format!(
        "#!/bin/sh\n# Written by `cargo xtask test`: zig's archiver.\nexec \"{python}\" -m ziglang ar \"$@\"\n"
    );
    let write = |name: &str, text: &str| -> Result<PathBuf, String> {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| format!("cannot make {} executable: {e}", path.display()))?;
        }
        Ok(path)
    };
    Ok((write("zcc", &cc)?, write("zar", &ar)?))
}

/// Copies the files git tracks (and the working tree's edits of them) to `to`.
pub(crate) fn copy_tracked(root: &Path, to: &Path) -> Result<(), String> {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git ls-files: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git ls-files failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    for file in out.stdout.split(|b| *b == 0).filter(|f| !f.is_empty()) {
        let rel = Path::new(std::str::from_utf8(file).map_err(|e| e.to_string())?);
        let (from, dest) = (root.join(rel), to.join(rel));
        // A tracked file deleted in the working tree, or a symlink to one: nothing to copy.
        if !from.is_file() {
            continue;
        }
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::copy(&from, &dest).map_err(|e| format!("cannot copy {}: {e}", from.display()))?;
    }
    Ok(())
}

/// The cargo that runs xtask (stable), for commands run in another directory.
fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

/// Runs `cmd` with inherited output; `Err` names the command.
pub(crate) fn status(cmd: &mut Command) -> Result<(), String> {
    let what = crate::process::describe(cmd);
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run `{what}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{what}` failed ({status})"))
    }
}
