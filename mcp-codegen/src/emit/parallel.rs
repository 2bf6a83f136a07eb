//! The tools of a server are generated on every core: each tool's work (normalizer, typify,
//! rewrites, the parse of its types) is independent of the others'.
//!
//! Tokens do not cross threads (proc-macro2's are `!Send`): a worker returns its tool's code
//! as text, and the server module is put together as text. Inside `mcp_tools!` the
//! generator runs on proc-macro2's in-process tokens, which work on any thread; where they
//! would not (a caller in a proc macro that did not switch to them), the tools are generated
//! on the calling thread.

use std::num::NonZeroUsize;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::typify_driver::QuietPanics;

/// Most worker threads (a server has at most a few hundred tools).
const MAX_THREADS: usize = 16;
/// Stack of a worker: typify and `syn` recurse deeply on deep schemas, unoptimized.
const STACK: usize = 32 << 20;

/// `f` over `items` on up to one thread per core, results in order, while the calling
/// thread also runs `first` (before taking its share of `items`). A panic in `f`
/// propagates to the caller, as it would without threads.
pub(super) fn map<T: Sync, R: Send, H>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
    first: impl FnOnce() -> H,
) -> (Vec<R>, H) {
    let threads = std::thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .min(items.len())
        .min(MAX_THREADS);
    if threads < 2 || !tokens_work_on_other_threads() {
        let h = first();
        return (items.iter().map(f).collect(), h);
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            let result = f(item);
            *slots[i].lock().unwrap_or_else(PoisonError::into_inner) = Some(result);
        }
    };
    let h = std::thread::scope(|scope| {
        for _ in 1..threads {
            // A thread that cannot be started leaves its share to the others.
            let _ = std::thread::Builder::new()
                .stack_size(STACK)
                .spawn_scoped(scope, work);
        }
        let h = first();
        work();
        h
    });
    let results = slots
        .into_iter()
        .zip(items)
        .map(|(slot, item)| {
            match slot.into_inner().unwrap_or_else(PoisonError::into_inner) {
                Some(result) => result,
                // Not reached: every index was taken by a thread that finished.
                None => f(item),
            }
        })
        .collect();
    (results, h)
}

/// Whether proc-macro2's tokens can be built on a thread other than the caller's: always
/// outside a proc macro and with its in-process tokens; not with the compiler's.
fn tokens_work_on_other_threads() -> bool {
    let _quiet = QuietPanics::new();
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .spawn_scoped(scope, || {
                panic::catch_unwind(AssertUnwindSafe(|| {
                    proc_macro2::TokenStream::new().is_empty()
                }))
                .is_ok()
            })
            .is_ok_and(|h| h.join().unwrap_or(false))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_order_and_first_runs_once() {
        let items: Vec<usize> = (0..200).collect();
        let calls = AtomicUsize::new(0);
        let (out, first) = map(
            &items,
            |&i| {
                calls.fetch_add(1, Ordering::Relaxed);
                // Tokens are built on the worker threads, as the generator does.
                let t: proc_macro2::TokenStream = quote::quote!(const X: usize = #i;);
                t.to_string()
            },
            || "first",
        );
        assert_eq!(first, "first");
        assert_eq!(calls.load(Ordering::Relaxed), 200);
        for (i, text) in out.iter().enumerate() {
            assert_eq!(text, &format!("const X : usize = {i}usize ;"));
        }
        assert!(tokens_work_on_other_threads());
    }

    #[test]
    fn a_panic_in_a_worker_reaches_the_caller() {
        let items: Vec<usize> = (0..50).collect();
        let caught = panic::catch_unwind(|| {
            let _quiet = QuietPanics::new();
            map(&items, |&i| assert!(i != 37, "tool 37"), || ())
        });
        assert!(caught.is_err());
    }
}
