//! End-to-end tests of the `mcp-demo-server` binary, spoken to in raw JSON-RPC: newline-
//! delimited over stdio, and Streamable HTTP over a hand-written HTTP/1.1 client on
//! 127.0.0.1. No MCP client library is involved, so these tests pin the wire format.

use std::{
    collections::HashMap,
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    process::{Child, ChildStdin, Command, ExitStatus, Stdio},
    sync::{
        Arc, Mutex,
        mpsc::{self, Receiver, RecvTimeoutError},
    },
    thread,
    time::{Duration, Instant},
};

use mcp_bindgen_tests::demo::{DEMO_TOOLS, FAULT_TOOLS, SERVER_NAME, SERVER_VERSION, huge_text};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-demo-server");
/// Generous: nothing here should take more than a fraction of this.
const TIMEOUT: Duration = Duration::from_secs(20);
const PROTOCOL: &str = "2025-11-25";

// ---------------------------------------------------------------------------------------
// stdio client
// ---------------------------------------------------------------------------------------

/// The server process, killed on drop.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    next_id: u64,
    /// Non-JSON lines and notifications seen while waiting for answers.
    skipped: Vec<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn_stdio(args: &[&str]) -> Server {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp-demo-server");
    let stdin = child.stdin.take();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        loop {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.send(line.trim_end_matches('\n').to_owned()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let stderr = Arc::new(Mutex::new(String::new()));
    let sink = stderr.clone();
    let mut err = child.stderr.take().unwrap();
    thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = err.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    Server {
        child,
        stdin,
        lines,
        stderr,
        next_id: 1,
        skipped: Vec::new(),
    }
}

impl Server {
    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        let mut line = serde_json::to_string(message).unwrap();
        line.push('\n');
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    fn next_line(&self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => Some(line),
            Err(RecvTimeoutError::Timeout) => panic!(
                "no output from the server within {timeout:?}; stderr:\n{}",
                self.stderr()
            ),
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Sends a request and returns (the raw answer line, the parsed answer). Notifications
    /// and non-JSON lines before the answer go to `self.skipped`.
    fn request_raw(&mut self, method: &str, params: Value) -> (String, Value) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.answer(id)
    }

    fn answer(&mut self, id: u64) -> (String, Value) {
        loop {
            let line = self
                .next_line(TIMEOUT)
                .unwrap_or_else(|| panic!("stdout closed; stderr:\n{}", self.stderr()));
            match serde_json::from_str::<Value>(&line) {
                Ok(value) if value["id"] == json!(id) => return (line, value),
                _ => self.skipped.push(line),
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.request_raw(method, params).1
    }

    /// `tools/call`; returns the `result` object (panics on a JSON-RPC error).
    fn call(&mut self, name: &str, arguments: Value) -> Value {
        let answer = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        answer
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{name}: no result in {answer}"))
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn initialize(&mut self) -> Value {
        let answer = self.request(
            "initialize",
            json!({
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "demo-server-test", "version": "0"}
            }),
        );
        self.notify("notifications/initialized", json!({}));
        answer
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "server still running after {timeout:?}; stderr:\n{}",
                self.stderr()
            );
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits until stderr contains `needle`.
    fn wait_stderr(&self, needle: &str) {
        let deadline = Instant::now() + TIMEOUT;
        while !self.stderr().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "stderr never contained {needle:?}:\n{}",
                self.stderr()
            );
            thread::sleep(Duration::from_millis(10));
        }
    }
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content in {result}"))
}

fn tool_names(list: &Value) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .expect("tools array")
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

fn started(args: &[&str]) -> Server {
    let mut server = spawn_stdio(args);
    server.initialize();
    server
}

// ---------------------------------------------------------------------------------------
// stdio: demo tools
// ---------------------------------------------------------------------------------------

#[test]
fn stdio_initialize_and_deterministic_tool_list() {
    let mut server = spawn_stdio(&[]);
    let init = server.initialize();
    let result = &init["result"];
    assert_eq!(result["protocolVersion"], PROTOCOL);
    assert_eq!(result["serverInfo"]["name"], SERVER_NAME);
    assert_eq!(result["serverInfo"]["version"], SERVER_VERSION);
    assert!(result["capabilities"]["tools"].is_object(), "{init}");

    let (raw, list) = server.request_raw("tools/list", json!({}));
    assert_eq!(tool_names(&list), DEMO_TOOLS);
    assert!(list["result"].get("nextCursor").is_none());

    let tools: HashMap<String, Value> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| (tool["name"].as_str().unwrap().to_owned(), tool.clone()))
        .collect();
    for tool in tools.values() {
        assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()));
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
    }
    // No arguments.
    assert_eq!(
        tools["server_time"]["inputSchema"],
        json!({"type": "object", "properties": {}})
    );
    // Structured output only where declared.
    let with_output: Vec<&str> = DEMO_TOOLS
        .iter()
        .copied()
        .filter(|name| tools[*name].get("outputSchema").is_some())
        .collect();
    assert_eq!(with_output, ["echo_structured", "get_weather"]);
    // The generator-facing shapes of create_issue.
    let issue = &tools["create_issue"]["inputSchema"];
    assert_eq!(issue["required"], json!(["repository", "title"]));
    assert_eq!(
        issue["$defs"]["Priority"]["enum"],
        json!(["low", "medium", "high"])
    );
    assert_eq!(
        issue["properties"]["body"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(issue["properties"]["labels"]["type"], "array");
    assert_eq!(
        issue["properties"]["metadata"]["additionalProperties"],
        json!({"type": "string"})
    );
    assert_eq!(
        tools["get_weather"]["outputSchema"]["$defs"]["Conditions"]["enum"][0],
        "sunny"
    );

    // Same bytes from a second process.
    let mut again = started(&[]);
    let (raw_again, _) = again.request_raw("tools/list", json!({}));
    assert_eq!(raw, raw_again, "tools/list must be byte-for-byte stable");
    // Keys sorted at every level (here: inside the first input schema).
    assert!(raw.find("\"additionalProperties\"").unwrap() < raw.find("\"properties\"").unwrap());
}

#[test]
fn stdio_demo_tool_calls() {
    let mut server = started(&[]);

    let echo = server.call("echo", json!({"message": "hi", "repeat": 3}));
    assert_eq!(text_of(&echo), "hi hi hi");
    assert_ne!(echo["isError"], json!(true));
    assert_eq!(
        text_of(&server.call("echo", json!({"message": "once"}))),
        "once"
    );

    assert_eq!(
        text_of(&server.call("add", json!({"a": 1.25, "b": 2}))),
        "3.25"
    );

    let issue = server.call(
        "create_issue",
        json!({
            "repository": {"owner": "octo", "name": "demo"},
            "title": "Crash on start",
            "body": null,
            "priority": "high",
            "labels": [{"name": "bug", "color": "d73a4a"}, {"name": "p1"}],
            "assignee": "alice",
            "parent": {"repository": {"owner": "octo", "name": "demo"}, "number": 7},
            "metadata": {"source": "test"},
            "draft": true
        }),
    );
    let summary = text_of(&issue);
    assert!(summary.starts_with("created issue octo/demo#"), "{summary}");
    for part in [
        "priority high",
        "2 label(s)",
        "assignee alice",
        "parent octo/demo#7",
        "1 metadata key(s)",
        "draft",
    ] {
        assert!(summary.contains(part), "{summary} lacks {part}");
    }
    // A bad enum value is a tool error (isError), not a protocol error.
    let bad = server.call(
        "create_issue",
        json!({"repository": {"owner": "o", "name": "n"}, "title": "t", "priority": "urgent"}),
    );
    assert_eq!(bad["isError"], true, "{bad}");

    let time = server.call("server_time", json!({}));
    let time = text_of(&time);
    assert_eq!(time.len(), 20, "{time}");
    assert!(time.ends_with('Z') && time.as_bytes()[10] == b'T', "{time}");

    let weather = server.call(
        "get_weather",
        json!({"city": "Berlin", "units": "fahrenheit", "days": 2}),
    );
    let report = &weather["structuredContent"];
    assert_eq!(report["city"], "Berlin");
    assert_eq!(report["units"], "fahrenheit");
    assert_eq!(report["forecast"].as_array().unwrap().len(), 2);
    assert!(report["current"]["conditions"].is_string());
    assert!(report["current"]["wind"]["speed_kmh"].is_number());
    assert!(report.as_object().unwrap().contains_key("alert"));
    // The text block carries the same JSON.
    assert_eq!(
        serde_json::from_str::<Value>(text_of(&weather)).unwrap(),
        *report
    );
    // Deterministic.
    let again = server.call(
        "get_weather",
        json!({"city": "Berlin", "units": "fahrenheit", "days": 2}),
    );
    assert_eq!(again["structuredContent"], *report);

    let fail = server.call("fail", json!({"message": "it broke"}));
    assert_eq!(fail["isError"], true);
    assert_eq!(text_of(&fail), "it broke");

    let payload: Vec<Value> = (0..200)
        .map(|i| {
            json!({"id": i, "name": format!("record {i}"), "tags": ["a", "b"], "active": i % 2 == 0, "note": null})
        })
        .collect();
    let echoed = server.call("echo_structured", json!({"payload": payload}));
    assert_eq!(echoed["structuredContent"]["count"], 200);
    assert_eq!(echoed["structuredContent"]["payload"], json!(payload));

    // Wrong argument type: a tool error. Unknown tool: a protocol error.
    let wrong = server.call("add", json!({"a": "one", "b": 2}));
    assert_eq!(wrong["isError"], true, "{wrong}");
    let unknown = server.request("tools/call", json!({"name": "nope", "arguments": {}}));
    assert!(unknown["error"]["code"].is_i64(), "{unknown}");

    // stdin EOF ends the process cleanly.
    server.stdin = None;
    assert!(server.wait_exit(TIMEOUT).success(), "{}", server.stderr());
}

#[test]
fn stdio_progress_arrives_in_order_before_the_result() {
    let mut server = started(&[]);
    let answer = server.request(
        "tools/call",
        json!({
            "name": "long_task",
            "arguments": {"steps": 5, "delay_ms": 5},
            "_meta": {"progressToken": "tok-1"}
        }),
    );
    assert_eq!(
        text_of(&answer["result"]),
        "long_task finished 5 step(s), 5 progress notification(s) sent"
    );
    let progress: Vec<Value> = server
        .skipped
        .iter()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 5, "{:?}", server.skipped);
    for (i, note) in progress.iter().enumerate() {
        assert_eq!(note["params"]["progressToken"], "tok-1");
        assert_eq!(note["params"]["progress"], json!((i + 1) as f64));
        assert_eq!(note["params"]["total"], json!(5.0));
    }
    // Without a token: no notifications.
    server.skipped.clear();
    let quiet = server.call("long_task", json!({"steps": 2, "delay_ms": 0}));
    assert!(text_of(&quiet).ends_with("0 progress notification(s) sent"));
    assert!(server.skipped.is_empty(), "{:?}", server.skipped);
}

