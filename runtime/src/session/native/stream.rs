//! A call as a `Stream` of events: its progress, the server's log messages, then its result.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::SystemTime;

use futures::Stream;
use futures::stream::FusedStream;
use futures::task::AtomicWaker;
use serde::Serialize;
use serde_json::Value;

use super::notify::{LogTaps, ServerLog};
use super::{CallOptions, Progress, Session};
use crate::error::{Error, Result};
use crate::output::ToolOutput;

/// One event of a call run by [`Session::call_stream`].
///
/// Every event carries `seq`, its number in arrival order for the whole call, from 0. The
/// stream yields events in `seq` order; a gap means events were dropped because the consumer
/// fell behind (see [`CallStream`]). Exactly one [`CallEvent::Result`] or
/// [`CallEvent::Error`] ends the stream.
#[derive(Debug)]
#[non_exhaustive]
pub enum CallEvent {
    /// A progress update of this call (`notifications/progress` with its token).
    Progress {
        /// Arrival number.
        seq: u64,
        /// When it arrived.
        at: SystemTime,
        /// Progress so far; increases with every update.
        progress: f64,
        /// The total, when the server knows it.
        total: Option<f64>,
        /// A human-readable message.
        message: Option<String>,
    },
    /// A log message the server sent while the call ran (`notifications/message`; not tied
    /// to a request, so every call stream running on the session sees it).
    Log {
        /// Arrival number.
        seq: u64,
        /// When it arrived.
        at: SystemTime,
        /// The syslog level the server gave: `debug`, `info`, `notice`, `warning`, `error`,
        /// `critical`, `alert` or `emergency`.
        level: String,
        /// The logger's name, when the server gave one.
        logger: Option<String>,
        /// The message (any JSON; often a string).
        data: Value,
    },
    /// The call's result (also for a tool-level error, `isError: true`): the last event.
    Result {
        /// Arrival number.
        seq: u64,
        /// When it arrived.
        at: SystemTime,
        /// What [`Session::call_with`] returns as `Ok`.
        output: ToolOutput,
    },
    /// The call failed: the last event.
    Error {
        /// Arrival number.
        seq: u64,
        /// When the call failed.
        at: SystemTime,
        /// What [`Session::call_with`] returns as `Err`.
        error: Error,
    },
}

impl CallEvent {
    /// The event's number in arrival order.
    pub fn seq(&self) -> u64 {
        match self {
            CallEvent::Progress { seq, .. }
            | CallEvent::Log { seq, .. }
            | CallEvent::Result { seq, .. }
            | CallEvent::Error { seq, .. } => *seq,
        }
    }

    /// When the event arrived (the wall clock: comparable with the server's log times).
    pub fn at(&self) -> SystemTime {
        match self {
            CallEvent::Progress { at, .. }
            | CallEvent::Log { at, .. }
            | CallEvent::Result { at, .. }
            | CallEvent::Error { at, .. } => *at,
        }
    }

    /// Whether this is the last event of its call ([`CallEvent::Result`] or
    /// [`CallEvent::Error`]).
    pub fn is_terminal(&self) -> bool {
        matches!(self, CallEvent::Result { .. } | CallEvent::Error { .. })
    }

    /// The result as [`Session::call_with`] gives it, for a terminal event.
    pub fn into_result(self) -> Option<Result<ToolOutput>> {
        match self {
            CallEvent::Result { output, .. } => Some(Ok(output)),
            CallEvent::Error { error, .. } => Some(Err(error)),
            CallEvent::Progress { .. } | CallEvent::Log { .. } => None,
        }
    }
}

