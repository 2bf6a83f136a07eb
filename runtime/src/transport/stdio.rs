//! stdio: a child process speaking newline-delimited JSON-RPC.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rmcp::model::{
    CallToolResult, JsonRpcMessage, JsonRpcVersion2_0, NumberOrString, ProgressToken, RequestId,
    ServerResult,
};
use rmcp::service::ServiceError;
use serde::de::DeserializeSeed as _;

use super::RawTap;
use super::server_output::{NOISE_LOGGED, StderrEof, StderrTail, StdoutNoise, not_json_rpc};
use crate::protocol::Round;

/// Initial capacity of the stdout read buffer.
const READ_CHUNK: usize = 64 * 1024;
/// How a server that exited ended a connection, in words.
fn exited(status: std::process::ExitStatus) -> String {
    format!("the server exited ({status}) before answering")
}

/// How long a transport that read end of file waits for the server's exit status.
const EXIT_STATUS_WAIT: std::time::Duration = std::time::Duration::from_millis(300);
/// How long `close` waits after closing stdin, and again after SIGTERM.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_millis(1500);

/// Newline-delimited JSON-RPC over a child's stdin/stdout.
///
/// Our own framing instead of rmcp's `AsyncRwTransport`: lines are found with `memchr` over a
/// growing buffer (rmcp's codec scans byte by byte), lines that are not JSON-RPC (a server
/// printing garbage to stdout) are logged and skipped instead of ending the session, and
/// every raw line is shown to the [`RawTap`].
///
/// Two shortcuts keep the call path close to a hand-written client:
///
/// * **`tools/call` past rmcp** — calls go out on the [`Direct`] path under ids of our own,
///   and an answer to one of them is parsed straight into `CallToolResult` ([`CallAnswer`])
///   instead of through rmcp's general message parser (which buffers the whole message and
///   tries the untagged variants of `ServerResult` in turn). Anything else — error answers,
///   notifications, requests, other results, a result that is not a complete
///   `CallToolResult` — goes through rmcp's parser.
/// * **coalesced writes** — messages are encoded into a shared queue in the order rmcp sends
///   them; whichever send future gets the pipe first writes everything queued so far in one
///   `write`, so many calls in flight cost one syscall per batch instead of one per message.
pub(crate) struct StdioTransport {
    alias: Arc<str>,
    /// Shared with the writer (weakly), which waits for the exit status when a write finds
    /// the pipe broken; the process is killed when the transport drops it.
    child: Arc<tokio::sync::Mutex<tokio::process::Child>>,
    writer: Arc<Writer>,
    stdout: tokio::process::ChildStdout,
    buf: Vec<u8>,
    /// Start of unconsumed data in `buf`.
    start: usize,
    /// Bytes of `buf[start..]` already known to hold no newline.
    scanned: usize,
    /// `tools/call` requests sent past rmcp's service loop.
    direct: Arc<Direct>,
    tap: Arc<RawTap>,
    stderr_tail: StderrTail,
    noise: StdoutNoise,
    /// The longest line accepted ([`crate::Limits::max_message_bytes`]).
    max_line: usize,
    /// rmcp's requests not answered yet, and those it gave up on.
    awaiting: Arc<Mutex<Awaiting>>,
}

/// Ids ([`id_key`]) of rmcp's requests: an answer to an id not among them (and not a
/// direct call's) is reported, not handed on.
#[derive(Debug, Default)]
struct Awaiting {
    /// Sent and not answered yet.
    sent: std::collections::HashSet<String>,
    /// Sent before `initialize` and never to be answered for rmcp: under `protocol =
    /// "auto"`, rmcp stops waiting for `server/discover` after 10 s and sends
    /// `initialize`; a server that was merely slow to start answers the probe late, and
    /// rmcp would take that answer for `initialize`'s ("uncorrelated error response").
    /// Such an answer is dropped quietly.
    abandoned: std::collections::HashSet<String>,
}

/// A request id as the key of [`StdioTransport::awaiting`]: like rmcp, an id echoed as a
/// numeric string counts as the number.
fn id_key(id: &RequestId) -> String {
    match id {
        RequestId::Number(n) => n.to_string(),
        RequestId::String(s) => match s.parse::<i64>() {
            Ok(n) => n.to_string(),
            Err(_) => format!("\"{s}\""),
        },
    }
}