#[test]
fn stdio_pipes_transport() {
    let mut server = spawn_stdio(&["--pipes"]);
    let init = server.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], SERVER_NAME);
    assert_eq!(
        text_of(&server.call("echo", json!({"message": "piped"}))),
        "piped"
    );
    server.stdin = None;
    assert!(server.wait_exit(TIMEOUT).success(), "{}", server.stderr());
}

// ---------------------------------------------------------------------------------------
// stdio: faults
// ---------------------------------------------------------------------------------------

#[test]
fn fault_tools_are_listed_only_with_faults() {
    let mut server = started(&["--faults"]);
    let names = tool_names(&server.request("tools/list", json!({})));
    let mut expected: Vec<&str> = DEMO_TOOLS.iter().chain(&FAULT_TOOLS).copied().collect();
    expected.sort_unstable();
    assert_eq!(names, expected);

    let mut plain = started(&[]);
    let plain_names = tool_names(&plain.request("tools/list", json!({})));
    assert!(
        FAULT_TOOLS
            .iter()
            .all(|f| !plain_names.iter().any(|n| n == f))
    );
    // Calling a fault tool without --faults is an unknown tool.
    let answer = plain.request("tools/call", json!({"name": "crash", "arguments": {}}));
    assert!(answer.get("error").is_some(), "{answer}");
    assert!(plain.child.try_wait().unwrap().is_none());
}

