//! `mcp-bench`: the client side of `cargo xtask bench`, built in release.
//!
//! ```text
//! mcp-bench --server PATH --payload-out FILE [--python PY --python-client SCRIPT]
//!           [--rounds N] [--small-calls N] [--large-calls N] [--warmup N]
//!           [--throughput-calls N] [--throughput-rounds N] [--inflight 1,16,64]
//! mcp-bench expand FIXTURE ALIAS N
//! ```
//!
//! `expand` times `mcp_bindgen_codegen::generate` + formatting of one fixture N times in this
//! optimized binary (the proc macro itself runs unoptimized unless the user's profile says
//! otherwise; `xtask bench` measures that case in its own process) and prints JSON.
//!
//! Every contender talks to its own child `SERVER --pipes` (the same release binary, rmcp's
//! `stdio_pipes()` on the server side), started once and reused for every round:
//!
//! * `typed` — the generated `demo::Client` of `mcp_tools!("demo")` over `mcp-bindgen`;
//! * `raw_rmcp` — rmcp's own client (`TokioChildProcess`, `call_tool` with `serde_json` maps);
//! * `pipe` — a minimal hand-written JSON-RPC client on the child's stdin/stdout (the floor);
//!   it writes the typed client's requests (revision, capabilities, ids, progress tokens),
//!   so the server's work is the same for both;
//! * `bare_pipe` — the same client with the barest requests (throughput only): what the
//!   server's handling of the typed client's requests costs;
//! * `python` — the official Python SDK (`python_client.py`, driven over its stdin).
//!
//! Contenders run interleaved in each round (typed, raw rmcp, pipe, python; the next round
//! starts one contender later); a round's figure is the mean time per call over that
//! round's calls. The JSON printed on stdout holds every round's figure; `xtask bench`
//! turns them into medians of per-round ratios. Progress goes to stderr.

use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

mod contenders;
mod instructions;
mod scale;

use contenders::{Pipe, Python, RawRmcp, Typed};

mcp_bindgen::mcp_tools!("demo");

/// Target size of the large payload's JSON text.
const LARGE_PAYLOAD_BYTES: usize = 100 * 1024;

/// A boxed error with a message; the binary prints it and exits 1.
type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Res<T> = Result<T, BoxError>;
/// A subcommand: its arguments to its JSON report.
type Mode = fn(&[String]) -> Res<Value>;

#[derive(Debug, Clone)]
struct Config {
    server: String,
    payload_out: String,
    python: Option<(String, String)>,
    rounds: usize,
    small_calls: usize,
    large_calls: usize,
    warmup: usize,
    throughput_calls: usize,
    throughput_rounds: usize,
    inflight: Vec<usize>,
    /// `--only typed,raw_rmcp,pipe,bare_pipe,python`: the contenders to run (all by default; for
    /// profiling one at a time).
    only: Option<Vec<String>>,
}

impl Config {
    fn runs(&self, who: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|o| o.iter().any(|w| w == who))
    }
}

