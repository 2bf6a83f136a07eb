//! [`Authorizer`]: what takes a user (or a test's headless agent) through an authorization
//! URL during an OAuth login.

use std::future::Future;
use std::pin::Pin;

/// The future an [`Authorizer`] returns: the redirect URL the authorization server sent the
/// browser to, or why there is none.
pub type AuthorizeFuture<'a> =
    Pin<Box<dyn Future<Output = std::result::Result<String, String>> + Send + 'a>>;

/// Takes a user (or a test's headless agent) through an authorization URL.
///
/// [`LoopbackAuthorizer`](super::LoopbackAuthorizer) is the interactive one: it listens on `127.0.0.1`, prints the URL
/// and opens a browser when there is one.
pub trait Authorizer: Send + Sync {
    /// The redirect URI to register and to send with the authorization request.
    fn redirect_uri(&self) -> String;

    /// Has `url` visited and returns the full redirect URL it ends at (with `code`,
    /// `state` and, when the server sends it, `iss`).
    fn authorize<'a>(&'a self, url: &'a str) -> AuthorizeFuture<'a>;
}