/// What a direct call is answered with: rmcp's own result type, so the session handles
/// both paths alike.
pub(crate) type DirectAnswer = std::result::Result<ServerResult, ServiceError>;

/// The first id of direct calls. rmcp numbers its requests (and progress tokens) with one
/// counter from 0, so ids from here on (2^40) are never rmcp's; they stay below 2^53,
/// exact in servers that read JSON numbers as doubles.
const DIRECT_ID_BASE: i64 = 1 << 40;

/// `tools/call` without rmcp's service loop (its channel, per-send task, join set and
/// pending map cost more than the rest of the client's side of a small call): the request
/// is encoded straight into the transport's write queue under an id of our own (from
/// [`DIRECT_ID_BASE`] up; also its progress token), and [`StdioTransport::receive`] hands
/// the answer to the call's oneshot instead of to rmcp. Progress is routed by the tap as
/// for every call. When the transport ends (EOF, read error, close, drop) every pending
/// call gets [`ServiceError::TransportClosed`], like rmcp's own calls.
pub(crate) struct Direct {
    writer: Arc<Writer>,
    state: Mutex<DirectState>,
    /// The `_meta` entries of a stateless session (set once connected).
    meta: OnceLock<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Default)]
struct DirectState {
    /// Direct calls so far (the next id is `DIRECT_ID_BASE + next`).
    next: i64,
    pending: HashMap<i64, tokio::sync::oneshot::Sender<DirectAnswer>>,
    /// Set when the transport ended: later calls fail at once.
    closed: bool,
}

/// A queued direct call: its id and progress token, and where its answer arrives.
pub(crate) struct DirectCall {
    pub(crate) id: RequestId,
    pub(crate) token: ProgressToken,
    pub(crate) answer: tokio::sync::oneshot::Receiver<DirectAnswer>,
    direct: Arc<Direct>,
    /// Where the request ends in the write queue, or why it could not be queued.
    ticket: std::result::Result<u64, String>,
    /// Other direct calls were pending when this one was queued.
    busy: bool,
}

impl DirectCall {
    /// Writes the request (with whatever else is queued by then). A failure is delivered
    /// to the call's answer as [`ServiceError::TransportClosed`].
    pub(crate) async fn flush(&mut self) {
        let ticket = std::mem::replace(&mut self.ticket, Ok(0));
        let flushed = match ticket {
            Ok(ticket) => {
                // With other calls in flight, let those woken with this one queue theirs
                // first: one `write` for all of them. A lone call is written at once.
                if self.busy {
                    tokio::task::yield_now().await;
                }
                self.direct.writer.flush_to(ticket).await
            }
            Err(e) => Err(e),
        };
        if let (Err(why), RequestId::Number(id)) = (flushed, &self.id) {
            tracing::debug!("direct tools/call not written: {why}");
            self.direct.answer(*id, Err(ServiceError::TransportClosed));
        }
    }
}

/// A `tools/call` request as rmcp would write it (with `_meta.progressToken`, and on a
/// stateless session the revision and client context), written without building rmcp's
/// request model.
struct CallRequest<'a> {
    id: i64,
    tool: &'a str,
    arguments: &'a serde_json::Map<String, serde_json::Value>,
    meta: Option<&'a serde_json::Map<String, serde_json::Value>>,
    round: Option<&'a Round>,
}

impl serde::Serialize for CallRequest<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        struct Params<'a>(&'a CallRequest<'a>);
        impl serde::Serialize for Params<'_> {
            fn serialize<S: serde::Serializer>(
                &self,
                s: S,
            ) -> std::result::Result<S::Ok, S::Error> {
                struct Meta<'a>(i64, Option<&'a serde_json::Map<String, serde_json::Value>>);
                impl serde::Serialize for Meta<'_> {
                    fn serialize<S: serde::Serializer>(
                        &self,
                        s: S,
                    ) -> std::result::Result<S::Ok, S::Error> {
                        let mut m = s.serialize_map(None)?;
                        m.serialize_entry("progressToken", &self.0)?;
                        for (k, v) in self.1.into_iter().flatten() {
                            m.serialize_entry(k, v)?;
                        }
                        m.end()
                    }
                }
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("name", self.0.tool)?;
                m.serialize_entry("arguments", self.0.arguments)?;
                m.serialize_entry("_meta", &Meta(self.0.id, self.0.meta))?;
                if let Some(round) = self.0.round {
                    if let Some(r) = &round.input_responses {
                        m.serialize_entry("inputResponses", r)?;
                    }
                    if let Some(state) = &round.request_state {
                        m.serialize_entry("requestState", state)?;
                    }
                }
                m.end()
            }
        }
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("jsonrpc", "2.0")?;
        m.serialize_entry("id", &self.id)?;
        m.serialize_entry("method", "tools/call")?;
        m.serialize_entry("params", &Params(self))?;
        m.end()
    }
}

