//! `cargo xtask verify` (placeholder until the codegen work lands; owned by the codegen engineer).

/// Entry point.
pub fn run(_args: &[String]) -> std::process::ExitCode {
    eprintln!("verify: not available yet");
    std::process::ExitCode::FAILURE
}
