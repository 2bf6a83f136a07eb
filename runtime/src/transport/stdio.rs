//! stdio: a child process speaking newline-delimited JSON-RPC.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::io::AsyncBufReadExt;

use super::RawTap;

/// How many stderr lines of a stdio server are kept for error messages.
const STDERR_TAIL_LINES: usize = 20;
/// Longest stderr line kept (longer lines are cut).
const STDERR_LINE_MAX: usize = 400;

/// The last lines a stdio server wrote to stderr.
#[derive(Debug, Default, Clone)]
pub(crate) struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    /// A copy of the kept lines, oldest first.
    pub(crate) fn lines(&self) -> Vec<String> {
        self.0
            .lock()
            .map(|q| q.iter().cloned().collect())
            .unwrap_or_default()
    }

    fn push(&self, line: String) {
        if let Ok(mut q) = self.0.lock() {
            if q.len() == STDERR_TAIL_LINES {
                q.pop_front();
            }
            q.push_back(line);
        }
    }

    /// Forwards every line of `stderr` to `tracing` and keeps the tail. Ends at EOF; the
    /// returned [`StderrEof`] completes then.
    pub(crate) fn spawn_reader(
        &self,
        alias: String,
        stderr: tokio::process::ChildStderr,
    ) -> StderrEof {
        let tail = self.clone();
        let (eof_tx, eof_rx) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            let _eof = EofOnDrop(eof_tx);
            let mut reader = tokio::io::BufReader::new(stderr);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let mut line = String::from_utf8_lossy(&buf).trim_end().to_string();
                        if line.len() > STDERR_LINE_MAX {
                            let mut cut = STDERR_LINE_MAX;
                            while !line.is_char_boundary(cut) {
                                cut -= 1;
                            }
                            line.truncate(cut);
                            line.push('…');
                        }
                        tracing::debug!(target: "mcp_runtime::server_stderr", server = %alias, "{line}");
                        tail.push(line);
                    }
                }
            }
        });
        StderrEof(eof_rx)
    }
}

/// Completes when a server's stderr reached end of file (the process exited or closed it).
#[derive(Debug, Clone)]
pub(crate) struct StderrEof(tokio::sync::watch::Receiver<bool>);

impl StderrEof {
    /// Waits up to `limit` for the end of stderr, so a dying server's last words are in the
    /// tail before an error quotes it.
    pub(crate) async fn wait(&self, limit: std::time::Duration) {
        let mut rx = self.0.clone();
        let _ = tokio::time::timeout(limit, rx.wait_for(|eof| *eof)).await;
    }
}

/// Marks stderr as finished when the reader task ends (or panics).
struct EofOnDrop(tokio::sync::watch::Sender<bool>);

impl Drop for EofOnDrop {
    fn drop(&mut self) {
        self.0.send_replace(true);
    }
}

/// Initial capacity of the stdout read buffer.
const READ_CHUNK: usize = 64 * 1024;
/// How long `close` waits after closing stdin, and again after SIGTERM.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_millis(1500);

/// Newline-delimited JSON-RPC over a child's stdin/stdout.
///
/// Our own framing instead of rmcp's `AsyncRwTransport`: lines are found with `memchr` over a
/// growing buffer (rmcp's codec scans byte by byte), lines that are not JSON-RPC (a server
/// printing garbage to stdout) are logged and skipped instead of ending the session, and
/// every raw line is shown to the [`RawTap`].
pub(crate) struct StdioTransport {
    alias: Arc<str>,
    child: tokio::process::Child,
    stdin: Arc<tokio::sync::Mutex<Option<tokio::process::ChildStdin>>>,
    stdout: tokio::process::ChildStdout,
    buf: Vec<u8>,
    /// Start of unconsumed data in `buf`.
    start: usize,
    /// Bytes of `buf[start..]` already known to hold no newline.
    scanned: usize,
    tap: Arc<RawTap>,
    stderr_tail: StderrTail,
}

impl StdioTransport {
    /// Spawns `command` with piped stdio; stderr goes to `tail`.
    pub(crate) fn spawn(
        alias: &str,
        mut command: tokio::process::Command,
        tap: Arc<RawTap>,
        tail: &StderrTail,
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
        let reader = tail.spawn_reader(alias.to_string(), stderr);
        Ok((
            StdioTransport {
                alias: alias.into(),
                child,
                stdin: Arc::new(tokio::sync::Mutex::new(Some(stdin))),
                stdout,
                buf: Vec::with_capacity(READ_CHUNK),
                start: 0,
                scanned: 0,
                tap,
                stderr_tail: tail.clone(),
            },
            reader,
        ))
    }

    /// The next complete line (without its newline), or `None` at EOF.
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
        use tokio::io::AsyncWriteExt;
        self.tap.on_send(&item);
        let stdin = self.stdin.clone();
        let alias = self.alias.clone();
        let tail = self.stderr_tail.clone();
        let encoded = serde_json::to_vec(&item);
        async move {
            let err = |message: String| crate::error::Error::Transport {
                server: alias.to_string(),
                message,
                stderr_tail: tail.lines(),
            };
            let mut line = encoded.map_err(|e| err(format!("cannot encode a message: {e}")))?;
            line.push(b'\n');
            let mut guard = stdin.lock().await;
            let pipe = guard
                .as_mut()
                .ok_or_else(|| err("stdin is closed".to_string()))?;
            pipe.write_all(&line)
                .await
                .map_err(|e| err(format!("cannot write to the server's stdin: {e}")))?;
            pipe.flush()
                .await
                .map_err(|e| err(format!("cannot write to the server's stdin: {e}")))
        }
    }

    async fn receive(&mut self) -> Option<rmcp::service::RxJsonRpcMessage<rmcp::RoleClient>> {
        loop {
            let range = self.next_line().await?;
            let line = &self.buf[range];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            self.tap.on_receive(line);
            match serde_json::from_slice(line) {
                Ok(message) => return Some(message),
                Err(e) => {
                    let shown = String::from_utf8_lossy(&line[..line.len().min(120)]).into_owned();
                    tracing::warn!(server = %self.alias, "skipping a stdout line that is not JSON-RPC ({e}): {shown}");
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Graceful: close stdin, wait; SIGTERM, wait; SIGKILL.
        self.stdin.lock().await.take();
        if tokio::time::timeout(EXIT_GRACE, self.child.wait())
            .await
            .is_ok()
        {
            return Ok(());
        }
        if let Some(pid) = self.child.id() {
            // SAFETY: sending a signal to our own child process; no memory is touched.
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGTERM);
            }
            if tokio::time::timeout(EXIT_GRACE, self.child.wait())
                .await
                .is_ok()
            {
                return Ok(());
            }
        }
        let _ = self.child.kill().await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_tail_keeps_the_last_lines() {
        let t = StderrTail::default();
        for i in 0..(STDERR_TAIL_LINES + 5) {
            t.push(format!("line {i}"));
        }
        let lines = t.lines();
        assert_eq!(lines.len(), STDERR_TAIL_LINES);
        assert_eq!(lines[0], "line 5");
    }
}
