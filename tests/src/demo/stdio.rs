//! Serving over stdin/stdout.

use std::io;

use rmcp::{
    ServiceExt,
    transport::{stdio, stdio_pipes},
};
use tokio::io::{AsyncRead, AsyncWrite};

use super::{
    Options,
    garbage::{GarbageQueue, GarbageWriter},
    server::{DemoConfig, DemoServer, log},
};

/// Serves one session on stdin/stdout until stdin closes or `--exit-after` triggers.
pub(super) async fn serve(options: &Options) -> io::Result<()> {
    let queue = GarbageQueue::default();
    let server = DemoServer::new(DemoConfig {
        faults: options.faults,
        exit_after: options.exit_after,
        protocol: options.protocol,
        misbehave: options.misbehave,
        page_size: options.page_size,
        rug_pull: options.rug_pull,
        rug_pull_after: options.rug_pull_after,
        task_poll_ms: options.task_poll_ms,
        garbage: Some(queue.clone()),
    });
    if options.misbehave == Some(super::Misbehave::ExitOnDiscover) {
        use tokio::io::{AsyncBufReadExt, AsyncReadExt};
        let (read, write) = stdio();
        let mut reader = tokio::io::BufReader::new(read);
        let mut first = Vec::new();
        reader.read_until(b'\n', &mut first).await?;
        if String::from_utf8_lossy(&first).contains("\"server/discover\"") {
            log(format_args!(
                "server/discover: not a message this server knows; exiting"
            ));
            std::process::exit(0);
        }
        let read = std::io::Cursor::new(first).chain(reader);
        return serve_on(server, read, GarbageWriter::new(write, queue)).await;
    }
    if options.pipes {
        let (read, write) = stdio_pipes();
        serve_on(server, read, GarbageWriter::new(write, queue)).await
    } else {
        let (read, write) = stdio();
        serve_on(server, read, GarbageWriter::new(write, queue)).await
    }
}

async fn serve_on<R, W>(server: DemoServer, read: R, write: W) -> io::Result<()>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let exit = server.clone();
    let running = server
        .serve((read, write))
        .await
        .map_err(|error| io::Error::other(format!("initialization failed: {error}")))?;
    let token = running.cancellation_token();
    // `--exit-after`: cancelling the service still drains the answers already produced.
    let exit_watch = tokio::spawn(async move {
        exit.exit_requested().await;
        token.cancel();
    });
    let reason = running.waiting().await.map_err(io::Error::other)?;
    exit_watch.abort();
    log(format_args!("stdio session ended: {reason:?}"));
    Ok(())
}
