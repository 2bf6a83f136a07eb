//! `verify --deep`: the round-trip oracle over every tool of the fixtures.
//!
//! 1. For every tool, valid instances of its input (and output) schema are generated
//!    ([`mcp_bindgen_codegen::instances`]) and checked against the schema.
//! 2. A scratch crate under the project's target directory,
//!    `<target>/mcp-bindgen/deep/mcp-bindgen-deep-<hash of the fixtures folder>`,
//!    binds every fixture with `mcp_tools!` (depending only on `mcp-bindgen`, the version
//!    the project uses) and runs each instance through the generated types.
//! 3. What comes back is checked by [`mcp_bindgen_codegen::oracle::Oracle`]: valid, and equal to
//!    what was sent up to optional nulls and defaults.
//! 4. Every generated resource template with variables gets sets of values (reserved
//!    characters, `%`, non-ASCII text, empty, optional ones left out) written into its
//!    `Args` in the same program; the URI `Args::uri` makes must be the one RFC 6570
//!    expansion of the `uriTemplate` makes of the same values.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mcp_bindgen_codegen::instances;
use mcp_bindgen_codegen::oracle::{
    Failure, Oracle, RoundTrip, Side, TemplateRoundTrip, ToolRoundTrip, Verdict,
};
use mcp_bindgen_core::fixture::Fixture;
use serde_json::{Value, json};

use crate::{Cli, Error, Result};

/// Instances generated per schema.
const MAX_INSTANCES: usize = 40;

/// How the scratch crate depends on `mcp-bindgen`.
#[derive(Debug, Clone, PartialEq)]
enum RuntimeDep {
    Path(PathBuf),
    Version(String),
}

/// What `cargo metadata` says about the project.
struct Project {
    target: PathBuf,
    lock: Option<PathBuf>,
    runtime: RuntimeDep,
    /// Whether `runtime` is the project's own (else this CLI's version, from crates.io).
    runtime_from_project: bool,
}

/// One schema's instances, checked before the round trip.
struct Planned {
    side: Side,
    oracle: Oracle,
    instances: Vec<Value>,
}

/// One tool's plan.
struct ToolPlan {
    server: String,
    tool: String,
    sides: Vec<Planned>,
    /// Sides without an instance to check, and why.
    skipped: Vec<(Side, String)>,
}

/// Values a template's variables get, in turn: plain, reserved characters, `%`, an
/// encoded-looking triplet, non-ASCII, empty.
const TEMPLATE_VALUES: [&str; 7] = [
    "plain",
    "two words & more",
    "a/b?c=d#e,f;g",
    "100%",
    "already%20encoded",
    "日本語 ü",
    "",
];

/// One set of values for a generated template's `Args`, and the URI expansion makes of it.
struct TemplateCase {
    server: String,
    template: String,
    /// `<server module>::resources::<template module>`.
    path: String,
    /// Each variable with its value (`None`: an optional one left out).
    values: Vec<(mcp_bindgen_codegen::TemplateVariable, Option<String>)>,
    expected: String,
}

impl TemplateCase {
    /// The Rust expression of the URI the generated `Args` makes of the values.
    fn expression(&self) -> String {
        let fields: Vec<String> = self
            .values
            .iter()
            .map(|(v, value)| {
                let value = match value {
                    Some(text) if v.optional => format!("Some({text:?}.to_string())"),
                    Some(text) => format!("{text:?}.to_string()"),
                    None => "None".to_string(),
                };
                format!("{}: {value}", v.field)
            })
            .collect();
        format!("{}::Args {{ {} }}.uri()", self.path, fields.join(", "))
    }

    fn describe(&self) -> String {
        let values: Vec<String> = self
            .values
            .iter()
            .map(|(v, value)| match value {
                Some(text) => format!("{}={text:?}", v.name),
                None => format!("{}=None", v.name),
            })
            .collect();
        values.join(", ")
    }
}

