//! `cargo xtask conformance [--scenario NAME]… [--spec-version REV]` — the official MCP
//! conformance suite against our client, at both protocol revisions.
//!
//! 1. installs Node 22 and the pinned suite (`@modelcontextprotocol/conformance`, see
//!    `servers.rs`) into `target/mcp-servers`;
//! 2. builds `mcp-conformance-client` (package `mcp-bindgen-tests`),
//!    a small client on `mcp-bindgen`;
//! 3. reads the plan from the suite's own requirement sets (`requirements/<rev>.yaml`):
//!    every client scenario each revision scores, plus the client scenarios it runs without
//!    scoring — so a scenario in both sets runs twice, once per wire (the `initialize`
//!    lifecycle for 2025-11-25, the stateless one for 2026-07-28) — and the two
//!    authorization back-compat scenarios of 2025-03-26 ([`BACKCOMPAT`]);
//! 4. runs each `(revision, scenario)` as
//!    `node <suite> client --command <client> --scenario NAME --spec-version REV`,
//!    echoing the suite's own output (two runs at a time; each run's output stays together);
//! 5. compares the outcomes with the committed expected failures
//!    (`xtask/conformance-expected-failures.txt`), strictly: a run that fails and is not
//!    listed fails, and so does a listed run that passes (the list must shrink with it);
//! 6. ends with one line `N passed, M failed`, counting runs; listed runs that still fail
//!    are counted apart (`K expected failures`).
//!
//! The suite starts a mock server per run, appends its URL to the command, and names the
//! scenario and revision in `MCP_CONFORMANCE_SCENARIO` / `MCP_CONFORMANCE_PROTOCOL_VERSION`.
//! It prints its verdict `OVERALL: PASSED` on stderr; both streams are read.
//!
//! `cargo xtask test` runs this same function: CI and a developer see one runner.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Mutex;

/// The revisions whose requirement sets are run, oldest first.
pub const REVISIONS: &[&str] = &["2025-11-25", "2026-07-28"];

/// Runs no requirement set lists: the suite's back-compat scenarios of the 2025-03-26
/// authorization rules (metadata at the server's root, default endpoints when there is
/// none), which clients of servers still on that revision meet. Run unscored at that revision.
pub const BACKCOMPAT: &[(&str, &str)] = &[
    ("2025-03-26", "auth/2025-03-26-oauth-metadata-backcompat"),
    ("2025-03-26", "auth/2025-03-26-oauth-endpoint-fallback"),
];

/// The committed expected failures, relative to the workspace root.
const EXPECTED_FAILURES: &str = "xtask/conformance-expected-failures.txt";

/// Runs at a time (each is a Node process and a client, mostly waiting on each other).
const PARALLEL: usize = 2;

const USAGE: &str = "usage: cargo xtask conformance [--scenario NAME]… [--spec-version REV]

Installs Node 22 and the pinned MCP conformance suite, builds mcp-conformance-client and
runs every client scenario of the suite's requirement sets at each revision it belongs to
(or the named scenarios / revision); compares with xtask/conformance-expected-failures.txt
and ends with `N passed, M failed`.";

/// One run: a scenario at a revision's wire.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Run {
    /// `2025-11-25` or `2026-07-28`.
    pub revision: String,
    /// The scenario's name.
    pub scenario: String,
    /// Whether the revision scores it (else it runs for visibility only).
    pub scored: bool,
}

impl Run {
    fn key(&self) -> (String, String) {
        (self.revision.clone(), self.scenario.clone())
    }
}

