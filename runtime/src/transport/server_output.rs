//! What a stdio server writes besides its answers: stderr (forwarded to `tracing`, its last
//! lines kept for errors) and stdout lines that are not JSON-RPC (quoted in errors), both
//! with the server's resolved secrets redacted; and, for every transport, how a connection
//! ended when the transport knows better than "closed" (an exit status, a crossed limit).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// How many stderr lines of a stdio server are kept for error messages.
const STDERR_TAIL_LINES: usize = 20;
/// Longest stderr line kept (longer lines are cut).
const STDERR_LINE_MAX: usize = 400;

/// The last lines a stdio server wrote to stderr, with the server's secrets redacted.
#[derive(Default, Clone)]
pub(crate) struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    /// Values replaced by `<redacted>` in every line before it is logged or kept.
    secrets: Arc<Vec<String>>,
}

impl std::fmt::Debug for StderrTail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StderrTail")
            .field("lines", &self.lines())
            .finish_non_exhaustive()
    }
}

impl StderrTail {
    /// A tail that redacts `secrets` (the resolved values of the server's configuration).
    pub(crate) fn redacting(secrets: Vec<String>) -> Self {
        StderrTail {
            lines: Arc::default(),
            secrets: Arc::new(secrets),
        }
    }

    /// A copy of the kept lines, oldest first.
    pub(crate) fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .map(|q| q.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Redacts, escapes, cuts and keeps one line (`cut`: the server's line was longer).
    fn accept(&self, alias: &str, raw: &[u8], cut: bool) {
        let text = String::from_utf8_lossy(raw);
        let redacted = crate::redact::redact(&self.secrets, text.trim_end());
        let mut line = mcp_bindgen_core::text::printable(&redacted, false).into_owned();
        if cut || line.len() > STDERR_LINE_MAX {
            let keep = mcp_bindgen_core::schema::prefix_bytes(&line, STDERR_LINE_MAX).len();
            line.truncate(keep);
            line.push('…');
        }
        tracing::debug!(target: "mcp_bindgen::server_stderr", server = %alias, "{line}");
        self.push(line);
    }

    fn push(&self, line: String) {
        if let Ok(mut q) = self.lines.lock() {
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
            let mut stderr = stderr;
            // Bounded whatever the server writes: reads go into a fixed chunk, a line keeps
            // at most about `STDERR_LINE_MAX` bytes (the rest of it is dropped, never stored).
            let mut chunk = vec![0u8; 8 * 1024];
            let mut line: Vec<u8> = Vec::new();
            let mut cut = false;
            // Room for a secret that straddles the cut, so it is redacted whole.
            let keep =
                STDERR_LINE_MAX + 4 + tail.secrets.iter().map(String::len).max().unwrap_or(0);
            loop {
                use tokio::io::AsyncReadExt as _;
                let n = match stderr.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let mut rest = &chunk[..n];
                while !rest.is_empty() {
                    let (piece, done) = match memchr::memchr(b'\n', rest) {
                        Some(i) => (&rest[..i], Some(i + 1)),
                        None => (rest, None),
                    };
                    let room = keep.saturating_sub(line.len());
                    line.extend_from_slice(&piece[..piece.len().min(room)]);
                    cut |= piece.len() > room;
                    match done {
                        Some(i) => {
                            tail.accept(&alias, &line, cut);
                            line.clear();
                            cut = false;
                            rest = &rest[i..];
                        }
                        None => rest = &[],
                    }
                }
            }
            if !line.is_empty() {
                tail.accept(&alias, &line, cut);
            }
        });
        StderrEof(eof_rx)
    }
}

/// Lines a stdio server wrote to stdout that are not JSON-RPC messages (logging on the wrong
/// stream, mostly): the first few, with why they were skipped, for the errors that follow;
/// and how the connection ended ([`StdoutNoise::end`]), which the HTTP transports record
/// here too.
#[derive(Debug, Default, Clone)]
pub(crate) struct StdoutNoise(Arc<Mutex<NoiseRecord>>);

#[derive(Default)]
struct NoiseRecord {
    /// Values replaced by `<redacted>` in every quoted line.
    secrets: Vec<String>,
    /// The first skipped lines (excerpt, reason).
    first: Vec<(String, String)>,
    /// How many lines were skipped in all.
    count: usize,
    /// Ids of answers to no request of the session (the first few), and how many there were.
    unknown_ids: Vec<String>,
    unknown_count: usize,
    /// How the connection ended, when a transport knows: the server's exit status, or a
    /// limit it crossed (the client then ended it).
    ended: Option<String>,
}

/// Skipped lines quoted in an error.
const NOISE_QUOTED: usize = 3;
/// Skipped lines logged one by one; later ones are only counted (a server flooding stdout
/// must not flood the log).
pub(super) const NOISE_LOGGED: usize = 5;

impl std::fmt::Debug for NoiseRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NoiseRecord")
            .field("first", &self.first)
            .field("count", &self.count)
            .finish_non_exhaustive()
    }
}

