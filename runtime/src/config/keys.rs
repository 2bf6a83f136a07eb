//! What a registry file may hold besides our own keys: the keys other MCP clients write into
//! the same file (ignored, with one warning per file), the keys that look like typos of ours
//! (refused, with the key meant), and the normalization of server names into aliases.

use std::collections::BTreeMap;

/// The keys of a server entry (every spelling serde accepts), for "did you mean".
const OURS: &[&str] = &[
    "type",
    "transport",
    "command",
    "args",
    "env",
    "inherit_env",
    "inheritEnv",
    "env_passthrough",
    "envPassthrough",
    "cwd",
    "url",
    "headers",
    "timeout",
    "required",
    "record_resources",
    "recordResources",
    "tools",
    "exclude_tools",
    "excludeTools",
    "tool_timeouts",
    "toolTimeouts",
    "connect_timeout",
    "connectTimeout",
    "drift",
    "unreviewed_tools",
    "unreviewedTools",
    "require_fixture",
    "requireFixture",
    "protocol",
    "enabled",
    "disabled",
    "function_call_wrapper",
    "functionCallWrapper",
    "auth",
    "transportType",
    "httpUrl",
    "serverUrl",
    "includeTools",
    "max_message_bytes",
    "maxMessageBytes",
    "max_tools",
    "maxTools",
    "max_tools_list_bytes",
    "maxToolsListBytes",
    "max_server_requests",
    "maxServerRequests",
    "ca_certs",
    "caCerts",
    "roots",
    "max_tokens",
    "maxTokens",
    "max_description_chars",
    "maxDescriptionChars",
];

/// Keys other MCP clients write into a server entry, with the clients, for the warning.
/// Their equivalents of our keys are read as ours instead (`transportType`, `httpUrl`,
/// `serverUrl`, `includeTools`).
const FOREIGN: &[(&str, &str)] = &[
    // Cline
    ("autoApprove", "Cline"),
    // Roo Code
    ("alwaysAllow", "Roo Code"),
    ("watchPaths", "Roo Code"),
    ("disabledTools", "Roo Code, Windsurf"),
    // Gemini CLI
    ("trust", "Gemini CLI"),
    ("oauth", "Gemini CLI"),
    ("authProviderType", "Gemini CLI"),
    ("targetAudience", "Gemini CLI"),
    ("targetServiceAccount", "Gemini CLI"),
    ("description", "Gemini CLI, Goose"),
    // VS Code, Cursor
    ("envFile", "VS Code, Cursor"),
    ("dev", "VS Code"),
    ("gallery", "VS Code"),
    ("version", "VS Code"),
    // Claude Code
    ("headersHelper", "Claude Code"),
    // Zed
    ("source", "Zed"),
    ("settings", "Zed"),
    // Continue, Goose
    ("name", "Continue, Goose"),
    ("connectionTimeout", "Continue"),
    ("requestOptions", "Continue"),
    ("bundled", "Goose"),
    ("display_name", "Goose"),
    ("env_keys", "Goose"),
    ("available_tools", "Goose"),
    // OpenAI Codex CLI
    ("startup_timeout_sec", "Codex CLI"),
    ("tool_timeout_sec", "Codex CLI"),
    ("enabled_tools", "Codex CLI"),
    ("disabled_tools", "Codex CLI"),
    ("bearer_token_env_var", "Codex CLI"),
    ("env_vars", "Codex CLI"),
    ("http_headers", "Codex CLI"),
    ("env_http_headers", "Codex CLI"),
    // several clients
    ("icon", "other clients"),
];

/// Keys of the top level of a JSON registry that concern its servers but are not read:
/// VS Code's `inputs` (prompted variables, `${input:…}`).
pub(super) const FOREIGN_TOP_LEVEL: &[(&str, &str)] = &[("inputs", "VS Code")];

