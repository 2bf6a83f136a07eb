//! The tools' Rust function names: renames, names taken by the `Client`'s own methods, and
//! collisions (with a suggested rename).

use std::collections::BTreeMap;

use super::options::ToolOptions;
use crate::fixture::Tool;
use crate::naming;
use crate::warning::{Warning, WarningKind};
use crate::{Error, Result};

/// `Client` methods (and, for `prompts` and `resources`, the modules) that tools cannot
/// take.
const RESERVED_METHODS: [&str; 6] = [
    "new",
    "connect",
    "session",
    "prompts",
    "resources",
    "with_options",
];

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
    distinct_functions(selected, per_tool, &mut fn_names, warnings);
    Ok(fn_names)
}

/// Tools whose names map to one function (`list-repos` and `list.repos`), none renamed: the
/// tool spelled exactly as the function keeps it, each other one gets the function name plus
/// a word for its spelling (`list_repos_dotted`), then a number; stable, since the names
/// depend on the spellings only. A collision a `rename` causes stays an error
/// ([`collisions`]).
fn distinct_functions(
    selected: &[&Tool],
    per_tool: &BTreeMap<String, ToolOptions>,
    fn_names: &mut [String],
    warnings: &mut Vec<Warning>,
) {
    let renamed = |i: usize| {
        per_tool
            .get(selected[i].name.as_str())
            .is_some_and(|o| o.fn_rename.is_some())
    };
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, name) in fn_names.iter().enumerate() {
        groups
            .entry(naming::unraw(name).to_string())
            .or_default()
            .push(i);
    }
    let mut taken: Vec<String> = fn_names
        .iter()
        .map(|f| naming::unraw(f).to_string())
        .collect();
    for (base, members) in groups {
        if members.len() < 2 || members.iter().any(|&i| renamed(i)) {
            continue;
        }
        let exact = members.iter().copied().find(|&i| selected[i].name == base);
        let mut others: Vec<usize> = members.into_iter().filter(|&i| Some(i) != exact).collect();
        others.sort_by(|&a, &b| selected[a].name.cmp(&selected[b].name));
        for i in others {
            let word = naming::spelling(&selected[i].name);
            let mut name = format!("{base}_{word}");
            let mut n = 2;
            while taken
                .iter()
                .any(|t| *t == name || format!("{t}_task") == name)
            {
                name = format!("{base}_{word}_{n}");
                n += 1;
            }
            taken.push(name.clone());
            let kept = exact.map_or(String::new(), |e| {
                format!(" (tool \"{}\" keeps `{base}`)", selected[e].name)
            });
            warnings.push(Warning {
                tool: selected[i].name.clone(),
                kind: WarningKind::Renamed,
                message: format!(
                    "function named `{name}`: the tool's name maps to `{base}`, as another tool's does{kept}; `rename` chooses another"
                ),
            });
            fn_names[i] = name;
        }
    }
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
    fn tool_name_collisions_get_distinct_functions_on_their_own() {
        let f = fixture(serde_json::json!([
            {"name": "list.repos", "inputSchema": {}},
            {"name": "list-repos", "inputSchema": {}},
            {"name": "list_repos", "inputSchema": {}}
        ]));
        let g = generate(&f, "gh", &Options::default()).expect("generates");
        for f in [
            "fn list_repos(",
            "fn list_repos_dotted(",
            "fn list_repos_kebab(",
        ] {
            assert!(g.code.contains(f), "{f} in the generated code");
        }
        let renamed: Vec<&str> = g
            .warnings
            .iter()
            .filter(|w| w.kind == crate::WarningKind::Renamed)
            .map(|w| w.tool.as_str())
            .collect();
        assert_eq!(renamed, ["list-repos", "list.repos"]);
        // Stable: the same names whatever the order of the tools.
        let f = fixture(serde_json::json!([
            {"name": "list_repos", "inputSchema": {}},
            {"name": "list-repos", "inputSchema": {}},
            {"name": "list.repos", "inputSchema": {}}
        ]));
        let again = generate(&f, "gh", &Options::default()).expect("generates");
        for f in [
            "fn list_repos(",
            "fn list_repos_dotted(",
            "fn list_repos_kebab(",
        ] {
            assert!(again.code.contains(f), "{f} in the generated code");
        }
    }

    #[test]
    fn a_rename_that_collides_is_an_error_with_a_hint() {
        let f = fixture(serde_json::json!([
            {"name": "list-repos", "inputSchema": {}},
            {"name": "list.repos", "inputSchema": {}}
        ]));
        let ok = generate(
            &f,
            "gh",
            &Options::default().with_rename("list.repos", "list_repos_dot"),
        )
        .unwrap();
        assert_eq!(ok.stats.tools, 2);
        let e = generate(
            &f,
            "gh",
            &Options::default().with_rename("list.repos", "list_repos"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("rename = { \"list.repos\" = \"list_repos\" }: `list_repos` is taken by tool \"list-repos\""),
            "{e}"
        );
        // No `_with` variants: `a` and `a_with` are two plain methods.
        let f = fixture(
            serde_json::json!([{"name": "a", "inputSchema": {}}, {"name": "a_with", "inputSchema": {}}]),
        );
        assert!(generate(&f, "gh", &Options::default()).is_ok());
    }
}
