//! OAuth 2.1 for remote servers (feature `oauth`; JWT client credentials: `oauth-jwt`).
//!
//! A server entry with `auth = "oauth"` is logged in to once — [`ConnectOptions::login`]
//! with a [`LoopbackAuthorizer`], which `cargo xtask login ALIAS` and
//! `cargo mcp-bindgen login ALIAS` run — and then connects
//! like any other: every request carries the stored access token, which is refreshed
//! before it expires and when the server answers 401; a 403 `insufficient_scope` asks for
//! the missing scopes (when the session has an [`Authorizer`], else it is an error that
//! names the login command; see [`ConnectOptions::with_authorizer`]).
//! `auth = { client_credentials = … }` needs no login: the token is requested at connect
//! time, with a client secret or a JWT signed by a private key, and again when it expires.
//!
//! [`ConnectOptions::login`]: crate::ConnectOptions::login
//! [`ConnectOptions::with_authorizer`]: crate::ConnectOptions::with_authorizer
//!
//! The login is the authorization code flow with PKCE (S256). The client finds the
//! authorization server from the resource's metadata (RFC 9728, from the 401's
//! `WWW-Authenticate` or the well-known URLs), identifies itself by the registry's
//! `client_id`, else by its `client_metadata_url` (a Client ID Metadata Document) where
//! the authorization server supports those, else by dynamic registration; checks the
//! authorization response's `iss` (RFC 9207) and sends the RFC 8707 `resource` on every
//! token request, refreshes included.
//!
//! **The token store** keeps one file per server URL under the user's config directory
//! ([`default_token_dir`], or the registry's `token_store`; never inside the project's
//! repository), written atomically with owner-only permissions (0600 in a 0700
//! directory). The file records the issuer that minted the tokens: when the server moves
//! to another authorization server, the login is dropped and the client registers again.
//! Sessions and processes sharing a login take turns reading and refreshing it (an
//! in-process lock and `flock` on `<file>.lock`), so it is refreshed once; a refresh keeps
//! the refresh token when the answer carries none.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

mod authorizer;
mod engine;
mod http;
mod loopback;
mod store;

pub use authorizer::{AuthorizeFuture, Authorizer};
pub(crate) use engine::Engine;
pub(crate) use http::OAuthHttp;
pub use loopback::{HeadlessAuthorizer, LoopbackAuthorizer};
pub use store::{TOKEN_DIR_VAR, default_token_dir};

use crate::config::{AuthConfig, Resolved, ServerConfig, TransportConfig};
use crate::error::{Error, Result};

/// What a login ([`crate::ConnectOptions::login`]) did.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Login {
    /// Where the tokens are kept (`None` for client credentials, kept in memory only).
    pub token_file: Option<PathBuf>,
    /// The scopes granted.
    pub scopes: Vec<String>,
}

/// The token file of `config`'s server (which need not exist), for a server with
/// `auth = "oauth"`; `None` for other servers.
pub fn token_file(config: &ServerConfig) -> Result<Option<PathBuf>> {
    let lookup = |name: &str| std::env::var(name).ok();
    let resolved = config.resolve(&lookup)?;
    Ok(store_for(config, &resolved, &lookup)?.map(|s| s.path().to_path_buf()))
}

/// Logs in to `config`'s server now, whatever is stored: the authorization code flow through
/// `authorizer` (`auth = "oauth"`) or the client credentials grant. The tokens are stored;
/// sessions then use them. Called by [`crate::ConnectOptions::login`].
pub(crate) async fn login(
    config: &ServerConfig,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    authorizer: Arc<dyn Authorizer>,
) -> Result<Login> {
    let resolved = config.resolve(lookup)?;
    let Some(engine) = engine_for(config, &resolved, lookup, Some(authorizer))? else {
        return Err(Error::Auth {
            server: config.alias().to_string(),
            message: "the server has no `auth` setting in the registry: add `auth = \"oauth\"` to its entry".into(),
        });
    };
    let roots = crate::transport::extra_roots(config.alias(), config.ca_certs())?;
    let challenge = probe(config.alias(), &resolved, &roots).await;
    let scopes = engine.login(challenge.as_deref()).await?;
    Ok(Login {
        token_file: engine.store().map(|s| s.path().to_path_buf()),
        scopes,
    })
}