#[test]
fn fault_crash_exits_mid_call_with_a_stderr_line() {
    let mut server = started(&["--faults"]);
    server.send(&json!({"jsonrpc": "2.0", "id": 50, "method": "tools/call",
        "params": {"name": "crash", "arguments": {"code": 7}}}));
    let status = server.wait_exit(TIMEOUT);
    assert_eq!(status.code(), Some(7));
    assert!(
        server.next_line(TIMEOUT).is_none(),
        "no answer after a crash"
    );
    server.wait_stderr("crash tool called");
}

#[test]
fn fault_hang_answers_nothing_and_honours_cancellation() {
    let mut server = started(&["--faults"]);
    server.send(&json!({"jsonrpc": "2.0", "id": 60, "method": "tools/call",
        "params": {"name": "hang", "arguments": {}}}));
    // Other calls still work while it hangs.
    assert_eq!(
        text_of(&server.call("echo", json!({"message": "alive"}))),
        "alive"
    );
    assert!(
        server
            .lines
            .recv_timeout(Duration::from_millis(300))
            .is_err(),
        "hang must not answer"
    );
    server.notify(
        "notifications/cancelled",
        json!({"requestId": 60, "reason": "test gives up"}),
    );
    server.wait_stderr("hang: request 60 cancelled");
    // Still no answer for 60, and the server keeps serving.
    let (_, answer) = server.request_raw(
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
    );
    assert_eq!(text_of(&answer["result"]), "2");
    assert!(
        server
            .skipped
            .iter()
            .all(|line| !line.contains("\"id\":60")),
        "{:?}",
        server.skipped
    );
}

