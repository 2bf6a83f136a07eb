//! Legacy HTTP+SSE: the configured headers (credentials, often) are sent only to the origin of
//! the configured url. A server whose `endpoint` event names another origin, or whose event
//! stream redirects to another origin, is refused, and the other origin never sees a
//! request. The misbehaving servers here are a few lines of HTTP over a socket: no real
//! server behaves this way on purpose, which is the point.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_bindgen::{ServerConfig, Session};

/// A listener on 127.0.0.1 that answers every request with `respond(request_head)` and counts
/// requests; the head of the last request is kept.
struct Stub {
    port: u16,
    requests: Arc<AtomicUsize>,
    last_head: Arc<Mutex<String>>,
}

fn stub(respond: impl Fn(&str) -> String + Send + 'static) -> Stub {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let requests = Arc::new(AtomicUsize::new(0));
    let last_head = Arc::new(Mutex::new(String::new()));
    let (count, head_slot) = (requests.clone(), last_head.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let head = read_head(&stream);
            count.fetch_add(1, Ordering::SeqCst);
            *head_slot.lock().expect("lock") = head.clone();
            let mut stream = stream;
            let _ = stream.write_all(respond(&head).as_bytes());
            let _ = stream.flush();
            // Keep event streams open a while, as an SSE server does.
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs(5));
                drop(stream);
            });
        }
    });
    Stub {
        port,
        requests,
        last_head,
    }
}

fn read_head(stream: &TcpStream) -> String {
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line == "\r\n" => break,
            Ok(_) => head.push_str(&line),
        }
    }
    head
}

fn sse_config(url: String) -> ServerConfig {
    ServerConfig::http("hostile", true, url)
        .with_env("Authorization", "Bearer top-secret-token-42")
        .with_connect_timeout(Duration::from_secs(5))
}

#[tokio::test]
async fn an_endpoint_on_another_origin_is_refused() {
    let elsewhere = stub(|_| "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n".into());
    let target = format!("http://127.0.0.1:{}/messages?sessionId=1", elsewhere.port);
    let server = stub(move |_| {
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\r\nevent: endpoint\ndata: {target}\n\n"
        )
    });
    let err = Session::connect(&sse_config(format!("http://127.0.0.1:{}/sse", server.port)))
        .await
        .expect_err("another origin");
    let text = err.to_string();
    assert!(text.contains("another origin"), "{text}");
    assert!(!text.contains("top-secret"), "{text}");
    // The event stream was asked for, with the credentials; the other origin never was.
    assert_eq!(server.requests.load(Ordering::SeqCst), 1);
    assert!(
        server
            .last_head
            .lock()
            .expect("lock")
            .to_ascii_lowercase()
            .contains("authorization: bearer top-secret-token-42")
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(elsewhere.requests.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed() {
    let elsewhere = stub(|_| {
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\nevent: endpoint\ndata: /messages\n\n"
            .into()
    });
    let location = format!("http://127.0.0.1:{}/sse", elsewhere.port);
    let server = stub(move |_| {
        format!(
            "HTTP/1.1 307 Temporary Redirect\r\nlocation: {location}\r\ncontent-length: 0\r\n\r\n"
        )
    });
    let err = Session::connect(&sse_config(format!("http://127.0.0.1:{}/sse", server.port)))
        .await
        .expect_err("redirect to another origin");
    let text = err.to_string();
    assert!(text.contains("307"), "{text}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(elsewhere.requests.load(Ordering::SeqCst), 0);
}

/// An `endpoint` event longer than `max_message_bytes` ends the connect with the limit's
/// name, not only "ended before its endpoint event".
#[tokio::test]
async fn an_endpoint_event_over_the_limit_names_the_limit() {
    let long = "x".repeat(4096);
    let server = stub(move |_| {
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\r\nevent: endpoint\ndata: /messages?pad={long}\n\n"
        )
    });
    let config = sse_config(format!("http://127.0.0.1:{}/sse", server.port))
        .with_limits(mcp_bindgen::Limits::default().with_max_message_bytes(1024));
    let err = Session::connect(&config)
        .await
        .expect_err("an event over the limit");
    let text = err.to_string();
    assert!(text.contains("before its `endpoint` event"), "{text}");
    assert!(text.contains("max_message_bytes"), "{text}");
}