/// The events of one call, from [`Session::call_stream`]: progress updates and server log
/// messages in arrival order, then exactly one [`CallEvent::Result`] or [`CallEvent::Error`],
/// after which the stream ends.
///
/// The call runs while the stream is polled (nothing is sent before the first poll), under
/// the deadlines of [`Session::call_with`]. Dropping the stream before its last event
/// cancels the call as dropping the `call_with` future does (the server is sent
/// `notifications/cancelled`).
///
/// Memory is bounded: at most [`CallStream::CAPACITY`] events wait for the consumer. When
/// one more arrives, the oldest waiting progress update is dropped (progress is cumulative,
/// the newest value is kept), or with none waiting the oldest log message. The final event
/// is never dropped.
#[must_use = "a call stream does nothing unless polled"]
pub struct CallStream {
    feed: Arc<Feed>,
    /// The call (`None` once it returned).
    call: Option<Pin<Box<dyn Future<Output = Result<ToolOutput>> + Send>>>,
    /// The last event, held back until the waiting ones are delivered.
    last: Option<CallEvent>,
    done: bool,
}

impl std::fmt::Debug for CallStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let waiting = self.feed.state.lock().map(|s| s.queue.len()).unwrap_or(0);
        f.debug_struct("CallStream")
            .field("running", &self.call.is_some())
            .field("waiting", &waiting)
            .field("done", &self.done)
            .finish()
    }
}

/// The events waiting for the consumer, filled from the connection's reader.
#[derive(Default)]
struct Feed {
    state: Mutex<FeedState>,
    waker: AtomicWaker,
}

#[derive(Default)]
struct FeedState {
    queue: VecDeque<CallEvent>,
    next_seq: u64,
    /// Set when the call returned: later events are not taken.
    closed: bool,
}

impl Feed {
    /// Queues the event `make` builds from its arrival number (dropping an older one when
    /// [`CallStream::CAPACITY`] are waiting), and wakes the consumer.
    fn push(&self, make: impl FnOnce(u64) -> CallEvent) {
        {
            let Ok(mut st) = self.state.lock() else {
                return;
            };
            if st.closed {
                return;
            }
            let seq = st.next_seq;
            st.next_seq += 1;
            if st.queue.len() >= CallStream::CAPACITY {
                let oldest = st
                    .queue
                    .iter()
                    .position(|e| matches!(e, CallEvent::Progress { .. }))
                    .unwrap_or(0);
                st.queue.remove(oldest);
            }
            st.queue.push_back(make(seq));
        }
        self.waker.wake();
    }

    /// Takes no more events; the arrival number of the last event.
    fn close(&self) -> u64 {
        match self.state.lock() {
            Ok(mut st) => {
                st.closed = true;
                st.next_seq
            }
            Err(poisoned) => poisoned.into_inner().next_seq,
        }
    }

    fn pop(&self) -> Option<CallEvent> {
        self.state
            .lock()
            .ok()
            .and_then(|mut st| st.queue.pop_front())
    }
}

impl CallStream {
    /// How many events may wait for the consumer before older ones are dropped.
    pub const CAPACITY: usize = 64;

    /// A stream of one event: `call`'s result (for calls that report no progress, such as
    /// local tools, or that failed before they started).
    pub(crate) fn from_future(
        call: impl Future<Output = Result<ToolOutput>> + Send + 'static,
    ) -> Self {
        CallStream::new(Arc::default(), Box::pin(call))
    }

    fn new(
        feed: Arc<Feed>,
        call: Pin<Box<dyn Future<Output = Result<ToolOutput>> + Send>>,
    ) -> Self {
        CallStream {
            feed,
            call: Some(call),
            last: None,
            done: false,
        }
    }
}

impl Stream for CallStream {
    type Item = CallEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<CallEvent>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        this.feed.waker.register(cx.waker());
        // Polled every time, so that deadlines fire while the consumer drains events.
        if let Some(call) = this.call.as_mut()
            && let Poll::Ready(result) = call.as_mut().poll(cx)
        {
            this.call = None;
            let seq = this.feed.close();
            this.last = Some(match result {
                Ok(output) => CallEvent::Result {
                    seq,
                    at: SystemTime::now(),
                    output,
                },
                Err(error) => CallEvent::Error {
                    seq,
                    at: SystemTime::now(),
                    error,
                },
            });
        }
        if let Some(event) = this.feed.pop() {
            return Poll::Ready(Some(event));
        }
        match this.last.take() {
            Some(last) => {
                this.done = true;
                Poll::Ready(Some(last))
            }
            None => Poll::Pending,
        }
    }
}

