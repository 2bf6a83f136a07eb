//! `mcp-bench instructions CASE CALLS --server PATH --fixture PATH --demo-fixture PATH
//! [--warmup N]`: one
//! case of the instruction-count section, run by `cargo xtask bench` under
//! `valgrind --tool=callgrind --collect-atstart=no --toggle-collect=mcp_bench_measured
//! --trace-children=no`.
//!
//! The case is set up (server started, session connected, warmed up) outside the measured
//! region; only [`mcp_bench_measured`] — `CALLS` calls, or `CALLS` runs of an in-process
//! task — is counted. Everything the client does happens on this thread (a current-thread
//! tokio runtime; the session's reader and writer are tasks on it), and the server is a
//! child process callgrind does not follow: the count is the client's side alone.
//! The JSON printed on stdout says what was measured; `xtask` divides callgrind's total
//! by `CALLS`.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::contenders::{Pipe, RawRmcp, Typed};
use crate::{Res, check, large_records};

/// Every case: name, what one unit is.
pub(crate) const CASES: [(&str, &str); 15] = [
    ("typed_small", "call"),
    ("raw_rmcp_small", "call"),
    ("pipe_small", "call"),
    ("typed_large", "call"),
    ("raw_rmcp_large", "call"),
    ("pipe_large", "call"),
    ("typed_inflight64", "call"),
    ("raw_rmcp_inflight64", "call"),
    ("pipe_inflight64", "call"),
    ("dispatch_small", "call"),
    ("raw_rmcp_json_small", "call"),
    ("expand_github", "run over 117 tools"),
    ("typify_github", "run over 117 tools"),
    ("review_github", "run over 117 tools"),
    ("parse_github", "run over 117 tools"),
];

/// The only function callgrind counts (`--toggle-collect=mcp_bench_measured`): collection
/// starts when it is entered and stops when it returns.
#[unsafe(no_mangle)]
#[inline(never)]
pub fn mcp_bench_measured(work: &mut dyn FnMut() -> Res<()>) -> Res<()> {
    work()
}

struct Args {
    case: String,
    calls: usize,
    server: String,
    fixture: String,
    demo_fixture: String,
    warmup: usize,
}

