//! Names: tool names → Rust identifiers, exported (OpenAI-style) function names, and
//! "did you mean" hints.
//!
//! Every function here is pure and deterministic: the same input always gives the same
//! name, so regenerated code only changes when the fixture does.

use heck::{ToPascalCase, ToSnakeCase};
use sha2::{Digest, Sha256};

/// Longest function name OpenAI accepts.
pub const OPENAI_NAME_MAX: usize = 64;

/// Rust keywords (strict, reserved and edition-2024 `gen`) that cannot be plain identifiers.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Keywords that cannot even be raw identifiers (`r#self` is not allowed).
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Whether `s` is a Rust keyword.
pub fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// Maps every character that is not ASCII alphanumeric to a word separator, spelling out
/// non-ASCII characters as `uXXXX` so distinct names stay distinct.
fn ascii_words(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    for c in input.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if c.is_ascii() {
            out.push('_');
        } else {
            out.push_str(&format!("_u{:04x}_", c as u32));
        }
    }
    out
}

/// The snake_case Rust identifier for a tool name, as it is written in source: keywords are
/// escaped as raw identifiers (`r#type`), `self`-like keywords get a trailing `_`, names
/// starting with a digit or empty names get a `tool_` prefix.
///
/// `create-issue` → `create_issue`, `repo.list` → `repo_list`, `type` → `r#type`,
/// `getHTTPStatus` → `get_http_status`, `café` → `caf_u00e9`.
pub fn fn_name(tool: &str) -> String {
    snake_ident(tool, "tool")
}

/// The snake_case Rust name for a prompt (its module and method), by the rules of
/// [`fn_name`] with a `prompt_` prefix where one is needed.
pub fn prompt_name(prompt: &str) -> String {
    snake_ident(prompt, "prompt")
}

/// The snake_case Rust field name for a prompt argument (`resourceType` → `resource_type`),
/// by the rules of [`fn_name`] with an `arg_` prefix where one is needed.
pub fn field_name(argument: &str) -> String {
    snake_ident(argument, "arg")
}

fn snake_ident(input: &str, prefix: &str) -> String {
    let snake = ascii_words(input).to_snake_case();
    let snake = if snake.is_empty() || snake.starts_with(|c: char| c.is_ascii_digit()) {
        format!("{prefix}_{snake}")
    } else {
        snake
    };
    escape_ident(&snake)
}

/// Escapes a keyword: `type` → `r#type`; keywords that cannot be raw get a trailing `_`.
pub fn escape_ident(ident: &str) -> String {
    if NOT_RAW.contains(&ident) {
        format!("{ident}_")
    } else if is_keyword(ident) {
        format!("r#{ident}")
    } else {
        ident.to_string()
    }
}

/// The identifier without a raw prefix (`r#type` → `type`), for building derived names.
pub fn unraw(ident: &str) -> &str {
    ident.strip_prefix("r#").unwrap_or(ident)
}

/// The PascalCase type name for a tool (`create_issue` → `CreateIssue`).
pub fn type_name(tool: &str) -> String {
    let pascal = ascii_words(tool).to_pascal_case();
    if pascal.is_empty() || pascal.starts_with(|c: char| c.is_ascii_digit()) {
        format!("Tool{pascal}")
    } else if is_keyword(&pascal) {
        format!("{pascal}Tool")
    } else {
        pascal
    }
}

/// The snake_case module name for a server alias (`my-server` → `my_server`).
pub fn alias_module(alias: &str) -> String {
    let snake = ascii_words(alias).to_snake_case();
    let snake = if snake.is_empty() || snake.starts_with(|c: char| c.is_ascii_digit()) {
        format!("server_{snake}")
    } else {
        snake
    };
    escape_ident(&snake)
}

/// Whether `s` is a plain (non-keyword) snake_case-friendly Rust identifier.
pub fn is_plain_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && !is_keyword(s)
        && s != "_"
}

/// The OpenAI function name of a tool: `mcp_<alias>_<tool>`, every character outside
/// `[A-Za-z0-9_-]` replaced by `_`, at most [`OPENAI_NAME_MAX`] characters.
///
/// Longer names keep their first 55 characters and end with `_` and 8 hex digits of the
/// SHA-256 of the unsanitized `mcp_<alias>_<tool>`, so they stay stable and distinct. The
/// agent layer uses the same rule and keeps a map back: never parse these names.
pub fn openai_name(alias: &str, tool: &str) -> String {
    openai_name_of(&format!("mcp_{alias}_{tool}"))
}

