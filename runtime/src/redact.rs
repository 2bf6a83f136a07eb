//! The one redaction rule for every text that leaves the runtime (errors, log lines, a
//! server's stderr, cassettes): the configuration's secrets, and bearer tokens it never
//! held, replaced by `<redacted>`.

/// `text` with every one of `secrets` replaced by `<redacted>` (longest first, so a secret
/// that contains another is replaced whole), and the token after every `Bearer ` (an OAuth
/// access token the configuration never held, echoed by a server) as well: the one
/// redaction rule for every text that leaves the runtime.
pub(crate) fn redact(secrets: &[String], text: &str) -> String {
    let mut out = text.to_string();
    for secret in secrets {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), "<redacted>");
        }
    }
    redact_bearer(&out)
}

/// The shortest text after `Bearer ` taken for a credential (OAuth access tokens, JWTs and
/// API keys are longer; words are shorter).
const BEARER_TOKEN_MIN: usize = 16;

/// `text` with the credential after each `Bearer ` (any case) replaced by `<redacted>`: a
/// run of token characters at least [`BEARER_TOKEN_MIN`] long with a digit in it.
fn redact_bearer(text: &str) -> String {
    const WORD: &str = "bearer ";
    let lower = text.to_ascii_lowercase();
    if !lower.contains(WORD) {
        return text.to_string();
    }
    let token_char = |c: char| c.is_ascii_alphanumeric() || "-._~+/=".contains(c);
    let mut out = String::with_capacity(text.len());
    let mut rest = 0;
    let mut from = 0;
    while let Some(i) = lower[from..].find(WORD) {
        let start = from + i + WORD.len();
        let len = text[start..]
            .find(|c: char| !token_char(c))
            .unwrap_or(text.len() - start);
        // A credential, not a word ("jwt-bearer grant"): long, with a digit in it.
        let token = &text[start..start + len];
        if len >= BEARER_TOKEN_MIN && token.chars().any(|c| c.is_ascii_digit()) {
            out.push_str(&text[rest..start]);
            out.push_str("<redacted>");
            rest = start + len;
        }
        from = start + len.max(1).min(text.len() - start);
        if from >= text.len() {
            break;
        }
    }
    out.push_str(&text[rest..]);
    out
}
