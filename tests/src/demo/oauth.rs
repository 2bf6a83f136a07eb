//! `--oauth`: the demo server as an OAuth-protected resource with its own authorization
//! server on the same origin — what a hosted MCP server looks like to a client, on
//! localhost and without accounts.
//!
//! - `GET /.well-known/oauth-protected-resource[/mcp]`: RFC 9728 metadata naming this origin
//!   as the authorization server;
//! - `GET /.well-known/oauth-authorization-server`: RFC 8414 metadata (PKCE S256, dynamic
//!   registration, `client_secret_basic`/`_post`, the `iss` response parameter,
//!   `offline_access`);
//! - `POST /register`: dynamic registration, issuing a client secret;
//! - `GET /authorize`: approves at once (there is no user to ask) and redirects with `code`,
//!   `state` and `iss`;
//! - `POST /token`: `authorization_code` (PKCE and redirect URI checked), `refresh_token`
//!   (no new refresh token: the client must keep its own), `client_credentials` (clients
//!   given with `--oauth-client ID:SECRET` or registered); every grant checks the client's
//!   secret and the RFC 8707 `resource`;
//! - `/mcp` answers 401 with a `WWW-Authenticate` challenge unless the bearer token is
//!   valid and unexpired (`--oauth-token-ttl` seconds);
//! - `GET /oauth/stats`: what happened, as JSON, for tests to assert on;
//! - `--oauth-refresh-delay-ms N` makes refreshes slow: the window in which clients sharing
//!   a login would refresh twice without a lock.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The scope every token grants.
pub const SCOPE: &str = "mcp";

/// The OAuth side of the demo server.
pub struct OAuthServer {
    /// `http://host:port`, the issuer and the resource's origin.
    origin: String,
    ttl: Duration,
    /// How long a refresh takes (`--oauth-refresh-delay-ms`): a window in which clients
    /// sharing a login could refresh twice.
    refresh_delay: Duration,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// client id → (secret, redirect URIs).
    clients: HashMap<String, (Option<String>, Vec<String>)>,
    /// code → (client id, PKCE challenge, redirect URI, scope).
    codes: HashMap<String, (String, String, String, String)>,
    /// access token → expiry.
    access: HashMap<String, Instant>,
    /// refresh token → client id.
    refresh: HashMap<String, String>,
    next: u64,
    stats: Stats,
}

#[derive(Default, serde::Serialize)]
struct Stats {
    registrations: u64,
    authorizations: u64,
    authorization_code: u64,
    refresh_token: u64,
    client_credentials: u64,
    /// Token requests refused, with why.
    refused: Vec<String>,
    /// Requests to /mcp answered 401.
    unauthorized: u64,
}

/// An HTTP answer: status, headers, body.
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(&'static str, String)>,
    /// The body.
    pub body: String,
    /// How long to wait before answering.
    pub delay: Duration,
}

impl Answer {
    fn json(status: u16, body: Value) -> Answer {
        Answer {
            status,
            headers: vec![("content-type", "application/json".into())],
            body: body.to_string(),
            delay: Duration::ZERO,
        }
    }
}

impl OAuthServer {
    /// The OAuth side of a server listening at `origin`; `clients` are pre-registered
    /// `(id, secret)` pairs.
    pub fn new(
        origin: String,
        ttl: Duration,
        refresh_delay: Duration,
        clients: &[(String, String)],
    ) -> Self {
        let mut state = State::default();
        for (id, secret) in clients {
            state
                .clients
                .insert(id.clone(), (Some(secret.clone()), Vec::new()));
        }
        OAuthServer {
            origin,
            ttl,
            refresh_delay,
            state: Mutex::new(state),
        }
    }