#[test]
fn fault_garbage_lines_then_a_normal_answer() {
    let mut server = started(&["--faults"]);
    let answer = server.call("garbage", json!({"lines": 4}));
    assert_eq!(
        text_of(&answer),
        "wrote 4 garbage line(s) before this answer"
    );
    assert_eq!(server.skipped.len(), 4, "{:?}", server.skipped);
    for line in &server.skipped {
        let parsed = serde_json::from_str::<Value>(line);
        assert!(
            parsed.map_or(true, |v| v.get("jsonrpc").is_none()),
            "not garbage: {line}"
        );
    }
    assert_eq!(
        text_of(&server.call("echo", json!({"message": "ok"}))),
        "ok"
    );
    assert_eq!(server.skipped.len(), 4, "garbage is written once");
}

#[test]
fn fault_huge_result_arrives_intact() {
    let mut server = started(&["--faults"]);
    let (raw, answer) = server.request_raw("tools/call", json!({"name": "huge", "arguments": {}}));
    let text = text_of(&answer["result"]);
    assert_eq!(text.len(), 16 * 1024 * 1024);
    assert!(text == huge_text(text.len()), "pattern mismatch");
    // One line of a bit more than 16 MiB: above rmcp's default 16 MiB line limit.
    assert!(raw.len() > 16 * 1024 * 1024);
}

#[test]
fn fault_sleep_then_answer() {
    let mut server = started(&["--faults"]);
    let start = Instant::now();
    let answer = server.call("sleep", json!({"ms": 200}));
    assert!(start.elapsed() >= Duration::from_millis(200));
    assert_eq!(text_of(&answer), "slept 200 ms");
}

#[test]
fn exit_after_n_answered_calls() {
    let mut server = started(&["--exit-after", "2"]);
    assert_eq!(text_of(&server.call("echo", json!({"message": "1"}))), "1");
    // tools/list is not a tool call.
    server.request("tools/list", json!({}));
    assert_eq!(text_of(&server.call("echo", json!({"message": "2"}))), "2");
    assert!(server.wait_exit(TIMEOUT).success(), "{}", server.stderr());
    server.wait_stderr("answered 2 tool call(s)");
}

#[test]
fn startup_delay_postpones_the_handshake() {
    let start = Instant::now();
    let mut server = spawn_stdio(&["--startup-delay-ms", "400"]);
    let init = server.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], SERVER_NAME);
    assert!(start.elapsed() >= Duration::from_millis(400));
}

#[test]
fn bad_command_line_exits_2() {
    let output = Command::new(BIN)
        .arg("--transport=carrier-pigeon")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown transport"));
    let help = Command::new(BIN).arg("--help").output().unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("--exit-after"));
}

// ---------------------------------------------------------------------------------------
// Streamable HTTP
// ---------------------------------------------------------------------------------------

struct HttpServer {
    child: Child,
    port: u16,
    session: Option<String>,
    next_id: u64,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct HttpResponse {
    status: u16,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

impl HttpResponse {
    /// JSON-RPC messages in the body: one JSON document, or the `data` of SSE events
    /// (events with empty data — priming events — are skipped).
    fn messages(&self) -> Vec<Value> {
        let body = String::from_utf8_lossy(&self.body);
        let content_type = self
            .headers
            .get("content-type")
            .cloned()
            .unwrap_or_default();
        if content_type.starts_with("application/json") {
            return vec![serde_json::from_str(&body).expect("JSON body")];
        }
        assert!(
            content_type.starts_with("text/event-stream"),
            "content-type {content_type:?}"
        );
        let mut messages = Vec::new();
        for event in body.replace("\r\n", "\n").split("\n\n") {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|data| data.strip_prefix(' ').unwrap_or(data))
                .collect();
            let data = data.join("\n");
            if !data.trim().is_empty() {
                messages.push(serde_json::from_str(&data).expect("JSON in SSE data"));
            }
        }
        messages
    }
}

fn spawn_http(args: &[&str]) -> HttpServer {
    let mut child = Command::new(BIN)
        .args(["--transport", "http", "--port", "0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn mcp-demo-server");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(TIMEOUT).expect("listening line");
    let rest = line
        .trim_end()
        .strip_prefix("listening on http://127.0.0.1:")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    let port = rest.strip_suffix("/mcp").unwrap().parse().unwrap();
    HttpServer {
        child,
        port,
        session: None,
        next_id: 1,
    }
}

impl HttpServer {
    fn http(&self, method: &str, path: &str, body: Option<&Value>) -> HttpResponse {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        let body = body
            .map(|b| serde_json::to_vec(b).unwrap())
            .unwrap_or_default();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\
             Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n",
            self.port,
            body.len()
        );
        if let Some(session) = &self.session {
            head.push_str(&format!(
                "Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: {PROTOCOL}\r\n"
            ));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(&body).unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).expect("read HTTP response");
        parse_http(&raw)
    }

    fn post(&mut self, message: &Value) -> HttpResponse {
        self.http("POST", "/mcp", Some(message))
    }

    /// Posts a request and returns every JSON-RPC message of the answer stream.
    fn request(&mut self, method: &str, params: Value) -> Vec<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let response =
            self.post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        assert_eq!(
            response.status,
            200,
            "{}",
            String::from_utf8_lossy(&response.body)
        );
        if let Some(session) = response.headers.get("mcp-session-id") {
            self.session = Some(session.clone());
        }
        let messages = response.messages();
        assert_eq!(
            messages.last().map(|m| m["id"].clone()),
            Some(json!(id)),
            "{messages:?}"
        );
        messages
    }

