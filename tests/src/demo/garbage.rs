//! The `garbage` fault: non-JSON lines spliced into the stdout stream between messages.
//!
//! The tool cannot write to stdout itself: the transport owns it, and a write from elsewhere
//! could land in the middle of a JSON-RPC line. Instead the tool queues lines in a
//! [`GarbageQueue`], and [`GarbageWriter`] (wrapping the transport's stdout) emits them at
//! the next message boundary — in practice right before the tool's own answer.

use std::{
    io,
    pin::Pin,
    sync::{Arc, Mutex},
    task::{Context, Poll, ready},
};

use tokio::io::AsyncWrite;

/// The lines `garbage` writes, cycled: things misbehaving servers really print.
const GARBAGE: [&str; 6] = [
    "this is not JSON",
    "INFO  server.rs:42 starting worker pool (4 threads)",
    "{\"jsonrpc\": \"2.0\", \"id\": 99, \"result\": ",
    "\u{1b}[31mERROR\u{1b}[0m something went wrong",
    "[1, 2, 3]",
    "Traceback (most recent call last): File \"server.py\", line 1",
];

/// Lines waiting to be written to stdout at the next message boundary.
#[derive(Debug, Clone, Default)]
pub struct GarbageQueue(Arc<Mutex<Vec<u8>>>);

impl GarbageQueue {
    /// Queues `count` garbage lines (each ends with `\n`).
    pub fn push_lines(&self, count: u32) {
        let mut queue = self.0.lock().expect("garbage queue poisoned");
        for line in GARBAGE.iter().cycle().take(count as usize) {
            queue.extend_from_slice(line.as_bytes());
            queue.push(b'\n');
        }
    }

    /// Queues one raw line (any bytes; a newline is added).
    pub fn push_raw(&self, line: &[u8]) {
        let mut queue = self.0.lock().expect("garbage queue poisoned");
        queue.extend_from_slice(line);
        queue.push(b'\n');
    }

    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().expect("garbage queue poisoned"))
    }
}

/// An [`AsyncWrite`] that forwards to `inner` and, whenever the bytes written so far end
/// with a newline (a message boundary), first writes out whatever a [`GarbageQueue`] holds.
#[derive(Debug)]
pub struct GarbageWriter<W> {
    inner: W,
    queue: GarbageQueue,
    pending: Vec<u8>,
    written: usize,
    at_boundary: bool,
}

impl<W> GarbageWriter<W> {
    /// Wraps `inner`; lines pushed to `queue` appear between messages.
    pub fn new(inner: W, queue: GarbageQueue) -> Self {
        Self {
            inner,
            queue,
            pending: Vec::new(),
            written: 0,
            at_boundary: true,
        }
    }
}

impl<W: AsyncWrite + Unpin> GarbageWriter<W> {
    /// Writes out queued garbage if we are between messages.
    fn poll_garbage(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            if self.written < self.pending.len() {
                let n = ready!(
                    Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.written..])
                )?;
                if n == 0 {
                    return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                }
                self.written += n;
                continue;
            }
            self.pending.clear();
            self.written = 0;
            if !self.at_boundary {
                return Poll::Ready(Ok(()));
            }
            let next = self.queue.take();
            if next.is_empty() {
                return Poll::Ready(Ok(()));
            }
            self.pending = next;
        }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for GarbageWriter<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_garbage(cx))?;
        let n = ready!(Pin::new(&mut this.inner).poll_write(cx, buf))?;
        if n > 0 {
            this.at_boundary = buf[n - 1] == b'\n';
        }
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_garbage(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt;

    use super::*;

    #[tokio::test]
    async fn garbage_lands_between_messages() {
        let queue = GarbageQueue::default();
        let mut writer = GarbageWriter::new(Vec::new(), queue.clone());
        writer.write_all(b"{\"a\":").await.unwrap();
        queue.push_lines(2);
        // Mid-line: nothing is spliced in.
        writer.write_all(b"1}\n").await.unwrap();
        writer.write_all(b"{\"b\":2}\n").await.unwrap();
        let out = String::from_utf8(writer.inner).unwrap();
        assert_eq!(
            out,
            format!("{{\"a\":1}}\n{}\n{}\n{{\"b\":2}}\n", GARBAGE[0], GARBAGE[1])
        );
    }
}