/// The value sets of every generated template with variables, in fixture then template
/// order: one per [`TEMPLATE_VALUES`], each variable shifted by its position so the values
/// meet in every combination of places; every third optional one left out.
fn template_cases(fixtures: &[(String, Fixture)]) -> Vec<TemplateCase> {
    let mut cases = Vec::new();
    for (alias, fixture) in fixtures {
        let module = mcp_bindgen_core::naming::alias_module(alias);
        for plan in mcp_bindgen_codegen::plan_templates(&fixture.resource_templates) {
            if plan.variables.is_empty() {
                continue;
            }
            let Ok(parsed) = mcp_bindgen_core::uri_template::UriTemplate::parse(&plan.uri_template)
            else {
                continue;
            };
            for k in 0..TEMPLATE_VALUES.len() {
                let values: Vec<_> = plan
                    .variables
                    .iter()
                    .enumerate()
                    .map(|(j, v)| {
                        let n = k + j;
                        let left_out = v.optional && n % 3 == 2;
                        let value = (!left_out)
                            .then(|| TEMPLATE_VALUES[n % TEMPLATE_VALUES.len()].to_string());
                        (v.clone(), value)
                    })
                    .collect();
                let expected = parsed.expand(|name| {
                    values
                        .iter()
                        .find(|(v, _)| v.name == name)
                        .and_then(|(_, value)| value.as_deref())
                });
                cases.push(TemplateCase {
                    server: alias.clone(),
                    template: plan.name.clone(),
                    path: format!("{module}::resources::{}", plan.module),
                    values,
                    expected,
                });
            }
        }
    }
    cases
}

/// Runs the program's `--template-uris` and judges each URI against its case.
fn check_templates(binary: &Path, cases: &[TemplateCase]) -> Result<Vec<TemplateRoundTrip>> {
    let out = Command::new(binary)
        .arg("--template-uris")
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| Error::Other(format!("cannot run {}: {e}", binary.display())))?;
    if !out.status.success() {
        return Err(Error::Other(format!(
            "the round-trip program {} failed ({}) making template URIs",
            binary.display(),
            out.status
        )));
    }
    let mut made: BTreeMap<usize, String> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let answer: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        if let (Some(case), Some(uri)) = (
            answer.get("case").and_then(Value::as_u64),
            answer.get("uri").and_then(Value::as_str),
        ) {
            made.insert(case as usize, uri.to_string());
        }
    }
    let mut report: Vec<TemplateRoundTrip> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let failure = match made.get(&i) {
            Some(uri) if *uri == case.expected => None,
            Some(uri) => Some(format!(
                "{}: Args::uri made \"{uri}\", expansion of the template makes \"{}\"",
                case.describe(),
                case.expected
            )),
            None => Some(format!("{}: no URI from the program", case.describe())),
        };
        let entry = match report.last_mut() {
            Some(t) if t.server == case.server && t.template == case.template => t,
            _ => {
                report.push(TemplateRoundTrip {
                    server: case.server.clone(),
                    template: case.template.clone(),
                    checked: 0,
                    failures: Vec::new(),
                });
                let last = report.len() - 1;
                &mut report[last]
            }
        };
        entry.checked += 1;
        entry.failures.extend(failure);
    }
    Ok(report)
}

/// Runs the oracle over the fixtures of `dir` (those whose code could be generated:
/// `usable`), building the scratch crate from the project found at `start`.
pub(crate) fn run(
    cli: &Cli,
    dir: &Path,
    fixtures: &[(String, Fixture)],
    start: &Path,
) -> Result<RoundTrip> {
    let plans: Vec<ToolPlan> = fixtures
        .iter()
        .flat_map(|(alias, f)| f.tools.iter().map(move |t| plan_tool(alias, t)))
        .collect();
    let cases = template_cases(fixtures);
    if plans.is_empty() && cases.is_empty() {
        return Ok(RoundTrip::default());
    }
    let project = project(start)?;
    let binary = build(cli, dir, fixtures, &cases, &project)?;
    let mut requests = String::new();
    let mut request = |p: &ToolPlan, side: Side, value: &Value| {
        let line = json!({
            "server": p.server,
            "tool": p.tool,
            "output": side == Side::Output,
            "value": value,
        });
        requests.push_str(&line.to_string());
        requests.push('\n');
    };
    for p in &plans {
        for s in &p.sides {
            for instance in &s.instances {
                request(p, s.side, instance);
            }
        }
        // A side without instances may be untyped JSON (its schema did not build, or
        // allows nothing the oracle can make): the program says so, and then it carries
        // every value unchanged by construction.
        for (side, _) in &p.skipped {
            request(p, *side, &json!({}));
        }
    }
    let answers = exchange(&binary, requests)?;
    let mut answers = answers.into_iter();
    let mut report = RoundTrip::default();
    for p in plans {
        let mut failures = Vec::new();
        let mut checked = 0;
        for s in &p.sides {
            for instance in &s.instances {
                let answer = answers.next().unwrap_or(Value::Null);
                checked += 1;
                if let Some(f) = judge(s, instance, &answer) {
                    failures.push(f);
                }
            }
        }
        let mut skipped = Vec::new();
        let mut untyped = 0;
        for (side, why) in &p.skipped {
            let answer = answers.next().unwrap_or(Value::Null);
            if answer.get("untyped").is_some() {
                untyped += 1;
            } else {
                skipped.push(format!("{}: {why}", side.as_str()));
            }
        }
        // A side left unchecked leaves the tool unchecked, whatever the other side did.
        let verdict = if !failures.is_empty() {
            Verdict::Failed(failures)
        } else if !skipped.is_empty() {
            Verdict::Skipped(skipped.join("; "))
        } else if checked == 0 && untyped == 0 {
            Verdict::Skipped("no schema to check".into())
        } else {
            Verdict::Passed(checked)
        };
        report.tools.push(ToolRoundTrip {
            server: p.server,
            tool: p.tool,
            verdict,
        });
    }
    report.templates = check_templates(&binary, &cases)?;
    Ok(report)
}