/// Entry point.
pub fn run(args: &[String]) -> ExitCode {
    let mut selected: Vec<String> = Vec::new();
    let mut revision: Option<String> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (a.as_str(), None),
        };
        match flag {
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "--scenario" | "--spec-version" => {
                let Some(value) = inline.or_else(|| it.next().cloned()) else {
                    eprintln!("conformance: {flag} needs a value\n{USAGE}");
                    return ExitCode::from(2);
                };
                if flag == "--scenario" {
                    selected.push(value);
                } else if REVISIONS.contains(&value.as_str()) {
                    revision = Some(value);
                } else {
                    eprintln!(
                        "conformance: unknown revision {value:?} (known: {})",
                        REVISIONS.join(", ")
                    );
                    return ExitCode::from(2);
                }
            }
            other => {
                eprintln!("conformance: unknown argument {other}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let root = crate::workspace_root();
    if let Err(e) = crate::servers::install(&root, &["node22", "conformance"]) {
        eprintln!("conformance: cannot install Node 22 and the conformance suite:\n{e}");
        println!("0 passed, 1 failed");
        return ExitCode::FAILURE;
    }
    let env: Vec<(String, String)> = crate::servers::env_vars(&root);
    let var = |name: &str| {
        env.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| PathBuf::from(v))
    };
    let (Some(node), Some(suite)) = (var("MCP_CONFORMANCE_NODE"), var("MCP_CONFORMANCE_JS")) else {
        eprintln!(
            "conformance: the pinned Node 22 / conformance packages are unknown to xtask/src/servers.rs"
        );
        println!("0 passed, 1 failed");
        return ExitCode::FAILURE;
    };
    let plan = match plan(&suite) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("conformance: {e}");
            println!("0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
    };
    let expected = match read_expected(&root.join(EXPECTED_FAILURES), &plan) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("conformance: {e}");
            println!("0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
    };
    for name in &selected {
        if !plan.iter().any(|r| &r.scenario == name) {
            let known: BTreeSet<&str> = plan.iter().map(|r| r.scenario.as_str()).collect();
            eprintln!(
                "conformance: unknown scenario {name:?} (known: {})",
                known.into_iter().collect::<Vec<_>>().join(", ")
            );
            return ExitCode::from(2);
        }
    }
    let runs: Vec<Run> = plan
        .into_iter()
        .filter(|r| selected.is_empty() || selected.contains(&r.scenario))
        .filter(|r| revision.as_ref().is_none_or(|v| v == &r.revision))
        .collect();
    let client = match build_client() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("conformance: {e}");
            println!("0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
    };
    let out_dir = root.join("target").join("conformance");
    let outcomes = run_all(&node, &suite, &client, &runs, &out_dir);
    let tally = tally(&runs, &outcomes, &expected);
    if !tally.expected.is_empty() {
        eprintln!(
            "\n{} expected failures (listed in {EXPECTED_FAILURES}):",
            tally.expected.len()
        );
        for r in &tally.expected {
            eprintln!("  ~ {r}");
        }
    }
    let scored_passed = runs
        .iter()
        .zip(&outcomes)
        .filter(|(r, ok)| r.scored && **ok)
        .count();
    let scored = runs.iter().filter(|r| r.scored).count();
    eprintln!("scored runs passed: {scored_passed} of {scored}");
    crate::summary(tally.passed, tally.failures.len() as u64, &tally.failures)
}

/// The outcome of a set of runs against the expected failures.
#[derive(Debug, Default, PartialEq)]
pub struct Tally {
    /// Runs that passed and are not listed.
    pub passed: u64,
    /// Runs that failed unexpectedly, and listed runs that passed (stale entries).
    pub failures: Vec<String>,
    /// Listed runs that failed, as listed.
    pub expected: Vec<String>,
}

/// Sorts each run into passed / failed / expected failure.
pub fn tally(runs: &[Run], outcomes: &[bool], expected: &BTreeSet<(String, String)>) -> Tally {
    let mut t = Tally::default();
    for (run, ok) in runs.iter().zip(outcomes) {
        let name = format!("{} {}", run.revision, run.scenario);
        match (*ok, expected.contains(&run.key())) {
            (true, false) => t.passed += 1,
            (false, false) => t.failures.push(name),
            (false, true) => t.expected.push(name),
            (true, true) => t.failures.push(format!(
                "{name} passed but is listed in {EXPECTED_FAILURES}: remove it from the list"
            )),
        }
    }
    t
}

/// Every run of the pinned suite's requirement sets, from its `requirements/<rev>.yaml`.
fn plan(suite: &Path) -> Result<Vec<Run>, String> {
    // <package>/dist/index.js → <package>/requirements
    let dir = suite
        .parent()
        .and_then(Path::parent)
        .map(|p| p.join("requirements"))
        .ok_or_else(|| format!("cannot locate the suite's package from {}", suite.display()))?;
    let mut runs = Vec::new();
    for rev in REVISIONS {
        let path = dir.join(format!("{rev}.yaml"));
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let found = client_runs(rev, &text);
        if !found.iter().any(|r| r.scored) {
            return Err(format!(
                "{} lists no scored client scenario: the requirement file's shape changed",
                path.display()
            ));
        }
        runs.extend(found);
    }
    runs.extend(BACKCOMPAT.iter().map(|(revision, scenario)| Run {
        revision: revision.to_string(),
        scenario: scenario.to_string(),
        scored: false,
    }));
    Ok(runs)
}

/// The client scenarios of one requirement set: `client:` (scored) and the `not_scored:`
/// entries with `leg: client`. The files are plain YAML lists; this reads exactly that shape.
pub fn client_runs(revision: &str, yaml: &str) -> Vec<Run> {
    #[derive(PartialEq)]
    enum Section {
        Other,
        Client,
        NotScored,
    }
    let mut section = Section::Other;
    let mut runs = Vec::new();
    let mut pending: Option<String> = None;
    for line in yaml.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            section = match line.trim_end() {
                "client:" => Section::Client,
                "not_scored:" => Section::NotScored,
                _ => Section::Other,
            };
            pending = None;
            continue;
        }
        let item = line.trim();
        match section {
            Section::Client => {
                if let Some(name) = item.strip_prefix("- ") {
                    runs.push(Run {
                        revision: revision.to_string(),
                        scenario: name.trim().to_string(),
                        scored: true,
                    });
                }
            }
            Section::NotScored => {
                if let Some(name) = item.strip_prefix("- scenario:") {
                    pending = Some(name.trim().to_string());
                } else if item == "leg: client"
                    && let Some(name) = pending.take()
                {
                    runs.push(Run {
                        revision: revision.to_string(),
                        scenario: name,
                        scored: false,
                    });
                }
            }
            Section::Other => {}
        }
    }
    runs
}

