//! The generator's own naming rules: typify 0.8's identifier rule, which the normalizer
//! must predict. The rules shared with the runtime (tool, field and exported names) are
//! `mcp_bindgen_core::naming`'s, reachable here under the same names.

use heck::{ToPascalCase, ToSnakeCase};

pub(crate) use mcp_bindgen_core::naming::*;

/// typify 0.8's identifier rule (`typify_impl::util::sanitize`), reproduced so the
/// normalizer can predict the names typify will pick and avoid collisions and panics.
pub(crate) fn typify_sanitize(input: &str, pascal: bool) -> String {
    // Lowercase ASCII words of letters and digits joined by single underscores (most
    // property names and enum values): heck's result is known without running it (it is
    // slow in the macro's unoptimized build).
    let simple = input.starts_with(|c: char| c.is_ascii_lowercase())
        && !input.ends_with('_')
        && !input.contains("__")
        && input
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    let out = if simple && !pascal {
        input.to_string()
    } else if simple {
        let mut out = String::with_capacity(input.len());
        for word in input.split('_') {
            let mut chars = word.chars();
            if let Some(first) = chars.next() {
                out.push(first.to_ascii_uppercase());
                out.push_str(chars.as_str());
            }
        }
        out
    } else {
        return heck_sanitize(input, pascal);
    };
    if is_keyword(&out) || out == "_" {
        format!("{out}_")
    } else {
        out
    }
}

/// [`typify_sanitize`] as typify computes it, with heck.
fn heck_sanitize(input: &str, pascal: bool) -> String {
    let to_case = |s: &str| {
        if pascal {
            s.to_pascal_case()
        } else {
            s.to_snake_case()
        }
    };
    let out = match input {
        "+1" => "plus1".to_string(),
        "-1" => "minus1".to_string(),
        _ => to_case(
            &input
                .replace('\'', "")
                .replace(|c: char| !unicode_ident::is_xid_continue(c), "-"),
        ),
    };
    let prefix = to_case("x");
    let out = match out.chars().next() {
        None => prefix,
        Some(c) if unicode_ident::is_xid_start(c) => out,
        Some(_) => format!("{prefix}{out}"),
    };
    if is_keyword(&out) || out == "_" {
        format!("{out}_")
    } else {
        out
    }
}

/// Words for symbols in spelled-out names (shared by enum values and property names).
pub(crate) const SYMBOL_WORDS: &[(char, &str)] = &[
    ('+', "plus"),
    ('*', "star"),
    ('#', "hash"),
    ('@', "at"),
    ('!', "bang"),
    ('$', "dollar"),
    ('%', "percent"),
    ('&', "and"),
    ('=', "eq"),
    ('<', "lt"),
    ('>', "gt"),
    ('~', "tilde"),
    ('^', "caret"),
    ('?', "question"),
    ('/', "slash"),
    ('.', "dot"),
    (',', "comma"),
    (':', "colon"),
    (';', "semicolon"),
];

/// A word for how a name is spelled (the words of its symbols — `lt`, `gt`, `dollar`, `at`,
/// … —, else `camel`, `pascal`, `kebab`, `upper`, `dotted`, `spaced`, `underscored`, else
/// `other`): the suffix that tells apart the Rust names
/// of two properties, or two tools, that would otherwise get the same one.
pub(crate) fn spelling(name: &str) -> String {
    let letters: Vec<char> = name.chars().filter(|c| c.is_alphabetic()).collect();
    let first = name.chars().next().unwrap_or('_');
    // Symbols say most (`DateCreated<` → `lt`, `$type` → `dollar`), in order.
    let mut symbols: Vec<&str> = Vec::new();
    for c in name.chars().filter(|c| *c != '.') {
        if let Some((_, w)) = SYMBOL_WORDS.iter().find(|(s, _)| *s == c)
            && !symbols.contains(w)
        {
            symbols.push(w);
        }
    }
    if !symbols.is_empty() {
        return symbols.join("_");
    }
    if !first.is_alphanumeric() && !matches!(first, '_' | '-' | '.' | ' ') {
        return "symbol".to_string();
    }
    let word = if name.contains('-') {
        "kebab"
    } else if name.contains(' ') {
        "spaced"
    } else if name.contains('.') {
        "dotted"
    } else if !letters.is_empty() && letters.iter().all(|c| c.is_uppercase()) {
        "upper"
    } else if first.is_uppercase() {
        "pascal"
    } else if letters.iter().any(|c| c.is_uppercase()) {
        "camel"
    } else if name.starts_with('_') || name.ends_with('_') || name.contains("__") {
        "underscored"
    } else {
        "other"
    };
    word.to_string()
}

/// `"a"`, `"a" and "b"`, `"a", "b" and "c"`.
pub(crate) fn quoted_list(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_name_what_sets_a_name_apart() {
        for (name, word) in [
            ("orderBy", "camel"),
            ("OrderBy", "pascal"),
            ("order-by", "kebab"),
            ("ORDER_BY", "upper"),
            ("order.by", "dotted"),
            ("order by", "spaced"),
            ("_order_by", "underscored"),
            ("DateCreated<", "lt"),
            ("DateCreated>", "gt"),
            ("$type", "dollar"),
            ("@id", "at"),
            ("a+b<", "plus_lt"),
        ] {
            assert_eq!(spelling(name), word, "{name}");
        }
    }

    #[test]
    fn typify_rule_is_reproduced() {
        assert_eq!(typify_sanitize("reactions-+1", true), "Reactions1");
        assert_eq!(typify_sanitize("reactions--1", true), "Reactions1");
        assert_eq!(typify_sanitize("+1", true), "plus1");
        assert_eq!(typify_sanitize("type", false), "type_");
        assert_eq!(typify_sanitize("$meta", false), "meta");
        assert_eq!(typify_sanitize("@timestamp", false), "timestamp");
        assert_eq!(typify_sanitize("repo-name", false), "repo_name");
        assert_eq!(typify_sanitize("fooBar", false), "foo_bar");
        assert_eq!(typify_sanitize("", true), "X");
        assert_eq!(typify_sanitize("'''abc_def", false), "abc_def");
        assert_eq!(typify_sanitize("9a", false), "x9a");
        assert_eq!(typify_sanitize("self", false), "self_");
        assert_eq!(typify_sanitize("created_at", true), "CreatedAt");
    }

    #[test]
    fn simple_names_are_sanitized_as_heck_does() {
        // Every string of up to 5 characters over `a`, `b`, `1`, `_` and `A`, and real names.
        let alphabet = ['a', 'b', '1', '_', 'A'];
        let mut names = vec![String::new()];
        let mut last = names.clone();
        for _ in 0..5 {
            last = last
                .iter()
                .flat_map(|n| alphabet.iter().map(move |c| format!("{n}{c}")))
                .collect();
            names.extend(last.iter().cloned());
        }
        names.extend(
            [
                "per_page",
                "v2_api",
                "type",
                "self",
                "gen",
                "x_1",
                "page2x",
                "a1b2",
                "created_at",
            ]
            .map(String::from),
        );
        for name in &names {
            for pascal in [false, true] {
                assert_eq!(
                    typify_sanitize(name, pascal),
                    heck_sanitize(name, pascal),
                    "{name:?} pascal={pascal}"
                );
            }
        }
    }
}