fn parse_args() -> Res<Config> {
    let mut config = Config {
        server: String::new(),
        payload_out: String::new(),
        python: None,
        rounds: 30,
        small_calls: 200,
        large_calls: 20,
        warmup: 200,
        throughput_calls: 4096,
        throughput_rounds: 7,
        inflight: vec![1, 16, 64],
        only: None,
    };
    let mut python = None;
    let mut client = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |v: String| -> Res<usize> {
            v.parse::<usize>()
                .map_err(|e| format!("{flag}: `{v}` is not a count: {e}").into())
        };
        match flag.as_str() {
            "--server" => config.server = value()?,
            "--payload-out" => config.payload_out = value()?,
            "--python" => python = Some(value()?),
            "--python-client" => client = Some(value()?),
            "--rounds" => config.rounds = number(value()?)?,
            "--small-calls" => config.small_calls = number(value()?)?,
            "--large-calls" => config.large_calls = number(value()?)?,
            "--warmup" => config.warmup = number(value()?)?,
            "--throughput-calls" => config.throughput_calls = number(value()?)?,
            "--throughput-rounds" => config.throughput_rounds = number(value()?)?,
            "--only" => {
                config.only = Some(value()?.split(',').map(str::to_string).collect());
            }
            "--inflight" => {
                config.inflight = value()?
                    .split(',')
                    .map(|v| number(v.to_string()))
                    .collect::<Res<_>>()?;
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if config.server.is_empty() || config.payload_out.is_empty() {
        return Err("--server and --payload-out are required".into());
    }
    config.python = match (python, client) {
        (Some(p), Some(c)) => Some((p, c)),
        (None, None) => None,
        _ => return Err("--python and --python-client go together".into()),
    };
    if config.rounds == 0 || config.small_calls == 0 || config.large_calls == 0 {
        return Err("rounds and call counts must be positive".into());
    }
    Ok(config)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [cmd, fixture, alias, n] = args.as_slice()
        && cmd == "expand"
    {
        match expand(fixture, alias, n) {
            Ok(report) => println!("{report}"),
            Err(e) => {
                eprintln!("mcp-bench expand: {e}");
                std::process::exit(1);
            }
        }
        return;
    }
    let mode: Option<Mode> = match args.first().map(String::as_str) {
        Some("instructions") => Some(instructions::run),
        Some("balancer") => Some(scale::run),
        _ => None,
    };
    if let Some(mode) = mode {
        match mode(&args[1..]) {
            Ok(report) => println!("{report}"),
            Err(e) => {
                eprintln!("mcp-bench {}: {e}", args[0]);
                std::process::exit(1);
            }
        }
        return;
    }
    let config = match parse_args() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mcp-bench: {e}");
            std::process::exit(2);
        }
    };
    // One thread: the contenders share it, nothing migrates between cores, and the server
    // (two tokio workers) keeps the machine's other core.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("cannot start the tokio runtime");
    match runtime.block_on(run(&config)) {
        Ok(report) => println!("{report}"),
        Err(e) => {
            eprintln!("mcp-bench: {e}");
            std::process::exit(1);
        }
    }
}