impl Direct {
    /// Queues `tools/call` for `tool` (written by [`DirectCall::flush`]).
    /// `Err(TransportClosed)` when the transport has ended: nothing was sent.
    pub(crate) fn call(
        self: &Arc<Self>,
        tool: &str,
        arguments: &serde_json::Map<String, serde_json::Value>,
        round: Option<&Round>,
    ) -> std::result::Result<DirectCall, ServiceError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let (id, busy) = {
            let Ok(mut st) = self.state.lock() else {
                return Err(ServiceError::TransportClosed);
            };
            if st.closed {
                return Err(ServiceError::TransportClosed);
            }
            st.next += 1;
            let id = DIRECT_ID_BASE + st.next;
            st.pending.insert(id, tx);
            (id, st.pending.len() > 1)
        };
        let ticket = self.writer.enqueue(&CallRequest {
            id,
            tool,
            arguments,
            meta: self.meta.get(),
            round,
        });
        Ok(DirectCall {
            id: RequestId::Number(id),
            token: ProgressToken(NumberOrString::Number(id)),
            answer: rx,
            direct: self.clone(),
            ticket,
            busy,
        })
    }

    /// Sets the `_meta` entries every call of a stateless session carries (`None`: an
    /// `initialize` session, nothing to add).
    pub(crate) fn set_meta(&self, meta: Option<serde_json::Map<String, serde_json::Value>>) {
        if let Some(meta) = meta {
            let _ = self.meta.set(meta);
        }
    }

    /// Forgets a call (cancelled or timed out): a late answer is dropped.
    pub(crate) fn forget(&self, id: &RequestId) {
        if let RequestId::Number(id) = id
            && let Ok(mut st) = self.state.lock()
        {
            st.pending.remove(id);
        }
    }

    fn has_pending(&self) -> bool {
        self.state
            .lock()
            .map(|st| !st.pending.is_empty())
            .unwrap_or(false)
    }

    fn is_pending(&self, id: &RequestId) -> bool {
        match id {
            RequestId::Number(id) if *id > DIRECT_ID_BASE => self
                .state
                .lock()
                .map(|st| st.pending.contains_key(id))
                .unwrap_or(false),
            _ => false,
        }
    }

    /// Delivers `answer` to the call `id`; false when no such call is pending.
    fn answer(&self, id: i64, answer: DirectAnswer) -> bool {
        let tx = self
            .state
            .lock()
            .ok()
            .and_then(|mut st| st.pending.remove(&id));
        match tx {
            Some(tx) => {
                let _ = tx.send(answer);
                true
            }
            None => false,
        }
    }

    /// The transport ended: every pending call fails, later calls are refused.
    fn close(&self) {
        let pending = match self.state.lock() {
            Ok(mut st) => {
                st.closed = true;
                std::mem::take(&mut st.pending)
            }
            Err(_) => HashMap::new(),
        };
        for (_, tx) in pending {
            let _ = tx.send(Err(ServiceError::TransportClosed));
        }
    }
}

/// The write side: a queue of encoded messages and the pipe they go to.
struct Writer {
    /// Encoded messages not yet handed to the pipe. `send` appends synchronously, so the
    /// order on the wire is the order rmcp sent them in.
    queue: Mutex<Queue>,
    /// The pipe; whoever holds it writes the whole queue.
    pipe: tokio::sync::Mutex<Pipe>,
    /// Where a broken pipe learns the server's exit status.
    exit: Exit,
}

/// The server process's exit status, recorded in the session's [`StdoutNoise`] when a
/// transport finds the server gone (end of file, a broken pipe), so the error says how it
/// ended.
struct Exit {
    /// Weak: only the transport keeps the process alive.
    child: std::sync::Weak<tokio::sync::Mutex<tokio::process::Child>>,
    noise: StdoutNoise,
}

