//! Broken and hostile servers: the demo server's `--misbehave` modes answer `tools/list` as
//! a broken server would, and the error says what the server did — at once where it can,
//! never a bare time-out.

use crate::common;

use std::time::{Duration, Instant};

use common::limited;
use mcp_bindgen::{ServerConfig, Session};

/// The demo server misbehaving in `mode`, over stdio, with a short request deadline.
fn stdio(mode: &str) -> ServerConfig {
    ServerConfig::stdio(
        "broken",
        common::demo_server().to_string_lossy(),
        vec!["--misbehave".into(), mode.into()],
    )
    .with_timeout(Duration::from_secs(2))
}

/// The error of listing the tools of `config`, and how long it took.
async fn listing_error(config: &ServerConfig) -> (String, Duration) {
    let session = Session::connect(config).await.expect("connect");
    let started = Instant::now();
    let e = session
        .list_tools()
        .await
        .expect_err("a broken tools/list is an error");
    let _ = session.close().await;
    (e.to_string(), started.elapsed())
}

#[tokio::test]
async fn a_pagination_cycle_stops_at_the_repeated_cursor_on_every_transport() {
    limited(async {
        let (_guard, url) = common::start_demo_http_with(&["--misbehave", "cursor-cycle"]);
        let over_http =
            ServerConfig::http("broken", false, url).with_timeout(Duration::from_secs(2));
        for config in [stdio("cursor-cycle"), over_http] {
            let (text, took) = listing_error(&config).await;
            assert!(
                text.contains("server returned cursor \"page-2\" twice: pagination cycle"),
                "{text}"
            );
            assert!(took < Duration::from_secs(2), "not at once: {took:?}");
        }
    })
    .await;
}

#[tokio::test]
async fn an_answer_that_is_not_utf8_is_quoted_with_the_reason() {
    limited(async {
        let (text, _) = listing_error(&stdio("bad-utf8")).await;
        assert!(text.contains("tools/list timed out"), "{text}");
        assert!(
            text.contains("not JSON-RPC and was skipped") && text.contains("invalid UTF-8 at byte"),
            "{text}"
        );
    })
    .await;
}

#[tokio::test]
async fn an_answer_to_an_unknown_id_is_named_in_the_time_out() {
    limited(async {
        let (logs, _logging) = common::capture_logs(tracing::Level::WARN);
        let (text, _) = listing_error(&stdio("unknown-id")).await;
        assert!(
            text.contains(
                "the server answered request id 424242, which no request of this session had"
            ),
            "{text}"
        );
        assert!(
            logs.text().contains("id=424242"),
            "not logged at warn: {}",
            logs.text()
        );
    })
    .await;
}

#[tokio::test]
async fn an_answer_nested_too_deep_is_named_for_it() {
    limited(async {
        let (text, _) = listing_error(&stdio("deep")).await;
        assert!(
            text.contains("nested deeper than 128 levels, the JSON parser's limit"),
            "{text}"
        );
    })
    .await;
}