/// Deletes the stored login of `config`'s server; the file it deleted, if there was one.
pub fn logout(config: &ServerConfig) -> Result<Option<PathBuf>> {
    let lookup = |name: &str| std::env::var(name).ok();
    let resolved = config.resolve(&lookup)?;
    let Some(store) = store_for(config, &resolved, &lookup)? else {
        return Ok(None);
    };
    let removed = store.remove().map_err(|message| Error::Auth {
        server: config.alias().to_string(),
        message,
    })?;
    Ok(removed.then(|| store.path().to_path_buf()))
}

/// The `WWW-Authenticate` challenge of an unauthenticated `initialize`, when the server
/// answers 401 with one.
async fn probe(alias: &str, resolved: &Resolved, roots: &[reqwest::Certificate]) -> Option<String> {
    let TransportConfig::StreamableHttp { url, headers } = &resolved.transport else {
        return None;
    };
    let client = crate::transport::client_builder(roots)
        .ok()?
        .redirect(crate::transport::same_origin_redirects())
        .timeout(Duration::from_secs(30))
        .build()
        .ok()?;
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": crate::config::LAST_WITH_INITIALIZE, "capabilities": {},
                   "clientInfo": {"name": "mcp-bindgen", "version": env!("CARGO_PKG_VERSION")}}
    });
    let mut request = client
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string());
    for (k, v) in headers {
        request = request.header(k, v);
    }
    let response = request.send().await.ok()?;
    if response.status() != reqwest::StatusCode::UNAUTHORIZED {
        tracing::debug!(server = %alias, status = %response.status(), "no 401 to an unauthenticated initialize; discovering from the well-known URLs");
        return None;
    }
    response
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// The token store of a server with `auth = "oauth"`.
fn store_for(
    config: &ServerConfig,
    resolved: &Resolved,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<store::TokenStore>> {
    let (Some(AuthConfig::OAuth(o)), TransportConfig::StreamableHttp { url, .. }) =
        (&resolved.auth, &resolved.transport)
    else {
        return Ok(None);
    };
    let error = |message: String| Error::Auth {
        server: config.alias().to_string(),
        message,
    };
    let dir = match &o.token_store {
        Some(dir) => dir.clone(),
        None => default_token_dir(lookup).ok_or_else(|| {
            error(format!(
                "no directory for the token store: set HOME, {TOKEN_DIR_VAR} or `auth = {{ oauth = {{ token_store = \"…\" }} }}`"
            ))
        })?,
    };
    let dir = normalize(&if dir.is_relative() {
        std::env::current_dir().map(|c| c.join(&dir)).unwrap_or(dir)
    } else {
        dir
    });
    if let Some(repo) = repository_of(config.base_dir())
        && dir.starts_with(&repo)
    {
        return Err(error(format!(
            "the token store {} is inside the repository {}: tokens must never be committed; choose a directory outside it",
            dir.display(),
            repo.display()
        )));
    }
    Ok(Some(store::TokenStore::new(&dir, url)))
}

/// `path` with `.` and `..` resolved by their names (the directory may not exist yet).
fn normalize(path: &std::path::Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    // The same spelling as the repository's (a symlinked /tmp, for one).
    std::fs::canonicalize(&out).unwrap_or(out)
}

/// The git repository holding `dir`, if any.
fn repository_of(dir: &std::path::Path) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(dir).ok()?;
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map(std::path::Path::to_path_buf)
}

/// The OAuth engine of a session, for servers with an `auth` setting.
pub(crate) fn engine_for(
    config: &ServerConfig,
    resolved: &Resolved,
    lookup: &dyn Fn(&str) -> Option<String>,
    authorizer: Option<Arc<dyn Authorizer>>,
) -> Result<Option<Arc<Engine>>> {
    let Some(auth) = &resolved.auth else {
        return Ok(None);
    };
    let TransportConfig::StreamableHttp { url, .. } = &resolved.transport else {
        return Err(Error::Auth {
            server: config.alias().to_string(),
            message: "`auth` needs `transport = \"streamable-http\"`".into(),
        });
    };
    let store = store_for(config, resolved, lookup)?;
    let roots = crate::transport::extra_roots(config.alias(), config.ca_certs())?;
    Ok(Some(Arc::new(
        Engine::new(config.alias(), url, auth.clone(), store, authorizer).trusting(roots),
    )))
}

#[cfg(test)]
mod tests;