impl Exit {
    /// Waits up to [`EXIT_STATUS_WAIT`] for the exit status and records it (unless how the
    /// connection ended is known already, a crossed limit for instance).
    async fn record(&self) {
        if self.noise.ended().is_some() {
            return;
        }
        let Some(child) = self.child.upgrade() else {
            return;
        };
        let mut child = child.lock().await;
        if let Ok(Ok(status)) = tokio::time::timeout(EXIT_STATUS_WAIT, child.wait()).await {
            self.noise.end(exited(status));
        }
    }
}

struct Queue {
    buf: Vec<u8>,
    /// Bytes ever queued (the end of the last message): a send's ticket.
    queued: u64,
}

struct Pipe {
    /// `None` once [`StdioTransport`] is closed.
    stdin: Option<tokio::process::ChildStdin>,
    /// The batch being written (swapped with the queue's buffer; both keep their capacity).
    out: Vec<u8>,
    /// Bytes ever written: every ticket up to this is on the wire.
    written: u64,
    /// Why a write failed; later messages fail with it too (the pipe is broken).
    failed: Option<String>,
}

/// Largest buffer kept for reuse after a write (a huge message's buffer is given back).
const WRITE_BUF_KEEP: usize = 4 * 1024 * 1024;

impl Writer {
    /// Encodes `message` at the end of the queue; returns its ticket.
    fn enqueue(&self, message: &impl serde::Serialize) -> std::result::Result<u64, String> {
        match self.queue.lock() {
            Ok(mut q) => {
                let start = q.buf.len();
                match serde_json::to_writer(&mut q.buf, message) {
                    Ok(()) => {
                        q.buf.push(b'\n');
                        q.queued += (q.buf.len() - start) as u64;
                        Ok(q.queued)
                    }
                    Err(e) => {
                        q.buf.truncate(start);
                        Err(format!("cannot encode a message: {e}"))
                    }
                }
            }
            Err(_) => Err("the write queue is poisoned".to_string()),
        }
    }

    /// Writes everything queued up to at least `ticket` (unless another send already did).
    async fn flush_to(&self, ticket: u64) -> std::result::Result<(), String> {
        use tokio::io::AsyncWriteExt;
        let mut pipe = self.pipe.lock().await;
        if pipe.written >= ticket {
            return Ok(());
        }
        if let Some(why) = &pipe.failed {
            return Err(why.clone());
        }
        let Pipe {
            stdin,
            out,
            written,
            failed,
        } = &mut *pipe;
        let Some(stdin) = stdin.as_mut() else {
            return Err("stdin is closed".to_string());
        };
        out.clear();
        let upto = match self.queue.lock() {
            Ok(mut q) => {
                std::mem::swap(&mut q.buf, out);
                q.queued
            }
            Err(_) => return Err("the write queue is poisoned".to_string()),
        };
        let result = match stdin.write_all(out).await {
            Ok(()) => stdin.flush().await,
            Err(e) => Err(e),
        };
        if out.capacity() > WRITE_BUF_KEEP {
            *out = Vec::new();
        }
        match result {
            Ok(()) => {
                *written = upto;
                Ok(())
            }
            Err(e) => {
                let broken = e.kind() == std::io::ErrorKind::BrokenPipe;
                let why = if broken {
                    "the server exited, or closed its stdin, before reading the request".to_string()
                } else {
                    format!("cannot write to the server's stdin: {e}")
                };
                *failed = Some(why.clone());
                // A server whose stdin is gone is usually dying: its exit status, before the
                // error is seen (its process may not be reaped the instant the pipe breaks).
                if broken {
                    self.exit.record().await;
                }
                Err(why)
            }
        }
    }
}

/// The fields of a JSON-RPC message that decide whether it is an answer to a pending
/// `tools/call` (other keys are skipped).
#[derive(serde::Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Key {
    Jsonrpc,
    Id,
    Result,
    Method,
    Error,
    #[serde(other)]
    Other,
}

/// Parses `{"jsonrpc": "2.0", "id": <pending direct call id>, "result": {…}}` straight into
/// `CallToolResult`. Fails (and the caller falls back to rmcp's parser) as soon as the
/// message is anything else: a method, an error, an id that is not a pending call, a
/// `result` before the `id`, or a result rmcp would not read as a complete tool result.
struct CallAnswer<'a> {
    direct: &'a Direct,
}

