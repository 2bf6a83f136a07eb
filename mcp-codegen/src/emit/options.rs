//! The macro's options (`only`, `skip`, `rename`, `types`): the public [`Options`], and their
//! check against the fixture's tools, sorted per tool.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::fixture::Fixture;
use crate::naming::{self, did_you_mean};
use crate::{Error, Result};

/// What to generate: tool selection, renames and type overrides (the macro's options).
///
/// Built with the `with_*` methods, each the counterpart of one option of `mcp_tools!`:
///
/// ```
/// use mcp_bindgen_codegen::Options;
///
/// let options = Options::default()
///     .with_skip(["delete_repo"])
///     .with_rename("search_code", "search")
///     .with_type("*.issue_number", "u64");
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Generate only these tools (original names); `None` = all.
    only: Option<Vec<String>>,
    /// Leave these tools out (original names).
    skip: Vec<String>,
    /// `"tool"` → new function name; `"tool.arg"` → new field name.
    rename: BTreeMap<String, String>,
    /// `"tool.arg"` → Rust type used for that argument (`u64`, `std::num::NonZeroU8`,
    /// `crate::Sha`); `*` in a key matches any run of characters (`"*.issue_number"`).
    types: BTreeMap<String, String>,
    /// Every type through typify (see [`Options::with_typify_only`]).
    typify_only: bool,
    /// Count each tool's tokens and write the `TOKENS` constants (`tokens = true`).
    tokens: bool,
    /// The most tokens the bound tools' OpenAI definitions may take (`max_tokens = N`).
    max_tokens: Option<u32>,
}

impl Options {
    /// Generate only these tools (original names; `only = [...]`). Replaces an earlier list.
    pub fn with_only<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.only = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Leave these tools out (original names; `skip = [...]`). Adds to an earlier list.
    pub fn with_skip<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.skip.extend(tools.into_iter().map(Into::into));
        self
    }

    /// Renames a tool's function (`"tool"`) or an argument's field (`"tool.arg"`;
    /// `rename = { ... }`).
    pub fn with_rename(mut self, from: impl Into<String>, to: impl Into<String>) -> Self {
        self.rename.insert(from.into(), to.into());
        self
    }

    /// Uses the Rust type `rust_type` for argument `"tool.arg"` (a glob such as
    /// `"*.issue_number"` names that argument of every tool that has it; `types = { ... }`).
    pub fn with_type(mut self, target: impl Into<String>, rust_type: impl Into<String>) -> Self {
        self.types.insert(target.into(), rust_type.into());
        self
    }

    /// Generates every type through typify, also those of the plain object schemas that
    /// mcp-bindgen otherwise writes directly (strings, numbers, integers, booleans, string
    /// enums, arrays and nested objects of those, maps of JSON values): a check of that
    /// faster path, whose output is the same. Not an option of `mcp_tools!`.
    pub fn with_typify_only(mut self) -> Self {
        self.typify_only = true;
        self
    }

    /// Counts the tokens of each tool's OpenAI definition, full and compact, and writes them
    /// as `TOKENS` constants: one per tool module, the total in the server module
    /// (`tokens = true`).
    pub fn with_tokens(mut self) -> Self {
        self.tokens = true;
        self
    }

    /// Makes a server module whose tools' OpenAI definitions (in full) take more than `max`
    /// tokens an error that names the largest tools and what would fit (`max_tokens = N`;
    /// counts the tokens as [`Options::with_tokens`] does).
    pub fn with_max_tokens(mut self, max: u32) -> Self {
        self.max_tokens = Some(max);
        self.tokens = true;
        self
    }

    /// Whether the tools' tokens are counted.
    pub(super) fn tokens(&self) -> bool {
        self.tokens
    }

    /// The `max_tokens` budget.
    pub(super) fn max_tokens(&self) -> Option<u32> {
        self.max_tokens
    }

    /// Whether the direct path may write a schema's types (see [`Options::with_typify_only`]).
    pub(super) fn direct(&self) -> bool {
        !self.typify_only
    }

    /// Whether tool `name` is generated: named by `only` (when set) and not by `skip`.
    pub(super) fn selects(&self, name: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|only| only.iter().any(|o| o == name))
            && !self.skip.iter().any(|s| s == name)
    }
}

