//! The one redaction rule for every text that leaves the runtime (errors, log lines, a
//! server's stderr, cassettes): the configuration's secrets, and bearer tokens it never
//! held, replaced by `<redacted>`.
//!
//! A secret is recognised as written and in the encodings a server echoes it in:
//! percent-encoded (upper- or lower-case hex, `+` for a space), JSON-escaped (with `/` as
//! `\/` too) and base64 (standard and URL-safe alphabets, at any of the three alignments
//! inside a longer encoded text: the part of the encoding that depends on the secret alone
//! is replaced).

use mcp_bindgen_core::text::base64;

/// `text` with every one of `secrets` replaced by `<redacted>` (longest first, so a secret
/// that contains another is replaced whole), and the token after every `Bearer ` (an OAuth
/// access token the configuration never held, echoed by a server) as well: the one
/// redaction rule for every text that leaves the runtime.
pub(crate) fn redact(secrets: &[String], text: &str) -> String {
    let mut out = text.to_string();
    for secret in secrets {
        for form in forms(secret) {
            if out.contains(form.as_str()) {
                out = out.replace(form.as_str(), "<redacted>");
            }
        }
    }
    redact_bearer(&out)
}

/// Whether `text` holds one of `secrets`, as written or in an encoding [`redact`] knows
/// (bearer tokens the configuration never held are not looked for).
pub(crate) fn contains_secret(secrets: &[String], text: &str) -> bool {
    secrets.iter().any(|secret| {
        forms(secret)
            .iter()
            .any(|form| text.contains(form.as_str()))
    })
}

/// The shortest part of a base64 encoding taken for a secret's (shorter parts could be
/// anywhere in an unrelated encoded text).
const BASE64_CORE_MIN: usize = 8;

/// `secret` as written, then in every encoding a server may echo it in (each distinct,
/// longest first within an encoding family; the secret as written first).
fn forms(secret: &str) -> Vec<String> {
    let mut forms = vec![secret.to_string()];
    let mut add = |form: String| {
        if !form.is_empty() && !forms.contains(&form) {
            forms.push(form);
        }
    };
    add(percent_encode(secret, false, false));
    add(percent_encode(secret, true, false));
    add(percent_encode(secret, false, true));
    if let Ok(json) = serde_json::to_string(secret) {
        let inner = json.trim_matches('"').to_string();
        add(inner.replace('/', "\\/"));
        add(inner);
    }
    for url_safe in [false, true] {
        for core in base64_cores(secret.as_bytes(), url_safe) {
            add(core);
        }
    }
    forms
}

/// `text` percent-encoded: every byte but `A-Z a-z 0-9 - . _ ~` as `%XX` (`lower`: `%xx`),
/// with a space as `+` when `plus`.
fn percent_encode(text: &str, lower: bool, plus: bool) -> String {
    let mut out = String::with_capacity(text.len() * 3);
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            b' ' if plus => out.push('+'),
            _ if lower => out.push_str(&format!("%{b:02x}")),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The parts of the base64 encoding of `secret` that any encoded text containing it holds,
/// one per alignment (the secret starting at a byte offset of 0, 1 or 2 modulo 3): the
/// characters that depend on the secret's bytes only. Parts shorter than
/// [`BASE64_CORE_MIN`] are left out.
fn base64_cores(secret: &[u8], url_safe: bool) -> Vec<String> {
    let mut cores = Vec::new();
    for offset in 0..3usize {
        let mut bytes = vec![0u8; offset];
        bytes.extend_from_slice(secret);
        let encoded = base64(&bytes, url_safe);
        // Characters before `skip` mix in the filler bytes; after `end`, what follows the
        // secret (or padding).
        let skip = (offset * 8).div_ceil(6);
        let end = (bytes.len() * 8) / 6;
        if end > skip + BASE64_CORE_MIN - 1 {
            cores.push(encoded[skip..end].to_string());
        }
    }
    cores
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

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "s3cr3t/tok+en value";

    fn redacted(text: &str) -> String {
        redact(&[SECRET.to_string()], text)
    }

    #[test]
    fn a_secret_is_redacted_as_written_and_percent_encoded() {
        assert_eq!(redacted(&format!("got {SECRET}!")), "got <redacted>!");
        for encoded in [
            "s3cr3t%2Ftok%2Ben%20value",
            "s3cr3t%2ftok%2ben%20value",
            "s3cr3t%2Ftok%2Ben+value",
        ] {
            let text = format!("?token={encoded}&x=1");
            assert_eq!(redacted(&text), "?token=<redacted>&x=1", "{encoded}");
        }
    }

    #[test]
    fn a_secret_is_redacted_json_escaped() {
        let secret = r#"pa"ss/wörd\1"#;
        let secrets = [secret.to_string()];
        let json = serde_json::json!({ "echo": secret }).to_string();
        assert_eq!(redact(&secrets, &json), r#"{"echo":"<redacted>"}"#);
        let slashes = json.replace('/', "\\/");
        assert_eq!(redact(&secrets, &slashes), r#"{"echo":"<redacted>"}"#);
    }

    /// Checked against base64 computed independently (RFC 4648's test vectors for the
    /// encoder, and an echo of `Authorization: Bearer …` at every alignment).
    #[test]
    fn a_secret_is_redacted_base64_encoded_at_any_alignment() {
        for (plain, encoded) in [
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(
                base64(plain.as_bytes(), false).trim_end_matches('='),
                encoded
            );
        }
        let secret = "Bearer abcdEFGH1234_secret";
        let secrets = [secret.to_string()];
        for prefix in ["", "x", "xy", "Authorization: "] {
            for url_safe in [false, true] {
                let echo = format!("{prefix}{secret} (echoed)");
                let encoded = base64(echo.as_bytes(), url_safe);
                let out = redact(&secrets, &encoded);
                assert!(out.contains("<redacted>"), "{prefix:?}: {out}");
                // What is left of the secret's encoding is at most its two edge characters.
                assert!(out.len() < encoded.len() - 20, "{out}");
            }
        }
    }

    #[test]
    fn short_secrets_get_no_base64_form_and_words_stay() {
        assert!(base64_cores(b"abcd", false).is_empty());
        let secrets = ["k-123456".to_string()];
        assert_eq!(redact(&secrets, "nothing here"), "nothing here");
        assert_eq!(redact(&secrets, "?api_key=k-123456"), "?api_key=<redacted>");
    }
}