impl<'de> serde::de::DeserializeSeed<'de> for CallAnswer<'_> {
    type Value = (RequestId, CallToolResult);

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for CallAnswer<'_> {
    type Value = (RequestId, CallToolResult);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an answer to a pending tools/call")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        use serde::de::Error as _;
        let not_ours = || A::Error::custom("not an answer to a pending tools/call");
        let (mut version, mut id, mut result) = (false, None, None);
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Jsonrpc if !version => {
                    map.next_value::<JsonRpcVersion2_0>()?;
                    version = true;
                }
                Key::Id if id.is_none() => {
                    let value: RequestId = map.next_value()?;
                    if !self.direct.is_pending(&value) {
                        return Err(not_ours());
                    }
                    id = Some(value);
                }
                Key::Result if id.is_some() && result.is_none() => {
                    result = Some(map.next_value::<CallToolResult>()?);
                }
                Key::Other => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
                _ => return Err(not_ours()),
            }
        }
        match (version, id, result) {
            (true, Some(id), Some(result)) => Ok((id, result)),
            _ => Err(not_ours()),
        }
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.direct.close();
    }
}

impl StdioTransport {
    /// The handle for `tools/call` past rmcp's service loop (see [`Direct`]).
    pub(crate) fn direct(&self) -> Arc<Direct> {
        self.direct.clone()
    }

    /// Spawns `command` with piped stdio; stderr goes to `tail`, skipped stdout lines to
    /// `noise`; a stdout line longer than `max_line` bytes ends the transport.
    pub(crate) fn spawn(
        alias: &str,
        mut command: tokio::process::Command,
        tap: Arc<RawTap>,
        (tail, noise): (&StderrTail, &StdoutNoise),
        max_line: usize,
    ) -> std::io::Result<(Self, StderrEof)> {
        command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(std::io::Error::other("child stdio was not piped"));
        };
        let child = Arc::new(tokio::sync::Mutex::new(child));
        let reader = tail.spawn_reader(alias.to_string(), stderr);
        let writer = Arc::new(Writer {
            queue: Mutex::new(Queue {
                buf: Vec::new(),
                queued: 0,
            }),
            pipe: tokio::sync::Mutex::new(Pipe {
                stdin: Some(stdin),
                out: Vec::new(),
                written: 0,
                failed: None,
            }),
            exit: Exit {
                child: Arc::downgrade(&child),
                noise: noise.clone(),
            },
        });
        Ok((
            StdioTransport {
                alias: alias.into(),
                child,
                direct: Arc::new(Direct {
                    writer: writer.clone(),
                    state: Mutex::new(DirectState::default()),
                    meta: OnceLock::new(),
                }),
                writer,
                stdout,
                buf: Vec::with_capacity(READ_CHUNK),
                start: 0,
                scanned: 0,
                tap,
                stderr_tail: tail.clone(),
                noise: noise.clone(),
                max_line,
                awaiting: Arc::default(),
            },
            reader,
        ))
    }

    /// The next complete line (without its newline), or `None` at EOF, or when the server
    /// wrote more than `max_line` bytes without a newline (recorded in `noise`: the
    /// session's error says so).
    async fn next_line(&mut self) -> Option<std::ops::Range<usize>> {
        use tokio::io::AsyncReadExt;
        loop {
            let from = self.start + self.scanned;
            if let Some(pos) = memchr::memchr(b'\n', &self.buf[from..]) {
                let end = from + pos;
                let range = self.start..end;
                self.start = end + 1;
                self.scanned = 0;
                return Some(range);
            }
            self.scanned = self.buf.len() - self.start;
            if self.scanned > self.max_line {
                self.noise
                    .end(super::too_large("a stdout line", self.max_line));
                return None;
            }
            // Compact before growing: keep the unconsumed tail at the front.
            if self.start > 0 && self.start == self.buf.len() {
                self.buf.clear();
                self.start = 0;
            } else if self.start > READ_CHUNK && self.start * 2 > self.buf.len() {
                self.buf.drain(..self.start);
                self.start = 0;
            }
            let len = self.buf.len();
            if self.buf.capacity() - len < READ_CHUNK / 4 {
                self.buf.reserve(READ_CHUNK.max(len));
            }
            match self.stdout.read_buf(&mut self.buf).await {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
        }
    }
}