/// One tool's share of the options.
#[derive(Default)]
pub(super) struct ToolOptions {
    /// `rename = { "tool" = … }`: the function's name.
    pub(super) fn_rename: Option<String>,
    /// `rename = { "tool.arg" = … }`: argument → field name.
    pub(super) arg_renames: BTreeMap<String, String>,
    /// `types = { "tool.arg" = … }` (globs expanded): argument → Rust type.
    pub(super) arg_types: BTreeMap<String, String>,
}

/// Splits `"tool.arg"` into a known tool and the rest (tool names may contain dots).
fn split_target<'a>(key: &'a str, tools: &BTreeSet<&str>) -> Option<(&'a str, Option<&'a str>)> {
    if tools.contains(key) {
        return Some((key, None));
    }
    key.char_indices()
        .filter(|(_, c)| *c == '.')
        .map(|(i, _)| (&key[..i], &key[i + 1..]))
        .find(|(tool, arg)| tools.contains(tool) && !arg.is_empty())
        .map(|(tool, arg)| (tool, Some(arg)))
}

/// The `types` option with every glob key (`"*.issue_number"`, `"list_*.page"`: `*` matches
/// any run of characters) replaced by the `"tool.argument"` keys it matches among the
/// top-level arguments of the fixture's tools. A plain key wins over a glob; two globs that
/// give one argument different types, or a glob that matches nothing, are errors.
fn expand_type_globs(
    fixture: &Fixture,
    alias: &str,
    types: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>> {
    let mut out: BTreeMap<String, String> = types
        .iter()
        .filter(|(k, _)| !k.contains('*'))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut from_glob: BTreeMap<String, &str> = BTreeMap::new();
    for (pattern, rust_type) in types.iter().filter(|(k, _)| k.contains('*')) {
        let mut matched = false;
        for tool in &fixture.tools {
            let properties = tool
                .input_schema
                .get("properties")
                .and_then(Value::as_object);
            for property in properties.into_iter().flat_map(|p| p.keys()) {
                let key = format!("{}.{property}", tool.name);
                if !naming::glob_match(pattern, &key) {
                    continue;
                }
                matched = true;
                if types.contains_key(&key) {
                    continue;
                }
                if let Some(other) = from_glob.get(&key)
                    && out.get(&key) != Some(rust_type)
                {
                    return Err(Error::InvalidOption {
                        alias: alias.to_string(),
                        entry: Some(("types", pattern.clone())),
                        message: format!(
                            "types: \"{pattern}\" and \"{other}\" both match \"{key}\" with different types; name it exactly"
                        ),
                    });
                }
                from_glob.insert(key.clone(), pattern);
                out.insert(key, rust_type.clone());
            }
        }
        if !matched {
            return Err(Error::InvalidOption {
                alias: alias.to_string(),
                entry: Some(("types", pattern.clone())),
                message: format!(
                    "types = {{ \"{pattern}\" = … }} matches no argument of the fixture's tools (a glob matches \"tool.argument\" of top-level arguments)"
                ),
            });
        }
    }
    Ok(out)
}

/// `3 tools: a, b, c`, naming up to 12, then `… and N more`.
fn list_names(names: &BTreeSet<&str>) -> String {
    const SHOWN: usize = 12;
    let shown = names.iter().take(SHOWN).copied().collect::<Vec<_>>();
    let mut out = format!("{} tools: {}", names.len(), shown.join(", "));
    if names.len() > SHOWN {
        out.push_str(&format!(" … and {} more", names.len() - SHOWN));
    }
    out
}

/// `options` checked against the fixture's tools and sorted per tool: unknown tools in
/// `only`, `skip`, `rename` and `types`, function names that are not identifiers and types
/// that are not Rust types are errors.
pub(super) fn per_tool_options(
    fixture: &Fixture,
    alias: &str,
    options: &Options,
) -> Result<BTreeMap<String, ToolOptions>> {
    let all: BTreeSet<&str> = fixture.tools.iter().map(|t| t.name.as_str()).collect();
    let unknown_tool = |option: &'static str, tool: &str| Error::UnknownTool {
        alias: alias.to_string(),
        option,
        tool: tool.to_string(),
        hint: did_you_mean(tool, all.iter().copied()),
        listed: list_names(&all),
    };
    if let Some(only) = &options.only {
        for t in only {
            if !all.contains(t.as_str()) {
                return Err(unknown_tool("only", t));
            }
        }
    }
    for t in &options.skip {
        if !all.contains(t.as_str()) {
            return Err(unknown_tool("skip", t));
        }
    }
    let mut per_tool: BTreeMap<String, ToolOptions> = BTreeMap::new();
    for (key, value) in &options.rename {
        let Some((tool, arg)) = split_target(key, &all) else {
            return Err(unknown_tool("rename", key.split('.').next().unwrap_or(key)));
        };
        let o = per_tool.entry(tool.to_string()).or_default();
        match arg {
            None => {
                if !naming::is_plain_ident(value) {
                    return Err(Error::InvalidOption {
                        alias: alias.to_string(),
                        entry: Some(("rename", key.clone())),
                        message: format!(
                            "rename = {{ \"{key}\" = \"{value}\" }}: the new function name must be a snake_case Rust identifier (not a keyword)"
                        ),
                    });
                }
                o.fn_rename = Some(value.clone());
            }
            Some(arg) => {
                o.arg_renames.insert(arg.to_string(), value.clone());
            }
        }
    }
    let type_targets = expand_type_globs(fixture, alias, &options.types)?;
    for (key, value) in &type_targets {
        let Some((tool, Some(arg))) = split_target(key, &all) else {
            if all.contains(key.as_str()) {
                return Err(Error::InvalidOption {
                    alias: alias.to_string(),
                    entry: Some(("types", key.clone())),
                    message: format!(
                        "types = {{ \"{key}\" = … }}: name an argument as \"tool.argument\""
                    ),
                });
            }
            return Err(unknown_tool("types", key.split('.').next().unwrap_or(key)));
        };
        if syn::parse_str::<syn::Type>(value).is_err() {
            return Err(Error::InvalidOption {
                alias: alias.to_string(),
                entry: Some(("types", key.clone())),
                message: format!("types = {{ \"{key}\" = \"{value}\" }}: not a Rust type"),
            });
        }
        per_tool
            .entry(tool.to_string())
            .or_default()
            .arg_types
            .insert(arg.to_string(), value.clone());
    }
    Ok(per_tool)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::generate;
    use crate::emit::tests::fixture;

    #[test]
    fn option_errors_name_the_tool_and_close_matches() {
        let f = fixture(serde_json::json!([
            {"name": "create_issue", "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}}},
            {"name": "get_me", "inputSchema": {}}
        ]));
        let e = generate(&f, "gh", &Options::default().with_only(["create_isue"]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unknown tool \"create_isue\"")
                && e.contains("did you mean \"create_issue\""),
            "{e}"
        );
        let e = generate(&f, "gh", &Options::default().with_skip(["nope"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`skip`"), "{e}");
        let e = generate(
            &f,
            "gh",
            &Options::default().with_rename("create_issue.titel", "t"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("unknown argument \"titel\"") && e.contains("\"title\""),
            "{e}"
        );
        let e = generate(
            &f,
            "gh",
            &Options::default().with_type("create_issue.title", "not a type!"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("not a Rust type"), "{e}");
        let g = generate(&f, "gh", &Options::default().with_only(["get_me"])).unwrap();
        assert_eq!(g.stats.tools, 1);
    }
}
