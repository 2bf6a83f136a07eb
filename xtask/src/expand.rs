//! `cargo xtask expand` (placeholder until the codegen work lands; owned by the codegen engineer).

/// Entry point.
pub fn run(_args: &[String]) -> std::process::ExitCode {
    eprintln!("expand: not available yet");
    std::process::ExitCode::FAILURE
}