/// The instances of one tool, valid for its schemas.
fn plan_tool(alias: &str, tool: &mcp_bindgen_core::fixture::Tool) -> ToolPlan {
    let mut plan = ToolPlan {
        server: alias.to_string(),
        tool: tool.name.clone(),
        sides: Vec::new(),
        skipped: Vec::new(),
    };
    let schemas = [
        (Side::Input, Some(&tool.input_schema)),
        (Side::Output, tool.output_schema.as_ref()),
    ];
    let options = instances::Options {
        max_instances: MAX_INSTANCES,
        ..instances::Options::default()
    };
    for (side, schema) in schemas {
        let Some(schema) = schema else { continue };
        let oracle = match Oracle::new(schema) {
            Ok(o) => o,
            Err(e) => {
                plan.skipped.push((side, e));
                continue;
            }
        };
        // Arguments are an object; a schema that declares nothing about them means any.
        let from = match side {
            Side::Input => instances::arguments_schema(schema),
            Side::Output => schema.clone(),
        };
        let generated = instances::generate(&from, &options);
        let total = generated.instances.len();
        let mut first_invalid = None;
        let valid: Vec<Value> = generated
            .instances
            .into_iter()
            // MCP arguments are a JSON object, whatever else the schema allows.
            .filter(|i| side == Side::Output || i.is_object())
            .filter(|i| match oracle.validate(i) {
                Ok(()) => true,
                Err(p) => {
                    first_invalid.get_or_insert(p);
                    false
                }
            })
            .collect();
        if valid.is_empty() {
            let why = match (generated.skipped, first_invalid) {
                (Some(why), _) => why,
                (None, Some(p)) => {
                    format!("none of the {total} generated instances is valid ({p})")
                }
                (None, None) if total > 0 => format!(
                    "none of the {total} values the schema allows is a JSON object (MCP arguments are one)"
                ),
                (None, None) => "no instance could be generated".to_string(),
            };
            plan.skipped.push((side, why));
            continue;
        }
        plan.sides.push(Planned {
            side,
            oracle,
            instances: valid,
        });
    }
    plan
}

/// The verdict on one answer of the round-trip program.
fn judge(planned: &Planned, instance: &Value, answer: &Value) -> Option<Failure> {
    let failure = |returned: Result<Value, String>, pointer: String, message: String| Failure {
        side: planned.side,
        instance: instance.clone(),
        returned,
        problem: mcp_bindgen_codegen::oracle::Problem { pointer, message },
    };
    if answer.get("untyped").is_some() {
        // Carried as JSON, unchanged.
        return None;
    }
    if let Some(v) = answer.get("ok") {
        return planned
            .oracle
            .check(instance, v)
            .err()
            .map(|p| failure(Ok(v.clone()), p.pointer, p.message));
    }
    if let Some(e) = answer.get("err").and_then(Value::as_str) {
        return Some(failure(
            Err(e.to_string()),
            String::new(),
            "a valid value the generated type rejects".into(),
        ));
    }
    let message = if answer.get("unknown").is_some() {
        "the tool is not in the generated module".to_string()
    } else {
        format!("no answer from the round-trip program ({answer})")
    };
    Some(failure(Err(message.clone()), String::new(), message))
}

