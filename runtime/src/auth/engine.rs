//! One server's OAuth state: the token for the next request, and what to do when the server
//! answers 401 (refresh, else authorize again) or 403 `insufficient_scope` (step up).
//! Built on rmcp's `AuthorizationManager` (discovery, registration, PKCE, `iss` checks,
//! refresh with the `resource` indicator); this module decides when each runs and keeps the
//! tokens in the [`TokenStore`].

use std::sync::{Arc, Mutex};

use oauth2::TokenResponse as _;
#[cfg(feature = "oauth-jwt")]
use rmcp::transport::auth::JwtSigningAlgorithm;
use rmcp::transport::auth::{
    AuthError, AuthorizationCallback, AuthorizationManager, ClientCredentialsConfig,
    InMemoryCredentialStore, OAuthClientConfig, WWWAuthenticateParams,
};

use super::authorizer::Authorizer;
use super::store::TokenStore;
use crate::config::{AuthConfig, ClientCredentialsSettings, OAuthSettings};
use crate::error::Error;

/// A token with more than this to live is read without the refresh locks.
const FRESH_MARGIN: std::time::Duration = std::time::Duration::from_secs(60);

/// How many times one request may step up its scopes before giving up.
pub(crate) const MAX_STEP_UPS: u32 = 3;

/// The client name sent with a dynamic registration.
const CLIENT_NAME: &str = "mcp-bindgen";

/// One server's OAuth state, shared by its session's HTTP client.
pub(crate) struct Engine {
    alias: String,
    url: String,
    config: AuthConfig,
    store: Option<TokenStore>,
    authorizer: Option<Arc<dyn Authorizer>>,
    state: tokio::sync::Mutex<State>,
    /// The last failure, as the session reports it (the HTTP layer can only carry text).
    failure: Mutex<Option<Error>>,
    /// Extra root certificates of the server (`ca_certs`), for the OAuth requests too.
    roots: Vec<reqwest::Certificate>,
}

#[derive(Default)]
struct State {
    manager: Option<AuthorizationManager>,
    /// Whether the store has been read into `manager`.
    loaded: bool,
    /// The scopes granted so far (step-ups ask for their union with the challenge's).
    scopes: Vec<String>,
    /// A stored login existed but could not be refreshed (for the error's words).
    expired: bool,
}

fn auth_message(e: &AuthError) -> String {
    match e {
        AuthError::AuthorizationRequired => "authorization required".into(),
        other => other.to_string(),
    }
}

impl Engine {
    pub(crate) fn new(
        alias: &str,
        url: &str,
        config: AuthConfig,
        store: Option<TokenStore>,
        authorizer: Option<Arc<dyn Authorizer>>,
    ) -> Self {
        Engine {
            alias: alias.to_string(),
            url: url.to_string(),
            config,
            store,
            authorizer,
            state: tokio::sync::Mutex::new(State::default()),
            failure: Mutex::new(None),
            roots: Vec::new(),
        }
    }

    /// This engine, trusting `roots` (the server's `ca_certs`) for its OAuth requests.
    pub(crate) fn trusting(mut self, roots: Vec<reqwest::Certificate>) -> Self {
        self.roots = roots;
        self
    }