/// The expected failures: lines `REVISION SCENARIO` (`#` starts a comment). Each entry must
/// name a run of the plan.
fn read_expected(path: &Path, plan: &[Run]) -> Result<BTreeSet<(String, String)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut set = BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let (Some(rev), Some(scenario), None) = (words.next(), words.next(), words.next()) else {
            return Err(format!(
                "{}:{}: expected `REVISION SCENARIO`, found {line:?}",
                path.display(),
                n + 1
            ));
        };
        let key = (rev.to_string(), scenario.to_string());
        if !plan.iter().any(|r| r.key() == key) {
            return Err(format!(
                "{}:{}: {rev} {scenario} is no run of the pinned suite's requirement sets",
                path.display(),
                n + 1
            ));
        }
        set.insert(key);
    }
    Ok(set)
}

/// Runs every run, [`PARALLEL`] at a time, printing each run's output when it ends;
/// the outcomes in plan order.
fn run_all(node: &Path, suite: &Path, client: &Path, runs: &[Run], out_dir: &Path) -> Vec<bool> {
    let next = Mutex::new(0usize);
    let outcomes = Mutex::new(vec![false; runs.len()]);
    let print = Mutex::new(());
    std::thread::scope(|s| {
        for _ in 0..PARALLEL.min(runs.len()) {
            s.spawn(|| {
                loop {
                    let i = {
                        let Ok(mut n) = next.lock() else { return };
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some(run) = runs.get(i) else { return };
                    let result = run_one(node, suite, client, run, out_dir);
                    let _one_at_a_time = print.lock();
                    let scored = if run.scored { "" } else { ", not scored" };
                    eprintln!("\n==> {} at {}{scored}", run.scenario, run.revision);
                    let ok = match result {
                        Ok((ok, stdout, stderr)) => {
                            print!("{stdout}");
                            eprint!("{stderr}");
                            ok
                        }
                        Err(e) => {
                            eprintln!("conformance: {}: {e}", run.scenario);
                            false
                        }
                    };
                    if let Ok(mut o) = outcomes.lock() {
                        o[i] = ok;
                    }
                }
            });
        }
    });
    outcomes.into_inner().unwrap_or_default()
}

/// Builds the client and returns its path.
fn build_client() -> Result<PathBuf, String> {
    // No `--package`: the workspace's one feature set (what `cargo test --workspace` built).
    crate::cargo(&["build", "--quiet", "--bin", "mcp-conformance-client"])?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::workspace_root().join("target"));
    let path = std::path::absolute(target.join("debug").join("mcp-conformance-client"))
        .map_err(|e| format!("cannot resolve the client's path: {e}"))?;
    if !path.exists() {
        return Err(format!(
            "built the client but {} is missing",
            path.display()
        ));
    }
    // The runner splits `--command` on spaces.
    if path.to_string_lossy().contains(' ') {
        return Err(format!(
            "the client path {} contains a space, which the conformance runner cannot pass; set CARGO_TARGET_DIR to a path without spaces",
            path.display()
        ));
    }
    Ok(path)
}