impl FusedStream for CallStream {
    fn is_terminated(&self) -> bool {
        self.done
    }
}

impl Session {
    /// Calls a tool as [`Session::call_with`] does, as a stream of [`CallEvent`]s: the call's
    /// progress updates and the server's log messages in arrival order, then exactly one
    /// [`CallEvent::Result`] (also for `isError: true`) or [`CallEvent::Error`] (the error
    /// `call_with` returns, e.g. [`Error::Timeout`]), after which the stream ends.
    ///
    /// A progress observer of `options` ([`CallOptions::on_progress`]) is still called.
    /// MCP log messages are not tied to a request: every call stream running on the session
    /// gets those that arrive while its call runs (they also reach `tracing` and
    /// [`ConnectOptions::on_server_log`](crate::ConnectOptions::on_server_log) as before).
    /// A log message the server sends just before the result may be handled after it, and
    /// is then not in the stream. See [`CallStream`] for cancellation and bounded memory.
    ///
    /// ```no_run
    /// # async fn demo(session: &mcp_bindgen::Session) {
    /// use futures::StreamExt;
    /// use mcp_bindgen::{CallEvent, CallOptions};
    ///
    /// let args = serde_json::json!({"steps": 3});
    /// let mut events = session.call_stream("long_task", &args, CallOptions::new());
    /// while let Some(event) = events.next().await {
    ///     match event {
    ///         CallEvent::Progress { progress, total, .. } => println!("{progress}/{total:?}"),
    ///         CallEvent::Log { level, data, .. } => println!("[{level}] {data}"),
    ///         CallEvent::Result { output, .. } => println!("done: {}", output.text()),
    ///         CallEvent::Error { error, .. } => eprintln!("failed: {error}"),
    ///         _ => {}
    ///     }
    /// }
    /// # }
    /// ```
    pub fn call_stream<A: Serialize + Sync + ?Sized>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
    ) -> CallStream {
        let feed = Arc::new(Feed::default());
        let call: Pin<Box<dyn Future<Output = Result<ToolOutput>> + Send>> =
            match self.encode_arguments(tool, &args) {
                Err(e) => Box::pin(std::future::ready(Err(e))),
                Ok(arguments) => {
                    let options = with_progress_feed(options, feed.clone());
                    let session = self.clone();
                    let tool = tool.to_string();
                    let logs = feed.clone();
                    Box::pin(async move {
                        // Log messages are taken while the call runs (until it returns).
                        let _tap = LogTaps::add(
                            &session.inner.wire.shared,
                            Arc::new(move |log: &ServerLog| {
                                logs.push(|seq| CallEvent::Log {
                                    seq,
                                    at: SystemTime::now(),
                                    level: log.level.clone(),
                                    logger: log.logger.clone(),
                                    data: log.data.clone(),
                                });
                            }),
                        );
                        session.call_with(&tool, &arguments, options).await
                    })
                }
            };
        CallStream::new(feed, call)
    }
}