/// The project's target directory, lock file and `mcp-bindgen` dependency.
fn project(start: &Path) -> Result<Project> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(&cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(start)
        .stderr(Stdio::piped())
        .output();
    let own = RuntimeDep::Version(format!("={}", env!("CARGO_PKG_VERSION")));
    let meta: Value = match out {
        Ok(o) if o.status.success() => serde_json::from_slice(&o.stdout)
            .map_err(|e| Error::Other(format!("cargo metadata printed no JSON: {e}")))?,
        // Outside a cargo project: a target directory of our own.
        _ => {
            return Ok(Project {
                target: start.join("target"),
                lock: None,
                runtime: own,
                runtime_from_project: false,
            });
        }
    };
    let target = meta
        .get("target_directory")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .unwrap_or_else(|| start.join("target"));
    let lock = meta
        .get("workspace_root")
        .and_then(Value::as_str)
        .map(|r| Path::new(r).join("Cargo.lock"))
        .filter(|l| l.is_file());
    let packages = meta
        .get("packages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let found = runtime_dep(&packages);
    Ok(Project {
        target,
        lock,
        runtime_from_project: found.is_some(),
        runtime: found.unwrap_or(own),
    })
}

/// The `mcp-bindgen` the project builds with: the workspace's own package, else a path or
/// version requirement of a member's dependency.
fn runtime_dep(packages: &[Value]) -> Option<RuntimeDep> {
    let manifest_dir = |p: &Value| {
        p.get("manifest_path")
            .and_then(Value::as_str)
            .and_then(|m| Path::new(m).parent().map(Path::to_path_buf))
    };
    if let Some(p) = packages
        .iter()
        .find(|p| p.get("name").and_then(Value::as_str) == Some("mcp-bindgen"))
    {
        return manifest_dir(p).map(RuntimeDep::Path);
    }
    let deps = packages
        .iter()
        .filter_map(|p| p.get("dependencies").and_then(Value::as_array))
        .flatten();
    for d in deps {
        if d.get("name").and_then(Value::as_str) != Some("mcp-bindgen") {
            continue;
        }
        if let Some(path) = d.get("path").and_then(Value::as_str) {
            return Some(RuntimeDep::Path(PathBuf::from(path)));
        }
        if let Some(req) = d.get("req").and_then(Value::as_str) {
            return Some(RuntimeDep::Version(req.to_string()));
        }
    }
    None
}

/// Writes and builds the scratch crate; returns its binary.
fn build(
    cli: &Cli,
    dir: &Path,
    fixtures: &[(String, Fixture)],
    cases: &[TemplateCase],
    project: &Project,
) -> Result<PathBuf> {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    // One scratch crate per fixtures folder: two runs on different folders (two test
    // threads, two terminals) never write over each other's program.
    let package = format!("mcp-bindgen-deep-{:08x}", folder_hash(&dir));
    let crate_dir = project
        .target
        .join("mcp-bindgen")
        .join("deep")
        .join(&package);
    let src = crate_dir.join("src");
    std::fs::create_dir_all(&src).map_err(|source| Error::Write {
        path: src.clone(),
        source,
    })?;
    let dep = match &project.runtime {
        RuntimeDep::Path(p) => format!("path = {}", toml_string(&p.display().to_string())),
        RuntimeDep::Version(v) => format!("version = {}", toml_string(v)),
    };
    // The fixtures in parts, one library crate each, that cargo compiles side by side: one
    // crate's expansion and type checking run on one core, and a corpus of many servers
    // would keep the others idle.
    let parts = partition(fixtures, parallelism());
    let mut deps = String::new();
    let mut table = String::new();
    let mut uri_table = String::new();
    for (k, part) in parts.iter().enumerate() {
        let name = format!("{package}-part{k}");
        let part_dir = crate_dir.join("parts").join(format!("part{k}"));
        let part_src = part_dir.join("src");
        std::fs::create_dir_all(&part_src).map_err(|source| Error::Write {
            path: part_src.clone(),
            source,
        })?;
        write_if_changed(
            &part_dir.join("Cargo.toml"),
            &format!(
                "# Written by `verify --deep`: part {k} of the fixtures' generated types.\n\
                 [package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
                 publish = false\n\n[dependencies]\nmcp-bindgen = {{ {dep}, default-features = false, features = [\"macros\"] }}\n"
            ),
        )?;
        let mut lib = format!(
            "//! Written by `verify --deep` for the fixtures in {}.\n\
             #![allow(deprecated, dead_code, unused)]\n\n",
            dir.display()
        );
        let mut servers = String::new();
        let mut uris = String::new();
        for (alias, _) in part {
            let module = mcp_bindgen_core::naming::alias_module(alias);
            lib.push_str(&format!("mcp_bindgen::mcp_tools!({alias:?});\n"));
            servers.push_str(&format!("        ({alias:?}, {module}::TYPED_TOOLS),\n"));
            for (i, case) in cases.iter().enumerate().filter(|(_, c)| c.server == *alias) {
                uris.push_str(&format!("        ({i}, {}),\n", case.expression()));
            }
        }
        lib.push_str(&format!(
            "\n/// The servers of this part and their typed tools.\n\
             pub fn servers() -> Vec<(&'static str, &'static [mcp_bindgen::toolbox::TypedTool])> {{\n    vec![\n{servers}    ]\n}}\n\n\
             /// The URIs the generated templates' `Args` make of the checked values, by case.\n\
             pub fn template_uris() -> Vec<(usize, String)> {{\n    vec![\n{uris}    ]\n}}\n"
        ));
        write_if_changed(&part_src.join("lib.rs"), &lib)?;
        let ident = name.replace('-', "_");
        deps.push_str(&format!("{name} = {{ path = \"parts/part{k}\" }}\n"));
        table.push_str(&format!("    servers.extend({ident}::servers());\n"));
        uri_table.push_str(&format!("        uris.extend({ident}::template_uris());\n"));
    }
    let manifest = format!(
        "# Written by `verify --deep`: the round trip of every fixture's generated types.\n\
         [package]\nname = \"{package}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[dependencies]\nmcp-bindgen = {{ {dep}, default-features = false, features = [\"macros\"] }}\n{deps}\n\
         [workspace]\n"
    );
    let main = format!(
        "//! Written by `verify --deep` for the fixtures in {}.\n\n\
         fn main() -> std::process::ExitCode {{\n\
         \x20   if std::env::args().nth(1).as_deref() == Some(\"--template-uris\") {{\n\
         \x20       let mut uris = Vec::new();\n{uri_table}\
         \x20       for (case, uri) in uris {{\n\
         \x20           println!(\"{{}}\", mcp_bindgen::__private::serde_json::json!({{\"case\": case, \"uri\": uri}}));\n\
         \x20       }}\n\
         \x20       return std::process::ExitCode::SUCCESS;\n\
         \x20   }}\n\
         \x20   let mut servers = Vec::new();\n{table}    mcp_bindgen::__private::roundtrip_stdio(&servers)\n}}\n",
        dir.display()
    );
    write_if_changed(&crate_dir.join("Cargo.toml"), &manifest)?;
    write_if_changed(&src.join("main.rs"), &main)?;
    if let Some(lock) = &project.lock
        && !crate_dir.join("Cargo.lock").is_file()
    {
        let to = crate_dir.join("Cargo.lock");
        std::fs::copy(lock, &to).map_err(|source| Error::Write { path: to, source })?;
    }
    errln!(
        "verify: building the round-trip program in {}",
        cli.show(&crate_dir)
    );
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(&cargo)
        .args(["build", "--quiet", "--message-format", "short"])
        .current_dir(&crate_dir)
        .env("CARGO_TARGET_DIR", &project.target)
        .env("MCP_FIXTURES_DIR", &dir)
        .env_remove("RUSTFLAGS")
        .output()
        .map_err(|e| Error::Other(format!("cannot run cargo: {e}")))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        let tail = lines[lines.len().saturating_sub(60)..].join("\n");
        let hint = if project.runtime_from_project {
            String::new()
        } else {
            format!(
                "\n(this project does not depend on mcp-bindgen, so the program asked crates.io for mcp-bindgen {}: run `verify --deep` in a project that depends on mcp-bindgen, or add it with `cargo add mcp-bindgen`)",
                env!("CARGO_PKG_VERSION")
            )
        };
        return Err(Error::Other(format!(
            "the round-trip program in {} does not build:\n{tail}{hint}",
            crate_dir.display()
        )));
    }
    let exe = format!("{package}{}", std::env::consts::EXE_SUFFIX);
    Ok(project.target.join("debug").join(exe))
}

/// How many crates cargo compiles at once here (`CARGO_BUILD_JOBS`, else the cores).
fn parallelism() -> usize {
    std::env::var("CARGO_BUILD_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .filter(|&j| j > 0)
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
}

/// Splits the fixtures into at most `jobs` parts of about equal weight (the size of each
/// fixture's JSON, which the compile time follows), heaviest first onto the lightest part;
/// one part for a few fixtures, where a second crate costs more than it saves. Each part
/// keeps the fixtures' order.
fn partition(fixtures: &[(String, Fixture)], jobs: usize) -> Vec<Vec<&(String, Fixture)>> {
    /// Fixtures per part below which another part does not pay for itself.
    const MIN_PER_PART: usize = 8;
    let count = jobs.min(fixtures.len() / MIN_PER_PART).max(1);
    let weight = |f: &Fixture| f.document.to_string().len();
    let mut order: Vec<usize> = (0..fixtures.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(weight(&fixtures[i].1)));
    let mut loads = vec![0usize; count];
    let mut owner = vec![0usize; fixtures.len()];
    for i in order {
        let lightest = (0..count).min_by_key(|&p| (loads[p], p)).unwrap_or(0);
        loads[lightest] += weight(&fixtures[i].1);
        owner[i] = lightest;
    }
    let mut parts = vec![Vec::new(); count];
    for (i, fixture) in fixtures.iter().enumerate() {
        parts[owner[i]].push(fixture);
    }
    parts
}

/// FNV-1a of a folder's path (32 bits): the same on every run and toolchain.
fn folder_hash(dir: &Path) -> u32 {
    dir.to_string_lossy().bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// Sends `requests` (one per line) to the round-trip program and reads its answers.
fn exchange(binary: &Path, requests: String) -> Result<Vec<Value>> {
    let mut child = Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| Error::Other(format!("cannot run {}: {e}", binary.display())))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| Error::Other("the round-trip program has no stdin".into()))?;
    let writer = std::thread::spawn(move || stdin.write_all(requests.as_bytes()));
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| Error::Other("the round-trip program has no stdout".into()))?;
    let mut answers = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| Error::Other(format!("reading the round trip: {e}")))?;
        answers.push(serde_json::from_str(&line).unwrap_or(Value::Null));
    }
    let wrote = writer.join();
    let status = child
        .wait()
        .map_err(|e| Error::Other(format!("the round-trip program: {e}")))?;
    if !status.success() || !matches!(wrote, Ok(Ok(()))) {
        return Err(Error::Other(format!(
            "the round-trip program {} failed ({status})",
            binary.display()
        )));
    }
    Ok(answers)
}

