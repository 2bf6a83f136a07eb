//! The HTTP wire as hosted servers run it, through the commands a user runs: HTTPS with a
//! certificate from a test CA made at test time (trusted through the registry's
//! `ca_certs`, refused without it), OAuth over it, registry headers checked by the server
//! (and a credential its error page echoes kept out of the message), a
//! session the server expires re-established once, transparently, and a multi-page
//! `tools/list` over stdio and HTTP.

use std::path::Path;

use crate::common;
use common::{HttpDemo as Server, demo_server, run_with_registry};

/// Runs `cargo-mcp-bindgen ARGS` in `dir`: exit code and output.
fn run(dir: &Path, toml: &str, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let out = run_with_registry(dir, toml, args, env);
    (out.code.unwrap_or(-1), out.text())
}

/// A test CA and a certificate it signed for `localhost` and 127.0.0.1, as PEM files in
/// `dir`: `ca.pem`, `cert.pem`, `key.pem`.
fn test_ca(dir: &Path) {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, SanType};
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "mcp-bindgen test CA");
    let ca_key = KeyPair::generate().expect("CA key");
    let ca_cert = ca.self_signed(&ca_key).expect("CA certificate");
    let mut leaf = CertificateParams::new(vec!["localhost".to_string()]).expect("leaf params");
    leaf.subject_alt_names
        .push(SanType::IpAddress(std::net::Ipv4Addr::LOCALHOST.into()));
    let leaf_key = KeyPair::generate().expect("leaf key");
    let issuer = Issuer::from_params(&ca, &ca_key);
    let leaf_cert = leaf
        .signed_by(&leaf_key, &issuer)
        .expect("leaf certificate");
    std::fs::write(dir.join("ca.pem"), ca_cert.pem()).expect("ca.pem");
    std::fs::write(dir.join("cert.pem"), leaf_cert.pem()).expect("cert.pem");
    std::fs::write(dir.join("key.pem"), leaf_key.serialize_pem()).expect("key.pem");
}

#[test]
fn https_with_a_test_ca_streamable_http_and_oauth() {
    let dir = tempfile::tempdir().expect("tempdir");
    test_ca(dir.path());
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let server = Server::start(&[
        "--tls-cert",
        &cert.display().to_string(),
        "--tls-key",
        &key.display().to_string(),
        "--oauth",
        "--oauth-client",
        "machine:machine-secret-77",
    ]);
    assert!(server.url.starts_with("https://"), "{}", server.url);
    let url = &server.url;
    let toml = format!(
        "[servers.trusted]\nurl = \"{url}\"\nca_certs = [\"ca.pem\"]\n\
         auth = {{ client_credentials = {{ client_id = \"machine\", client_secret = \"${{MACHINE_SECRET}}\" }} }}\n\n\
         [servers.untrusted]\nurl = \"{url}\"\n\n\
         [servers.missing]\nurl = \"{url}\"\nca_certs = [\"nowhere.pem\"]\n"
    );
    let env = [("MACHINE_SECRET", "machine-secret-77")];
    // Client credentials over HTTPS (discovery, token request and calls all trust the CA).
    let (code, text) = run(dir.path(), &toml, &["login", "trusted"], &env);
    assert_eq!(code, 0, "{text}");
    let out = run_with_registry(
        dir.path(),
        &toml,
        &["call", "trusted", "add", r#"{"a":2,"b":3}"#],
        &env,
    );
    assert_eq!(out.code, Some(0), "{}", out.text());
    assert_eq!(
        out.stdout.trim(),
        "5",
        "the sum, printed alone: {}",
        out.text()
    );
    let (code, text) = run(dir.path(), &toml, &["snapshot", "trusted"], &env);
    assert_eq!(code, 0, "{text}");
    assert!(dir.path().join("trusted.json").is_file());
    // Without the CA the certificate is refused, and the error says so.
    let (code, text) = run(dir.path(), &toml, &["call", "untrusted", "add", "{}"], &env);
    assert_eq!(code, 1, "{text}");
    assert!(text.to_lowercase().contains("certificate"), "{text}");
    // A CA file that is not there is the registry's error, naming the file.
    let (code, text) = run(dir.path(), &toml, &["call", "missing", "add", "{}"], &env);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("ca_certs") && text.contains("nowhere.pem"),
        "{text}"
    );
    assert!(!text.contains("machine-secret-77"), "{text}");
}

