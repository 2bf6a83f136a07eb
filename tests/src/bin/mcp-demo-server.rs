//! `mcp-demo-server`: the embedded demo/fault MCP server (see [`mcp_bindgen_tests::demo`]).

use std::process::ExitCode;

use mcp_bindgen_tests::demo::{self, Command, Options};

fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(Command::Serve(options)) => *options,
        Ok(Command::Help) => {
            print!("{}", demo::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(Command::Version) => {
            println!("{} {}", demo::SERVER_NAME, demo::SERVER_VERSION);
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            eprintln!("{}: {error}\n\n{}", demo::SERVER_NAME, demo::USAGE);
            return ExitCode::from(2);
        }
    };
    // Logs of rmcp itself (tracing) go to stderr; stdout belongs to the protocol.
    let filter = tracing_subscriber::EnvFilter::try_from_env("MCP_DEMO_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();

    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!(
                "{}: cannot start the tokio runtime: {error}",
                demo::SERVER_NAME
            );
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(demo::run(options));
    // A blocking stdin read may still be parked on tokio's blocking pool; do not wait for it.
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{}: {error}", demo::SERVER_NAME);
            ExitCode::FAILURE
        }
    }
}
