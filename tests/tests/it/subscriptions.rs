//! Resource subscriptions (`Session::subscribe`): the demo server's notes over stdio and
//! Streamable HTTP on both revisions (`resources/subscribe` on 2025-11-25, a
//! `subscriptions/listen` request on 2026-07-28), server-everything's simulated updates
//! over stdio and Streamable HTTP; an update re-reads the resource, dropping the last
//! subscriber unsubscribes, a reconnection subscribes again, and a server without
//! subscriptions is a clear error.

use std::time::{Duration, Instant};

use mcp_bindgen::{Protocol, ResourceContents, ResourceUpdates, ServerConfig, Session};
use serde_json::json;

use crate::common::{self, connect, limited};

/// The longest wait for an update that was just caused.
const UPDATE_WAIT: Duration = Duration::from_secs(15);

async fn next(updates: &mut ResourceUpdates, what: &str) -> ResourceContents {
    tokio::time::timeout(UPDATE_WAIT, updates.next())
        .await
        .unwrap_or_else(|_| panic!("{what}: no update within {UPDATE_WAIT:?}"))
        .unwrap_or_else(|| panic!("{what}: the updates ended"))
        .unwrap_or_else(|e| panic!("{what}: {e}"))
}

async fn append(session: &Session, topic: &str, line: &str) -> String {
    session
        .call("append_note", &json!({"topic": topic, "line": line}))
        .await
        .expect("append_note")
        .text()
}