/// Spellings too far from ours for the edit distance, with the key meant.
const SYNONYMS: &[(&str, &str)] = &[
    ("cmd", "command"),
    ("arguments", "args"),
    ("argv", "args"),
    ("environment", "env"),
    ("envs", "env"),
    ("endpoint", "url"),
    ("uri", "url"),
    ("workdir", "cwd"),
    ("working_directory", "cwd"),
];

/// What an unknown key of a server entry is.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Key {
    /// A key another client uses; `&str` names the clients.
    Foreign(&'static str),
    /// A misspelling of our key.
    Typo(&'static str),
    /// Neither.
    Unknown,
}

/// Classifies a key that is not one of ours.
pub(super) fn classify(key: &str) -> Key {
    if let Some((_, clients)) = FOREIGN.iter().find(|(k, _)| *k == key) {
        return Key::Foreign(clients);
    }
    let folded = fold(key);
    if let Some(ours) = OURS.iter().find(|o| fold(o) == folded) {
        return Key::Typo(ours);
    }
    if let Some((_, ours)) = SYNONYMS.iter().find(|(s, _)| *s == folded) {
        return Key::Typo(ours);
    }
    let lower = key.to_ascii_lowercase();
    OURS.iter()
        .map(|o| (distance(&lower, &o.to_ascii_lowercase()), *o))
        .filter(|(d, o)| *d <= 2 && d * 3 <= lower.chars().count().max(o.len()))
        .min_by_key(|(d, _)| *d)
        .map_or(Key::Unknown, |(_, o)| Key::Typo(o))
}

/// The refusal of a key of a server entry that is not ours and not another client's.
pub(super) fn refusal(key: &str) -> String {
    match classify(key) {
        Key::Typo(ours) => format!("unknown field `{key}`: did you mean `{ours}`?"),
        _ => format!(
            "unknown field `{key}` (neither a key of mcp-bindgen nor one other MCP clients write; keys: {})",
            OURS.iter()
                .filter(|k| !k.contains(char::is_uppercase))
                .copied()
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Lowercase without `_` and `-`: `connect-timeout`, `ConnectTimeout` → `connecttimeout`.
fn fold(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '_' && *c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The optimal-string-alignment distance: insertions, deletions, substitutions and
/// transpositions of neighbours.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// Where an ignored key was found: its clients (`None`: an unknown key) and its places.
type Found = (Option<&'static str>, Vec<String>);

/// The ignored keys of one file, gathered for its one warning.
#[derive(Default)]
pub(super) struct Ignored {
    /// key → where it was found.
    keys: BTreeMap<String, Found>,
}

impl Ignored {
    /// Notes `key` (of `clients`, `None`: unknown) found in `place` (`server "fs"` or
    /// `the top level`).
    pub(super) fn add(&mut self, key: &str, clients: Option<&'static str>, place: String) {
        let entry = self
            .keys
            .entry(key.to_string())
            .or_insert_with(|| (clients, Vec::new()));
        if !entry.1.contains(&place) {
            entry.1.push(place);
        }
    }

    /// The one warning of the file, if anything was ignored.
    pub(super) fn warning(&self, file: &str) -> Option<String> {
        if self.keys.is_empty() {
            return None;
        }
        let (foreign, unknown): (Vec<_>, Vec<_>) = self
            .keys
            .iter()
            .partition(|(_, (clients, _))| clients.is_some());
        let list = |items: Vec<(&String, &Found)>| {
            items
                .into_iter()
                .map(|(key, (clients, places))| {
                    let clients = clients.map(|c| format!(" ({c})")).unwrap_or_default();
                    format!("`{key}`{clients} in {}", places.join(", "))
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        let mut parts = Vec::new();
        if !foreign.is_empty() {
            parts.push(format!("keys of other MCP clients: {}", list(foreign)));
        }
        if !unknown.is_empty() {
            parts.push(format!("unknown keys: {}", list(unknown)));
        }
        Some(format!(
            "{file}: ignoring what mcp-bindgen does not read: {}",
            parts.join("; ")
        ))
    }
}

/// The alias a server name of a registry file is used under: lowercase ASCII (common Latin
/// letters with diacritics folded: `ü` → `u`), every run of other characters made one `_`,
/// leading and trailing `_`/`-` dropped; `GitHub` → `github`, `brave search` →
/// `brave_search`, `my.server` → `my_server`. The error, for a name without a letter to
/// start with (`9x`, `日本`), is [`check_alias`]'s.
pub(super) fn normalize_alias(name: &str) -> Result<String, String> {
    if check_alias(name).is_ok() {
        return Ok(name.to_string());
    }
    let mut out = String::with_capacity(name.len());
    for c in name.chars().flat_map(char::to_lowercase) {
        let folded = fold_letter(c);
        if !folded.is_empty() {
            out.push_str(folded);
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let trimmed = out.trim_matches(|c| c == '_' || c == '-');
    check_alias(trimmed).map_err(|_| check_alias(name).err().unwrap_or_default())?;
    Ok(trimmed.to_string())
}

/// The ASCII spelling of a lowercase Latin letter with a diacritic (`""` for any other
/// character).
fn fold_letter(c: char) -> &'static str {
    match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'æ' => "ae",
        'ç' | 'ć' | 'č' => "c",
        'ď' | 'đ' => "d",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => "e",
        'ğ' => "g",
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' | 'ı' => "i",
        'ł' | 'ľ' => "l",
        'ñ' | 'ń' | 'ň' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => "o",
        'œ' => "oe",
        'ř' => "r",
        'ś' | 'š' | 'ş' => "s",
        'ß' => "ss",
        'ť' | 'ţ' => "t",
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' | 'ų' => "u",
        'ý' | 'ÿ' => "y",
        'ź' | 'ż' | 'ž' => "z",
        _ => "",
    }
}

/// Checks an alias against `[a-z][a-z0-9_-]*`.
pub(super) fn check_alias(alias: &str) -> std::result::Result<(), String> {
    let mut chars = alias.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        let suggestion: String = alias
            .to_ascii_lowercase()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        Err(format!(
            "malformed alias \"{alias}\": aliases match [a-z][a-z0-9_-]* (e.g. \"{}\")",
            suggestion.trim_start_matches(|c: char| !c.is_ascii_lowercase())
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_are_normalized() {
        for (name, alias) in [
            ("github", "github"),
            ("GitHub", "github"),
            ("brave search", "brave_search"),
            ("my.server", "my_server"),
            ("Ünïcode", "unicode"),
            ("@scope/server-fs", "scope_server-fs"),
            ("a  --  b", "a_--_b"),
            ("Straße", "strasse"),
            ("x 日本 y", "x_y"),
        ] {
            assert_eq!(normalize_alias(name).as_deref(), Ok(alias), "{name}");
        }
        for bad in ["9x", "日本", "", "  ", "_1"] {
            let e = normalize_alias(bad).unwrap_err();
            assert!(e.contains("malformed alias"), "{bad}: {e}");
        }
    }

    #[test]
    fn keys_are_classified() {
        assert_eq!(classify("autoApprove"), Key::Foreign("Cline"));
        assert_eq!(classify("icon"), Key::Foreign("other clients"));
        assert_eq!(classify("comand"), Key::Typo("command"));
        assert_eq!(classify("arg"), Key::Typo("args"));
        assert_eq!(classify("argz"), Key::Typo("args"));
        assert_eq!(classify("Command"), Key::Typo("command"));
        assert_eq!(classify("exclude-tools"), Key::Typo("exclude_tools"));
        assert_eq!(classify("cmd"), Key::Typo("command"));
        assert_eq!(classify("headrs"), Key::Typo("headers"));
        assert_eq!(classify("disabeld"), Key::Typo("disabled"));
        assert_eq!(classify("transport_type"), Key::Typo("transportType"));
        assert_eq!(classify("id"), Key::Unknown);
        assert_eq!(classify("somethingElse"), Key::Unknown);
        assert!(refusal("comand").contains("did you mean `command`?"));
        assert!(refusal("id").contains("keys: type, transport, command"));
    }
}
