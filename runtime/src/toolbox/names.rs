//! Exported tool names: `mcp_<alias>_<tool>`, sanitized to `[A-Za-z0-9_-]`, at most 64
//! characters, and the collision resolution of a whole toolbox.
//!
//! [`exported_name`] is `mcp_bindgen_core::naming::openai_name`, the rule the compile-time
//! constants of `mcp_tools!` use too. Names are only ever produced, never parsed: the toolbox keeps
//! a map from each exported name back to its `(server, tool)`.

use std::collections::{BTreeMap, BTreeSet};

/// Longest function name OpenAI accepts.
pub const MAX_NAME_LEN: usize = 64;

/// The exported (OpenAI function) name of a tool: `mcp_<alias>_<tool>` with every character
/// outside `[A-Za-z0-9_-]` replaced by `_`; names longer than [`MAX_NAME_LEN`] keep their
/// first 55 characters and end with `_` and 8 hex digits of the SHA-256 of the unsanitized
/// `mcp_<alias>_<tool>`, so they stay stable and distinct.
///
/// Two tools can still map to the same name (`a` + `b_c` and `a_b` + `c`, or `x.y` and `x_y`
/// on one server): [`assign_names`] resolves that for a whole toolbox.
pub fn exported_name(alias: &str, tool: &str) -> String {
    mcp_bindgen_core::naming::openai_name(alias, tool)
}

/// Several tools whose [`exported_name`] is the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameCollision {
    /// The contested name.
    pub name: String,
    /// The tool that keeps it: the first `(server, tool)` in sorted order.
    pub kept: (String, String),
    /// The other tools, each with the name it was given instead.
    pub renamed: Vec<(String, String, String)>,
}

impl std::fmt::Display for NameCollision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exported name \"{}\" is shared by {}.{}",
            self.name, self.kept.0, self.kept.1
        )?;
        for (alias, tool, _) in &self.renamed {
            write!(f, " and {alias}.{tool}")?;
        }
        write!(f, "; {}.{} keeps it", self.kept.0, self.kept.1)?;
        for (alias, tool, new) in &self.renamed {
            write!(f, ", {alias}.{tool} is exported as \"{new}\"")?;
        }
        Ok(())
    }
}

/// Names for a set of `(server, tool)` pairs: unique, at most [`MAX_NAME_LEN`] characters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameAssignment {
    /// `(server, tool)` → exported name.
    pub names: BTreeMap<(String, String), String>,
    /// Every collision and how it was resolved.
    pub collisions: Vec<NameCollision>,
}

/// Assigns an exported name to every `(server, tool)` pair, deterministically whatever the
/// input order: pairs are taken in sorted order; the first one to claim a name keeps it,
/// later ones get the hash form (`<55 chars>_<sha256(mcp_<alias>_<tool>)[..8]>`, then, if
/// even that is taken, a hash of `mcp_<alias>_<tool>#<n>`). A new name never takes the plain
/// name of another pair. Duplicate pairs are ignored.
pub fn assign_names<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> NameAssignment {
    assign_names_with(pairs, &BTreeMap::new())
}

/// [`assign_names`] where a server's tools may take another prefix than `mcp_<alias>_`:
/// `prefixes` maps an alias to its prefix (`""`: the tools' own names). The name is the
/// prefix and the tool name, sanitized and hashed as [`exported_name`] does.
pub fn assign_names_with<'a>(
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    prefixes: &BTreeMap<String, String>,
) -> NameAssignment {
    let full_name = |alias: &str, tool: &str| match prefixes.get(alias) {
        Some(prefix) => format!("{prefix}{tool}"),
        None => format!("mcp_{alias}_{tool}"),
    };
    let pairs: BTreeSet<(&str, &str)> = pairs.into_iter().collect();
    let base: Vec<((&str, &str), String)> = pairs
        .iter()
        .map(|&(a, t)| {
            let name = mcp_bindgen_core::naming::openai_name_of(&full_name(a, t));
            ((a, t), name)
        })
        .collect();
    let plain: BTreeSet<&str> = base.iter().map(|(_, n)| n.as_str()).collect();
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut out = NameAssignment::default();
    let mut owner: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut renamed: BTreeMap<String, Vec<(String, String, String)>> = BTreeMap::new();
    for ((alias, tool), name) in &base {
        let key = (alias.to_string(), tool.to_string());
        if used.insert(name.clone()) {
            owner.insert(name.clone(), key.clone());
            out.names.insert(key, name.clone());
            continue;
        }
        let full = full_name(alias, tool);
        let sanitized = mcp_bindgen_core::naming::openai_sanitize(&full);
        let mut n = 0u32;
        let new = loop {
            let seed = if n == 0 {
                full.clone()
            } else {
                format!("{full}#{n}")
            };
            let candidate = mcp_bindgen_core::naming::openai_hashed(&sanitized, &seed);
            if !used.contains(&candidate) && !plain.contains(candidate.as_str()) {
                break candidate;
            }
            n += 1;
        };
        used.insert(new.clone());
        renamed
            .entry(name.clone())
            .or_default()
            .push((key.0.clone(), key.1.clone(), new.clone()));
        out.names.insert(key, new);
    }
    for (name, list) in renamed {
        if let Some(kept) = owner.get(&name) {
            out.collisions.push(NameCollision {
                name,
                kept: kept.clone(),
                renamed: list,
            });
        }
    }
    out
}