impl StdoutNoise {
    /// A record that redacts `secrets` (the resolved values of the server's configuration)
    /// in the lines it quotes.
    pub(crate) fn redacting(secrets: Vec<String>) -> Self {
        StdoutNoise(Arc::new(Mutex::new(NoiseRecord {
            secrets,
            ..NoiseRecord::default()
        })))
    }

    /// Counts a skipped line and keeps it if it is among the first; returns the excerpt to
    /// log (secrets redacted before the line is cut, so no part of one survives the cut), or
    /// `None` past the first few lines, which are counted and not logged.
    pub(super) fn record(&self, line: &[u8], reason: &str) -> Option<String> {
        let Ok(mut r) = self.0.lock() else {
            return None;
        };
        r.count += 1;
        if r.count > NOISE_LOGGED.max(NOISE_QUOTED) {
            return None;
        }
        let text = String::from_utf8_lossy(line);
        let excerpt = mcp_bindgen_core::text::printable(
            &mcp_bindgen_core::schema::truncate(
                &crate::redact::redact(&r.secrets, text.trim()),
                119,
            ),
            false,
        )
        .into_owned();
        if r.first.len() < NOISE_QUOTED {
            r.first.push((excerpt.clone(), reason.to_string()));
        }
        (r.count <= NOISE_LOGGED).then_some(excerpt)
    }

    /// How many lines were skipped so far.
    pub(super) fn skipped(&self) -> usize {
        self.0.lock().map(|r| r.count).unwrap_or(0)
    }

    /// Records how the connection ended (the server's exit status, a limit it crossed; the
    /// first word stands): the next error of the session says this instead of "the server
    /// closed the connection".
    pub(crate) fn end(&self, why: String) {
        if let Ok(mut r) = self.0.lock()
            && r.ended.is_none()
        {
            r.ended = Some(why);
        }
    }

    /// Forgets why the last connection ended (a new one starts).
    pub(crate) fn clear_ended(&self) {
        if let Ok(mut r) = self.0.lock() {
            r.ended = None;
        }
    }

    /// How the connection ended, if a transport recorded it.
    pub(crate) fn ended(&self) -> Option<String> {
        self.0.lock().ok().and_then(|r| r.ended.clone())
    }

    /// Counts an answer whose id no request of the session had (kept if among the first).
    pub(super) fn unknown_id(&self, id: &str) {
        if let Ok(mut r) = self.0.lock() {
            r.unknown_count += 1;
            if r.unknown_ids.len() < NOISE_QUOTED {
                r.unknown_ids
                    .push(mcp_bindgen_core::schema::truncate(id, 40));
            }
        }
    }

    /// What the server wrote besides JSON-RPC, and answers to ids nobody asked for, for an
    /// error message; `None` when nothing.
    pub(crate) fn summary(&self) -> Option<String> {
        let r = self.0.lock().ok()?;
        let unknown = (r.unknown_count > 0).then(|| {
            let more = if r.unknown_count > r.unknown_ids.len() {
                format!(" and {} more", r.unknown_count - r.unknown_ids.len())
            } else {
                String::new()
            };
            format!(
                "the server answered request id{} {}{more}, which no request of this session had (ignored)",
                if r.unknown_count == 1 { "" } else { "s" },
                r.unknown_ids.join(", ")
            )
        });
        if r.count == 0 {
            return unknown;
        }
        let quoted: Vec<String> = r
            .first
            .iter()
            .map(|(line, why)| format!("\"{line}\" ({why})"))
            .collect();
        let more = if r.count > r.first.len() {
            format!(" and {} more", r.count - r.first.len())
        } else {
            String::new()
        };
        let lines = format!(
            "the server wrote {} line{} to stdout that {} not JSON-RPC and {} skipped: {}{more}; an MCP stdio server must write only JSON-RPC messages to stdout and log to stderr",
            r.count,
            if r.count == 1 { "" } else { "s" },
            if r.count == 1 { "is" } else { "are" },
            if r.count == 1 { "was" } else { "were" },
            quoted.join(", ")
        );
        Some(match unknown {
            Some(unknown) => format!("{lines}; {unknown}"),
            None => lines,
        })
    }
}

/// serde_json's nesting limit.
const JSON_DEPTH: usize = 128;

/// Why `line` is not a JSON-RPC message, in words.
pub(super) fn not_json_rpc(line: &[u8], error: &serde_json::Error) -> String {
    match std::str::from_utf8(line) {
        Err(e) => format!("invalid UTF-8 at byte {}", e.valid_up_to()),
        Ok(_) if error.to_string().starts_with("recursion limit exceeded") => format!(
            "nested deeper than {JSON_DEPTH} levels, the JSON parser's limit (at column {})",
            error.column()
        ),
        Ok(_) if error.is_syntax() || error.is_eof() => format!("not JSON: {error}"),
        Ok(_) => format!("JSON, but not a JSON-RPC message: {error}"),
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
