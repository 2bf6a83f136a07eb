//! The tools' Rust function names: renames, names taken by the `Client`'s own methods, and
//! collisions (with a suggested rename).

use std::collections::BTreeMap;

use super::options::ToolOptions;
use crate::fixture::Tool;
use crate::naming;
use crate::warning::{Warning, WarningKind};
use crate::{Error, Result};

/// `Client` methods (and, for `prompts`, the module) that tools cannot take.
const RESERVED_METHODS: [&str; 5] = ["new", "connect", "session", "prompts", "with_options"];

/// The function name of each selected tool (renamed, or derived from the tool's name; a name
/// a `Client` method has gets `_tool` appended, with a note).
pub(super) fn function_names(
    alias: &str,
    selected: &[&Tool],
    per_tool: &BTreeMap<String, ToolOptions>,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<String>> {
    let mut fn_names: Vec<String> = Vec::new();
    for tool in selected {
        let renamed = per_tool
            .get(tool.name.as_str())
            .and_then(|o| o.fn_rename.clone());
        let mut name = renamed
            .clone()
            .unwrap_or_else(|| naming::fn_name(&tool.name));
        if let Some(target) = &renamed
            && RESERVED_METHODS.contains(&target.as_str())
        {
            return Err(Error::InvalidOption {
                alias: alias.to_string(),
                entry: Some(("rename", tool.name.clone())),
                message: format!(
                    "rename = {{ \"{}\" = \"{target}\" }}: `{target}` is a method of every generated `Client`; choose another name, e.g. \"{target}_{}\"",
                    tool.name,
                    naming::fn_name(&tool.name)
                ),
            });
        }
        if renamed.is_none() && RESERVED_METHODS.contains(&name.as_str()) {
            let new = format!("{name}_tool");
            warnings.push(Warning {
                tool: tool.name.clone(),
                kind: WarningKind::Note,
                message: format!("function named `{new}` because `Client::{name}` is taken"),
            });
            name = new;
        }
        fn_names.push(name);
    }
    Ok(fn_names)
}

/// Two tools whose functions (or their `_task` variants) share a name: an error for the
/// later tool, blaming a `rename` entry when one caused it.
pub(super) fn collisions(
    alias: &str,
    selected: &[&Tool],
    per_tool: &BTreeMap<String, ToolOptions>,
    fn_names: &[String],
) -> Vec<(String, Error)> {
    let mut errors: Vec<(String, Error)> = Vec::new();
    let mut taken: BTreeMap<String, usize> = BTreeMap::new();
    for (i, name) in fn_names.iter().enumerate() {
        let base = naming::unraw(name).to_string();
        let mut variants = vec![base.clone()];
        if selected[i].task_capable() {
            variants.push(format!("{base}_task"));
        }
        for variant in variants.clone() {
            if let Some(&j) = taken.get(&variant) {
                let mut suggestion = format!("{base}_2");
                let mut n = 3;
                while taken.contains_key(&suggestion)
                    || fn_names.iter().any(|f| naming::unraw(f) == suggestion)
                {
                    suggestion = format!("{base}_{n}");
                    n += 1;
                }
                let renamed = |k: usize| {
                    per_tool
                        .get(selected[k].name.as_str())
                        .is_some_and(|o| o.fn_rename.is_some())
                };
                // A rename that collides is the rename's fault: say so on that entry.
                let error = match [i, j].into_iter().find(|&k| renamed(k)) {
                    Some(k) => {
                        let other = if k == i { j } else { i };
                        let own = naming::unraw(&fn_names[k]).to_string();
                        let mut suggestion = format!("{own}_2");
                        let mut n = 3;
                        while fn_names.iter().any(|f| {
                            let f = naming::unraw(f);
                            f == suggestion || format!("{f}_task") == suggestion
                        }) {
                            suggestion = format!("{own}_{n}");
                            n += 1;
                        }
                        Error::InvalidOption {
                            alias: alias.to_string(),
                            entry: Some(("rename", selected[k].name.clone())),
                            message: format!(
                                "rename = {{ \"{}\" = \"{}\" }}: `{variant}` is taken by tool \"{}\" (its function `{other_fn}`); choose another name, e.g. \"{suggestion}\"",
                                selected[k].name,
                                naming::unraw(&fn_names[k]),
                                selected[other].name,
                                other_fn = naming::unraw(&fn_names[other]),
                            ),
                        }
                    }
                    None => Error::ToolNameCollision {
                        alias: alias.to_string(),
                        first: selected[j].name.clone(),
                        second: selected[i].name.clone(),
                        function: variant.clone(),
                        suggestion,
                    },
                };
                errors.push((selected[i].name.clone(), error));
            }
        }
        for variant in variants {
            taken.insert(variant, i);
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use crate::emit::tests::fixture;
    use crate::emit::{Options, generate};

    #[test]
    fn tool_name_collisions_are_errors_with_a_hint() {
        let f = fixture(serde_json::json!([
            {"name": "list-repos", "inputSchema": {}},
            {"name": "list.repos", "inputSchema": {}}
        ]));
        let e = generate(&f, "gh", &Options::default())
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "tools \"list-repos\" and \"list.repos\" of server \"gh\" both map to the Rust function `list_repos`; add rename = { \"list.repos\" = \"list_repos_2\" }"
        );
        let ok = generate(
            &f,
            "gh",
            &Options::default().with_rename("list.repos", "list_repos_dot"),
        )
        .unwrap();
        assert_eq!(ok.stats.tools, 2);
        // No `_with` variants: `a` and `a_with` are two plain methods.
        let f = fixture(
            serde_json::json!([{"name": "a", "inputSchema": {}}, {"name": "a_with", "inputSchema": {}}]),
        );
        assert!(generate(&f, "gh", &Options::default()).is_ok());
    }
}
