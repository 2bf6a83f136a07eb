//! What a server's tools cost a model: the tokens of each tool's exported definition, per
//! provider format, in full and in compact form, counted at build time.
//!
//! A definition is what the runtime's toolbox sends for the tool under its default name
//! (`mcp_<alias>_<tool>`): [`mcp_bindgen_core::provider::definition`] (or
//! [`compact_definition`]) of the fixture's description and input schema. Its tokens are
//! those of its compact JSON text in OpenAI's `o200k_base` encoding (`bpe-openai`), the
//! encoding of OpenAI's current models. Anthropic and Google do not publish their tokenizers:
//! for their formats the count is the same encoding's, an estimate of their size.
//!
//! `mcp_tools!(…, tokens)` counts the [`Format::OpenAi`] definitions (the exact count for
//! OpenAI's models, and the format of the `max_tokens` budget); `cargo mcp-bindgen tools
//! --tokens` counts every format. The encoding is loaded once per process, on a thread of its
//! own while the generator works.

use mcp_bindgen_core::fixture::Tool;
use mcp_bindgen_core::naming;
use mcp_bindgen_core::provider::{Format, Tokens, compact_definition, definition, discovery};

/// Why tokens cannot be counted in a build without the `tokens` feature.
pub const UNAVAILABLE: &str = "token counting needs the `tokens` feature (of mcp-bindgen: `mcp-bindgen = { version = \"0.1\", features = [\"tokens\"] }`)";

/// Loads the encoding now (the generator calls it on a thread that would otherwise wait).
pub(crate) fn preload() {
    #[cfg(feature = "tokens")]
    let _ = bpe_openai::o200k_base();
}

/// Tokens of a text in `o200k_base` (its data is compiled in); without the `tokens`
/// feature, [`UNAVAILABLE`].
///
/// The encoding splits a text into pieces (words, punctuation runs) and encodes each on its
/// own, so a text's count is the sum of its pieces' counts. Tool definitions repeat few
/// distinct pieces (GitHub's 117 tools, full and compact: about 47 000 pieces, 1 900
/// distinct), so each thread remembers the pieces it has counted (up to [`MEMO_LIMIT`]).
pub fn count(text: &str) -> Result<usize, String> {
    #[cfg(feature = "tokens")]
    return Ok(memo::count(text));
    #[cfg(not(feature = "tokens"))]
    {
        let _ = text;
        Err(UNAVAILABLE.to_string())
    }
}

/// How many distinct pieces a thread remembers before it starts again.
pub const MEMO_LIMIT: usize = 50_000;

#[cfg(feature = "tokens")]
mod memo {
    use std::cell::RefCell;
    use std::collections::HashMap;

    thread_local! {
        static PIECES: RefCell<HashMap<Box<str>, usize>> = RefCell::new(HashMap::new());
    }

    /// [`super::count`] with the feature on.
    pub(super) fn count(text: &str) -> usize {
        let tokenizer = bpe_openai::o200k_base();
        let text = tokenizer.normalize(text);
        PIECES.with_borrow_mut(|pieces| {
            if pieces.len() > super::MEMO_LIMIT {
                pieces.clear();
            }
            tokenizer
                .split(text.as_str())
                .map(|piece| match pieces.get(piece) {
                    Some(&n) => n,
                    None => {
                        let n = tokenizer.bpe.count(piece.as_bytes());
                        pieces.insert(piece.into(), n);
                        n
                    }
                })
                .sum()
        })
    }
}

/// Tokens of one JSON definition's compact text.
pub fn count_definition(definition: &serde_json::Value) -> Result<u32, String> {
    let n = count(&definition.to_string())?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

/// One tool's [`Format::OpenAi`] definition tokens, full and compact, exported under its
/// default name for the server `alias` (what `mcp_tools!(…, tokens)` writes).
pub fn tool_tokens(alias: &str, tool: &Tool) -> Result<Tokens, String> {
    let [(full, compact)] = count_formats(alias, tool, &[Format::OpenAi])?[..] else {
        return Err("internal error: one format asked, not one count".into());
    };
    Ok(Tokens::new(full, compact))
}

/// One tool's definition tokens in each of `formats`, `(full, compact)`, exported under its
/// default name for the server `alias`. A compact definition that is the same text as the
/// full one is counted once.
pub fn count_formats(
    alias: &str,
    tool: &Tool,
    formats: &[Format],
) -> Result<Vec<(u32, u32)>, String> {
    let name = naming::openai_name(alias, &tool.name);
    let description = tool.description.as_deref();
    formats
        .iter()
        .map(|&format| {
            let full = definition(format, &name, description, &tool.input_schema).0;
            let compact = compact_definition(format, &name, description, &tool.input_schema).0;
            let full_count = count_definition(&full)?;
            let compact_count = if compact == full {
                full_count
            } else {
                count_definition(&compact)?
            };
            Ok((full_count, compact_count))
        })
        .collect()
}

/// A server module over its `max_tokens` budget: what it costs, the largest tools and what
/// would fit ([`crate::Error::OverBudget`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBudget {
    /// The server's alias.
    pub alias: String,
    /// The budget (`max_tokens`).
    pub max: u32,
    /// The bound tools' tokens.
    pub total: Tokens,
    /// The bound tools with their tokens, largest first.
    pub largest: Vec<(String, Tokens)>,
    /// The tools that `skip` would have to leave out to fit (the largest ones), or `None`
    /// when no tool list fits (a single tool costs more than the budget).
    pub skip_to_fit: Option<Vec<String>>,
    /// What progressive discovery costs up front (its two tools' definitions).
    pub progressive: u32,
}

