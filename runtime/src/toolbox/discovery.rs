//! Progressive discovery ([`Progressive`]): the two tools that stand for the catalogue in
//! the exports, what they answer, and which entries the exports then hold.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::catalog::{Entry, Snapshot};
use super::hooks::Switches;
use super::provider::discovery::{LOAD_TOOLS, SEARCH_TOOLS};
use super::provider::{Format, discovery, model_definition};
use super::scope::Scope;
use super::{Progressive, Toolbox};
use crate::error::{Error, ErrorKind};
use crate::output::ToolOutput;

/// Most results of one search when the model gives no `limit`.
const DEFAULT_LIMIT: usize = 10;
/// Longest summary of a search result (characters).
const SUMMARY_CHARS: usize = 160;

/// One of the two discovery tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Which {
    Search,
    Load,
}

impl Which {
    /// The discovery tool `name` is, if it is one (only with discovery on).
    pub(super) fn of(name: &str) -> Option<Which> {
        match name {
            SEARCH_TOOLS => Some(Which::Search),
            LOAD_TOOLS => Some(Which::Load),
            _ => None,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Which::Search => SEARCH_TOOLS,
            Which::Load => LOAD_TOOLS,
        }
    }

    pub(super) fn schema(self) -> Value {
        match self {
            Which::Search => discovery::search_schema(),
            Which::Load => discovery::load_schema(),
        }
    }
}

/// What the exports hold under progressive discovery.
pub(super) struct View<'a> {
    pub(super) progressive: &'a Progressive,
    pub(super) loaded: BTreeSet<String>,
}

impl View<'_> {
    /// Whether `entry` is exported: a local tool, a pinned tool or a loaded one.
    pub(super) fn exports(&self, entry: &Entry) -> bool {
        let t = &entry.tool;
        t.server.is_empty()
            || self.loaded.contains(&t.exported)
            || self.progressive.pinned.contains(&t.exported)
            || self
                .progressive
                .pinned
                .contains(&format!("{}.{}", t.server, t.tool))
    }

    /// The two discovery tools in `format`.
    pub(super) fn definitions(format: Format) -> Vec<Value> {
        discovery::tools()
            .iter()
            .map(|(name, description, schema)| {
                model_definition(format, false, name, Some(description), schema).0
            })
            .collect()
    }
}

impl Toolbox {
    /// The view of the exports under progressive discovery, if it is on.
    pub(super) fn discovery_view(&self) -> Option<View<'_>> {
        let progressive = self.inner.options.progressive.as_ref()?;
        Some(View {
            progressive,
            loaded: self.loaded_tools().into_iter().collect(),
        })
    }

    /// The tools progressive discovery has loaded so far (exported names, sorted).
    pub fn loaded_tools(&self) -> Vec<String> {
        match self.inner.loaded.lock() {
            Ok(l) => l.iter().cloned().collect(),
            Err(poisoned) => poisoned.into_inner().iter().cloned().collect(),
        }
    }

    /// Loads tools as the model's `load_tools` does (exported names or `alias.tool`): they
    /// are exported from now on. Returns the exported names loaded; a name that resolves to
    /// no tool of this toolbox is an error naming it.
    pub fn load_tools<'a>(
        &self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<Vec<String>, Error> {
        let snap = self.snapshot();
        let mut exported = Vec::new();
        for name in names {
            let i = snap.resolve(name, self.scope())?;
            if let Some(entry) = snap.entry(i) {
                exported.push(entry.tool.exported.clone());
            }
        }
        self.mark_loaded(&exported);
        Ok(exported)
    }

    fn mark_loaded(&self, exported: &[String]) {
        let mut loaded = match self.inner.loaded.lock() {
            Ok(l) => l,
            Err(poisoned) => poisoned.into_inner(),
        };
        loaded.extend(exported.iter().cloned());
    }

    /// Answers a call of a discovery tool (arguments already checked against its schema).
    pub(super) fn discover(
        &self,
        which: Which,
        arguments: &Value,
        scope: Option<&Scope>,
    ) -> Result<ToolOutput, Error> {
        let snap = self.snapshot();
        match which {
            Which::Search => {
                let query = arguments.get("query").and_then(Value::as_str).unwrap_or("");
                let limit = arguments
                    .get("limit")
                    .and_then(Value::as_u64)
                    .map_or(DEFAULT_LIMIT, |n| usize::try_from(n).unwrap_or(usize::MAX));
                let off = self.inner.watch.switches();
                Ok(ToolOutput::from_json(search(
                    &snap, scope, &off, query, limit,
                )))
            }
            Which::Load => {
                let names: Vec<&str> = arguments
                    .get("names")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                let mut loaded = Vec::new();
                let mut unknown = Vec::new();
                let off = self.inner.watch.switches();
                for name in names {
                    match snap
                        .resolve(name, scope)
                        .ok()
                        .and_then(|i| snap.entry(i))
                        .filter(|e| !off.off(&e.tool.server, &e.tool.tool))
                    {
                        Some(entry) => loaded.push(entry),
                        None => unknown.push(name.to_string()),
                    }
                }
                if loaded.is_empty() {
                    return Err(Error::toolbox(
                        ErrorKind::UnknownTool,
                        format!(
                            "no tool named {}; call {SEARCH_TOOLS} to find the names",
                            unknown.join(", ")
                        ),
                    ));
                }
                let exported: Vec<String> =
                    loaded.iter().map(|e| e.tool.exported.clone()).collect();
                self.mark_loaded(&exported);
                let compact = self.inner.options.compact;
                let tools: Vec<Value> = loaded
                    .iter()
                    .map(|e| {
                        let t = &e.tool;
                        let d = model_definition(
                            Format::OpenAiResponses,
                            compact,
                            &t.exported,
                            t.exported_description.as_deref(),
                            t.model_schema(),
                        )
                        .0;
                        json!({
                            "name": t.exported,
                            "description": d.get("description"),
                            "parameters": d.get("parameters"),
                        })
                    })
                    .collect();
                Ok(ToolOutput::from_json(
                    json!({"loaded": tools, "unknown": unknown}),
                ))
            }
        }
    }
}

/// The entries matching `query` (case-insensitive words of the exported name, the tool's
/// name and its description), best first: names and one-line summaries.
fn search(
    snap: &Snapshot,
    scope: Option<&Scope>,
    off: &Switches,
    query: &str,
    limit: usize,
) -> Value {
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut scored: Vec<(usize, &Entry)> = snap
        .entries
        .iter()
        .filter(|e| super::catalog::visible(e, scope))
        .filter(|e| !off.off(&e.tool.server, &e.tool.tool))
        .filter_map(|e| {
            let t = &e.tool;
            let name = format!("{} {}", t.exported, t.tool).to_lowercase();
            let description = t.description.as_deref().unwrap_or("").to_lowercase();
            // A word in the name counts more than one in the description.
            let score: usize = words
                .iter()
                .map(|w| {
                    2 * usize::from(name.contains(w.as_str()))
                        + usize::from(description.contains(w.as_str()))
                })
                .sum();
            (score > 0 || words.is_empty()).then_some((score, e))
        })
        .collect();
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| a.1.tool.exported.cmp(&b.1.tool.exported))
    });
    let total = scored.len();
    let tools: Vec<Value> = scored
        .into_iter()
        .take(limit)
        .map(|(_, e)| {
            let summary: String = e
                .tool
                .description
                .as_deref()
                .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
                .unwrap_or("")
                .chars()
                .take(SUMMARY_CHARS)
                .collect();
            json!({"name": e.tool.exported, "summary": summary})
        })
        .collect();
    json!({"tools": tools, "matches": total})
}