/// Appends lines to a note until the server says it told nobody (unsubscribing is sent
/// after the drop returns); panics after a while.
async fn until_nobody_is_told(session: &Session, topic: &str, what: &str) {
    let deadline = Instant::now() + UPDATE_WAIT;
    loop {
        let answer = append(session, topic, "unheard").await;
        if answer == "appended; told 0 subscriber(s)" {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: still subscribed after the last drop: {answer}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One subscription's life on the demo server: the first item is the note as it is, an
/// append is one update, two subscribers are both told, the last drop unsubscribes.
async fn demo_subscription(session: &Session, topic: &str, what: &str) {
    let uri = format!("demo://notes/{topic}");
    let mut updates = session
        .subscribe(&uri)
        .await
        .unwrap_or_else(|e| panic!("{what}: subscribe: {e}"));
    assert_eq!(updates.uri(), uri);
    let first = next(&mut updates, what).await;
    assert_eq!(first.text(), Some(format!("{topic}: line 1")), "{what}");

    assert_eq!(
        append(session, topic, "milk").await,
        "appended; told 1 subscriber(s)",
        "{what}"
    );
    let second = next(&mut updates, what).await;
    assert_eq!(
        second.text(),
        Some(format!("{topic}: line 1\nmilk")),
        "{what}"
    );

    // A second subscriber of the same URI: one server subscription, both woken.
    let mut other = session
        .subscribe(&uri)
        .await
        .unwrap_or_else(|e| panic!("{what}: second subscribe: {e}"));
    let _ = next(&mut other, what).await;
    let answer = append(session, topic, "eggs").await;
    assert!(answer.starts_with("appended; told "), "{what}: {answer}");
    let expected = Some(format!("{topic}: line 1\nmilk\neggs"));
    assert_eq!(next(&mut updates, what).await.text(), expected, "{what}");
    assert_eq!(next(&mut other, what).await.text(), expected, "{what}");

    // Dropping one keeps the other subscribed.
    drop(other);
    assert_ne!(
        append(session, topic, "bread").await,
        "appended; told 0 subscriber(s)",
        "{what}: dropping one of two subscribers unsubscribed the other"
    );
    let third = next(&mut updates, what).await;
    assert!(third.text().is_some_and(|t| t.ends_with("bread")), "{what}");

    drop(updates);
    until_nobody_is_told(session, topic, what).await;
}

fn demo_faults(alias: &str) -> ServerConfig {
    ServerConfig::stdio(
        alias,
        common::demo_server().to_string_lossy().into_owned(),
        vec!["--faults".into()],
    )
    .with_timeout(Duration::from_secs(20))
}

#[tokio::test]
async fn demo_subscriptions_over_stdio_on_both_revisions() {
    limited(async {
        for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
            let what = format!("stdio at {protocol:?}");
            let session = connect(&demo_faults("demo").with_protocol(protocol)).await;
            demo_subscription(&session, "groceries", &what).await;
            session.close().await.expect("close");
        }
    })
    .await;
}

#[tokio::test]
async fn demo_subscriptions_over_streamable_http_on_both_revisions() {
    limited(async {
        let (_guard, url) = common::start_demo_http_with(&["--faults"]);
        for (i, protocol) in [Protocol::V2025_11_25, Protocol::V2026_07_28]
            .into_iter()
            .enumerate()
        {
            let what = format!("Streamable HTTP at {protocol:?}");
            let config = ServerConfig::http("demo", false, url.clone()).with_protocol(protocol);
            let session = connect(&config).await;
            // One server process for both: a topic of its own each.
            demo_subscription(&session, &format!("chores-{i}"), &what).await;
            session.close().await.expect("close");
        }
    })
    .await;
}

/// The server crashes: the waiting stream connects again, subscribes again on the new
/// process and reads the resource there; the new process's updates reach it.
#[tokio::test]
async fn a_reconnection_subscribes_again_on_both_revisions() {
    limited(async {
        for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
            let what = format!("stdio at {protocol:?}");
            let session = connect(&demo_faults("demo").with_protocol(protocol)).await;
            let mut updates = session
                .subscribe("demo://notes/plans")
                .await
                .expect("subscribe");
            let _ = next(&mut updates, &what).await;
            assert_eq!(
                append(&session, "plans", "before the crash").await,
                "appended; told 1 subscriber(s)"
            );
            assert_eq!(
                next(&mut updates, &what).await.text().as_deref(),
                Some("plans: line 1\nbefore the crash")
            );
            let crashed = session.call("crash", &json!({})).await;
            assert!(crashed.is_err(), "{what}: the crash call answered");
            // Read again on the new process, whose note has only its first line.
            assert_eq!(
                next(&mut updates, &what).await.text().as_deref(),
                Some("plans: line 1"),
                "{what}"
            );
            assert_eq!(
                append(&session, "plans", "after").await,
                "appended; told 1 subscriber(s)",
                "{what}: the new process has no subscription"
            );
            assert_eq!(
                next(&mut updates, &what).await.text().as_deref(),
                Some("plans: line 1\nafter"),
                "{what}"
            );
            session.close().await.expect("close");
            // Closed: the stream ends.
            let end = tokio::time::timeout(UPDATE_WAIT, updates.next()).await;
            assert!(matches!(end, Ok(None)), "{what}: {end:?}");
        }
    })
    .await;
}

/// server-everything sends an update at once, then every 5 s, for each URI a session
/// subscribed to, once its tool `toggle-subscriber-updates` was called.
async fn everything_subscription(session: Session, what: &str) {
    let uri = "demo://resource/dynamic/text/1";
    let mut updates = session
        .subscribe(uri)
        .await
        .unwrap_or_else(|e| panic!("{what}: subscribe: {e}"));
    let first = next(&mut updates, what).await;
    let text = first.text().unwrap_or_default();
    assert!(text.starts_with("Resource 1:"), "{what}: {text}");
    let toggled = session
        .call("toggle-subscriber-updates", &json!({}))
        .await
        .expect("toggle-subscriber-updates")
        .text();
    assert!(toggled.starts_with("Started"), "{what}: {toggled}");
    // Read again: the same resource (its text says when it was made, so it may differ).
    let updated = next(&mut updates, what).await;
    let again = updated.text().unwrap_or_default();
    assert!(again.starts_with("Resource 1:"), "{what}: {again}");
    let stopped = session
        .call("toggle-subscriber-updates", &json!({}))
        .await
        .expect("toggle-subscriber-updates")
        .text();
    assert!(stopped.starts_with("Stopped"), "{what}: {stopped}");
    drop(updates);
    session.close().await.expect("close");
}

#[tokio::test]
async fn everything_subscriptions_over_stdio() {
    limited(async {
        let session = connect(&common::installed("everything")).await;
        everything_subscription(session, "everything over stdio").await;
    })
    .await;
}

#[tokio::test]
async fn everything_subscriptions_over_streamable_http() {
    limited(async {
        let (_guard, port) = common::start_everything_http("streamableHttp");
        let session = connect(&common::everything_http(port)).await;
        everything_subscription(session, "everything over Streamable HTTP").await;
    })
    .await;
}

/// A server whose `resources` capability has no `subscribe` (sequential-thinking declares
/// no `resources` at all): an error that says so, before anything is sent.
#[tokio::test]
async fn a_server_without_subscriptions_is_a_clear_error() {
    limited(async {
        let session = connect(&common::installed("sequential-thinking")).await;
        let e = session
            .subscribe("thinking://x")
            .await
            .expect_err("sequential-thinking offers no subscriptions");
        let text = e.to_string();
        assert!(
            text.contains("\"sequential-thinking\"")
                && text.contains("does not offer resource subscriptions"),
            "{text}"
        );
    })
    .await;
}