/// `options` with a progress observer that queues every update on `feed` (after calling
/// the observer `options` already had).
fn with_progress_feed(mut options: CallOptions, feed: Arc<Feed>) -> CallOptions {
    let previous = options.on_progress.take();
    options.on_progress = Some(Arc::new(move |p: Progress| {
        if let Some(f) = &previous {
            f(p.clone());
        }
        feed.push(|seq| CallEvent::Progress {
            seq,
            at: SystemTime::now(),
            progress: p.progress,
            total: p.total,
            message: p.message,
        });
    }));
    options
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;

    fn progress(feed: &Feed, value: f64) {
        feed.push(|seq| CallEvent::Progress {
            seq,
            at: SystemTime::now(),
            progress: value,
            total: None,
            message: None,
        });
    }

    fn log(feed: &Feed, text: &str) {
        feed.push(|seq| CallEvent::Log {
            seq,
            at: SystemTime::now(),
            level: "info".into(),
            logger: None,
            data: Value::String(text.into()),
        });
    }

    fn output(text: &str) -> ToolOutput {
        ToolOutput {
            content: vec![crate::output::Content::Text { text: text.into() }],
            structured: None,
            is_error: false,
        }
    }

    /// Events queued before the call returned come first, then the one result; then `None`.
    #[tokio::test]
    async fn waiting_events_then_exactly_one_result() {
        let feed = Arc::new(Feed::default());
        progress(&feed, 1.0);
        log(&feed, "hello");
        progress(&feed, 2.0);
        let mut stream = CallStream::new(feed.clone(), Box::pin(async { Ok(output("ok")) }));
        let mut seen = Vec::new();
        while let Some(event) = stream.next().await {
            seen.push(event);
        }
        assert!(stream.is_terminated());
        assert!(stream.next().await.is_none());
        let seqs: Vec<u64> = seen.iter().map(CallEvent::seq).collect();
        assert_eq!(seqs, [0, 1, 2, 3]);
        assert!(matches!(seen[1], CallEvent::Log { .. }));
        assert_eq!(seen.iter().filter(|e| e.is_terminal()).count(), 1);
        let last = seen.pop().and_then(CallEvent::into_result);
        assert!(matches!(last, Some(Ok(o)) if o.text() == "ok"));
        // Nothing is taken after the call returned.
        progress(&feed, 3.0);
        assert!(feed.pop().is_none());
    }

    /// A failed call ends the stream with its error.
    #[tokio::test]
    async fn an_error_is_the_last_event() {
        let feed = Arc::new(Feed::default());
        let error = Error::Drift {
            server: "s".into(),
            summary: "changed".into(),
        };
        let mut stream = CallStream::new(feed, Box::pin(async { Err(error) }));
        let first = stream.next().await;
        assert!(
            matches!(first, Some(CallEvent::Error { seq: 0, .. })),
            "{first:?}"
        );
        assert!(stream.next().await.is_none());
    }

    /// A slow consumer loses the oldest progress updates first, then the oldest logs; the
    /// newest progress value and the arrival numbers are kept.
    #[test]
    fn a_full_queue_drops_old_progress_first() {
        let feed = Feed::default();
        log(&feed, "first");
        for i in 0..CallStream::CAPACITY {
            progress(&feed, i as f64);
        }
        let st = feed.state.lock().unwrap();
        assert_eq!(st.queue.len(), CallStream::CAPACITY);
        assert!(matches!(
            st.queue.front(),
            Some(CallEvent::Log { seq: 0, .. })
        ));
        assert!(matches!(
            st.queue.back(),
            Some(CallEvent::Progress { seq, progress, .. })
                if *seq == CallStream::CAPACITY as u64 && *progress == (CallStream::CAPACITY - 1) as f64
        ));
        assert!(matches!(
            st.queue.get(1),
            Some(CallEvent::Progress { seq: 2, .. })
        ));
        drop(st);
        let feed = Feed::default();
        for i in 0..=CallStream::CAPACITY {
            log(&feed, &i.to_string());
        }
        let st = feed.state.lock().unwrap();
        assert_eq!(st.queue.len(), CallStream::CAPACITY);
        assert_eq!(st.queue.front().map(CallEvent::seq), Some(1));
    }

    fn assert_send<T: Send + Unpin>(_: &T) {}

    /// The stream can be moved to another task.
    #[test]
    fn call_streams_are_send_and_unpin() {
        let stream = CallStream::new(
            Arc::new(Feed::default()),
            Box::pin(async { Ok(output("")) }),
        );
        assert_send(&stream);
    }
}
