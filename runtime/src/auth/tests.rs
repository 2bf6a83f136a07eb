//! The registry's `auth` key and the token store. The flows themselves run against real
//! authorization servers: the conformance suite (`cargo xtask conformance`) and the demo
//! server's OAuth mode (`mcp-bindgen-cli/tests/it/oauth_login.rs`).

use std::path::Path;

use rmcp::transport::auth::{CredentialStore, StoredCredentials};

use super::store::{TokenFile, TokenStore, default_token_dir, file_name};
use crate::config::{AuthConfig, Registry};

fn load(toml: &str) -> Result<Registry, String> {
    Registry::from_toml_str(toml, Path::new("fixtures/servers.toml")).map_err(|e| e.to_string())
}

#[test]
fn the_registry_takes_every_auth_spelling() {
    let registry = load(
        r#"
[servers.a]
url = "https://a.example/mcp"
auth = "oauth"

[servers.b]
url = "https://b.example/mcp"
auth = { oauth = { client_id = "cli", client_secret = "${B_SECRET}", scopes = ["read", "write"], redirect_port = 8765, client_metadata_url = "https://me.example/client.json" } }

[servers.c]
url = "https://c.example/mcp"
auth = { client_credentials = { client_id = "bot", private_key = "${KEY}", algorithm = "ES256" } }
"#,
    )
    .expect("valid");
    assert_eq!(
        registry.get("a").unwrap().auth(),
        Some(&AuthConfig::OAuth(Default::default()))
    );
    let Some(AuthConfig::OAuth(b)) = registry.get("b").unwrap().auth() else {
        panic!("b is oauth")
    };
    assert_eq!(b.client_id.as_deref(), Some("cli"));
    assert_eq!(b.scopes, ["read", "write"]);
    assert_eq!(b.redirect_port, Some(8765));
    let Some(AuthConfig::ClientCredentials(c)) = registry.get("c").unwrap().auth() else {
        panic!("c is client credentials")
    };
    assert_eq!(c.algorithm.as_deref(), Some("ES256"));
    // Debug never shows a secret's template or value.
    let debug = format!("{registry:?}");
    assert!(
        !debug.contains("B_SECRET") && !debug.contains("${KEY}"),
        "{debug}"
    );
}

#[test]
fn the_registry_refuses_what_cannot_work() {
    for (toml, needle) in [
        (
            "[servers.a]\nurl = \"https://a/mcp\"\nauth = { oauth = { client_id = \"x\", client_secret = \"literal\" } }",
            "must be a `${VAR}` reference",
        ),
        (
            "[servers.a]\nurl = \"https://a/mcp\"\nauth = { oauth = { client_secret = \"${S}\" } }",
            "needs the `client_id`",
        ),
        (
            "[servers.a]\nurl = \"https://a/mcp\"\nauth = \"basic\"",
            "unknown `auth = \"basic\"`",
        ),
        (
            "[servers.a]\ncommand = \"srv\"\nauth = \"oauth\"",
            "are for HTTP servers",
        ),
        (
            "[servers.a]\ntransport = \"sse\"\nurl = \"https://a/sse\"\nauth = \"oauth\"",
            "streamable-http",
        ),
        (
            "[servers.a]\nurl = \"https://a/mcp\"\nauth = { client_credentials = { client_id = \"x\" } }",
            "needs `client_secret` or `private_key`",
        ),
        (
            "[servers.a]\nurl = \"https://a/mcp\"\nauth = { client_credentials = { client_id = \"x\", client_secret = \"${A}\", private_key = \"${B}\" } }",
            "not both",
        ),
        (
            "[servers.a]\nurl = \"https://a/mcp\"\nauth = { client_credentials = { client_id = \"x\", private_key = \"${B}\", algorithm = \"HS256\" } }",
            "HS256",
        ),
        (
            "[servers.a]\nurl = \"https://a/mcp\"\nauth = { oauth = { client_metadata_url = \"http://me/c.json\" } }",
            "https:// URL with a path",
        ),
        (
            "[servers.a]\nurl = \"https://a/mcp\"\nauth = { oauth = {}, client_credentials = { client_id = \"x\", client_secret = \"${A}\" } }",
            "exactly one",
        ),
    ] {
        let error = load(toml).expect_err(toml);
        assert!(error.contains(needle), "{toml}\n→ {error}");
    }
}

#[test]
fn the_token_directory_follows_the_user() {
    let env = |vars: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    };
    assert_eq!(
        default_token_dir(&env(&[("MCP_BINDGEN_TOKEN_DIR", "/t"), ("HOME", "/h")])),
        Some("/t".into())
    );
    #[cfg(not(windows))]
    {
        assert_eq!(
            default_token_dir(&env(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")])),
            Some("/x/mcp-bindgen/tokens".into())
        );
        assert_eq!(
            default_token_dir(&env(&[("HOME", "/h")])),
            Some("/h/.config/mcp-bindgen/tokens".into())
        );
    }
    assert_eq!(default_token_dir(&env(&[])), None);
    // One file per resource, stable and readable.
    let a = file_name("https://mcp.example.com/mcp");
    assert_eq!(a, file_name("https://mcp.example.com/mcp"));
    assert_ne!(a, file_name("https://mcp.example.com/other"));
    assert!(
        a.starts_with("mcp.example.com-") && a.ends_with(".json"),
        "{a}"
    );
}

fn credentials(client: &str) -> StoredCredentials {
    StoredCredentials::new(client.into(), None, vec!["mcp".into()], Some(1))
        .with_issuer(Some("https://as".into()))
}

#[tokio::test]
async fn the_token_store_is_owner_only_and_redacted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tokens = dir.path().join("tokens");
    let store = TokenStore::new(&tokens, "https://mcp.example.com/mcp");
    assert!(store.load().await.expect("load").is_none());
    store
        .update(|f| f.client_secret = Some("dcr-secret-91".into()))
        .expect("update");
    store.save(credentials("client-1")).await.expect("save");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(store.path()), 0o600);
        assert_eq!(mode(&tokens), 0o700);
    }
    // Saving the tokens keeps the registration details.
    let file: TokenFile = store.read().expect("read").expect("file");
    assert_eq!(file.client_secret.as_deref(), Some("dcr-secret-91"));
    assert_eq!(file.resource, "https://mcp.example.com/mcp");
    assert_eq!(store.load().await.unwrap().unwrap().client_id, "client-1");
    let debug = format!("{file:?} {store:?}");
    assert!(!debug.contains("dcr-secret-91"), "{debug}");
    // No temporary file is left behind.
    assert_eq!(std::fs::read_dir(&tokens).unwrap().count(), 1);
    store.clear().await.expect("clear");
    assert!(!store.path().exists());
    assert!(!store.remove().expect("remove again"));
}

#[test]
fn a_token_store_inside_the_repository_is_refused() {
    let repo = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(repo.path().join(".git")).expect(".git");
    let fixtures = repo.path().join("fixtures");
    std::fs::create_dir(&fixtures).expect("fixtures");
    std::fs::write(
        fixtures.join("servers.toml"),
        "[servers.a]\nurl = \"https://a.example/mcp\"\nauth = { oauth = { token_store = \"../.tokens\" } }\n",
    )
    .expect("registry");
    let registry = Registry::load(fixtures.join("servers.toml")).expect("load");
    let error = super::token_file(registry.get("a").unwrap()).expect_err("inside the repo");
    assert!(
        error.to_string().contains("inside the repository"),
        "{error}"
    );
}
