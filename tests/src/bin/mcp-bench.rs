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
//! * `python` — the official Python SDK (`python_client.py`, driven over its stdin).
//!
//! Contenders run interleaved in each round (typed, raw rmcp, pipe, python; the next round
//! starts one contender later); a round's figure is the mean time per call over that
//! round's calls. The JSON printed on stdout holds every round's figure; `xtask bench`
//! turns them into medians of per-round ratios. Progress goes to stderr.

use std::io::Write as _;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use mcp_bindgen::{ServerConfig, Session};

mcp_bindgen::mcp_tools!("demo");

/// Target size of the large payload's JSON text.
const LARGE_PAYLOAD_BYTES: usize = 100 * 1024;

/// A boxed error with a message; the binary prints it and exits 1.
type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Res<T> = Result<T, BoxError>;

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
    /// `--only typed,raw_rmcp,pipe,python`: the contenders to run (all by default; for
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
    // The connect-time review of a toolbox: every live tool's fingerprint (RFC 8785
    // canonical JSON, SHA-256, two digests) compared with the fixture's, renames looked for.
    let live: Vec<Value> = fixture.tools.iter().map(|t| t.raw.clone()).collect();
    let reviewed = fixture.fingerprints();
    let mut check_ms = Vec::new();
    for i in 0..=n.max(20) {
        let started = Instant::now();
        let prints = mcp_bindgen_core::fingerprint::fingerprints(&live);
        let changed = reviewed
            .iter()
            .filter(|(name, print)| prints.get(*name) != Some(*print))
            .count();
        let renames = mcp_bindgen_core::fingerprint::renames(&reviewed, &prints);
        let elapsed = started.elapsed();
        std::hint::black_box((changed, renames));
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
            Pipe::connect(&config.server, large_args.clone()).await?,
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
            m.insert(c.name().into(), json!(s));
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
            Contender::Pipe(_) => "pipe",
            Contender::Python(_) => "python",
        }
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

// ---------------------------------------------------------------------------------------
// 1. typed: the generated client over mcp-bindgen
// ---------------------------------------------------------------------------------------

struct Typed {
    client: demo::Client,
    records: Vec<demo::echo_structured::Record>,
}

impl Typed {
    async fn connect(server: &str, records: Vec<demo::echo_structured::Record>) -> Res<Self> {
        // The wire of the raw rmcp baseline (`serve`: the `initialize` lifecycle), so both
        // sides send the same messages.
        let config = ServerConfig::stdio("demo", server, vec!["--pipes".to_string()])
            .with_protocol(mcp_bindgen::Protocol::V2025_11_25);
        let session = Session::connect(&config).await?;
        Ok(Typed {
            client: demo::Client::new(session),
            records,
        })
    }

    async fn small(&mut self, calls: usize) -> Res<Duration> {
        let started = Instant::now();
        let mut last = None;
        for i in 0..calls {
            last = Some(
                self.client
                    .add(demo::add::Args {
                        a: i as f64,
                        b: 0.5,
                    })
                    .await?,
            );
        }
        let elapsed = started.elapsed();
        let text = last.map(|o| o.text()).unwrap_or_default();
        check(text.parse::<f64>().ok() == Some(calls as f64 - 0.5), || {
            format!("typed add returned {text:?}")
        })?;
        Ok(elapsed)
    }

    async fn large(&mut self, calls: usize) -> Res<Duration> {
        let started = Instant::now();
        let mut count = 0;
        for _ in 0..calls {
            // The API takes the arguments by value, like every call site that builds them.
            let out = self
                .client
                .echo_structured(demo::echo_structured::Args {
                    payload: self.records.clone(),
                })
                .await?;
            count = out.count as usize;
        }
        let elapsed = started.elapsed();
        check(count == self.records.len(), || {
            format!("typed echo_structured echoed {count} records")
        })?;
        Ok(elapsed)
    }

    async fn concurrent(&mut self, inflight: usize, calls: usize) -> Res<Duration> {
        let next = Arc::new(AtomicUsize::new(0));
        let started = Instant::now();
        let workers = (0..inflight).map(|_| {
            let client = &self.client;
            let next = next.clone();
            async move {
                while next.fetch_add(1, Ordering::Relaxed) < calls {
                    client.add(demo::add::Args { a: 1.0, b: 2.0 }).await?;
                }
                Ok::<(), BoxError>(())
            }
        });
        for r in futures::future::join_all(workers).await {
            r?;
        }
        Ok(started.elapsed())
    }

    async fn close(self) {
        let _ = self.client.session().close().await;
    }
}

// ---------------------------------------------------------------------------------------
// 2. raw rmcp: hand-written rmcp client code with serde_json arguments
// ---------------------------------------------------------------------------------------

