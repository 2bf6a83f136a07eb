//! [`CallFuture`]: what a generated tool method returns.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::error::Result;

/// The pending result of one tool call made through generated code (a `Client` method or
/// a `Tools` method): `.await` it. It is `Send` when `T` is, and does nothing until it is
/// polled; dropping it cancels the call.
///
/// The call behind it is boxed: the runtime's call path (reconnect, deadlines, progress,
/// tasks) is then compiled and checked once for every tool, instead of once per argument
/// type as an `async fn` generic over the arguments would be. That is what keeps a crate
/// binding a server of a hundred tools quick to check; the box costs one allocation per
/// call.
///
/// On wasm32 (the `wasm` feature) it is not `Send`: the host's `fetch` futures are not.
#[must_use = "a tool call does nothing unless it is awaited"]
pub struct CallFuture<'a, T>(Boxed<'a, T>);

#[cfg(not(target_arch = "wasm32"))]
type Boxed<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;
#[cfg(target_arch = "wasm32")]
type Boxed<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + 'a>>;

impl<'a, T> CallFuture<'a, T> {
    /// Boxes `call`, e.g. to implement a method of a generated `Tools` trait by hand.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(call: impl Future<Output = Result<T>> + Send + 'a) -> Self {
        Self(Box::pin(call))
    }

    /// Boxes `call`, e.g. to implement a method of a generated `Tools` trait by hand.
    #[cfg(target_arch = "wasm32")]
    pub fn new(call: impl Future<Output = Result<T>> + 'a) -> Self {
        Self(Box::pin(call))
    }
}

impl<T> Future for CallFuture<'_, T> {
    type Output = Result<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        self.0.as_mut().poll(cx)
    }
}

impl<T> fmt::Debug for CallFuture<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CallFuture { .. }")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>(_: &T) {}

    #[tokio::test]
    async fn awaits_the_boxed_call() {
        let call = CallFuture::new(async { Ok(41 + 1) });
        assert_send(&call);
        assert_eq!(format!("{call:?}"), "CallFuture { .. }");
        assert_eq!(call.await.ok(), Some(42));
    }
}
