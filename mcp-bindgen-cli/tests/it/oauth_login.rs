//! OAuth through the doors users use, against the demo server's OAuth mode (an
//! OAuth-protected resource with its own authorization server on the same origin; it
//! refuses a token request without the client secret or the RFC 8707 `resource`):
//!
//! - `cargo-mcp-bindgen login` in a project outside this repository: the authorization URL
//!   on stderr, the browser's part played by following it, the tokens in an owner-only
//!   file; then `snapshot`, `call`, a refresh after the token's margin, client credentials
//!   with a secret from the environment, `logout`, and the error that names the login;
//! - the runtime API: sessions sharing a token file refresh it once, and nothing secret
//!   reaches a fixture, an error or a `Debug` print.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use mcp_bindgen::auth::HeadlessAuthorizer;
use mcp_bindgen::{AuthConfig, ClientCredentialsSettings, OAuthSettings};
use mcp_bindgen::{ConnectOptions, ErrorKind, ServerConfig};
use serde_json::{Value, json};

use crate::common;
use common::demo_server;

/// Access tokens live 12 s: rmcp (3.11) refreshes when less than min(30 s, half the
/// lifetime) is left, counting whole seconds since the token was received: fresh for 6 s at
/// least, so steps under load do not refresh early, and refreshed first by every request
/// after 7.5 s.
const TTL: &str = "12";
const FRESH_FOR: Duration = Duration::from_millis(7500);
const MACHINE_SECRET: &str = "machine-secret-0a9f";

struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start() -> Server {
        Server::start_with(0, TTL)
    }

    fn start_with(port: u16, ttl: &str) -> Server {
        let mut child = Command::new(demo_server())
            .args([
                "--transport",
                "http",
                "--port",
                &port.to_string(),
                "--oauth",
            ])
            .args(["--oauth-token-ttl", ttl])
            // A slow refresh: clients sharing a login would refresh twice without a lock.
            .args(["--oauth-refresh-delay-ms", "400"])
            .args(["--oauth-client", &format!("machine:{MACHINE_SECRET}")])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the demo server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("listening line");
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .expect("listening on …")
            .to_string();
        Server { child, url }
    }

    fn origin(&self) -> &str {
        self.url.trim_end_matches("/mcp")
    }

    async fn stats(&self) -> Value {
        let text = reqwest::get(format!("{}/oauth/stats", self.origin()))
            .await
            .expect("stats")
            .text()
            .await
            .expect("stats body");
        serde_json::from_str(&text).expect("stats JSON")
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio")
}

/// Runs `cargo-mcp-bindgen` in `project` with the token store in `tokens`.
fn cli(project: &Path, tokens: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-bindgen"))
        .args(args)
        .current_dir(project)
        .env("MCP_BINDGEN_TOKEN_DIR", tokens)
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .output()
        .expect("run cargo-mcp-bindgen");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

fn project(server: &Server) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("fixtures")).expect("fixtures dir");
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"user\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    )
    .expect("Cargo.toml");
    let registry = format!(
        "[servers.remote]\nurl = \"{url}\"\nauth = \"oauth\"\n\n\
         [servers.machine]\nurl = \"{url}\"\n\
         auth = {{ client_credentials = {{ client_id = \"machine\", client_secret = \"${{MACHINE_SECRET}}\" }} }}\n",
        url = server.url
    );
    std::fs::write(dir.path().join("fixtures/servers.toml"), registry).expect("registry");
    dir
}