struct RawRmcp {
    client: RunningService<rmcp::RoleClient, ()>,
    large: Map<String, Value>,
    records: usize,
}

impl RawRmcp {
    async fn connect(server: &str, large: Map<String, Value>) -> Res<Self> {
        let mut command = Command::new(server);
        command.arg("--pipes");
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(Stdio::null())
            .spawn()?;
        let client = ().serve(transport).await?;
        let records = large
            .get("payload")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        Ok(RawRmcp {
            client,
            large,
            records,
        })
    }

    async fn small(&mut self, calls: usize) -> Res<Duration> {
        let started = Instant::now();
        let mut last = None;
        for i in 0..calls {
            let mut args = Map::new();
            args.insert("a".into(), json!(i as f64));
            args.insert("b".into(), json!(0.5));
            last = Some(
                self.client
                    .call_tool(CallToolRequestParams::new("add").with_arguments(args))
                    .await?,
            );
        }
        let elapsed = started.elapsed();
        let text = last
            .and_then(|r| {
                r.content
                    .first()
                    .and_then(|c| c.as_text().map(|t| t.text.clone()))
            })
            .unwrap_or_default();
        check(text.parse::<f64>().ok() == Some(calls as f64 - 0.5), || {
            format!("raw rmcp add returned {text:?}")
        })?;
        Ok(elapsed)
    }

    async fn large(&mut self, calls: usize) -> Res<Duration> {
        let started = Instant::now();
        let mut count = None;
        for _ in 0..calls {
            let result = self
                .client
                .call_tool(
                    CallToolRequestParams::new("echo_structured")
                        .with_arguments(self.large.clone()),
                )
                .await?;
            count = result
                .structured_content
                .as_ref()
                .and_then(|s| s.get("count"))
                .and_then(Value::as_u64);
        }
        let elapsed = started.elapsed();
        check(count == Some(self.records as u64), || {
            format!("raw rmcp echo_structured echoed {count:?} records")
        })?;
        Ok(elapsed)
    }

    async fn concurrent(&mut self, inflight: usize, calls: usize) -> Res<Duration> {
        let next = Arc::new(AtomicUsize::new(0));
        let started = Instant::now();
        let workers = (0..inflight).map(|_| {
            let peer = self.client.peer().clone();
            let next = next.clone();
            async move {
                while next.fetch_add(1, Ordering::Relaxed) < calls {
                    let mut args = Map::new();
                    args.insert("a".into(), json!(1.0));
                    args.insert("b".into(), json!(2.0));
                    peer.call_tool(CallToolRequestParams::new("add").with_arguments(args))
                        .await?;
                }
                Ok::<(), BoxError>(())
            }
        });
        for r in futures::future::join_all(workers).await {
            r?;
        }
        Ok(started.elapsed())
    }

    async fn close(self) {
        let _ = self.client.cancel().await;
    }
}

// ---------------------------------------------------------------------------------------
// 3. pipe: a minimal hand-written JSON-RPC client (the transport's floor)
// ---------------------------------------------------------------------------------------

struct Pipe {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    out: Vec<u8>,
    line: Vec<u8>,
    next_id: u64,
    large: Value,
    records: u64,
}