/// Whether `name` is a valid OpenAI function name: 1–64 characters of `[A-Za-z0-9_-]`.
pub fn is_valid_name(name: &str) -> bool {
    mcp_bindgen_core::naming::is_valid_exported_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_replace_mcp_alias_and_collisions_are_still_resolved() {
        let prefixes: BTreeMap<String, String> = [
            ("a".to_string(), String::new()),
            ("b".to_string(), String::new()),
        ]
        .into_iter()
        .collect();
        let got = assign_names_with([("a", "echo"), ("b", "echo"), ("c", "echo")], &prefixes);
        let name = |s: &str| got.names[&(s.to_string(), "echo".to_string())].clone();
        assert_eq!(name("a"), "echo");
        assert_eq!(name("c"), "mcp_c_echo");
        assert!(
            name("b").starts_with("echo_") && name("b").len() == "echo_".len() + 8,
            "{}",
            name("b")
        );
        assert_eq!(got.collisions.len(), 1);
        // A long prefixed name is capped like any other.
        let long: BTreeMap<String, String> =
            [("a".to_string(), "x".repeat(70))].into_iter().collect();
        let got = assign_names_with([("a", "t")], &long);
        assert!(
            got.names
                .values()
                .all(|n| n.len() <= MAX_NAME_LEN && is_valid_name(n))
        );
    }

    #[test]
    fn plain_names_are_sanitized() {
        assert_eq!(
            exported_name("github", "create_issue"),
            "mcp_github_create_issue"
        );
        assert_eq!(exported_name("fs", "read.file/v2"), "mcp_fs_read_file_v2");
        assert_eq!(
            exported_name("everything", "get-tiny-image"),
            "mcp_everything_get-tiny-image"
        );
        assert_eq!(exported_name("x", "café ☕"), "mcp_x_caf___");
    }

    #[test]
    fn long_names_are_capped_with_a_stable_distinct_hash() {
        let long = "x".repeat(100);
        let a = exported_name("github", &long);
        assert_eq!(a.len(), MAX_NAME_LEN);
        assert_eq!(a, exported_name("github", &long));
        assert_ne!(a, exported_name("github", &format!("{long}y")));
        assert!(is_valid_name(&a));
        // Exactly 64 stays as is; 65 is hashed.
        let t60 = "t".repeat(64 - "mcp_a_".len());
        assert_eq!(exported_name("a", &t60).len(), 64);
        assert_eq!(exported_name("a", &t60), format!("mcp_a_{t60}"));
        let t61 = format!("{t60}u");
        let h = exported_name("a", &t61);
        assert_eq!(h.len(), 64);
        assert!(h.starts_with(&format!("mcp_a_{}", &t60[..49])), "{h}");
        // Non-ASCII counts by its sanitized length (one `_` per char).
        let uni = "é".repeat(58);
        assert_eq!(exported_name("a", &uni).len(), 64);
    }

    #[test]
    fn collisions_are_resolved_deterministically_and_reported() {
        let pairs = [("a", "b_c"), ("a_b", "c"), ("a", "b.c"), ("z", "ok")];
        let one = assign_names(pairs);
        let two = assign_names(pairs.iter().rev().copied());
        assert_eq!(one, two, "order-independent");
        let get = |a: &str, t: &str| one.names[&(a.to_string(), t.to_string())].clone();
        // Sorted: ("a", "b.c") < ("a", "b_c") < ("a_b", "c").
        assert_eq!(get("a", "b.c"), "mcp_a_b_c");
        assert_ne!(get("a", "b_c"), "mcp_a_b_c");
        assert_ne!(get("a_b", "c"), "mcp_a_b_c");
        assert_ne!(get("a", "b_c"), get("a_b", "c"));
        assert_eq!(get("z", "ok"), "mcp_z_ok");
        let all: BTreeSet<&String> = one.names.values().collect();
        assert_eq!(all.len(), 4);
        assert!(one.names.values().all(|n| is_valid_name(n)));
        assert_eq!(one.collisions.len(), 1);
        let c = &one.collisions[0];
        assert_eq!(c.name, "mcp_a_b_c");
        assert_eq!(c.kept, ("a".to_string(), "b.c".to_string()));
        assert_eq!(c.renamed.len(), 2);
        let msg = c.to_string();
        assert!(msg.contains("a.b_c") && msg.contains("a_b.c"), "{msg}");
    }

    #[test]
    fn a_renamed_tool_never_takes_another_plain_name() {
        // Only a hash collision could do it; check the invariant on a larger set.
        let tools: Vec<String> = (0..200).map(|i| format!("t_{i}")).collect();
        let mut pairs: Vec<(&str, &str)> = tools.iter().map(|t| ("s", t.as_str())).collect();
        pairs.extend(tools.iter().map(|t| ("s_t", &t[2..])));
        let a = assign_names(pairs.iter().copied());
        let set: BTreeSet<&String> = a.names.values().collect();
        assert_eq!(set.len(), pairs.len());
        assert_eq!(a.collisions.len(), 200);
    }
}