impl rmcp::transport::Transport<rmcp::RoleClient> for StdioTransport {
    type Error = crate::error::Error;

    fn send(
        &mut self,
        item: rmcp::service::TxJsonRpcMessage<rmcp::RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.tap.on_send(&item);
        if let JsonRpcMessage::Request(r) = &item
            && let Ok(mut awaiting) = self.awaiting.lock()
        {
            if matches!(r.request, rmcp::model::ClientRequest::InitializeRequest(_)) {
                let earlier = std::mem::take(&mut awaiting.sent);
                awaiting.abandoned.extend(earlier);
            }
            awaiting.sent.insert(id_key(&r.id));
        }
        // Encoded straight into the queue: rmcp calls `send` from its one service loop, so
        // the queue's order is the order of the messages.
        let ticket = self.writer.enqueue(&item);
        let writer = self.writer.clone();
        let alias = self.alias.clone();
        let tail = self.stderr_tail.clone();
        async move {
            let result = match ticket {
                Ok(ticket) => writer.flush_to(ticket).await,
                Err(e) => Err(e),
            };
            result.map_err(|message| crate::error::Error::Transport {
                server: alias.to_string(),
                message,
                stderr_tail: tail.lines(),
            })
        }
    }

    async fn receive(&mut self) -> Option<rmcp::service::RxJsonRpcMessage<rmcp::RoleClient>> {
        loop {
            let Some(range) = self.next_line().await else {
                self.direct.close();
                // Say how the server ended, when it exited (a limit crossed is said already).
                self.writer.exit.record().await;
                return None;
            };
            let line = &self.buf[range];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            self.tap.on_receive(line);
            if self.direct.has_pending() {
                let mut de = serde_json::Deserializer::from_slice(line);
                let answer = CallAnswer {
                    direct: &self.direct,
                }
                .deserialize(&mut de)
                .and_then(|answer| de.end().map(|()| answer));
                if let Ok((RequestId::Number(n), result)) = answer {
                    // Ours (or forgotten meanwhile: dropped like rmcp drops it).
                    self.direct
                        .answer(n, Ok(ServerResult::CallToolResult(result)));
                    continue;
                }
            }
            match serde_json::from_slice::<rmcp::service::RxJsonRpcMessage<rmcp::RoleClient>>(line)
            {
                Ok(message) => {
                    // Ids past `DIRECT_ID_BASE` are ours: a direct call's answer.
                    // (Like rmcp, an id echoed as a numeric string counts as the number.)
                    let numeric = |id: &RequestId| match id {
                        RequestId::Number(n) => Some(*n),
                        RequestId::String(s) => s.parse::<i64>().ok(),
                    };
                    let key = match &message {
                        JsonRpcMessage::Response(r) => numeric(&r.id),
                        JsonRpcMessage::Error(e) => e.id.as_ref().and_then(numeric),
                        _ => None,
                    }
                    .filter(|n| *n > DIRECT_ID_BASE);
                    if let Some(key) = key {
                        let answer = match message {
                            JsonRpcMessage::Response(r) => Ok(r.result),
                            JsonRpcMessage::Error(e) => Err(ServiceError::McpError(e.error)),
                            _ => continue,
                        };
                        self.direct.answer(key, answer);
                        continue;
                    }
                    let answered = match &message {
                        JsonRpcMessage::Response(r) => Some(&r.id),
                        JsonRpcMessage::Error(e) => e.id.as_ref(),
                        _ => None,
                    };
                    if let Some(id) = answered.map(id_key) {
                        let (asked, abandoned) = self
                            .awaiting
                            .lock()
                            .map(|mut a| (a.sent.remove(&id), a.abandoned.remove(&id)))
                            .unwrap_or((true, false));
                        if abandoned {
                            tracing::debug!(server = %self.alias, id = %id, "dropping a late answer to server/discover: the session went on with initialize");
                            continue;
                        }
                        if !asked {
                            tracing::warn!(server = %self.alias, id = %id, "ignoring an answer to a request id this session never sent");
                            self.noise.unknown_id(&id);
                            continue;
                        }
                    }
                    return Some(message);
                }
                Err(e) => {
                    let why = not_json_rpc(line, &e);
                    match self.noise.record(line, &why) {
                        Some(shown) => {
                            tracing::warn!(server = %self.alias, "skipping a stdout line ({why}): {shown}")
                        }
                        None if self.noise.skipped() == NOISE_LOGGED + 1 => {
                            tracing::warn!(server = %self.alias, "skipping more stdout lines that are not JSON-RPC (counted, no longer logged)")
                        }
                        None => {}
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Graceful: close stdin, wait; SIGTERM, wait (Unix); kill.
        self.writer.pipe.lock().await.stdin.take();
        let mut child = self.child.lock().await;
        if tokio::time::timeout(EXIT_GRACE, child.wait()).await.is_ok() {
            return Ok(());
        }
        #[cfg(unix)]
        if let Some(pid) = child.id() {
            // SAFETY: sending a signal to our own child process; no memory is touched.
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGTERM);
            }
            if tokio::time::timeout(EXIT_GRACE, child.wait()).await.is_ok() {
                return Ok(());
            }
        }
        let _ = child.kill().await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::transport::Transport as _;

    /// The fast-path parse of `line` (`ID` stands for the first direct id) with the direct
    /// calls `pending` (offsets from [`DIRECT_ID_BASE`]) waiting.
    fn answer(pending: &[i64], line: &str) -> Option<(RequestId, CallToolResult)> {
        let direct = Direct {
            writer: Arc::new(Writer {
                queue: Mutex::new(Queue {
                    buf: Vec::new(),
                    queued: 0,
                }),
                pipe: tokio::sync::Mutex::new(Pipe {
                    stdin: None,
                    out: Vec::new(),
                    written: 0,
                    failed: None,
                }),
                exit: Exit {
                    child: std::sync::Weak::new(),
                    noise: StdoutNoise::default(),
                },
            }),
            state: Mutex::new(DirectState::default()),
            meta: OnceLock::new(),
        };
        if let Ok(mut st) = direct.state.lock() {
            for &n in pending {
                st.pending
                    .insert(DIRECT_ID_BASE + n, tokio::sync::oneshot::channel().0);
            }
        }
        let line = line.replace("ID", &(DIRECT_ID_BASE + 1).to_string());
        let mut de = serde_json::Deserializer::from_str(&line);
        CallAnswer { direct: &direct }
            .deserialize(&mut de)
            .and_then(|a| de.end().map(|()| a))
            .ok()
    }

    #[test]
    fn only_answers_to_pending_calls_take_the_fast_path() {
        let ok = r#"{"jsonrpc":"2.0","id":ID,"result":{"content":[{"type":"text","text":"hi"}],"structuredContent":{"n":1},"isError":false}}"#;
        let (id, result) = answer(&[1], ok).expect("fast path");
        assert_eq!(id, RequestId::Number(DIRECT_ID_BASE + 1));
        assert_eq!(result.structured_content, Some(serde_json::json!({"n": 1})));
        assert_eq!(result.content.len(), 1);
        // Not pending, an error, a notification, a result before its id, no version, not a
        // tool result, trailing garbage: all left to rmcp's parser.
        assert!(answer(&[2], ok).is_none());
        assert!(
            answer(
                &[1],
                r#"{"jsonrpc":"2.0","id":ID,"error":{"code":-1,"message":"no"}}"#
            )
            .is_none()
        );
        assert!(
            answer(
                &[1],
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#
            )
            .is_none()
        );
        assert!(answer(&[1], r#"{"jsonrpc":"2.0","result":{"content":[]},"id":ID}"#).is_none());
        assert!(answer(&[1], r#"{"id":ID,"result":{"content":[]}}"#).is_none());
        assert!(
            answer(
                &[1],
                r#"{"jsonrpc":"2.0","id":ID,"result":{"task":{"taskId":"t"}}}"#
            )
            .is_none()
        );
        assert!(answer(&[1], &format!("{ok} x")).is_none());
    }

    /// A transport to `sh -c script` (a scripted "server").
    fn scripted(script: &str) -> StdioTransport {
        let mut cmd = tokio::process::Command::new("sh");
        cmd.arg("-c").arg(script);
        StdioTransport::spawn(
            "script",
            cmd,
            Arc::new(RawTap::default()),
            (&StderrTail::default(), &StdoutNoise::default()),
            crate::Limits::DEFAULT_MAX_MESSAGE_BYTES,
        )
        .expect("sh")
        .0
    }

    /// A scripted "server": requests rmcp sends itself (not on the direct path) get their
    /// answers, errors and notifications through rmcp's parser, and ids can be reused.
    #[tokio::test]
    async fn receive_handles_errors_notifications_and_reused_ids() {
        let script = r#"read a; printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}' '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}'
read b; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}],"structuredContent":{"n":1}}}'
read c; printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{}}'
read d"#;
        let mut t = scripted(script);
        let call = |id: i64| -> rmcp::service::TxJsonRpcMessage<rmcp::RoleClient> {
            serde_json::from_value(serde_json::json!({
                "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "t", "arguments": {}}
            }))
            .expect("request")
        };
        t.send(call(1)).await.expect("send");
        assert!(matches!(
            t.receive().await,
            Some(JsonRpcMessage::Notification(_))
        ));
        match t.receive().await {
            Some(JsonRpcMessage::Error(e)) => assert_eq!(e.id, Some(RequestId::Number(1))),
            other => panic!("expected the error answer, got {other:?}"),
        }
        t.send(call(1)).await.expect("send");
        match t.receive().await {
            Some(JsonRpcMessage::Response(r)) => match r.result {
                ServerResult::CallToolResult(c) => {
                    assert_eq!(c.structured_content, Some(serde_json::json!({"n": 1})))
                }
                other => panic!("expected a tool result, got {other:?}"),
            },
            other => panic!("expected the tool result, got {other:?}"),
        }
        let ping: rmcp::service::TxJsonRpcMessage<rmcp::RoleClient> =
            serde_json::from_str(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).expect("ping");
        t.send(ping).await.expect("send");
        match t.receive().await {
            Some(JsonRpcMessage::Response(r)) => assert_eq!(r.id, RequestId::Number(2)),
            other => panic!("expected the ping answer, got {other:?}"),
        }
        let _ = t.close().await;
    }

    /// Direct calls: answers (result or error) go to the call, never to rmcp, rmcp's own
    /// messages still reach it, and EOF fails what is still pending and later calls.
    #[tokio::test]
    async fn direct_calls_get_their_answers_and_fail_at_eof() {
        let a = DIRECT_ID_BASE + 1;
        let b = DIRECT_ID_BASE + 2;
        let script = format!(
            r#"read x; read y; printf '%s\n' '{{"jsonrpc":"2.0","id":{b},"error":{{"code":-32602,"message":"bad"}}}}' '{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"x"}}}}' '{{"jsonrpc":"2.0","id":{a},"result":{{"content":[{{"type":"text","text":"ok"}}]}}}}'
read z"#
        );
        let mut t = scripted(&script);
        let direct = t.direct();
        let args = serde_json::Map::new();
        let mut first = direct.call("t", &args, None).expect("queued");
        let mut second = direct.call("t", &args, None).expect("queued");
        first.flush().await;
        second.flush().await;
        assert_eq!(first.id, RequestId::Number(a));
        assert_eq!(first.token, ProgressToken(NumberOrString::Number(a)));
        // Only the notification reaches rmcp; both answers go to their calls.
        assert!(matches!(
            t.receive().await,
            Some(JsonRpcMessage::Notification(_))
        ));
        match second.answer.await {
            Ok(Err(ServiceError::McpError(e))) => assert_eq!(e.code.0, -32602),
            other => panic!("expected the error answer, got {other:?}"),
        }
        let mut third = direct.call("t", &args, None).expect("queued");
        third.flush().await;
        let receiving = tokio::spawn(async move {
            let next = t.receive().await;
            (t, next.is_none())
        });
        match first.answer.await {
            Ok(Ok(ServerResult::CallToolResult(r))) => assert_eq!(r.content.len(), 1),
            other => panic!("expected the tool result, got {other:?}"),
        }
        // The script exits after a third line: EOF fails the pending call and later ones.
        match third.answer.await {
            Ok(Err(ServiceError::TransportClosed)) => {}
            other => panic!("expected TransportClosed, got {other:?}"),
        }
        let (mut t, eof) = receiving.await.expect("receive task");
        assert!(eof);
        assert!(matches!(
            direct.call("t", &args, None),
            Err(ServiceError::TransportClosed)
        ));
        let _ = t.close().await;
    }
}