/// Runs one scenario at one revision: whether the suite printed `OVERALL: PASSED`, and its
/// output.
fn run_one(
    node: &Path,
    suite: &Path,
    client: &Path,
    run: &Run,
    out_dir: &Path,
) -> Result<(bool, String, String), String> {
    let output = Command::new(node)
        .arg(suite)
        .args(["client", "--command"])
        .arg(client)
        .args([
            "--scenario",
            &run.scenario,
            "--spec-version",
            &run.revision,
            // As the suite's own `--requirements` mode does: extension scenarios are
            // "not on the spec timeline" and would be skipped at a revision otherwise.
            "--force",
            "--timeout",
            "30000",
            "-o",
        ])
        .arg(out_dir.join(&run.revision))
        .output()
        .map_err(|e| format!("cannot run {}: {e}", node.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let ok = output.status.success() && passed(&stdout, &stderr);
    Ok((ok, stdout, stderr))
}

/// Whether the runner's verdict is `OVERALL: PASSED`. It prints the verdict on stderr (the
/// check list on stdout), so both streams are read: looking at stdout alone counted every
/// passing scenario as failed.
fn passed(stdout: &str, stderr: &str) -> bool {
    verdict(stderr).or_else(|| verdict(stdout)) == Some("PASSED")
}

/// The last `OVERALL: …` verdict of `text` (the runner prints `✅ OVERALL: PASSED`).
fn verdict(text: &str) -> Option<&str> {
    text.lines()
        .rev()
        .find_map(|l| l.split_once("OVERALL: ").map(|(_, v)| v.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_is_read_from_either_stream() {
        assert!(passed("checks…\n", "\u{2705} OVERALL: PASSED\n"));
        assert!(passed("OVERALL: PASSED\n", ""));
        assert!(!passed("checks…\n", "\u{274c} OVERALL: FAILED\n"));
        assert!(!passed("OVERALL: PASSED\n", "OVERALL: FAILED\n"));
        assert!(!passed("", ""));
    }

    const YAML: &str = "# comment\nserver:\n  - ping\n\nclient:\n  - initialize\n  - tools_call\n\nnot_scored:\n  - scenario: auth/dpop\n    leg: client\n    reason: extension\n  - scenario: tasks-lifecycle\n    leg: server\n    reason: extension\n    note: >-\n      text\n";

    #[test]
    fn the_plan_holds_scored_and_unscored_client_scenarios_only() {
        let runs = client_runs("2025-11-25", YAML);
        let names: Vec<(&str, bool)> = runs
            .iter()
            .map(|r| (r.scenario.as_str(), r.scored))
            .collect();
        assert_eq!(
            names,
            [
                ("initialize", true),
                ("tools_call", true),
                ("auth/dpop", false)
            ]
        );
    }

    #[test]
    fn a_listed_run_that_passes_fails_the_tally() {
        let run = |s: &str| Run {
            revision: "2026-07-28".into(),
            scenario: s.into(),
            scored: true,
        };
        let runs = [run("a"), run("b"), run("c"), run("d")];
        let expected: BTreeSet<(String, String)> = [("2026-07-28", "c"), ("2026-07-28", "d")]
            .iter()
            .map(|(r, s)| (r.to_string(), s.to_string()))
            .collect();
        let t = tally(&runs, &[true, false, false, true], &expected);
        assert_eq!(t.passed, 1);
        assert_eq!(t.expected, ["2026-07-28 c"]);
        assert_eq!(t.failures.len(), 2, "{:?}", t.failures);
        assert!(t.failures[0].starts_with("2026-07-28 b"));
        assert!(t.failures[1].contains("remove it from the list"));
    }
}