fn write_if_changed(path: &Path, text: &str) -> Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    mcp_bindgen_core::project::write_atomic(path, text.as_bytes()).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The fixtures of `dir` whose every tool could be generated, by alias; the others are
/// reported by the first summary line.
pub(crate) fn usable(
    dir: &Path,
    summary: &mcp_bindgen_codegen::verify::Summary,
) -> Result<Vec<(String, Fixture)>> {
    let broken: BTreeMap<&Path, ()> = summary
        .tools
        .iter()
        .filter(|t| matches!(t.status, mcp_bindgen_codegen::verify::Status::Error(_)))
        .map(|t| (t.fixture.as_path(), ()))
        .collect();
    let mut out = Vec::new();
    for (path, fixture) in mcp_bindgen_core::fixture::load_dir(dir)? {
        let Ok(fixture) = fixture else { continue };
        if broken.contains_key(path.as_path()) {
            continue;
        }
        let Some(alias) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        out.push((alias, fixture));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each value set names every field of `Args` (required ones a `String`, optional ones
    /// an `Option`, some left out) and expects what expansion makes of it.
    #[test]
    fn template_cases_fill_every_field_and_expect_the_expansion() {
        let doc = json!({"server": {"alias": "shop"}, "tools": [],
        "resourceTemplates": [
            {"name": "order", "uriTemplate": "shop://orders/{orderId}{?expand}"},
            {"name": "home", "uriTemplate": "shop://home"}
        ]});
        let f = Fixture::from_slice(doc.to_string().as_bytes(), Path::new("shop.json"))
            .expect("fixture");
        let cases = template_cases(&[("shop".to_string(), f)]);
        // One set per value; the template without variables has nothing to check.
        assert_eq!(cases.len(), TEMPLATE_VALUES.len());
        assert!(cases.iter().all(|c| c.template == "order"));
        assert_eq!(
            cases[0].expression(),
            r#"shop::resources::order::Args { order_id: "plain".to_string(), expand: Some("two words & more".to_string()) }.uri()"#
        );
        assert_eq!(
            cases[0].expected,
            "shop://orders/plain?expand=two%20words%20%26%20more"
        );
        // Every third optional value is left out, and the query goes with it.
        assert!(cases[1].expression().contains("expand: None"));
        assert_eq!(cases[1].expected, "shop://orders/two%20words%20%26%20more");
        assert_eq!(
            cases[1].describe(),
            r#"orderId="two words & more", expand=None"#
        );
    }

    /// A fixture whose JSON is about `size` bytes long.
    fn fixture(alias: &str, size: usize) -> (String, Fixture) {
        let doc = json!({"server": {"alias": alias}, "tools": [{"name": "t",
            "description": "x".repeat(size), "inputSchema": {"type": "object"}}]});
        let f =
            Fixture::from_slice(doc.to_string().as_bytes(), Path::new("f.json")).expect("fixture");
        (alias.to_string(), f)
    }

    #[test]
    fn fixtures_are_split_into_balanced_parts_in_their_order() {
        let names = |parts: &[Vec<&(String, Fixture)>]| -> Vec<Vec<String>> {
            parts
                .iter()
                .map(|p| p.iter().map(|(a, _)| a.clone()).collect())
                .collect()
        };
        // A few fixtures: one crate.
        let few: Vec<_> = (0..9).map(|i| fixture(&format!("s{i}"), 100)).collect();
        assert_eq!(partition(&few, 4).len(), 1);
        // Many: as many parts as jobs, each about the same weight, each in the given order.
        let mut many: Vec<_> = (0..20).map(|i| fixture(&format!("s{i:02}"), 100)).collect();
        many.push(fixture("big", 1000));
        let parts = partition(&many, 2);
        assert_eq!(parts.len(), 2);
        let weight = |p: &Vec<&(String, Fixture)>| -> usize {
            p.iter().map(|(_, f)| f.document.to_string().len()).sum()
        };
        let (a, b) = (weight(&parts[0]), weight(&parts[1]));
        assert!(a.abs_diff(b) * 10 < a.max(b), "{a} and {b}");
        for part in names(&parts) {
            let mut sorted = part.clone();
            sorted.sort_by_key(|n| many.iter().position(|(a, _)| a == n));
            assert_eq!(part, sorted);
        }
        assert_eq!(names(&parts).concat().len(), 21, "every fixture once");
        assert_eq!(partition(&many, 1).len(), 1);
        assert_eq!(
            partition(&many, 16).len(),
            2,
            "at least 8 fixtures per part"
        );
    }

    #[test]
    fn runtime_dependency_from_metadata() {
        let own_workspace =
            [json!({"name": "mcp-bindgen", "manifest_path": "/w/runtime/Cargo.toml"})];
        assert_eq!(
            runtime_dep(&own_workspace),
            Some(RuntimeDep::Path(PathBuf::from("/w/runtime")))
        );
        let user = [
            json!({"name": "app", "manifest_path": "/u/Cargo.toml", "dependencies": [
                {"name": "tokio", "req": "^1"},
                {"name": "mcp-bindgen", "req": "^0.3"}
            ]}),
        ];
        assert_eq!(runtime_dep(&user), Some(RuntimeDep::Version("^0.3".into())));
        let path = [json!({"name": "app", "dependencies": [
            {"name": "mcp-bindgen", "req": "*", "path": "/src/mcp/runtime"}
        ]})];
        assert_eq!(
            runtime_dep(&path),
            Some(RuntimeDep::Path(PathBuf::from("/src/mcp/runtime")))
        );
        assert_eq!(runtime_dep(&[json!({"name": "app"})]), None);
        assert_eq!(toml_string("C:\\a \"b\""), "\"C:\\\\a \\\"b\\\"\"");
    }
}