/// Whether `name` is a valid exported (OpenAI-style) function name: 1–[`OPENAI_NAME_MAX`]
/// characters of `[A-Za-z0-9_-]`.
pub fn is_valid_exported_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= OPENAI_NAME_MAX
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// [`openai_name`] of a name already composed (`<prefix><tool>`): sanitized, and hashed
/// when longer than [`OPENAI_NAME_MAX`].
pub fn openai_name_of(full: &str) -> String {
    let sanitized = openai_sanitize(full);
    if sanitized.len() <= OPENAI_NAME_MAX {
        sanitized
    } else {
        openai_hashed(&sanitized, full)
    }
}

/// `full` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
pub fn openai_sanitize(full: &str) -> String {
    full.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The hash form of a sanitized name: its first characters, `_`, and 8 hex digits of the
/// SHA-256 of `seed`, [`OPENAI_NAME_MAX`] characters at most.
pub fn openai_hashed(sanitized: &str, seed: &str) -> String {
    let digest = Sha256::digest(seed.as_bytes());
    let hash: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    // `sanitized` is ASCII, so any byte index is a char boundary.
    let keep = sanitized.len().min(OPENAI_NAME_MAX - 1 - hash.len());
    format!("{}_{hash}", &sanitized[..keep])
}

/// Names from `candidates` that are close to `name` (edit distance ≤ 3 or a shared
/// substring), best first, at most 3; used in "did you mean" hints.
pub fn close_matches<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    // `brave_search` and `brave-search` are the same name to a reader.
    let fold = |s: &str| s.to_lowercase().replace('_', "-");
    let lower = fold(name);
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let cl = fold(c);
            let d = strsim::levenshtein(&lower, &cl);
            let contains = !lower.is_empty() && (cl.contains(&lower) || lower.contains(&cl));
            (d <= 3.max(lower.len() / 3) || contains)
                .then_some((if contains { d.min(2) } else { d }, c))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

/// The " (did you mean …?)" suffix for an unknown name, or an empty string.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let close = close_matches(name, candidates);
    if close.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = close.iter().map(|c| format!("\"{c}\"")).collect();
        format!(" (did you mean {}?)", list.join(" or "))
    }
}

/// Whether `text` matches `pattern`, where `*` matches any run of characters (none too) and
/// every other character itself.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fn_names_are_snake_case_and_escaped() {
        assert_eq!(fn_name("create_issue"), "create_issue");
        assert_eq!(fn_name("create-issue"), "create_issue");
        assert_eq!(fn_name("repo.list"), "repo_list");
        assert_eq!(fn_name("getHTTPStatus"), "get_http_status");
        assert_eq!(fn_name("type"), "r#type");
        assert_eq!(fn_name("self"), "self_");
        assert_eq!(fn_name("9lives"), "tool_9lives");
        assert_eq!(fn_name(""), "tool_");
        assert_eq!(fn_name("café"), "caf_u00e9");
        assert_eq!(fn_name("Search Repos!"), "search_repos");
    }

    #[test]
    fn type_and_module_names() {
        assert_eq!(type_name("create-issue"), "CreateIssue");
        assert_eq!(type_name("9x"), "Tool9x");
        assert_eq!(alias_module("my-server"), "my_server");
        assert_eq!(alias_module("type"), "r#type");
        assert_eq!(unraw("r#type"), "type");
    }

    #[test]
    fn openai_names_are_sanitized_and_capped() {
        assert_eq!(
            openai_name("github", "create_issue"),
            "mcp_github_create_issue"
        );
        assert_eq!(openai_name("fs", "read.file/v2"), "mcp_fs_read_file_v2");
        let long = "x".repeat(100);
        let a = openai_name("github", &long);
        assert_eq!(a.len(), OPENAI_NAME_MAX);
        assert_eq!(a, openai_name("github", &long), "stable");
        let b = openai_name("github", &format!("{long}y"));
        assert_ne!(a, b, "distinct after truncation");
        assert!(
            a.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        );
    }

    #[test]
    fn close_matches_rank_by_distance() {
        let c = ["create_issue", "update_issue", "get_me"];
        assert_eq!(close_matches("create_isue", c), vec!["create_issue"]);
        assert_eq!(
            close_matches("issue", c),
            vec!["create_issue", "update_issue"]
        );
        assert!(close_matches("zzzzzzzzzzzzzz", c).is_empty());
        assert_eq!(did_you_mean("get_mee", c), " (did you mean \"get_me\"?)");
    }

    #[test]
    fn globs_match_any_run_of_characters() {
        assert!(glob_match("*.issue_number", "get_issue.issue_number"));
        assert!(glob_match("list_*.page", "list_issues.page"));
        assert!(glob_match("*", "a.b"));
        assert!(glob_match("a*b*c", "abc"));
        assert!(!glob_match("*.issue_number", "get_issue.issue_numbers"));
        assert!(!glob_match("list_*.page", "get_issues.page"));
        assert!(!glob_match("a*b*c", "acb"));
        assert!(glob_match("exact", "exact") && !glob_match("exact", "exactly"));
    }
}
