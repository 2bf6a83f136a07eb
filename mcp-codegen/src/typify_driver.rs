//! The only module that calls typify 0.8.
//!
//! One [`TypeSpace`](typify::TypeSpace) per tool schema (input and output get their own, the
//! output one is emitted in a nested module), so `$defs` names of different tools and of a
//! tool's input and output never meet. typify panics on several inputs (unions of
//! `$ref`s with `null`, reference cycles without an object between them, …); every call
//! runs inside [`std::panic::catch_unwind`] with its panics kept out of the panic hook (other
//! threads' panics still reach it), and a panic or error becomes a human-readable reason
//! that the caller turns into a per-tool fallback.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex, PoisonError};

use proc_macro2::TokenStream;
use serde_json::Value;
use typify::{TypeSpace, TypeSpaceImpl, TypeSpaceSettings};

type Hook = Box<dyn Fn(&panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

thread_local! {
    /// Set on a thread while [`guarded`] runs its closure: that thread's panics are caught
    /// and become fallback reasons, so they print nothing.
    static CATCHING: Cell<bool> = const { Cell::new(false) };
}

/// How many [`QuietPanics`] are alive, and the hook they replaced.
struct Silencer {
    depth: usize,
    previous: Option<Arc<Hook>>,
}

static SILENCER: Mutex<Silencer> = Mutex::new(Silencer {
    depth: 0,
    previous: None,
});

/// While one is alive, the process's panic hook stays quiet for panics [`guarded`] catches
/// (on any thread: tools are generated in parallel) and hands every other panic to the
/// hook it replaced; the last one dropped puts that hook back.
pub(crate) struct QuietPanics(());

impl QuietPanics {
    pub(crate) fn new() -> Self {
        let mut s = SILENCER.lock().unwrap_or_else(PoisonError::into_inner);
        if s.depth == 0 {
            let previous: Arc<Hook> = Arc::new(panic::take_hook());
            let forward = Arc::clone(&previous);
            panic::set_hook(Box::new(move |info| {
                if !CATCHING.with(Cell::get) {
                    forward(info);
                }
            }));
            s.previous = Some(previous);
        }
        s.depth += 1;
        QuietPanics(())
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        let mut s = SILENCER.lock().unwrap_or_else(PoisonError::into_inner);
        s.depth = s.depth.saturating_sub(1);
        // The hook cannot be changed while this thread unwinds; the forwarding hook then
        // stays (it hands on every panic it does not own) and the next one wraps it.
        if s.depth > 0 || std::thread::panicking() {
            return;
        }
        drop(panic::take_hook());
        if let Some(previous) = s.previous.take() {
            match Arc::try_unwrap(previous) {
                Ok(hook) => panic::set_hook(hook),
                Err(shared) => panic::set_hook(Box::new(move |info| shared(info))),
            }
        }
    }
}

/// Runs `f`, turning a panic into `Err(message)`; the panic prints nothing (so a typify
/// panic does not put a backtrace into the user's build log).
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    let _quiet = QuietPanics::new();
    let was = CATCHING.with(|c| c.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(was));
    result.map_err(|payload| {
        if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "unknown panic".to_string()
        }
    })
}

/// One schema ready for typify: the root (added under the forced name `root_name`) and its
/// definitions, keyed by the exact type names typify must use.
pub(crate) struct TypifyInput<'a> {
    /// Forced name of the root type (`Args` or `Output`).
    pub root_name: &'a str,
    /// The root schema; `$ref`s point to `#/$defs/<key of defs>`.
    pub root: &'a Value,
    /// Definitions (already PascalCase, unique, not equal to `root_name`).
    pub defs: &'a BTreeMap<String, Value>,
    /// Definitions replaced by a Rust type path (the `types` option), def name → path.
    pub replacements: &'a BTreeMap<String, String>,
}

/// Converts one schema with typify; `Err` holds the reason (typify error or panic message).
pub(crate) fn typify(input: &TypifyInput<'_>) -> Result<TokenStream, String> {
    let root = to_schema(input.root).map_err(|e| format!("schema not understood: {e}"))?;
    let mut defs = Vec::with_capacity(input.defs.len() + 1);
    for (name, def) in input.defs {
        let schema =
            to_schema(def).map_err(|e| format!("schema of $defs {name:?} not understood: {e}"))?;
        defs.push((name.clone(), schema));
    }
    defs.push((input.root_name.to_string(), root));

    let mut settings = TypeSpaceSettings::default();
    settings
        .with_struct_builder(false)
        .with_derive("PartialEq".to_string())
        .with_map_type(typify::MapType::new("::std::collections::BTreeMap"));
    for (name, path) in input.replacements {
        settings.with_replacement(name, path, [TypeSpaceImpl::Display].into_iter().take(0));
    }

    let outcome = guarded(move || -> Result<TokenStream, String> {
        let mut space = TypeSpace::new(&settings);
        space
            .add_ref_types(defs)
            .map_err(|e| format!("typify: {e}"))?;
        Ok(space.to_stream())
    });
    match outcome {
        Ok(result) => result.map_err(|e| shorten(&e)),
        Err(panic) => Err(shorten(&format!("typify 0.8 panicked: {}", panic.trim()))),
    }
}

/// Longest fallback reason kept (typify embeds whole `{:#?}` schema dumps in some errors;
/// the reason ends up in a compile-time warning and a constant).
const MAX_REASON: usize = 300;

/// The reason on one line, cut at [`MAX_REASON`] characters with a note.
fn shorten(reason: &str) -> String {
    let one_line = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(MAX_REASON) {
        None => one_line,
        Some((cut, _)) => format!(
            "{}… ({} more characters; the `verify` command prints the tool)",
            &one_line[..cut],
            one_line[cut..].chars().count()
        ),
    }
}

fn to_schema(value: &Value) -> Result<schemars::schema::Schema, serde_json::Error> {
    serde_json::from_value(value.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_reasons_are_cut_to_one_line() {
        assert_eq!(shorten("short\n  reason"), "short reason");
        let long = format!("typify: unhandled array validation {}", "x ".repeat(2000));
        let cut = shorten(&long);
        assert!(cut.chars().count() < MAX_REASON + 80, "{cut}");
        assert!(cut.contains("more characters"), "{cut}");
    }

    #[test]
    fn panics_become_errors_and_the_hook_is_restored() {
        let r: Result<(), String> = guarded(|| panic!("boom {}", 1));
        assert_eq!(r.unwrap_err(), "boom 1");
        let r: Result<(), String> = guarded(|| panic!("static"));
        assert_eq!(r.unwrap_err(), "static");
        assert_eq!(guarded(|| 5).unwrap(), 5);
    }

    #[test]
    fn typify_panic_on_colliding_variants_is_caught() {
        let root = serde_json::json!({"type": "string", "enum": ["a-+1", "a--1"]});
        let defs = BTreeMap::new();
        let repl = BTreeMap::new();
        let err = typify(&TypifyInput {
            root_name: "Args",
            root: &root,
            defs: &defs,
            replacements: &repl,
        })
        .unwrap_err();
        assert!(err.contains("unique variant names"), "{err}");
    }
}
