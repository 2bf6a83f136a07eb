//! `cargo-mcp-bindgen`: `cargo install mcp-bindgen-cli` puts it on `PATH`, and cargo runs it
//! as `cargo mcp-bindgen …`.

fn main() -> std::process::ExitCode {
    mcp_bindgen_cli::main()
}