#[test]
fn registry_headers_reach_the_server() {
    let server = Server::start(&["--require-header", "x-probe:probe-value-31"]);
    let dir = tempfile::tempdir().expect("tempdir");
    let toml = format!(
        "[servers.with]\nurl = \"{url}\"\nheaders = {{ X-Probe = \"${{PROBE}}\" }}\n\n\
         [servers.without]\nurl = \"{url}\"\nheaders = {{ Authorization = \"Bearer ${{TOKEN}}\" }}\n",
        url = server.url
    );
    let env = [("PROBE", "probe-value-31"), ("TOKEN", "tok-e9f8a7b6")];
    let out = run_with_registry(
        dir.path(),
        &toml,
        &["call", "with", "add", r#"{"a":1,"b":1}"#],
        &env,
    );
    assert_eq!(out.code, Some(0), "{}", out.text());
    assert_eq!(
        out.stdout.trim(),
        "2",
        "the sum, printed alone: {}",
        out.text()
    );
    let (code, text) = run(dir.path(), &toml, &["call", "without", "add", "{}"], &env);
    assert_eq!(
        code, 1,
        "the server refuses a request without the header: {text}"
    );
    assert!(text.contains("400"), "{text}");
    // The server's error page echoes the Authorization header: not into the message.
    assert!(text.contains("authorization: <redacted>"), "{text}");
    assert!(!text.contains("tok-e9f8a7b6"), "{text}");
}

#[test]
fn a_session_the_server_expires_is_established_again() {
    // The initialize session: the server forgets it after 4 requests.
    let server = Server::start(&["--protocol", "2025-11-25", "--expire-session-after", "4"]);
    let config = mcp_bindgen::ServerConfig::http("expiring", false, server.url.clone());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio");
    rt.block_on(async {
        let session = mcp_bindgen::Session::connect(&config)
            .await
            .expect("connect");
        for i in 0..8u64 {
            let out = session
                .call("add", &serde_json::json!({"a": i, "b": 1}))
                .await
                .unwrap_or_else(|e| panic!("call {i} after the expiry: {e}"));
            assert!(out.text().contains(&(i + 1).to_string()), "{}", out.text());
        }
        let _ = session.close().await;
    });
    assert!(
        server.log().contains("expired"),
        "the server expired the session: {}",
        server.log()
    );
}

#[test]
fn a_multi_page_tool_list_is_read_whole_over_stdio_and_http() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(&["--page-size", "3"]);
    let demo = demo_server().display().to_string();
    // The stdio server's log goes to a file, to see it paged.
    let stdio_log = dir.path().join("stdio.log");
    let paged = format!("exec '{demo}' --page-size 3 2>>'{}'", stdio_log.display());
    let toml = format!(
        "[servers.whole]\ncommand = {demo:?}\n\n\
         [servers.paged]\ncommand = \"sh\"\nargs = [\"-c\", {paged:?}]\n\n\
         [servers.paged-http]\nurl = \"{}\"\n",
        server.url
    );
    let (code, text) = run(dir.path(), &toml, &["snapshot"], &[]);
    assert_eq!(code, 0, "{text}");
    let tools = |alias: &str| -> serde_json::Value {
        let text =
            std::fs::read_to_string(dir.path().join(format!("{alias}.json"))).expect("fixture");
        let doc: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        doc["tools"].clone()
    };
    let whole = tools("whole");
    assert!(whole.as_array().is_some_and(|t| t.len() > 3), "{whole}");
    assert_eq!(tools("paged"), whole, "stdio, 3 tools per page");
    assert_eq!(tools("paged-http"), whole, "HTTP, 3 tools per page");
    // Both servers paged.
    for log in [
        server.log(),
        std::fs::read_to_string(&stdio_log).unwrap_or_default(),
    ] {
        assert!(log.contains("tools/list page: tools 0..3 of"), "{log}");
        assert!(log.contains("tools/list page: tools 3..6 of"), "{log}");
    }
}