    fn resource(&self) -> String {
        format!("{}/mcp", self.origin)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The 401 of `/mcp` when `authorization` holds no valid token; `None` lets it through.
    pub fn check(&self, authorization: Option<&str>) -> Option<Answer> {
        let token = authorization.and_then(|a| a.strip_prefix("Bearer "));
        let mut state = self.lock();
        let valid = token
            .and_then(|t| state.access.get(t))
            .is_some_and(|expiry| *expiry > Instant::now());
        if valid {
            return None;
        }
        state.stats.unauthorized += 1;
        let error = if token.is_some() {
            ", error=\"invalid_token\""
        } else {
            ""
        };
        Some(Answer {
            status: 401,
            headers: vec![(
                "www-authenticate",
                format!(
                    "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\", scope=\"{SCOPE}\"{error}",
                    self.origin
                ),
            )],
            body: "unauthorized\n".into(),
            delay: Duration::ZERO,
        })
    }

    /// Answers the OAuth endpoints; `None` for other paths.
    pub fn route(
        &self,
        method: &str,
        path: &str,
        query: &str,
        authorization: Option<&str>,
        body: &[u8],
    ) -> Option<Answer> {
        Some(match (method, path) {
            ("GET", "/.well-known/oauth-protected-resource")
            | ("GET", "/.well-known/oauth-protected-resource/mcp") => Answer::json(
                200,
                json!({
                    "resource": self.resource(),
                    "authorization_servers": [self.origin],
                    "scopes_supported": [SCOPE],
                    "bearer_methods_supported": ["header"],
                }),
            ),
            ("GET", "/.well-known/oauth-authorization-server") => Answer::json(
                200,
                json!({
                    "issuer": self.origin,
                    "authorization_endpoint": format!("{}/authorize", self.origin),
                    "token_endpoint": format!("{}/token", self.origin),
                    "registration_endpoint": format!("{}/register", self.origin),
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
                    "scopes_supported": [SCOPE, "offline_access"],
                    "authorization_response_iss_parameter_supported": true,
                }),
            ),
            ("POST", "/register") => self.register(body),
            ("GET", "/authorize") => self.authorize(query),
            ("POST", "/token") => self.token(authorization, body),
            ("GET", "/oauth/stats") => Answer::json(
                200,
                serde_json::to_value(&self.lock().stats).unwrap_or_default(),
            ),
            _ => return None,
        })
    }

    fn fresh(&self, state: &mut State, prefix: &str) -> String {
        state.next += 1;
        let mut hasher = Sha256::new();
        hasher.update(format!("{prefix}{}{:?}", state.next, Instant::now()).as_bytes());
        format!("{prefix}_{}", base64url(&hasher.finalize()[..18]))
    }

    fn register(&self, body: &[u8]) -> Answer {
        let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let redirects: Vec<String> = request["redirect_uris"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        if redirects.is_empty() {
            return Answer::json(400, json!({"error": "invalid_redirect_uri"}));
        }
        let mut state = self.lock();
        let id = self.fresh(&mut state, "client");
        let secret = self.fresh(&mut state, "secret");
        state
            .clients
            .insert(id.clone(), (Some(secret.clone()), redirects.clone()));
        state.stats.registrations += 1;
        Answer::json(
            201,
            json!({
                "client_id": id,
                "client_secret": secret,
                "redirect_uris": redirects,
                "token_endpoint_auth_method": "client_secret_basic",
                "grant_types": ["authorization_code", "refresh_token"],
            }),
        )
    }

    fn authorize(&self, query: &str) -> Answer {
        let q = form(query.as_bytes());
        let get = |k: &str| q.get(k).cloned().unwrap_or_default();
        let mut state = self.lock();
        let known = state
            .clients
            .get(&get("client_id"))
            .is_some_and(|(_, uris)| uris.contains(&get("redirect_uri")));
        if !known || get("code_challenge_method") != "S256" || get("response_type") != "code" {
            return Answer::json(400, json!({"error": "invalid_request"}));
        }
        if get("resource") != self.resource() {
            state
                .stats
                .refused
                .push(format!("authorize: resource {:?}", get("resource")));
            return Answer::json(400, json!({"error": "invalid_target"}));
        }
        let code = self.fresh(&mut state, "code");
        state.codes.insert(
            code.clone(),
            (
                get("client_id"),
                get("code_challenge"),
                get("redirect_uri"),
                get("scope"),
            ),
        );
        state.stats.authorizations += 1;
        let location = format!(
            "{}?code={}&state={}&iss={}",
            get("redirect_uri"),
            encode(&code),
            encode(&get("state")),
            encode(&self.origin)
        );
        Answer {
            status: 302,
            headers: vec![("location", location)],
            body: String::new(),
            delay: Duration::ZERO,
        }
    }

    fn token(&self, authorization: Option<&str>, body: &[u8]) -> Answer {
        let f = form(body);
        let get = |k: &str| f.get(k).cloned().unwrap_or_default();
        // Client authentication: HTTP Basic or the body.
        let (id, secret) = match authorization.and_then(|a| a.strip_prefix("Basic ")) {
            Some(b64) => {
                let decoded = base64_decode(b64).unwrap_or_default();
                let text = String::from_utf8_lossy(&decoded).into_owned();
                let (id, secret) = text.split_once(':').unwrap_or((&text, ""));
                (decode(id), Some(decode(secret)))
            }
            None => (get("client_id"), f.get("client_secret").cloned()),
        };
        let mut state = self.lock();
        let refuse = |state: &mut State, why: String| {
            state.stats.refused.push(why);
            Answer::json(400, json!({"error": "invalid_grant"}))
        };
        let expected = state.clients.get(&id).map(|(s, _)| s.clone());
        match expected {
            None => return refuse(&mut state, format!("unknown client {id:?}")),
            Some(Some(s)) if secret.as_deref() != Some(s.as_str()) => {
                return refuse(
                    &mut state,
                    format!("{}: wrong or missing client secret", get("grant_type")),
                );
            }
            _ => {}
        }
        if get("resource") != self.resource() {
            return refuse(
                &mut state,
                format!("{}: resource {:?}", get("grant_type"), get("resource")),
            );
        }
        let refresh = match get("grant_type").as_str() {
            "authorization_code" => {
                let Some((client, challenge, redirect, _)) = state.codes.remove(&get("code"))
                else {
                    return refuse(&mut state, "unknown code".into());
                };
                let verified = base64url(&Sha256::digest(get("code_verifier").as_bytes()));
                if client != id || verified != challenge || redirect != get("redirect_uri") {
                    return refuse(
                        &mut state,
                        "code: client, PKCE verifier or redirect URI differs".into(),
                    );
                }
                state.stats.authorization_code += 1;
                let r = self.fresh(&mut state, "refresh");
                state.refresh.insert(r.clone(), id.clone());
                Some(r)
            }
            "refresh_token" => {
                if state.refresh.get(&get("refresh_token")) != Some(&id) {
                    return refuse(&mut state, "unknown refresh token".into());
                }
                state.stats.refresh_token += 1;
                None
            }
            "client_credentials" => {
                state.stats.client_credentials += 1;
                None
            }
            other => return refuse(&mut state, format!("grant {other:?}")),
        };
        let access = self.fresh(&mut state, "access");
        state
            .access
            .insert(access.clone(), Instant::now() + self.ttl);
        let mut answer = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.ttl.as_secs(),
            "scope": SCOPE,
        });
        let delay = if refresh.is_none() && get("grant_type") == "refresh_token" {
            self.refresh_delay
        } else {
            Duration::ZERO
        };
        if let Some(r) = refresh {
            answer["refresh_token"] = json!(r);
        }
        Answer {
            delay,
            ..Answer::json(200, answer)
        }
    }
}

/// `application/x-www-form-urlencoded` pairs.
fn form(body: &[u8]) -> HashMap<String, String> {
    String::from_utf8_lossy(body)
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `s` percent-encoded (everything but the unreserved characters), as a URL carries it.
pub(super) fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Unpadded base64url.
fn base64url(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            let c = B64[((n >> (18 - 6 * i)) & 63) as usize];
            out.push(match c {
                b'+' => '-',
                b'/' => '_',
                c => c as char,
            });
        }
    }
    out
}

/// Standard (padded) base64, as HTTP Basic uses.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for c in text.trim().bytes().filter(|&c| c != b'=') {
        let v = B64.iter().position(|&b| b == c)? as u32;
        bits = (bits << 6) | v;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codecs_round_trip() {
        assert_eq!(
            base64url(&Sha256::digest(
                b"dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
            )),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert_eq!(
            base64_decode("Y2xpZW50OnNlY3JldA==").unwrap(),
            b"client:secret"
        );
        assert_eq!(decode("a%20b+c%3D"), "a b c=");
        assert_eq!(encode("http://x/y?z"), "http%3A%2F%2Fx%2Fy%3Fz");
    }
}