/// The [`OverBudget`] of a server whose tools `counts` (fixture order) add up to `total`.
pub fn over_budget(
    alias: &str,
    max: u32,
    total: Tokens,
    counts: Vec<(String, Tokens)>,
) -> OverBudget {
    let mut largest = counts;
    largest.sort_by(|a, b| b.1.full.cmp(&a.1.full).then_with(|| a.0.cmp(&b.0)));
    let mut left = total.full;
    let mut skip = Vec::new();
    for (tool, t) in &largest {
        if left <= max {
            break;
        }
        left -= t.full;
        skip.push(tool.clone());
    }
    let skip_to_fit = (left <= max && skip.len() < largest.len()).then_some(skip);
    OverBudget {
        alias: alias.to_string(),
        max,
        total,
        largest,
        skip_to_fit,
        progressive: progressive_upfront().unwrap_or(0),
    }
}

/// Tokens of progressive discovery's two tools as OpenAI function definitions: what a
/// toolbox with [`discovery`] exports up front,
/// before any tool is loaded.
pub fn progressive_upfront() -> Result<u32, String> {
    discovery::tools()
        .iter()
        .map(|(name, description, schema)| {
            count_definition(&definition(Format::OpenAi, name, Some(description), schema).0)
        })
        .sum()
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.largest.len();
        write!(
            f,
            "server \"{}\": the {n} tools bound cost {} tokens as OpenAI function definitions (o200k_base), over max_tokens = {}; the largest: ",
            self.alias, self.total.full, self.max
        )?;
        for (i, (tool, t)) in self.largest.iter().take(5).enumerate() {
            write!(f, "{}{tool} ({})", if i == 0 { "" } else { ", " }, t.full)?;
        }
        if n > 5 {
            write!(f, " and {} more", n - 5)?;
        }
        f.write_str(". To fit: ")?;
        let mut ways = Vec::new();
        match &self.skip_to_fit {
            Some(skip) if skip.len() <= 8 => ways.push(format!(
                "skip = [{}]",
                skip.iter()
                    .map(|t| format!("\"{t}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            Some(skip) => ways.push(format!(
                "leave out the {} largest tools with skip = [...]",
                skip.len()
            )),
            None => {}
        }
        ways.push("only = [...] with the tools the program calls".into());
        if self.total.compact <= self.max {
            ways.push(format!(
                "the compact export ({} tokens: ToolboxBuilder::compact, then max_tokens counts the full form: raise it to {})",
                self.total.compact, self.total.full
            ));
        }
        if self.progressive <= self.max {
            ways.push(format!(
                "progressive discovery ({} tokens up front: ToolboxBuilder::progressive)",
                self.progressive
            ));
        }
        ways.push("a larger max_tokens".into());
        f.write_str(&ways.join("; or "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "tokens")]
    #[test]
    fn over_budget_names_the_largest_tools_and_what_fits() {
        let counts = vec![
            ("a".to_string(), Tokens::new(100, 90)),
            ("b".to_string(), Tokens::new(500, 400)),
            ("c".to_string(), Tokens::new(300, 250)),
        ];
        let o = over_budget("gh", 450, Tokens::new(900, 740), counts.clone());
        assert_eq!(o.skip_to_fit, Some(vec!["b".to_string()]));
        let text = o.to_string();
        assert!(text.contains("the 3 tools bound cost 900 tokens"), "{text}");
        assert!(text.contains("over max_tokens = 450"), "{text}");
        assert!(
            text.contains("the largest: b (500), c (300), a (100)"),
            "{text}"
        );
        assert!(text.contains("skip = [\"b\"]"), "{text}");
        // The compact form (740) does not fit 450 tokens; discovery does.
        assert!(!text.contains("compact export"), "{text}");
        assert!(o.progressive > 0 && o.progressive <= 450);
        assert!(text.contains("progressive discovery ("), "{text}");
        let roomy = over_budget(
            "gh",
            800,
            Tokens::new(900, 740),
            vec![("b".into(), Tokens::new(900, 740))],
        );
        let text = roomy.to_string();
        assert!(text.contains("the compact export (740 tokens"), "{text}");
        assert!(
            text.contains(&format!(
                "progressive discovery ({} tokens up front",
                roomy.progressive
            )),
            "{text}"
        );
        // No list fits when one tool alone is over the budget.
        let none = over_budget("gh", 50, Tokens::new(900, 740), counts);
        assert_eq!(none.skip_to_fit, None);
        assert!(none.to_string().contains("To fit: only = [...]"), "{none}");
    }

    #[cfg(feature = "tokens")]
    #[test]
    fn counts_are_o200k_tokens() {
        assert_eq!(count("hello world").unwrap(), 2);
        assert_eq!(count("").unwrap(), 0);
    }
}