/// Median milliseconds of `generate` and of `generate` + formatting over `n` runs.
fn expand(fixture: &str, alias: &str, n: &str) -> Res<Value> {
    let n: usize = n.parse().map_err(|e| format!("bad count {n:?}: {e}"))?;
    let bytes = std::fs::read(fixture).map_err(|e| format!("cannot read {fixture}: {e}"))?;
    let fixture =
        mcp_bindgen_core::fixture::Fixture::from_slice(&bytes, std::path::Path::new(fixture))?;
    let options = mcp_bindgen_codegen::Options::default();
    let mut generate_ms = Vec::new();
    let mut total_ms = Vec::new();
    let mut tools = 0;
    for i in 0..=n {
        let started = Instant::now();
        let generated = mcp_bindgen_codegen::generate(&fixture, alias, &options)?;
        let generated_at = started.elapsed();
        tools = generated.stats.tools;
        let text = mcp_bindgen_codegen::format_tokens(alias, generated.tokens()?)?;
        let total = started.elapsed();
        std::hint::black_box(text);
        if i > 0 {
            // The first run is a warm-up.
            generate_ms.push(generated_at.as_secs_f64() * 1e3);
            total_ms.push(total.as_secs_f64() * 1e3);
        }
    }
    // The connect-time review of a toolbox ([`review`]).
    let live: Vec<Value> = fixture.tools.iter().map(|t| t.raw.clone()).collect();
    let reviewed = fixture.fingerprints();
    let mut check_ms = Vec::new();
    for i in 0..=n.max(20) {
        let started = Instant::now();
        let outcome = review(&live, &reviewed);
        let elapsed = started.elapsed();
        std::hint::black_box(outcome);
        if i > 0 {
            check_ms.push(elapsed.as_secs_f64() * 1e3);
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    };
    Ok(json!({
        "tools": tools,
        "generate_ms": median(generate_ms),
        "generate_and_format_ms": median(total_ms),
        "fingerprint_check_ms": median(check_ms),
    }))
}

/// The connect-time review of a toolbox: every live tool's fingerprint (RFC 8785 canonical
/// JSON, SHA-256, two digests) compared with the fixture's, renames looked for; the tools
/// that changed and the renames found.
fn review(
    live: &[Value],
    reviewed: &std::collections::BTreeMap<String, mcp_bindgen_core::fingerprint::Fingerprint>,
) -> (usize, Vec<(String, String)>) {
    let prints = mcp_bindgen_core::fingerprint::fingerprints(live);
    let changed = reviewed
        .iter()
        .filter(|(name, print)| prints.get(*name) != Some(*print))
        .count();
    (
        changed,
        mcp_bindgen_core::fingerprint::renames(reviewed, &prints),
    )
}

/// The large payload: records in the demo server's shape, every field present so the echo is
/// byte-for-byte the input, ≈100 KiB of JSON.
fn large_records() -> Vec<demo::echo_structured::Record> {
    let mut records = Vec::new();
    let mut size = 0;
    let mut id = 0u64;
    while size < LARGE_PAYLOAD_BYTES {
        let record = demo::echo_structured::Record {
            id,
            name: format!("record {id:06} — benchmark payload"),
            tags: Some(
                ["alpha", "beta", "gamma"][..(id % 3 + 1) as usize]
                    .iter()
                    .map(|t| (*t).to_string())
                    .collect(),
            ),
            active: Some(id.is_multiple_of(2)),
            note: if id.is_multiple_of(4) {
                None
            } else {
                Some(format!("note {id}: \"quoted\" text\twith escapes"))
            },
        };
        size += serde_json::to_string(&record)
            .map(|s| s.len() + 1)
            .unwrap_or(0);
        records.push(record);
        id += 1;
    }
    records
}

async fn run(config: &Config) -> Res<Value> {
    let records = large_records();
    let large_args = json!({ "payload": records });
    let large_text = serde_json::to_string(&large_args)?;
    std::fs::write(&config.payload_out, &large_text)
        .map_err(|e| format!("cannot write {}: {e}", config.payload_out))?;
    let large_map = match &large_args {
        Value::Object(m) => m.clone(),
        _ => return Err("the payload is not an object".into()),
    };
    eprintln!(
        "mcp-bench: large payload {} records, {} bytes",
        records.len(),
        large_text.len()
    );

    let mut contenders = Vec::new();
    if config.runs("typed") {
        contenders.push(Contender::Typed(
            Typed::connect(&config.server, records).await?,
        ));
    }
    if config.runs("raw_rmcp") {
        contenders.push(Contender::Raw(
            RawRmcp::connect(&config.server, large_map).await?,
        ));
    }
    if config.runs("pipe") {
        contenders.push(Contender::Pipe(
            Pipe::connect(&config.server, large_args.clone(), false).await?,
        ));
    }
    if config.runs("bare_pipe") {
        contenders.push(Contender::Pipe(
            Pipe::connect(&config.server, large_args.clone(), true).await?,
        ));
    }
    if let Some((py, script)) = &config.python
        && config.runs("python")
    {
        contenders.push(Contender::Python(
            Python::start(py, script, &config.server, &config.payload_out).await?,
        ));
    }

    // Warm-up: every contender, both payloads.
    let warm_large = (config.warmup / 10).max(1);
    for c in &mut contenders {
        c.small(config.warmup).await?;
        c.large(warm_large).await?;
    }

    let mut latency = Map::new();
    for (kind, calls) in [("small", config.small_calls), ("large", config.large_calls)] {
        let mut series = vec![Vec::new(); contenders.len()];
        for round in 0..config.rounds {
            // The starting contender rotates: none always runs right after the busy Python
            // client (or right after an idle gap), which otherwise biases a fixed order.
            for i in rotation(round, contenders.len()) {
                let (c, s) = (&mut contenders[i], &mut series[i]);
                if !c.in_latency() {
                    continue;
                }
                let elapsed = if kind == "large" {
                    c.large(calls).await?
                } else {
                    c.small(calls).await?
                };
                s.push(elapsed.as_secs_f64() * 1e6 / calls as f64);
            }
            eprint!(
                "\rmcp-bench: latency {kind}: round {}/{}",
                round + 1,
                config.rounds
            );
        }
        eprintln!();
        let mut m = Map::new();
        for (c, s) in contenders.iter().zip(series) {
            if !s.is_empty() {
                m.insert(c.name().into(), json!(s));
            }
        }
        m.insert("calls_per_round".into(), json!(calls));
        latency.insert(kind.into(), Value::Object(m));
    }

    let mut throughput = Map::new();
    for &k in &config.inflight {
        let calls = config.throughput_calls.max(k);
        let mut m = Map::new();
        let mut series = vec![Vec::new(); contenders.len()];
        for round in 0..config.throughput_rounds {
            for i in rotation(round, contenders.len()) {
                let (c, s) = (&mut contenders[i], &mut series[i]);
                if let Some(d) = c.concurrent(k, calls).await? {
                    s.push(calls as f64 / d.as_secs_f64());
                }
            }
        }
        for (c, s) in contenders.iter().zip(series) {
            if !s.is_empty() {
                m.insert(c.name().into(), json!(s));
            }
        }
        m.insert("calls_per_round".into(), json!(calls));
        eprintln!("mcp-bench: throughput at {k} in flight done");
        throughput.insert(k.to_string(), Value::Object(m));
    }

    for c in contenders {
        c.close().await?;
    }
    Ok(json!({
        "unit": { "latency": "microseconds per call", "throughput": "calls per second" },
        "payload": { "records": config_records_len(&large_text), "bytes": large_text.len() },
        "latency": latency,
        "throughput": throughput,
    }))
}

/// The contender indices of round `round`: `0..n` rotated by the round number.
fn rotation(round: usize, n: usize) -> impl Iterator<Item = usize> {
    (0..n).map(move |i| (round + i) % n)
}

/// One client under test.
enum Contender {
    Typed(Typed),
    Raw(RawRmcp),
    Pipe(Pipe),
    Python(Python),
}

impl Contender {
    fn name(&self) -> &'static str {
        match self {
            Contender::Typed(_) => "typed",
            Contender::Raw(_) => "raw_rmcp",
            Contender::Pipe(c) if c.bare() => "bare_pipe",
            Contender::Pipe(_) => "pipe",
            Contender::Python(_) => "python",
        }
    }

    /// Whether the latency rounds time it (the bare pipe is a throughput comparison only).
    fn in_latency(&self) -> bool {
        !matches!(self, Contender::Pipe(c) if c.bare())
    }

    /// `calls` sequential small calls; the elapsed time.
    async fn small(&mut self, calls: usize) -> Res<Duration> {
        match self {
            Contender::Typed(c) => c.small(calls).await,
            Contender::Raw(c) => c.small(calls).await,
            Contender::Pipe(c) => c.small(calls).await,
            Contender::Python(c) => c.run("small", calls).await,
        }
    }

    /// `calls` sequential large calls; the elapsed time.
    async fn large(&mut self, calls: usize) -> Res<Duration> {
        match self {
            Contender::Typed(c) => c.large(calls).await,
            Contender::Raw(c) => c.large(calls).await,
            Contender::Pipe(c) => c.large(calls).await,
            Contender::Python(c) => c.run("large", calls).await,
        }
    }

    /// `calls` small calls with `inflight` outstanding; `None` for the Python client.
    async fn concurrent(&mut self, inflight: usize, calls: usize) -> Res<Option<Duration>> {
        Ok(Some(match self {
            Contender::Typed(c) => c.concurrent(inflight, calls).await?,
            Contender::Raw(c) => c.concurrent(inflight, calls).await?,
            Contender::Pipe(c) => c.concurrent(inflight, calls).await?,
            Contender::Python(_) => return Ok(None),
        }))
    }

    async fn close(self) -> Res<()> {
        match self {
            Contender::Typed(c) => c.close().await,
            Contender::Raw(c) => c.close().await,
            Contender::Pipe(c) => c.close().await,
            Contender::Python(c) => return c.quit().await,
        }
        Ok(())
    }
}

fn config_records_len(text: &str) -> usize {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.get("payload").and_then(Value::as_array).map(Vec::len))
        .unwrap_or(0)
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Res<()> {
    if ok { Ok(()) } else { Err(what().into()) }
}