fn parse(args: &[String]) -> Res<Args> {
    let [case, calls, rest @ ..] = args else {
        return Err(
            "usage: mcp-bench instructions CASE CALLS --server PATH --fixture PATH \
                    --demo-fixture PATH"
                .into(),
        );
    };
    if !CASES.iter().any(|(c, _)| c == case) {
        let known: Vec<&str> = CASES.iter().map(|(c, _)| *c).collect();
        return Err(format!("unknown case {case}; the cases: {}", known.join(", ")).into());
    }
    let calls: usize = calls
        .parse()
        .map_err(|e| format!("CALLS: `{calls}` is not a count: {e}"))?;
    let mut out = Args {
        case: case.clone(),
        calls: calls.max(1),
        server: String::new(),
        fixture: String::new(),
        demo_fixture: String::new(),
        warmup: 20,
    };
    let mut it = rest.iter();
    while let Some(flag) = it.next() {
        let value = it
            .next()
            .ok_or_else(|| format!("{flag} needs a value"))?
            .clone();
        match flag.as_str() {
            "--server" => out.server = value,
            "--fixture" => out.fixture = value,
            "--demo-fixture" => out.demo_fixture = value,
            "--warmup" => {
                out.warmup = value
                    .parse()
                    .map_err(|e| format!("--warmup: `{value}` is not a count: {e}"))?;
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    Ok(out)
}

/// Runs one case; the JSON report.
pub(crate) fn run(args: &[String]) -> Res<Value> {
    let args = parse(args)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let n = args.calls;
    // Warm-up calls: buffers grown, lazy state initialised, before the measured region.
    let warm = args.warmup.max(1);
    let large = || {
        let records = large_records();
        let value = json!({ "payload": records });
        (records, value)
    };
    match args.case.as_str() {
        case if case.starts_with("typed_") => {
            let (records, _) = large();
            let mut c = runtime.block_on(Typed::connect(&args.server, records))?;
            measure_calls(&runtime, case, warm, n, &mut c)?;
            runtime.block_on(c.close());
        }
        case if case.starts_with("raw_rmcp_") && case != "raw_rmcp_json_small" => {
            let (_, value) = large();
            let Value::Object(map) = value else {
                return Err("the payload is not an object".into());
            };
            let mut c = runtime.block_on(RawRmcp::connect(&args.server, map))?;
            measure_calls(&runtime, case, warm, n, &mut c)?;
            runtime.block_on(c.close());
        }
        case if case.starts_with("pipe_") => {
            let (_, value) = large();
            let mut c = runtime.block_on(Pipe::connect(&args.server, value, false))?;
            measure_calls(&runtime, case, warm, n, &mut c)?;
            runtime.block_on(c.close());
        }
        "dispatch_small" => dispatch(&runtime, &args, n, warm)?,
        "raw_rmcp_json_small" => raw_json(&runtime, &args, n, warm)?,
        "expand_github" => expand(&args, n)?,
        "typify_github" => typify_alone(&args, n)?,
        "review_github" => review(&args, n)?,
        "parse_github" => parse_list(&args, n)?,
        other => return Err(format!("case {other} has no driver").into()),
    }
    let unit = CASES
        .iter()
        .find(|(c, _)| *c == args.case)
        .map_or("call", |(_, u)| *u);
    Ok(json!({ "case": args.case, "calls": n, "unit": unit }))
}

/// Calls of a contender: sequential small or large ones, or small ones with some in flight.
trait Calls {
    async fn calls(&mut self, kind: Kind, n: usize) -> Res<()>;
}

/// What a case's calls are.
#[derive(Clone, Copy)]
enum Kind {
    Small,
    Large,
    /// Small calls, this many in flight on the one session.
    InFlight(usize),
}

/// In-flight calls of the `*_inflight64` cases.
const IN_FLIGHT: usize = 64;

impl Kind {
    fn of(case: &str) -> Kind {
        if case.ends_with("_large") {
            Kind::Large
        } else if case.ends_with("_inflight64") {
            Kind::InFlight(IN_FLIGHT)
        } else {
            Kind::Small
        }
    }
}

macro_rules! calls_of {
    ($($contender:ty),*) => {$(
        impl Calls for $contender {
            async fn calls(&mut self, kind: Kind, n: usize) -> Res<()> {
                match kind {
                    Kind::Small => self.small(n).await.map(drop),
                    Kind::Large => self.large(n).await.map(drop),
                    Kind::InFlight(k) => self.concurrent(k, n).await.map(drop),
                }
            }
        }
    )*};
}

calls_of!(Typed, RawRmcp, Pipe);

/// Warms `c` up, then counts `n` calls of `case`'s kind.
fn measure_calls(
    runtime: &tokio::runtime::Runtime,
    case: &str,
    warm: usize,
    n: usize,
    c: &mut impl Calls,
) -> Res<()> {
    let kind = Kind::of(case);
    let warm = match kind {
        Kind::Large => warm.div_ceil(4),
        Kind::Small => warm,
        Kind::InFlight(k) => warm.max(k),
    };
    runtime.block_on(c.calls(kind, warm))?;
    mcp_bench_measured(&mut || runtime.block_on(c.calls(kind, n)))
}

/// The arguments a model sends for `add`, as JSON text.
const MODEL_ARGUMENTS: &str = r#"{"a": 40, "b": 2}"#;

/// `Toolbox::call` as an agent loop runs it: the model's argument text for the demo
/// server's `add`, reviewed against the committed demo fixture, validated, dispatched, the
/// result rendered as the text the model reads.
fn dispatch(runtime: &tokio::runtime::Runtime, args: &Args, n: usize, warm: usize) -> Res<()> {
    let registry_text = format!(
        "[servers.demo]\ncommand = {:?}\nargs = [\"--pipes\"]\nprotocol = \"2025-11-25\"\n",
        args.server
    );
    let registry = mcp_bindgen::Registry::from_toml_str(&registry_text, Path::new("mcp.toml"))?;
    let fixture = std::fs::read_to_string(&args.demo_fixture)
        .map_err(|e| format!("cannot read {}: {e}", args.demo_fixture))?;
    let toolbox = runtime.block_on(
        mcp_bindgen::toolbox::Toolbox::builder(&registry)
            .fixture("demo", fixture)
            .connect(),
    )?;
    let name = toolbox
        .export(mcp_bindgen::toolbox::provider::Format::OpenAi)
        .tools
        .iter()
        .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
        .find(|n| n.ends_with("add"))
        .map(str::to_string)
        .ok_or("the toolbox exports no `add` tool")?;
    let calls = |count: usize| {
        let (toolbox, name) = (&toolbox, &name);
        async move {
            let mut last = String::new();
            for _ in 0..count {
                let d = toolbox.call(name, MODEL_ARGUMENTS).await;
                last = d.text;
            }
            check(last.trim() == "42", || {
                format!("the toolbox dispatch returned {last:?}")
            })
        }
    };
    runtime.block_on(calls(warm))?;
    mcp_bench_measured(&mut || runtime.block_on(calls(n)))?;
    runtime.block_on(toolbox.close());
    Ok(())
}

/// The untyped bridge on raw rmcp, the floor of [`dispatch`]: the model's argument text
/// parsed into a map, `call_tool`, the text blocks joined for the model.
fn raw_json(runtime: &tokio::runtime::Runtime, args: &Args, n: usize, warm: usize) -> Res<()> {
    let c = runtime.block_on(RawRmcp::connect(&args.server, Map::new()))?;
    let calls = |count: usize| {
        let c = &c;
        async move {
            let mut last = String::new();
            for _ in 0..count {
                let arguments: Map<String, Value> = serde_json::from_str(MODEL_ARGUMENTS)?;
                last = c.call_text("add", arguments).await?;
            }
            check(last.trim() == "42", || {
                format!("raw rmcp returned {last:?}")
            })
        }
    };
    runtime.block_on(calls(warm))?;
    mcp_bench_measured(&mut || runtime.block_on(calls(n)))?;
    runtime.block_on(c.close());
    Ok(())
}

/// The fixture of the codegen cases: the GitHub corpus (a bare tool list), or a fixture
/// file (`{"tools": [...]}`; `bench --smoke` passes the demo's).
fn github(args: &Args) -> Res<mcp_bindgen_core::fixture::Fixture> {
    let text =
        std::fs::read(&args.fixture).map_err(|e| format!("cannot read {}: {e}", args.fixture))?;
    let wrapped = match serde_json::from_slice::<Value>(&text)? {
        tools @ Value::Array(_) => serde_json::to_vec(&json!({ "tools": tools }))?,
        _ => text,
    };
    Ok(mcp_bindgen_core::fixture::Fixture::from_slice(
        &wrapped,
        Path::new(&args.fixture),
    )?)
}

/// What `mcp_tools!` does: `generate` and the token stream of the module.
fn expand(args: &Args, n: usize) -> Res<()> {
    let fixture = github(args)?;
    let options = mcp_bindgen_codegen::Options::default();
    let once = || -> Res<usize> {
        let generated = mcp_bindgen_codegen::generate(&fixture, "github_official", &options)?;
        let tools = generated.stats.tools;
        std::hint::black_box(generated.tokens()?);
        Ok(tools)
    };
    let tools = once()?;
    check(tools == fixture.tools.len(), || {
        format!("generated {tools} of {} tools", fixture.tools.len())
    })?;
    mcp_bench_measured(&mut || {
        for _ in 0..n {
            once()?;
        }
        Ok(())
    })
}

/// The floor of [`expand`]: typify alone, each tool's input schema as it is (one type space
/// per tool, as a typify-based generator without normalisation would do), to tokens. Tools
/// whose raw schema typify refuses or panics on are skipped; at least 90 % must pass.
fn typify_alone(args: &Args, n: usize) -> Res<()> {
    let fixture = github(args)?;
    let schemas: Vec<(String, schemars::schema::RootSchema)> = fixture
        .tools
        .iter()
        .filter_map(|t| {
            let schema = t.raw.get("inputSchema")?.clone();
            Some((t.name.clone(), serde_json::from_value(schema).ok()?))
        })
        .collect();
    let once = |schemas: &[(String, schemars::schema::RootSchema)]| -> Vec<bool> {
        schemas
            .iter()
            .map(|(name, schema)| {
                std::panic::catch_unwind(|| {
                    let mut settings = typify::TypeSpaceSettings::default();
                    settings.with_struct_builder(false);
                    let mut space = typify::TypeSpace::new(&settings);
                    let _ = name;
                    let mut schema = schema.clone();
                    schema.schema.metadata().title = Some("Args".to_string());
                    space.add_root_schema(schema).is_ok()
                        && !std::hint::black_box(space.to_stream()).is_empty()
                })
                .unwrap_or(false)
            })
            .collect()
    };
    // Typify's panics on schemas it cannot handle are expected here: silenced.
    std::panic::set_hook(Box::new(|_| {}));
    let passed: Vec<(String, schemars::schema::RootSchema)> = schemas
        .iter()
        .zip(once(&schemas))
        .filter(|(_, ok)| *ok)
        .map(|(s, _)| s.clone())
        .collect();
    check(passed.len() * 10 >= schemas.len() * 9, || {
        format!(
            "typify alone handled only {} of {} tools",
            passed.len(),
            schemas.len()
        )
    })?;
    eprintln!(
        "mcp-bench: typify alone handles {} of {} tools",
        passed.len(),
        schemas.len()
    );
    mcp_bench_measured(&mut || {
        for _ in 0..n {
            std::hint::black_box(once(&passed));
        }
        Ok(())
    })
}

/// A toolbox's review at connect: every live tool's fingerprint compared with the
/// fixture's, renames looked for.
fn review(args: &Args, n: usize) -> Res<()> {
    let fixture = github(args)?;
    let live: Vec<Value> = fixture.tools.iter().map(|t| t.raw.clone()).collect();
    let reviewed = fixture.fingerprints();
    mcp_bench_measured(&mut || {
        for _ in 0..n {
            let (changed, renames) = crate::review(&live, &reviewed);
            check(changed == 0 && renames.is_empty(), || {
                format!("{changed} tools changed against themselves")
            })?;
        }
        Ok(())
    })
}

/// The floor of [`review`]: reading the `tools/list` result (its JSON text parsed), which
/// every client does at connect.
fn parse_list(args: &Args, n: usize) -> Res<()> {
    let fixture = github(args)?;
    let tools: Vec<&Value> = fixture.tools.iter().map(|t| &t.raw).collect();
    let text = serde_json::to_vec(&json!({ "tools": tools }))?;
    mcp_bench_measured(&mut || {
        for _ in 0..n {
            let list: Value = serde_json::from_slice(&text)?;
            let count = list
                .get("tools")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            check(count == fixture.tools.len(), || {
                format!("parsed {count} tools")
            })?;
        }
        Ok(())
    })
}
