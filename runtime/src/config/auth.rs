//! The `auth` key of an HTTP server entry: how the client obtains an OAuth access token.
//!
//! ```toml
//! [servers.linear]
//! url = "https://mcp.linear.app/mcp"
//! auth = "oauth"                      # log in once: `cargo xtask login linear`
//!
//! [servers.corp]
//! url = "https://mcp.corp.example/mcp"
//! auth = { oauth = { client_id = "mcp-bindgen", client_secret = "${CORP_SECRET}", scopes = ["read"], redirect_port = 8765 } }
//!
//! [servers.bot]
//! url = "https://mcp.corp.example/mcp"
//! auth = { client_credentials = { client_id = "bot", client_secret = "${BOT_SECRET}" } }
//! ```
//!
//! Secrets (`client_secret`, `private_key`) must be `${VAR}` references: a literal secret in
//! a file that is committed to git is refused at load time.

use std::fmt;
use std::path::PathBuf;

use serde::Deserialize;

/// How a server's access token is obtained (`auth = …` in the registry).
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum AuthConfig {
    /// The OAuth 2.1 authorization code flow with PKCE (`auth = "oauth"`): a user logs in
    /// once (`cargo xtask login ALIAS`), the tokens are kept in the token store and
    /// refreshed before they expire.
    OAuth(OAuthSettings),
    /// The client credentials grant (`auth = { client_credentials = … }`): a machine
    /// identity, no user and no login; a token is requested at connect time.
    ClientCredentials(ClientCredentialsSettings),
}

/// The settings of [`AuthConfig::OAuth`]. Every field is optional: without a `client_id`
/// the client identifies itself by `client_metadata_url` when the authorization server
/// supports Client ID Metadata Documents, else registers itself dynamically.
#[derive(Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct OAuthSettings {
    /// A client registered with the authorization server beforehand.
    pub client_id: Option<String>,
    /// That client's secret, as a `${VAR}` template.
    pub client_secret: Option<String>,
    /// The HTTPS URL of this client's metadata document (used as its client id).
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for (default: what the server's challenge or metadata names).
    pub scopes: Vec<String>,
    /// The loopback port of the login's redirect listener (default: any free port).
    pub redirect_port: Option<u16>,
    /// The token store directory (default: the user's config directory).
    pub token_store: Option<PathBuf>,
}

/// The settings of [`AuthConfig::ClientCredentials`]: a client secret or a private key
/// that signs a JWT assertion (`private_key_jwt`).
#[derive(Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ClientCredentialsSettings {
    /// The registered client id.
    pub client_id: String,
    /// The client secret, as a `${VAR}` template (`client_secret_basic`).
    pub client_secret: Option<String>,
    /// A PEM private key, as a `${VAR}` template (`private_key_jwt`).
    pub private_key: Option<String>,
    /// The JWT signing algorithm for `private_key`: `RS256` (default), `RS384`, `RS512`,
    /// `ES256`, `ES384`.
    pub algorithm: Option<String>,
    /// Scopes to ask for.
    pub scopes: Vec<String>,
}

impl OAuthSettings {
    /// Sets a pre-registered client.
    pub fn with_client(mut self, id: impl Into<String>, secret: Option<String>) -> Self {
        self.client_id = Some(id.into());
        self.client_secret = secret;
        self
    }

    /// Sets the Client ID Metadata Document URL.
    pub fn with_client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Sets the scopes to ask for.
    pub fn with_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the token store directory.
    pub fn with_token_store(mut self, dir: impl Into<PathBuf>) -> Self {
        self.token_store = Some(dir.into());
        self
    }
}

impl ClientCredentialsSettings {
    /// A client authenticated by a secret (a `${VAR}` template or, in code, the value).
    pub fn secret(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        ClientCredentialsSettings {
            client_id: client_id.into(),
            client_secret: Some(secret.into()),
            ..Default::default()
        }
    }

    /// A client authenticated by a JWT signed with a PEM private key.
    pub fn private_key(
        client_id: impl Into<String>,
        pem: impl Into<String>,
        algorithm: impl Into<String>,
    ) -> Self {
        ClientCredentialsSettings {
            client_id: client_id.into(),
            private_key: Some(pem.into()),
            algorithm: Some(algorithm.into()),
            ..Default::default()
        }
    }
}

impl fmt::Debug for AuthConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hidden = |v: &Option<String>| v.as_ref().map(|_| "<redacted>");
        match self {
            AuthConfig::OAuth(s) => f
                .debug_struct("OAuth")
                .field("client_id", &s.client_id)
                .field("client_secret", &hidden(&s.client_secret))
                .field("client_metadata_url", &s.client_metadata_url)
                .field("scopes", &s.scopes)
                .field("redirect_port", &s.redirect_port)
                .field("token_store", &s.token_store)
                .finish(),
            AuthConfig::ClientCredentials(s) => f
                .debug_struct("ClientCredentials")
                .field("client_id", &s.client_id)
                .field("client_secret", &hidden(&s.client_secret))
                .field("private_key", &hidden(&s.private_key))
                .field("algorithm", &s.algorithm)
                .field("scopes", &s.scopes)
                .finish(),
        }
    }
}

