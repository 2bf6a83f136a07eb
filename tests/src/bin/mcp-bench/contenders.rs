//! The four contenders of the wall-clock section: the typed generated client, raw rmcp, the
//! hand-written pipe floor and the official Python SDK. The instruction counts
//! (`instructions.rs`) drive the same Rust contenders.

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

use crate::{BoxError, Res, check, demo};

// ---------------------------------------------------------------------------------------
// 1. typed: the generated client over mcp-bindgen
// ---------------------------------------------------------------------------------------

pub(crate) struct Typed {
    client: demo::Client,
    records: Vec<demo::echo_structured::Record>,
}

impl Typed {
    pub(crate) async fn connect(
        server: &str,
        records: Vec<demo::echo_structured::Record>,
    ) -> Res<Self> {
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

    /// The typed client of the server `config` names (small calls only).
    pub(crate) async fn connect_to(config: &ServerConfig) -> Res<Self> {
        Ok(Typed {
            client: demo::Client::new(Session::connect(config).await?),
            records: Vec::new(),
        })
    }

    pub(crate) async fn small(&mut self, calls: usize) -> Res<Duration> {
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

    pub(crate) async fn large(&mut self, calls: usize) -> Res<Duration> {
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

    pub(crate) async fn concurrent(&mut self, inflight: usize, calls: usize) -> Res<Duration> {
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

    pub(crate) async fn close(self) {
        let _ = self.client.session().close().await;
    }
}

// ---------------------------------------------------------------------------------------
// 2. raw rmcp: hand-written rmcp client code with serde_json arguments
// ---------------------------------------------------------------------------------------

pub(crate) struct RawRmcp {
    client: RunningService<rmcp::RoleClient, ()>,
    large: Map<String, Value>,
    records: usize,
}

impl RawRmcp {
    pub(crate) async fn connect(server: &str, large: Map<String, Value>) -> Res<Self> {
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

    pub(crate) async fn small(&mut self, calls: usize) -> Res<Duration> {
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

    /// One call with `arguments`; the text blocks of the result joined (what an untyped
    /// bridge hands a model).
    pub(crate) async fn call_text(&self, tool: &str, arguments: Map<String, Value>) -> Res<String> {
        let result = self
            .client
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(arguments))
            .await?;
        let mut text = String::new();
        for block in &result.content {
            if let Some(t) = block.as_text() {
                text.push_str(&t.text);
            }
        }
        Ok(text)
    }

    pub(crate) async fn large(&mut self, calls: usize) -> Res<Duration> {
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

    pub(crate) async fn concurrent(&mut self, inflight: usize, calls: usize) -> Res<Duration> {
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

    pub(crate) async fn close(self) {
        let _ = self.client.cancel().await;
    }
}

// ---------------------------------------------------------------------------------------
// 3. pipe: a minimal hand-written JSON-RPC client (the transport's floor)
// ---------------------------------------------------------------------------------------

/// The typed client's first request id over stdio (its direct calls count from 2^40).
const TYPED_ID_BASE: u64 = 1 << 40;

pub(crate) struct Pipe {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    out: Vec<u8>,
    line: Vec<u8>,
    next_id: u64,
    large: Value,
    records: u64,
    /// `false`: the typed client's wire (its protocol revision and capabilities, ids from
    /// 2^40, `_meta.progressToken` on every `tools/call`), so the server does the same work
    /// for both and a ratio measures the clients. `true`: the barest request.
    bare: bool,
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
    pub(crate) async fn connect(server: &str, large: Value, bare: bool) -> Res<Self> {
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
            next_id: if bare { 0 } else { TYPED_ID_BASE },
            large,
            records,
            bare,
        };
        let init = if bare {
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": { "name": "mcp-bench-pipe", "version": "0.1.0" }
            })
        } else {
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": { "extensions": { "io.modelcontextprotocol/tasks": {} } },
                "clientInfo": { "name": "mcp-bench-pipe", "version": "0.1.0" }
            })
        };
        pipe.send("initialize", &init).await?;
        pipe.receive().await?;
        pipe.out.clear();
        pipe.out
            .extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        pipe.stdin.write_all(&pipe.out).await?;
        Ok(pipe)
    }

    /// Sends the barest requests (not the typed client's wire).
    pub(crate) fn bare(&self) -> bool {
        self.bare
    }

    /// Writes one request line.
    async fn send(&mut self, method: &str, params: &Value) -> Res<()> {
        self.next_id += 1;
        self.out.clear();
        serde_json::to_writer(
            &mut self.out,
            &json!({ "jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params }),
        )?;
        if !self.bare && method == "tools/call" {
            // `…"params":{…}}` → `…"params":{…,"_meta":{"progressToken":ID}}}` (`params`
            // is the last key in either key order of `serde_json::Map`; checked anyway).
            if !self.out.ends_with(b"}}") || params.as_object().is_none_or(Map::is_empty) {
                return Err("the pipe's tools/call request does not end with its params".into());
            }
            self.out.truncate(self.out.len() - 2);
            self.out
                .extend_from_slice(b",\"_meta\":{\"progressToken\":");
            write!(self.out, "{}}}}}}}", self.next_id)?;
        }
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

    pub(crate) async fn small(&mut self, calls: usize) -> Res<Duration> {
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

    pub(crate) async fn large(&mut self, calls: usize) -> Res<Duration> {
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
    pub(crate) async fn concurrent(&mut self, inflight: usize, calls: usize) -> Res<Duration> {
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

    pub(crate) async fn close(mut self) {
        drop(self.stdin);
        let _ = tokio::time::timeout(Duration::from_secs(3), self.child.wait()).await;
        let _ = self.child.kill().await;
    }
}

// ---------------------------------------------------------------------------------------
// 4. python: the official SDK, driven over the helper's stdin
// ---------------------------------------------------------------------------------------

pub(crate) struct Python {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl Python {
    pub(crate) async fn start(
        python: &str,
        script: &str,
        server: &str,
        payload: &str,
    ) -> Res<Self> {
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
    pub(crate) async fn run(&mut self, kind: &str, calls: usize) -> Res<Duration> {
        let mut command = Vec::new();
        writeln!(command, "{kind} {calls}")?;
        self.stdin.write_all(&command).await?;
        let answer = self.read_line().await?;
        let nanos: u64 = answer
            .parse()
            .map_err(|_| format!("the Python client answered {answer:?}"))?;
        Ok(Duration::from_nanos(nanos))
    }

    pub(crate) async fn quit(mut self) -> Res<()> {
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