    fn initialize(&mut self) -> Value {
        let init = self.request(
            "initialize",
            json!({
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "demo-server-test", "version": "0"}
            }),
        );
        assert!(self.session.is_some(), "no Mcp-Session-Id");
        let note = self.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(note.status, 202);
        init.last().unwrap().clone()
    }
}

fn parse_http(raw: &[u8]) -> HttpResponse {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("end of HTTP head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: HashMap<String, String> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .get("transfer-encoding")
        .is_some_and(|te| te.eq_ignore_ascii_case("chunked"))
    {
        body = dechunk(&body);
    }
    HttpResponse {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("chunk size");
        let size_text = String::from_utf8_lossy(&data[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16)
            .expect("hex chunk size");
        data = &data[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

#[test]
fn http_handshake_list_calls_and_progress() {
    let mut server = spawn_http(&[]);
    let init = server.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], SERVER_NAME);
    assert_eq!(init["result"]["protocolVersion"], PROTOCOL);

    let list = server.request("tools/list", json!({}));
    let list = list.last().unwrap();
    assert_eq!(tool_names(list), DEMO_TOOLS);
    // Same tools as over stdio.
    let mut stdio = started(&[]);
    let stdio_list = stdio.request("tools/list", json!({}));
    assert_eq!(list["result"]["tools"], stdio_list["result"]["tools"]);

    let echo = server.request(
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "over http"}}),
    );
    assert_eq!(text_of(&echo.last().unwrap()["result"]), "over http");

    let weather = server.request(
        "tools/call",
        json!({"name": "get_weather", "arguments": {"city": "Oslo"}}),
    );
    let report = &weather.last().unwrap()["result"]["structuredContent"];
    assert_eq!(report["units"], "celsius");
    assert_eq!(report["forecast"].as_array().unwrap().len(), 3);

    let messages = server.request(
        "tools/call",
        json!({"name": "long_task", "arguments": {"steps": 3, "delay_ms": 1},
               "_meta": {"progressToken": 99}}),
    );
    let progress: Vec<f64> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0]);

    let fail = server.request(
        "tools/call",
        json!({"name": "fail", "arguments": {"message": "nope"}}),
    );
    assert_eq!(fail.last().unwrap()["result"]["isError"], true);

    let not_found = server.http("GET", "/elsewhere", None);
    assert_eq!(not_found.status, 404);
}

#[test]
fn http_faults_and_exit_after() {
    let mut server = spawn_http(&["--faults", "--exit-after", "2"]);
    server.initialize();
    let list = server.request("tools/list", json!({}));
    assert!(tool_names(list.last().unwrap()).iter().any(|n| n == "hang"));
    let garbage = server.request("tools/call", json!({"name": "garbage", "arguments": {}}));
    assert_eq!(
        text_of(&garbage.last().unwrap()["result"]),
        "no stdio stream on this transport: nothing written"
    );
    let slept = server.request(
        "tools/call",
        json!({"name": "sleep", "arguments": {"ms": 10}}),
    );
    assert_eq!(text_of(&slept.last().unwrap()["result"]), "slept 10 ms");
    // Two calls answered: the process exits on its own.
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            assert!(status.success());
            break;
        }
        assert!(Instant::now() < deadline, "http server did not exit");
        thread::sleep(Duration::from_millis(10));
    }
}
