//! Text a server wrote, made safe to show: [`printable`] escapes what a terminal would
//! obey, and [`valid_tool_name`] checks the MCP tool-name rule.

use std::borrow::Cow;

/// `text` with every control character escaped (`\u{1b}`), so that a server's text cannot
/// drive the terminal it is printed on (clear the screen, move the cursor, write the
/// clipboard through OSC 52, hide what follows). Line breaks and tabs are kept when
/// `multiline`; C1 controls (U+0080–U+009F, such as the one-character CSI) and the Unicode
/// bidirectional overrides are escaped too.
///
/// ```
/// use mcp_bindgen_core::text::printable;
///
/// assert_eq!(printable("ok\x1b]52;c;aGk=\x07", false), "ok\\u{1b}]52;c;aGk=\\u{7}");
/// assert_eq!(printable("a\nb", true), "a\nb");
/// assert_eq!(printable("a\nb", false), "a\\u{a}b");
/// ```
pub fn printable(text: &str, multiline: bool) -> Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && !(multiline && (c == '\n' || c == '\t')))
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Why `name` breaks the MCP tool-name rule (1 to 128 characters of `A-Z a-z 0-9 _ - .`,
/// revision 2025-11-25 on), or `None` when it keeps it. Names that break it still work
/// with most clients; they are reported as the server's bug.
///
/// ```
/// use mcp_bindgen_core::text::valid_tool_name;
///
/// assert!(valid_tool_name("get_issue").is_none());
/// assert!(valid_tool_name("bad name").is_some());
/// ```
pub fn valid_tool_name(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("the name is empty".into());
    }
    let len = name.chars().count();
    if len > 128 {
        return Some(format!("the name has {len} characters (at most 128)"));
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .map(|c| {
            format!(
                "the name contains {} (only A-Z, a-z, 0-9, `_`, `-` and `.` are allowed)",
                printable(&format!("{c:?}"), false)
            )
        })
}
/// `bytes` in padded base64: the standard alphabet (RFC 4648 §4), or the URL- and
/// filename-safe one (§5) when `url_safe`.
pub fn base64(bytes: &[u8], url_safe: bool) -> String {
    const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let alphabet = if url_safe { URL_SAFE } else { STANDARD };
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(alphabet[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}