/// The one file in the token directory.
fn token_file(tokens: &Path) -> PathBuf {
    // Besides the token file, only its lock file (`<file>.lock`) may be there.
    let files: Vec<PathBuf> = std::fs::read_dir(tokens)
        .expect("token dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_none_or(|e| e != "lock"))
        .collect();
    assert_eq!(files.len(), 1, "one token file: {files:?}");
    files[0].clone()
}

#[test]
fn login_snapshot_call_refresh_logout_through_the_cli() {
    let server = Server::start();
    let project = project(&server);
    let tokens = tempfile::tempdir().expect("tokens");
    let tokens = tokens.path().join("tokens");
    let rt = runtime();

    // Before any login: a clear error naming the command, for every door.
    let (code, text) = cli(
        project.path(),
        &tokens,
        &["call", "remote", "add", r#"{"a":1,"b":2}"#],
        &[],
    );
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("login remote"), "{text}");
    assert!(text.contains("none is stored"), "{text}");

    // The login: the URL on stderr, followed as a browser would (to the loopback listener).
    let mut login = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-bindgen"))
        .args(["login", "remote", "--no-browser"])
        .current_dir(project.path())
        .env("MCP_BINDGEN_TOKEN_DIR", &tokens)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start login");
    let stderr = BufReader::new(login.stderr.take().expect("stderr"));
    let url = stderr
        .lines()
        .map(|l| l.expect("stderr line"))
        .find_map(|l| {
            l.trim()
                .strip_prefix("http")
                .map(|rest| format!("http{rest}"))
        })
        .expect("the login prints the authorization URL");
    assert!(url.contains("code_challenge_method=S256"), "{url}");
    assert!(url.contains("resource="), "{url}");
    let page = rt.block_on(async {
        reqwest::get(&url)
            .await
            .expect("follow")
            .text()
            .await
            .expect("page")
    });
    assert!(page.contains("Login received"), "{page}");
    let out = login.wait_with_output().expect("login ends");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("logged in to \"remote\""), "{stdout}");
    assert!(stdout.contains("tools"), "{stdout}");

    // The token store: owner-only, outside the project, holding the refresh token.
    let file = token_file(&tokens);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).expect("metadata").permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(&tokens), 0o700);
    }
    let stored: Value = serde_json::from_slice(&std::fs::read(&file).expect("read")).expect("JSON");
    let access = stored["credentials"]["token_response"]["access_token"]
        .as_str()
        .expect("access token stored")
        .to_string();
    let refresh = stored["credentials"]["token_response"]["refresh_token"]
        .as_str()
        .expect("refresh token stored")
        .to_string();
    assert!(
        stored["client_secret"].is_string(),
        "the registered client's secret is kept for refreshes"
    );

    // Snapshot both servers; nothing secret reaches a fixture.
    let env = [("MACHINE_SECRET", MACHINE_SECRET)];
    let (code, text) = cli(
        project.path(),
        &tokens,
        &["snapshot", "remote", "machine"],
        &env,
    );
    assert_eq!(code, 0, "{text}");
    for alias in ["remote", "machine"] {
        let fixture =
            std::fs::read_to_string(project.path().join(format!("fixtures/{alias}.json")))
                .expect("fixture written");
        assert!(fixture.contains("\"add\""), "{alias}: {fixture}");
        for secret in [
            access.as_str(),
            refresh.as_str(),
            MACHINE_SECRET,
            "access_",
            "refresh_",
            "secret_",
        ] {
            assert!(
                !fixture.contains(secret),
                "{alias}'s fixture holds {secret:?}"
            );
        }
    }
    let stats = rt.block_on(server.stats());
    assert_eq!(stats["authorization_code"], 1, "{stats}");
    assert_eq!(stats["client_credentials"], 1, "{stats}");
    assert_eq!(stats["refresh_token"], 0, "{stats}");

    // Past the refresh margin: the next call refreshes first, with the client secret and
    // the resource (the server refuses a refresh without either), and keeps the refresh
    // token, which the server does not send again.
    // Traced at the most verbose level: no token or secret reaches a log line.
    // Two commands at once: they refresh the login once between them (a lock on the token
    // file across processes).
    std::thread::sleep(FRESH_FOR);
    let call = || {
        cli(
            project.path(),
            &tokens,
            &["call", "remote", "add", r#"{"a":2,"b":3}"#],
            &[("MCP_BINDGEN_LOG", "trace")],
        )
    };
    let (first, second) = std::thread::scope(|s| {
        let first = s.spawn(call);
        let second = s.spawn(call);
        (first.join().expect("first"), second.join().expect("second"))
    });
    for (code, text) in [&first, &second] {
        assert_eq!(*code, 0, "{text}");
        // `cli` puts stdout first: the sum, alone on its line, then the trace on stderr.
        assert!(text.starts_with("5\n"), "{text}");
    }
    let text = format!("{}\n{}", first.1, second.1);
    assert!(
        text.contains("efresh"),
        "the trace shows the refresh: {text}"
    );
    let client_secret = stored["client_secret"]
        .as_str()
        .expect("secret")
        .to_string();
    for secret in [access.as_str(), refresh.as_str(), client_secret.as_str()] {
        assert!(!text.contains(secret), "a log line holds {secret:?}");
    }
    let stats = rt.block_on(server.stats());
    assert_eq!(stats["refresh_token"], 1, "{stats}");
    assert_eq!(stats["refused"], json!([]), "{stats}");
    let stored: Value = serde_json::from_slice(&std::fs::read(&file).expect("read")).expect("JSON");
    assert_eq!(
        stored["credentials"]["token_response"]["refresh_token"],
        refresh.as_str()
    );
    let fresh = stored["credentials"]["token_response"]["access_token"]
        .as_str()
        .expect("new access token");
    assert_ne!(fresh, access.as_str());
    assert!(
        !text.contains(fresh),
        "a log line holds the refreshed access token"
    );

    // A wrong machine secret: the error says what failed and never quotes the secret.
    let wrong = "wrong-secret-77f1";
    let (code, text) = cli(
        project.path(),
        &tokens,
        &["call", "machine", "add", r#"{"a":1,"b":1}"#],
        &[("MACHINE_SECRET", wrong)],
    );
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("client credentials"), "{text}");
    assert!(!text.contains(wrong), "{text}");

    // Logout: the file goes, and the server asks for a login again.
    let (code, text) = cli(project.path(), &tokens, &["logout", "remote"], &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("deleted"), "{text}");
    assert!(!file.exists());
    let (code, text) = cli(
        project.path(),
        &tokens,
        &["call", "remote", "add", r#"{"a":1,"b":2}"#],
        &[],
    );
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("cargo mcp-bindgen login remote"), "{text}");
}