    /// The failure the last refused request ran into, once.
    pub(crate) fn take_failure(&self) -> Option<Error> {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// Records `error` for the session and gives the HTTP layer its text.
    pub(crate) fn fail(&self, error: Error) -> AuthError {
        let text = error.to_string();
        *self.failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(error);
        AuthError::AuthorizationFailed(text)
    }

    fn error(&self, message: impl Into<String>) -> Error {
        Error::Auth {
            server: self.alias.clone(),
            message: message.into(),
        }
    }

    /// "log in again" in the words of the command that does it.
    fn login_required(&self, why: &str) -> Error {
        self.error(format!(
            "{why}: log in with `cargo xtask login {}` (or `cargo mcp-bindgen login {}`)",
            self.alias, self.alias
        ))
    }

    async fn new_manager(&self) -> Result<AuthorizationManager, Error> {
        // rmcp builds its own HTTP clients here: they need a TLS provider too.
        crate::transport::tls_ready().map_err(|e| self.error(e))?;
        let mut manager = AuthorizationManager::new(self.url.as_str())
            .await
            .map_err(|e| self.error(format!("cannot start OAuth: {}", auth_message(&e))))?;
        if !self.roots.is_empty() {
            // rmcp's own client trusts the system's roots only: ours adds the server's.
            let client = crate::transport::client_builder(&self.roots)
                .map_err(|e| self.error(e))?
                .redirect(crate::transport::same_origin_redirects())
                .timeout(std::time::Duration::from_secs(30))
                .build()
                .map_err(|e| self.error(format!("cannot build the OAuth HTTP client: {e}")))?;
            manager
                .with_client(client)
                .map_err(|e| self.error(format!("cannot start OAuth: {}", auth_message(&e))))?;
        }
        match &self.store {
            Some(store) => manager.set_credential_store(store.clone()),
            None => manager.set_credential_store(InMemoryCredentialStore::new()),
        }
        Ok(manager)
    }

    /// The access token for the next request: the stored one (refreshed when about to
    /// expire); `None` when there is none yet (the request goes out without, and the
    /// server's 401 says how to authorize).
    pub(crate) async fn token(&self) -> Result<Option<String>, Error> {
        let mut state = self.state.lock().await;
        // Until it succeeds once, every request tries again (a network failure while
        // discovering is no reason to go on without the stored login).
        if !state.loaded {
            match &self.config {
                AuthConfig::ClientCredentials(c) => {
                    let c = c.clone();
                    let token = self.client_credentials(&mut state, &c).await?;
                    state.loaded = true;
                    return Ok(Some(token));
                }
                AuthConfig::OAuth(o) => {
                    if let Some((manager, scopes)) = self.stored_login(o).await? {
                        state.manager = Some(manager);
                        state.scopes = scopes;
                    }
                    state.loaded = true;
                }
            }
        }
        let Some(manager) = &state.manager else {
            return Ok(None);
        };
        // Locks only when a refresh may follow (rmcp refreshes when less than min(30 s, half
        // the token's lifetime) is left: always inside this margin).
        let _flight = match &self.store {
            Some(store) if !store.fresh(FRESH_MARGIN) => Some(store.flight().await),
            _ => None,
        };
        match manager.get_access_token().await {
            Ok(token) => Ok(Some(token)),
            Err(AuthError::AuthorizationRequired | AuthError::TokenRefreshRejected(_)) => {
                match self.config.clone() {
                    // A machine identity asks again; it has no refresh token.
                    AuthConfig::ClientCredentials(c) => {
                        self.client_credentials(&mut state, &c).await.map(Some)
                    }
                    AuthConfig::OAuth(_) => {
                        state.expired = true;
                        Ok(None)
                    }
                }
            }
            Err(e) => Err(self.error(format!(
                "cannot refresh the access token: {}",
                auth_message(&e)
            ))),
        }
    }

    /// A manager holding the stored login and its granted scopes, when there is one for
    /// this server's current authorization server.
    async fn stored_login(
        &self,
        o: &OAuthSettings,
    ) -> Result<Option<(AuthorizationManager, Vec<String>)>, Error> {
        let Some(store) = &self.store else {
            return Ok(None);
        };
        let Some(file) = store.read().map_err(|m| self.error(m))? else {
            return Ok(None);
        };
        let Some(credentials) = file.credentials else {
            return Ok(None);
        };
        let mut manager = self.new_manager().await?;
        // Discovers the authorization server again: a login at another issuer is dropped.
        let usable = manager.initialize_from_store().await.map_err(|e| {
            self.error(format!("cannot use the stored login: {}", auth_message(&e)))
        })?;
        if !usable {
            return Ok(None);
        }
        // The stored client's secret (pre-registered or dynamically registered), so that a
        // refresh authenticates as the client that obtained the token.
        let secret = if o.client_id.as_deref() == Some(credentials.client_id.as_str()) {
            o.client_secret.clone()
        } else {
            file.client_secret.clone()
        };
        let redirect = file
            .redirect_uri
            .clone()
            .unwrap_or_else(|| self.url.clone());
        let mut config = OAuthClientConfig::new(credentials.client_id.clone(), redirect);
        if let Some(secret) = secret {
            config = config.with_client_secret(secret);
        }
        manager
            .configure_client(config)
            .map_err(|e| self.error(auth_message(&e)))?;
        Ok(Some((manager, credentials.granted_scopes)))
    }

    /// The server refused even the token just obtained.
    pub(crate) fn rejected_new_token(&self) -> Error {
        self.error(
            "the server rejected the access token just obtained (HTTP 401 again): check the server's `auth` settings (scopes, client) in the registry",
        )
    }

    /// Where this server's tokens are kept (none for client credentials).
    pub(crate) fn store(&self) -> Option<&TokenStore> {
        self.store.as_ref()
    }

    /// Authorizes now, whatever is stored (a login); the challenge of an unauthenticated
    /// request, when the server sent one, directs discovery.
    pub(crate) async fn login(&self, challenge: Option<&str>) -> Result<Vec<String>, Error> {
        let mut state = self.state.lock().await;
        state.loaded = true;
        match self.config.clone() {
            AuthConfig::ClientCredentials(c) => {
                self.client_credentials(&mut state, &c).await?;
            }
            AuthConfig::OAuth(o) => {
                self.authorize(&mut state, &o, challenge, None).await?;
            }
        }
        Ok(state.scopes.clone())
    }

    /// The server refused `sent` (HTTP 401): refresh it, else authorize again (client
    /// credentials, or the authorizer when the session has one).
    pub(crate) async fn unauthorized(
        &self,
        challenge: &str,
        sent: Option<&str>,
    ) -> Result<String, Error> {
        let mut state = self.state.lock().await;
        if let (Some(sent), Some(manager)) = (sent, &state.manager) {
            // Another request may have refreshed it meanwhile.
            if let Ok(current) = manager.get_access_token().await
                && current != sent
            {
                return Ok(current);
            }
            match manager.refresh_token().await {
                Ok(_) => {
                    if let Ok(token) = manager.get_access_token().await
                        && token != sent
                    {
                        return Ok(token);
                    }
                }
                Err(e) => {
                    tracing::debug!(server = %self.alias, error = %auth_message(&e), "refresh failed; authorizing again");
                }
            }
        }
        match self.config.clone() {
            AuthConfig::ClientCredentials(c) => self.client_credentials(&mut state, &c).await,
            AuthConfig::OAuth(o) => {
                if self.authorizer.is_none() {
                    return Err(self.login_required(if sent.is_some() {
                        "the server rejected the stored login and it could not be refreshed"
                    } else if state.expired {
                        "the stored login has expired and the authorization server refused to refresh it"
                    } else {
                        "the server requires an OAuth login and none is stored"
                    }));
                }
                self.authorize(&mut state, &o, Some(challenge), None).await
            }
        }
    }

    /// The server answered 403 `insufficient_scope`: authorize again for the union of the
    /// granted scopes and the ones the challenge names (`attempt` counts from 1).
    pub(crate) async fn insufficient_scope(
        &self,
        challenge: &str,
        attempt: u32,
    ) -> Result<String, Error> {
        let base = reqwest::Url::parse(&self.url).map_err(|e| self.error(e.to_string()))?;
        let params = WWWAuthenticateParams::parse(challenge, &base);
        let needed = params.scope.clone().unwrap_or_default();
        let mut state = self.state.lock().await;
        let o = match &self.config {
            AuthConfig::OAuth(o) if self.authorizer.is_some() && attempt <= MAX_STEP_UPS => {
                o.clone()
            }
            AuthConfig::OAuth(_) if attempt > MAX_STEP_UPS => {
                return Err(self.error(format!(
                    "the server still answers insufficient_scope (needs \"{needed}\") after {MAX_STEP_UPS} authorizations; giving up"
                )));
            }
            _ => {
                return Err(self.login_required(&format!(
                    "the server needs the scope \"{needed}\", which the login lacks; add it to `auth = {{ oauth = {{ scopes = [...] }} }}` in the registry and log in again"
                )));
            }
        };
        let mut wanted = state.scopes.clone();
        for s in needed.split_whitespace() {
            if !wanted.iter().any(|w| w == s) {
                wanted.push(s.to_string());
            }
        }
        self.authorize(&mut state, &o, Some(challenge), Some(wanted))
            .await
    }

    /// The authorization code flow with PKCE: discovery (from the challenge when there is
    /// one), the client's identity (pre-registered, metadata document, or dynamic
    /// registration), the authorizer's round trip, the code exchange with the `iss` check.
    async fn authorize(
        &self,
        state: &mut State,
        o: &OAuthSettings,
        challenge: Option<&str>,
        scopes: Option<Vec<String>>,
    ) -> Result<String, Error> {
        let authorizer = self
            .authorizer
            .clone()
            .ok_or_else(|| self.login_required("no login is stored"))?;
        let fail = |e: AuthError| self.error(auth_message(&e));
        // A fresh manager: the authorization server may have changed since the last login.
        let mut manager = self.new_manager().await?;
        let resolution = manager
            .resolve_metadata_from_challenge(challenge)
            .await
            .map_err(|e| self.error(format!("OAuth discovery failed: {}", auth_message(&e))))?;
        let metadata = resolution.metadata.clone();
        manager.set_metadata(resolution.metadata);
        let scopes: Vec<String> = match scopes {
            Some(s) if !s.is_empty() => manager.select_scopes(Some(&s.join(" ")), &[]),
            _ if !o.scopes.is_empty() => manager.select_scopes(Some(&o.scopes.join(" ")), &[]),
            _ => manager.select_scopes(None, &[]),
        };
        let scope_refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
        let redirect_uri = authorizer.redirect_uri();
        let cimd = metadata
            .additional_fields
            .get("client_id_metadata_document_supported")
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        let stored = self
            .store
            .as_ref()
            .and_then(|s| s.read().ok().flatten())
            .filter(|f| {
                f.redirect_uri.as_deref() == Some(redirect_uri.as_str())
                    && f.credentials
                        .as_ref()
                        .is_some_and(|c| c.issuer.is_some() && c.issuer == metadata.issuer)
            });
        let (client_id, client_secret, registered) = if let Some(id) = &o.client_id {
            (id.clone(), o.client_secret.clone(), false)
        } else if let (Some(url), true) = (&o.client_metadata_url, cimd) {
            (url.clone(), None, false)
        } else if let Some(file) = stored.filter(|f| {
            f.credentials
                .as_ref()
                .is_some_and(|c| !c.client_id.starts_with("https://"))
        }) {
            // The client this machine registered at this same issuer before.
            let id = file.credentials.map(|c| c.client_id).unwrap_or_default();
            (id, file.client_secret, true)
        } else if metadata.registration_endpoint.is_some() {
            let config = manager
                .register_client(CLIENT_NAME, &redirect_uri, &scope_refs)
                .await
                .map_err(|e| {
                    self.error(format!(
                        "dynamic client registration failed: {}",
                        auth_message(&e)
                    ))
                })?;
            (config.client_id, config.client_secret, true)
        } else {
            return Err(self.error(
                "the authorization server offers neither dynamic client registration nor client ID metadata documents (or no `client_metadata_url` is set): register a client there and set `auth = { oauth = { client_id = \"…\" } }`",
            ));
        };
        let mut config = OAuthClientConfig::new(client_id.clone(), redirect_uri.clone());
        if let Some(secret) = &client_secret {
            config = config.with_client_secret(secret.clone());
        }
        manager.configure_client(config).map_err(fail)?;
        let url = manager
            .get_authorization_url(&scope_refs)
            .await
            .map_err(fail)?;
        let callback = authorizer
            .authorize(&url)
            .await
            .map_err(|m| self.error(format!("authorization failed: {m}")))?;
        let parsed = reqwest::Url::parse(&callback)
            .map_err(|e| self.error(format!("the authorization redirect is not a URL: {e}")))?;
        if let Some((_, error)) = parsed.query_pairs().find(|(k, _)| k == "error") {
            let description = parsed
                .query_pairs()
                .find(|(k, _)| k == "error_description")
                .map(|(_, d)| format!(": {d}"))
                .unwrap_or_default();
            return Err(self.error(format!(
                "the authorization server refused the authorization ({error}{description})"
            )));
        }
        let callback = AuthorizationCallback::from_redirect_url(&callback).map_err(fail)?;
        manager
            .exchange_code_for_token_with_issuer(
                &callback.code,
                &callback.csrf_token,
                callback.issuer.as_deref(),
            )
            .await
            .map_err(|e| self.error(format!("the code exchange failed: {}", auth_message(&e))))?;
        if let Some(store) = &self.store {
            store
                .update(|f| {
                    // A pre-registered client's secret stays in the environment.
                    f.client_secret = if registered {
                        client_secret.clone()
                    } else {
                        None
                    };
                    f.redirect_uri = Some(redirect_uri.clone());
                })
                .map_err(|m| self.error(m))?;
        }
        let token = manager.get_access_token().await.map_err(fail)?;
        state.scopes = manager.get_current_scopes().await;
        state.manager = Some(manager);
        Ok(token)
    }

    /// The client credentials grant: a token for the machine identity (kept in memory).
    async fn client_credentials(
        &self,
        state: &mut State,
        c: &ClientCredentialsSettings,
    ) -> Result<String, Error> {
        let mut manager = self.new_manager().await?;
        let resolution = manager
            .resolve_metadata()
            .await
            .map_err(|e| self.error(format!("OAuth discovery failed: {}", auth_message(&e))))?;
        manager.set_metadata(resolution.metadata);
        let resource = Some(self.url.clone());
        let config = match (&c.client_secret, &c.private_key) {
            (Some(secret), _) => ClientCredentialsConfig::ClientSecret {
                client_id: c.client_id.clone(),
                client_secret: secret.clone(),
                scopes: c.scopes.clone(),
                resource,
            },
            #[cfg(not(feature = "oauth-jwt"))]
            (None, Some(_)) => {
                return Err(self.error(
                    "client credentials with a `private_key` (a signed JWT) need the `oauth-jwt` feature of mcp-bindgen: enable it, or use a `client_secret`",
                ));
            }
            #[cfg(feature = "oauth-jwt")]
            (None, Some(key)) => ClientCredentialsConfig::PrivateKeyJwt {
                client_id: c.client_id.clone(),
                signing_key: key.as_bytes().to_vec(),
                signing_algorithm: algorithm(c.algorithm.as_deref().unwrap_or("RS256"))
                    .ok_or_else(|| self.error("unsupported JWT signing algorithm"))?,
                token_endpoint_audience: None,
                scopes: c.scopes.clone(),
                resource,
            },
            (None, None) => {
                return Err(self.error("client credentials need a client secret or a private key"));
            }
        };
        let fail = |e: AuthError| {
            self.error(format!(
                "the client credentials grant failed: {}",
                auth_message(&e)
            ))
        };
        manager
            .validate_client_credentials_metadata(&config)
            .map_err(fail)?;
        manager
            .configure_client_credentials(&config)
            .map_err(fail)?;
        // rmcp's exchange future is not `Send` (it holds a URL serializer across an
        // await): it runs to completion on a blocking thread of this runtime.
        let handle = tokio::runtime::Handle::current();
        let (manager, exchanged) = tokio::task::spawn_blocking(move || {
            let exchanged = handle.block_on(manager.exchange_client_credentials(&config));
            (manager, exchanged)
        })
        .await
        .map_err(|e| self.error(format!("the client credentials grant failed: {e}")))?;
        // The token of this answer: asking the manager would refresh a token that lives
        // shorter than its refresh margin, and there is no refresh token to do it with.
        let token = exchanged.map_err(fail)?.access_token().secret().to_string();
        state.manager = Some(manager);
        Ok(token)
    }
}

#[cfg(feature = "oauth-jwt")]
fn algorithm(name: &str) -> Option<JwtSigningAlgorithm> {
    Some(match name {
        "RS256" => JwtSigningAlgorithm::RS256,
        "RS384" => JwtSigningAlgorithm::RS384,
        "RS512" => JwtSigningAlgorithm::RS512,
        "ES256" => JwtSigningAlgorithm::ES256,
        "ES384" => JwtSigningAlgorithm::ES384,
        _ => return None,
    })
}