#[derive(serde::Deserialize)]
struct Response {
    id: Option<u64>,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

impl Pipe {
    async fn connect(server: &str, large: Value) -> Res<Self> {
        let mut child = Command::new(server)
            .arg("--pipes")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start {server}: {e}"))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("child stdio was not piped".into());
        };
        let records = large
            .get("payload")
            .and_then(Value::as_array)
            .map_or(0, Vec::len) as u64;
        let mut pipe = Pipe {
            child,
            stdin,
            stdout: BufReader::with_capacity(64 * 1024, stdout),
            out: Vec::with_capacity(128 * 1024),
            line: Vec::with_capacity(256 * 1024),
            next_id: 0,
            large,
            records,
        };
        let init = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "mcp-bench-pipe", "version": "0.1.0" }
        });
        pipe.send("initialize", &init).await?;
        pipe.receive().await?;
        pipe.out.clear();
        pipe.out
            .extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        pipe.stdin.write_all(&pipe.out).await?;
        Ok(pipe)
    }

    /// Writes one request line.
    async fn send(&mut self, method: &str, params: &Value) -> Res<()> {
        self.next_id += 1;
        self.out.clear();
        serde_json::to_writer(
            &mut self.out,
            &json!({ "jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params }),
        )?;
        self.out.push(b'\n');
        self.stdin.write_all(&self.out).await?;
        Ok(())
    }

    /// Reads and parses one response line.
    async fn receive(&mut self) -> Res<Value> {
        loop {
            self.line.clear();
            if self.stdout.read_until(b'\n', &mut self.line).await? == 0 {
                return Err("the server closed stdout".into());
            }
            let response: Response = serde_json::from_slice(&self.line)?;
            if response.id.is_none() {
                continue; // a notification
            }
            if let Some(e) = response.error {
                return Err(format!("server error: {e}").into());
            }
            return response
                .result
                .ok_or_else(|| "a response without result".into());
        }
    }

    async fn small(&mut self, calls: usize) -> Res<Duration> {
        let started = Instant::now();
        let mut last = Value::Null;
        for i in 0..calls {
            let params = json!({ "name": "add", "arguments": { "a": i as f64, "b": 0.5 } });
            self.send("tools/call", &params).await?;
            last = self.receive().await?;
        }
        let elapsed = started.elapsed();
        let text = last
            .pointer("/content/0/text")
            .and_then(Value::as_str)
            .unwrap_or_default();
        check(text.parse::<f64>().ok() == Some(calls as f64 - 0.5), || {
            format!("pipe add returned {text:?}")
        })?;
        Ok(elapsed)
    }

    async fn large(&mut self, calls: usize) -> Res<Duration> {
        let started = Instant::now();
        let mut count = None;
        for _ in 0..calls {
            // Serialized from a reference: the floor pays no copy of the arguments.
            let large = std::mem::take(&mut self.large);
            let params = json!({ "name": "echo_structured", "arguments": &large });
            self.large = large;
            self.send("tools/call", &params).await?;
            let result = self.receive().await?;
            count = result
                .pointer("/structuredContent/count")
                .and_then(Value::as_u64);
        }
        let elapsed = started.elapsed();
        check(count == Some(self.records), || {
            format!("pipe echo_structured echoed {count:?} records")
        })?;
        Ok(elapsed)
    }

    /// `inflight` requests outstanding at all times: a new request goes out as each
    /// response comes back (one task, no channels: the cheapest possible pipelining).
    async fn concurrent(&mut self, inflight: usize, calls: usize) -> Res<Duration> {
        let params = json!({ "name": "add", "arguments": { "a": 1.0, "b": 2.0 } });
        let started = Instant::now();
        let mut sent = 0;
        while sent < inflight.min(calls) {
            self.send("tools/call", &params).await?;
            sent += 1;
        }
        for _ in 0..calls {
            self.receive().await?;
            if sent < calls {
                self.send("tools/call", &params).await?;
                sent += 1;
            }
        }
        Ok(started.elapsed())
    }

    async fn close(mut self) {
        drop(self.stdin);
        let _ = tokio::time::timeout(Duration::from_secs(3), self.child.wait()).await;
        let _ = self.child.kill().await;
    }
}

// ---------------------------------------------------------------------------------------
// 4. python: the official SDK, driven over the helper's stdin
// ---------------------------------------------------------------------------------------

struct Python {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl Python {
    async fn start(python: &str, script: &str, server: &str, payload: &str) -> Res<Self> {
        let mut child = Command::new(python)
            .arg(script)
            .arg(server)
            .arg(payload)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start {python} {script}: {e}"))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("child stdio was not piped".into());
        };
        let mut p = Python {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            line: String::new(),
        };
        let ready = tokio::time::timeout(Duration::from_secs(60), p.read_line())
            .await
            .map_err(|_| "the Python client did not start within 60 s")??;
        check(ready == "ready", || {
            format!("the Python client said {ready:?} instead of `ready`")
        })?;
        Ok(p)
    }

    async fn read_line(&mut self) -> Res<String> {
        self.line.clear();
        if self.stdout.read_line(&mut self.line).await? == 0 {
            return Err("the Python client exited (its error is above)".into());
        }
        Ok(self.line.trim().to_string())
    }

    /// Runs `calls` calls of `kind` in the helper; its own clock times them.
    async fn run(&mut self, kind: &str, calls: usize) -> Res<Duration> {
        let mut command = Vec::new();
        writeln!(command, "{kind} {calls}")?;
        self.stdin.write_all(&command).await?;
        let answer = self.read_line().await?;
        let nanos: u64 = answer
            .parse()
            .map_err(|_| format!("the Python client answered {answer:?}"))?;
        Ok(Duration::from_nanos(nanos))
    }

    async fn quit(mut self) -> Res<()> {
        self.stdin.write_all(b"quit\n").await?;
        match tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await {
            Ok(Ok(status)) if status.success() => Ok(()),
            Ok(Ok(status)) => Err(format!("the Python client exited with {status}").into()),
            Ok(Err(e)) => Err(e.into()),
            Err(_) => {
                let _ = self.child.kill().await;
                Err("the Python client did not exit".into())
            }
        }
    }
}