#[test]
fn sessions_sharing_a_login_refresh_it_once() {
    let server = Server::start();
    let tokens_dir = tempfile::tempdir().expect("tokens");
    // A directory of the store's own making (owner-only), as a user's would be.
    let tokens = tokens_dir.path().join("tokens");
    let config = ServerConfig::http("remote", false, &server.url).with_auth(AuthConfig::OAuth(
        OAuthSettings::default().with_token_store(&tokens),
    ));
    runtime().block_on(async {
        let login = ConnectOptions::new()
            .login(
                &config,
                Arc::new(HeadlessAuthorizer::new("http://127.0.0.1:9/callback")),
            )
            .await
            .expect("login");
        assert_eq!(login.scopes, vec!["mcp".to_string()]);
        tokio::time::sleep(FRESH_FOR).await;
        // Four sessions connect at once, each with its own OAuth state, one token file.
        let mut tasks = Vec::new();
        for i in 0..4 {
            let config = config.clone();
            tasks.push(tokio::spawn(async move {
                let session = mcp_bindgen::Session::connect(&config)
                    .await
                    .expect("connect");
                let out = session
                    .call("add", &json!({"a": i, "b": 1}))
                    .await
                    .expect("call");
                let _ = session.close().await;
                out.text()
            }));
        }
        for (i, task) in tasks.into_iter().enumerate() {
            assert_eq!(task.await.expect("task"), (i + 1).to_string());
        }
        let stats = server.stats().await;
        assert_eq!(
            stats["refresh_token"], 1,
            "one refresh for four sessions: {stats}"
        );
        assert_eq!(stats["authorization_code"], 1, "{stats}");

        // The agent layer on the same login, from a registry file.
        let registry = mcp_bindgen::Registry::from_toml_str(
            &format!(
                "[servers.remote]\nurl = \"{}\"\nauth = {{ oauth = {{ token_store = \"{}\" }} }}\n",
                server.url,
                tokens.display()
            ),
            Path::new("/nonexistent/fixtures/servers.toml"),
        )
        .expect("registry");
        let toolbox = mcp_bindgen::toolbox::Toolbox::builder(&registry)
            .connect()
            .await
            .expect("toolbox");
        let dispatch = toolbox.call("mcp_remote_add", r#"{"a": 40, "b": 2}"#).await;
        assert!(dispatch.is_ok(), "{}", dispatch.text);
        assert_eq!(dispatch.text, "42");
        assert_eq!(server.stats().await["authorization_code"], 1);
    });
}

#[test]
fn secrets_stay_out_of_debug_and_errors() {
    let server = Server::start();
    let config = ServerConfig::http("machine", false, &server.url).with_auth(
        AuthConfig::ClientCredentials(ClientCredentialsSettings::secret("machine", "${SECRET}")),
    );
    let debug = format!("{config:?}");
    assert!(
        debug.contains("<redacted>") && !debug.contains("SECRET}"),
        "{debug}"
    );
    runtime().block_on(async {
        let wrong = "not-the-secret-5c1d";
        let error = ConnectOptions::new()
            .with_env_lookup(move |name| (name == "SECRET").then(|| wrong.to_string()))
            .connect(&config)
            .await
            .expect_err("a wrong secret is refused");
        assert_eq!(error.kind(), ErrorKind::Unauthorized, "{error}");
        let text = format!("{error} {error:?}");
        assert!(!text.contains(wrong), "{text}");
        let session = ConnectOptions::new()
            .with_env_lookup(|name| (name == "SECRET").then(|| MACHINE_SECRET.to_string()))
            .connect(&config)
            .await
            .expect("the right secret connects");
        assert!(!format!("{session:?}").contains(MACHINE_SECRET));
        let out = session
            .call("add", &json!({"a": 20, "b": 22}))
            .await
            .expect("call");
        assert_eq!(out.text(), "42");
    });
}

#[test]
fn an_expired_login_that_cannot_be_refreshed_names_the_login_command() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let tokens_dir = tempfile::tempdir().expect("tokens");
    // A directory of the store's own making (owner-only), as a user's would be.
    let tokens = tokens_dir.path().join("tokens");
    // Tokens that live 1 s: a second after the login, every request refreshes first.
    let server = Server::start_with(port, "1");
    let config = ServerConfig::http("remote", false, &server.url).with_auth(AuthConfig::OAuth(
        OAuthSettings::default().with_token_store(&tokens),
    ));
    runtime().block_on(async {
        ConnectOptions::new()
            .login(
                &config,
                Arc::new(HeadlessAuthorizer::new("http://127.0.0.1:9/callback")),
            )
            .await
            .expect("login");
        // The token expires (rmcp counts whole seconds since it was received), and the
        // authorization server forgets its refresh tokens (a revoked login).
        tokio::time::sleep(Duration::from_millis(2100)).await;
        drop(server);
        let _server = Server::start_with(port, "1");
        let error = mcp_bindgen::Session::connect(&config)
            .await
            .expect_err("the login cannot be refreshed");
        assert_eq!(error.kind(), ErrorKind::Unauthorized, "{error}");
        let text = error.to_string();
        assert!(text.contains("expired"), "{text}");
        assert!(text.contains("cargo xtask login remote"), "{text}");
    });
}

#[test]
fn a_server_that_wants_a_login_without_auth_in_the_registry_says_what_to_add() {
    let server = Server::start();
    let config = ServerConfig::http("hosted", false, &server.url);
    runtime().block_on(async {
        let error = mcp_bindgen::Session::connect(&config)
            .await
            .expect_err("401 without auth");
        assert_eq!(error.kind(), ErrorKind::Unauthorized, "{error}");
        let text = error.to_string();
        assert!(text.contains("auth = \"oauth\""), "{text}");
        assert!(text.contains("login hosted"), "{text}");
    });
}
