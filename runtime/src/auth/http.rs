//! The Streamable HTTP client with OAuth: every request carries the current access token;
//! a 401 refreshes it or authorizes again, a 403 `insufficient_scope` steps the scopes up,
//! and the request is sent again — so neither the session nor a call sees either.

use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits as ResponseLimits,
};
use sse_stream::{Error as SseError, Sse};

use super::engine::Engine;

/// An HTTP client `C` with one server's OAuth [`Engine`] in front of it.
#[derive(Clone)]
pub(crate) struct OAuthHttp<C> {
    inner: C,
    engine: Arc<Engine>,
}

impl<C> OAuthHttp<C> {
    pub(crate) fn new(inner: C, engine: Arc<Engine>) -> Self {
        OAuthHttp { inner, engine }
    }
}

type HttpResult<T, E> = Result<T, StreamableHttpError<E>>;

impl<C> OAuthHttp<C>
where
    C: StreamableHttpClient + Send + Sync,
{
    /// Runs `send` with the current token, recovering from 401 (once) and from 403
    /// `insufficient_scope` (up to the step-up limit).
    async fn with_token<T, F, Fut>(&self, given: Option<String>, send: F) -> HttpResult<T, C::Error>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: Future<Output = HttpResult<T, C::Error>>,
    {
        let fail = |e| StreamableHttpError::Auth(self.engine.fail(e));
        let mut token = match given {
            Some(t) => Some(t),
            None => self.engine.token().await.map_err(fail)?,
        };
        let mut authorizations = 0u32;
        let mut after_401 = false;
        loop {
            match send(token.clone()).await {
                Err(StreamableHttpError::AuthRequired(challenge)) if !after_401 => {
                    after_401 = true;
                    authorizations += 1;
                    let fresh = self
                        .engine
                        .unauthorized(&challenge.www_authenticate_header, token.as_deref())
                        .await
                        .map_err(fail)?;
                    token = Some(fresh);
                }
                Err(StreamableHttpError::AuthRequired(_)) => {
                    return Err(fail(self.engine.rejected_new_token()));
                }
                Err(StreamableHttpError::InsufficientScope(challenge)) => {
                    authorizations += 1;
                    let fresh = self
                        .engine
                        .insufficient_scope(&challenge.www_authenticate_header, authorizations)
                        .await
                        .map_err(fail)?;
                    token = Some(fresh);
                }
                other => return other,
            }
        }
    }
}

impl<C> StreamableHttpClient for OAuthHttp<C>
where
    C: StreamableHttpClient + Send + Sync,
{
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<StreamableHttpPostResponse, C::Error> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            ResponseLimits::default(),
        )
        .await
    }

    /// Every POST comes here with the transport's limits (the JSON body limit included),
    /// handed on unchanged to the client underneath.
    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: ResponseLimits,
    ) -> HttpResult<StreamableHttpPostResponse, C::Error> {
        self.with_token(auth_header, |token| {
            self.inner.post_message_with_response_limits(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
                limits,
            )
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<(), C::Error> {
        self.with_token(auth_header, |token| {
            self.inner.delete_session(
                uri.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<BoxStream<'static, Result<Sse, SseError>>, C::Error> {
        self.with_token(auth_header, |token| {
            self.inner.get_stream(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> HttpResult<BoxStream<'static, Result<Sse, SseError>>, C::Error> {
        self.with_token(auth_header, |token| {
            self.inner.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }
}
