//! Without its optional features the CLI names the feature a command needs, and how to add
//! it, before doing any work. (`cargo test --workspace` builds the CLI with every feature, so
//! these run in `cargo test -p mcp-bindgen-cli`, the crate's default build.)

#[cfg(any(not(feature = "verify-deep"), not(feature = "tokens")))]
use crate::common::{NEVER_STARTED, memory_fixture_dir, run_with_registry};

#[cfg(not(feature = "verify-deep"))]
#[test]
fn verify_deep_names_its_feature() {
    let dir = memory_fixture_dir();
    let run = run_with_registry(dir.path(), NEVER_STARTED, &["verify", "--deep"], &[]);
    assert_eq!(run.code, Some(1), "{}", run.text());
    assert!(
        run.stderr
            .contains("`cargo install mcp-bindgen-cli --features verify-deep`"),
        "{}",
        run.stderr
    );
    // Nothing ran before the message: no summary line of the plain `verify`.
    assert!(!run.stdout.contains("tools:"), "{}", run.stdout);
    // Plain `verify` works in this build.
    let plain = run_with_registry(dir.path(), NEVER_STARTED, &["verify"], &[]);
    assert_eq!(plain.code, Some(0), "{}", plain.text());
    // Nor a line per fixture saying its tokens were not counted, without `tokens`.
    #[cfg(not(feature = "tokens"))]
    assert!(!plain.text().contains("not counted"), "{}", plain.text());
}

#[cfg(not(feature = "tokens"))]
#[test]
fn tools_tokens_names_its_feature() {
    let dir = memory_fixture_dir();
    let run = run_with_registry(dir.path(), NEVER_STARTED, &["tools", "--tokens"], &[]);
    assert_eq!(run.code, Some(1), "{}", run.text());
    assert!(
        run.stderr
            .contains("`cargo install mcp-bindgen-cli --features tokens`"),
        "{}",
        run.stderr
    );
}
