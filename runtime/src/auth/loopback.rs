//! The interactive [`Authorizer`]: a redirect listener on `127.0.0.1`, the URL printed, a
//! browser opened when the machine has one.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::authorizer::{AuthorizeFuture, Authorizer};

/// How long a login waits for the browser's redirect.
const WAIT: Duration = Duration::from_secs(300);

/// The interactive authorizer of `login`: listens on `http://127.0.0.1:PORT/callback`
/// (the registry's `redirect_port`, or any free port), prints the authorization URL on
/// stderr, opens it in a browser when one is available, and waits (five minutes at most)
/// for the redirect.
pub struct LoopbackAuthorizer {
    listener: tokio::sync::Mutex<TcpListener>,
    port: u16,
    open_browser: bool,
}

impl std::fmt::Debug for LoopbackAuthorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackAuthorizer")
            .field("port", &self.port)
            .field("open_browser", &self.open_browser)
            .finish()
    }
}

impl LoopbackAuthorizer {
    /// Binds the redirect listener (`port` 0 or `None`: any free port).
    pub async fn bind(port: Option<u16>) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port.unwrap_or(0))).await?;
        let port = listener.local_addr()?.port();
        Ok(LoopbackAuthorizer {
            listener: tokio::sync::Mutex::new(listener),
            port,
            open_browser: true,
        })
    }

    /// Whether to try to open a browser (default true; there is none without a display).
    pub fn open_browser(mut self, open: bool) -> Self {
        self.open_browser = open;
        self
    }

    /// The port the listener is bound to.
    pub fn port(&self) -> u16 {
        self.port
    }
}

impl Authorizer for LoopbackAuthorizer {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn authorize<'a>(&'a self, url: &'a str) -> AuthorizeFuture<'a> {
        Box::pin(async move {
            eprintln!("Open this URL in a browser to log in:\n\n  {url}\n");
            if self.open_browser {
                open_browser(url);
            }
            let listener = self.listener.lock().await;
            tokio::time::timeout(WAIT, accept_redirect(&listener, self.port))
                .await
                .map_err(|_| {
                    format!(
                        "no redirect reached http://127.0.0.1:{}/callback within {} s",
                        self.port,
                        WAIT.as_secs()
                    )
                })?
        })
    }
}

/// Waits for `GET /callback?…`; answers every request, returns the full redirect URL.
async fn accept_redirect(listener: &TcpListener, port: u16) -> Result<String, String> {
    loop {
        let (mut stream, _) = listener
            .accept()
            .await
            .map_err(|e| format!("the redirect listener failed: {e}"))?;
        let mut buf = vec![0u8; 8192];
        let mut len = 0;
        // The request line and headers; the body (there is none) is not read.
        while len < buf.len() {
            match stream.read(&mut buf[len..]).await {
                Ok(0) | Err(_) => break,
                Ok(n) => len += n,
            }
            if buf[..len].windows(4).any(|w| w == b"\r\n\r\n") {
                break;
            }
        }
        let head = String::from_utf8_lossy(&buf[..len]);
        let target = head
            .lines()
            .next()
            .and_then(|line| line.strip_prefix("GET "))
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or("");
        let is_callback = target.starts_with("/callback?");
        let body = if is_callback {
            "<!doctype html><title>mcp-bindgen</title><p>Login received. You can close this window and return to the terminal.</p>"
        } else {
            "<!doctype html><title>mcp-bindgen</title><p>Waiting for the authorization redirect.</p>"
        };
        let status = if is_callback {
            "200 OK"
        } else {
            "404 Not Found"
        };
        let response = format!(
            "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
        if is_callback {
            return Ok(format!("http://127.0.0.1:{port}{target}"));
        }
    }
}

/// Opens `url` with the platform's opener when a desktop is likely; failures are ignored
/// (the URL is printed).
fn open_browser(url: &str) {
    let has_display = cfg!(any(target_os = "macos", windows))
        || std::env::var_os("DISPLAY").is_some()
        || std::env::var_os("WAYLAND_DISPLAY").is_some();
    if !has_display {
        return;
    }
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut c = std::process::Command::new("rundll32");
        c.arg("url.dll,FileProtocolHandler");
        c
    } else {
        std::process::Command::new("xdg-open")
    };
    let _ = command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

/// An authorizer for authorization servers that approve without showing a page — test
/// harnesses such as the MCP conformance suite's, the demo server's `--oauth` mode, CI
/// identity providers configured to auto-approve: it requests the authorization URL without
/// following redirects and returns the `Location` it answers with. Against a real login
/// page it fails, naming the status it got.
#[derive(Debug, Clone)]
pub struct HeadlessAuthorizer {
    redirect_uri: String,
}

impl HeadlessAuthorizer {
    /// Registers and sends `redirect_uri` (nothing listens there: the redirect is read,
    /// not followed).
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        HeadlessAuthorizer {
            redirect_uri: redirect_uri.into(),
        }
    }
}

impl Authorizer for HeadlessAuthorizer {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(&'a self, url: &'a str) -> AuthorizeFuture<'a> {
        Box::pin(async move {
            let client = crate::transport::client_builder(&[])?
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
            let response = client
                .get(url)
                .send()
                .await
                .map_err(|e| format!("the authorization endpoint failed: {e}"))?;
            response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
                .ok_or_else(|| {
                    format!(
                        "the authorization endpoint answered {} without a redirect (it wants a person: use `login`)",
                        response.status()
                    )
                })
        })
    }
}