/// The JWT signing algorithms `private_key` may use.
pub(crate) const ALGORITHMS: &[&str] = &["RS256", "RS384", "RS512", "ES256", "ES384"];

/// The registry's spelling: `"oauth"`, `{ oauth = {…} }` or `{ client_credentials = {…} }`.
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum RawAuth {
    Name(String),
    Table(Box<RawAuthTable>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAuthTable {
    oauth: Option<RawOAuth>,
    #[serde(alias = "clientCredentials")]
    client_credentials: Option<RawClientCredentials>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawOAuth {
    #[serde(alias = "clientId")]
    client_id: Option<String>,
    #[serde(alias = "clientSecret")]
    client_secret: Option<String>,
    #[serde(alias = "clientMetadataUrl")]
    client_metadata_url: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
    #[serde(alias = "redirectPort")]
    redirect_port: Option<u16>,
    #[serde(alias = "tokenStore")]
    token_store: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClientCredentials {
    #[serde(alias = "clientId")]
    client_id: String,
    #[serde(alias = "clientSecret")]
    client_secret: Option<String>,
    #[serde(alias = "privateKey")]
    private_key: Option<String>,
    algorithm: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
}

/// A secret must come from the environment.
fn env_only(what: &str, value: &Option<String>) -> Result<(), String> {
    match value {
        Some(v) if !(v.starts_with("${") && v.ends_with('}') && v.matches("${").count() == 1) => {
            Err(format!(
                "`auth.{what}` must be a `${{VAR}}` reference (a secret written into the registry would end up in git)"
            ))
        }
        _ => Ok(()),
    }
}

impl RawAuth {
    /// The checked setting; the error is the message of an `InvalidServer`.
    pub(super) fn into_config(self) -> Result<AuthConfig, String> {
        let table = match self {
            RawAuth::Name(name) if name == "oauth" => {
                return Ok(AuthConfig::OAuth(OAuthSettings::default()));
            }
            RawAuth::Name(other) => {
                return Err(format!(
                    "unknown `auth = \"{other}\"` (expected \"oauth\", `{{ oauth = {{…}} }}` or `{{ client_credentials = {{…}} }}`)"
                ));
            }
            RawAuth::Table(t) => *t,
        };
        match (table.oauth, table.client_credentials) {
            (Some(o), None) => {
                env_only("oauth.client_secret", &o.client_secret)?;
                if o.client_secret.is_some() && o.client_id.is_none() {
                    return Err(
                        "`auth.oauth.client_secret` needs the `client_id` it belongs to".into(),
                    );
                }
                if let Some(url) = &o.client_metadata_url
                    && !(url.starts_with("https://") && url["https://".len()..].contains('/'))
                {
                    return Err(format!(
                        "`auth.oauth.client_metadata_url` must be an https:// URL with a path, found \"{url}\""
                    ));
                }
                Ok(AuthConfig::OAuth(OAuthSettings {
                    client_id: o.client_id,
                    client_secret: o.client_secret,
                    client_metadata_url: o.client_metadata_url,
                    scopes: o.scopes,
                    redirect_port: o.redirect_port,
                    token_store: o.token_store,
                }))
            }
            (None, Some(c)) => {
                env_only("client_credentials.client_secret", &c.client_secret)?;
                env_only("client_credentials.private_key", &c.private_key)?;
                match (&c.client_secret, &c.private_key) {
                    (Some(_), Some(_)) => {
                        return Err("`auth.client_credentials` takes `client_secret` or `private_key`, not both".into());
                    }
                    (None, None) => {
                        return Err("`auth.client_credentials` needs `client_secret` or `private_key` (a `${VAR}` reference)".into());
                    }
                    _ => {}
                }
                if let Some(alg) = &c.algorithm
                    && !ALGORITHMS.contains(&alg.as_str())
                {
                    return Err(format!(
                        "`auth.client_credentials.algorithm = \"{alg}\"` is not supported (expected one of {})",
                        ALGORITHMS.join(", ")
                    ));
                }
                Ok(AuthConfig::ClientCredentials(ClientCredentialsSettings {
                    client_id: c.client_id,
                    client_secret: c.client_secret,
                    private_key: c.private_key,
                    algorithm: c.algorithm,
                    scopes: c.scopes,
                }))
            }
            _ => Err("`auth` takes exactly one of `oauth` and `client_credentials`".into()),
        }
    }
}
