//! Both axes of a fixture change in one report: the wire class ([`classify`], from
//! `mcp-bindgen-core`) and the Rust API effect ([`rust_effects`]: both fixtures run through
//! the generator), per tool, in the three forms the `diff` and `snapshot --check` commands
//! print.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Map, Value, json};

mod rust;

use mcp_bindgen_core::diff::{Detail, Report, Severity, classify, totals_line};
use rust::RustReport;
pub use rust::{RustChange, RustEffect, rust_effects};

/// One changed tool on both axes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolReview {
    /// The tool's name.
    pub tool: String,
    /// The wire class ([`Severity::None`] when only the spelling changed).
    pub class: Severity,
    /// The wire reasons, worst first (empty when the JSON of the tool is unchanged).
    pub wire: Vec<Detail>,
    /// The effect on the generated Rust API ([`RustEffect::Patch`] with no reasons when
    /// the generated items are identical).
    pub rust: RustEffect,
    /// The Rust reasons, worst first.
    pub rust_reasons: Vec<(RustEffect, String)>,
}

/// The review of two fixture documents: every changed tool on both axes, and the changes
/// outside the tool list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Review {
    /// Changed tools, sorted by name.
    pub tools: Vec<ToolReview>,
    /// Changes outside the tool list (the wire report's [`Report::server`]).
    pub server: Vec<Detail>,
    /// The Rust effect outside the tools: the prompts' and resource templates' bindings.
    pub server_rust: Option<RustChange>,
}

/// How a [`Review`] is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One block per tool, for a terminal.
    Text,
    /// A table, for a pull-request comment.
    Markdown,
    /// `{"tools": {"<tool>": {"class", "rust", "reasons"}}, "server": […]}`.
    Json,
}

/// Reviews the change from `old` to `new` (two fixture documents) on both axes.
#[must_use]
pub fn review(old: &Value, new: &Value) -> Review {
    let report = classify(old, new);
    let rust = rust_effects(old, new);
    review_from(report, rust)
}

fn review_from(report: Report, rust: RustReport) -> Review {
    let RustReport {
        tools: mut rust,
        prompts,
    } = rust;
    let mut names: BTreeSet<String> = report.changes.iter().map(|c| c.tool.clone()).collect();
    names.extend(rust.keys().cloned());
    let tools = names
        .into_iter()
        .map(|tool| {
            let wire = report
                .changes
                .iter()
                .find(|c| c.tool == tool)
                .map(|c| c.details.clone())
                .unwrap_or_default();
            let class = wire
                .iter()
                .map(|d| d.severity)
                .max()
                .unwrap_or(Severity::None);
            let change = rust.remove(&tool);
            let (rust, rust_reasons) =
                change.map_or((RustEffect::Patch, Vec::new()), |c| (c.effect, c.reasons));
            ToolReview {
                tool,
                class,
                wire,
                rust,
                rust_reasons,
            }
        })
        .collect();
    Review {
        tools,
        server: report.server,
        server_rust: prompts,
    }
}

impl Review {
    /// True when nothing changed.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.server.is_empty() && self.server_rust.is_none()
    }

    /// The worst wire class, `None` when nothing changed.
    pub fn worst(&self) -> Option<Severity> {
        self.tools
            .iter()
            .map(|t| t.class)
            .chain(self.server.iter().map(|d| d.severity))
            .max()
    }

    /// The worst Rust effect among the changed tools.
    pub fn worst_rust(&self) -> Option<RustEffect> {
        self.tools
            .iter()
            .map(|t| t.rust)
            .chain(self.server_rust.as_ref().map(|r| r.effect))
            .max()
    }

    /// The server block's reasons: the wire details, then the Rust reasons of the prompts' and resource templates' bindings.
    fn server_reasons(&self) -> Vec<String> {
        self.server
            .iter()
            .map(ToString::to_string)
            .chain(
                self.server_rust
                    .iter()
                    .flat_map(|r| r.reasons.iter())
                    .map(|(effect, reason)| format!("Rust {effect}: {reason}")),
            )
            .collect()
    }

    /// True when some change reaches `threshold` (`None`: any change at all).
    pub fn fails(&self, threshold: Option<Severity>) -> bool {
        match (self.worst(), threshold) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(worst), Some(t)) => worst >= t,
        }
    }

    /// `3 tools changed: 1 BREAKING, 2 DOCS; Rust API: major`.
    pub fn totals(&self) -> String {
        if self.is_empty() {
            return "no changes".to_string();
        }
        let classes: Vec<Severity> = self.tools.iter().map(|t| t.class).collect();
        let server = self.server.iter().map(|d| d.severity).max();
        let mut out = totals_line(&classes, server);
        if let Some(rust) = self.worst_rust() {
            let _ = write!(out, "; Rust API: {rust}");
        }
        out
    }

    /// The review in `format`.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Text => self.text(),
            Format::Markdown => self.markdown(),
            Format::Json => {
                let mut text = serde_json::to_string_pretty(&self.to_json()).unwrap_or_default();
                text.push('\n');
                text
            }
        }
    }

    /// Every reason of a tool, wire first: `BREAKING new required argument "type"`,
    /// `Rust major: struct … gains field …`.
    fn reasons(t: &ToolReview) -> Vec<String> {
        t.wire
            .iter()
            .map(ToString::to_string)
            .chain(
                t.rust_reasons
                    .iter()
                    .map(|(effect, reason)| format!("Rust {effect}: {reason}")),
            )
            .collect()
    }

    fn headline(t: &ToolReview) -> String {
        t.wire
            .first()
            .map(|d| d.message.clone())
            .or_else(|| t.rust_reasons.first().map(|r| r.1.clone()))
            .unwrap_or_default()
    }

    fn text(&self) -> String {
        if self.is_empty() {
            return "no changes\n".to_string();
        }
        let mut out = String::new();
        for t in &self.tools {
            let _ = writeln!(
                out,
                "{}: {}, Rust {} — {}",
                t.tool,
                t.class,
                t.rust,
                Self::headline(t)
            );
            for reason in Self::reasons(t)
                .iter()
                .skip(usize::from(!t.wire.is_empty()))
            {
                let _ = writeln!(out, "  - {reason}");
            }
        }
        if let Some(worst) = self.server.iter().map(|d| d.severity).max() {
            let headline = self.server.first().map_or("", |d| d.message.as_str());
            let rust = self
                .server_rust
                .as_ref()
                .map_or_else(String::new, |r| format!(", Rust {}", r.effect));
            let _ = writeln!(out, "(server): {worst}{rust} — {headline}");
            for reason in self.server_reasons().iter().skip(1) {
                let _ = writeln!(out, "  - {reason}");
            }
        }
        out
    }

    fn markdown(&self) -> String {
        if self.is_empty() {
            return "No changes.\n".to_string();
        }
        let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
        let mut out = format!(
            "**{}**\n\n| tool | wire | Rust API | reasons |\n|---|---|---|---|\n",
            self.totals()
        );
        for t in &self.tools {
            let reasons: Vec<String> = Self::reasons(t).iter().map(|r| cell(r)).collect();
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} |",
                cell(&t.tool),
                t.class,
                t.rust,
                reasons.join("<br>")
            );
        }
        if !self.server.is_empty() {
            let reasons: Vec<String> = self.server_reasons().iter().map(|r| cell(r)).collect();
            let worst = self
                .server
                .iter()
                .map(|d| d.severity)
                .max()
                .unwrap_or(Severity::None);
            let rust = self
                .server_rust
                .as_ref()
                .map_or_else(String::new, |r| r.effect.to_string());
            let _ = writeln!(
                out,
                "| (server) | {worst} | {rust} | {} |",
                reasons.join("<br>")
            );
        }
        out
    }

    /// The JSON form: `{"tools": {"<tool>": {"class": "BREAKING", "rust": "major",
    /// "reasons": […]}}, "server": [{"class", "path", "reason"}], "prompts_rust": null |
    /// {"rust", "reasons"}}`; unchanged tools absent.
    pub fn to_json(&self) -> Value {
        let mut tools = Map::new();
        for t in &self.tools {
            tools.insert(
                t.tool.clone(),
                json!({
                    "class": t.class.label(),
                    "rust": t.rust.label(),
                    "reasons": Self::reasons(t),
                }),
            );
        }
        let server: Vec<Value> = self
            .server
            .iter()
            .map(|d| json!({"class": d.severity.label(), "path": d.path, "reason": d.message}))
            .collect();
        let prompts = self.server_rust.as_ref().map(|r| {
            let reasons: Vec<&str> = r
                .reasons
                .iter()
                .map(|(_, reason)| reason.as_str())
                .collect();
            json!({"rust": r.effect.label(), "reasons": reasons})
        });
        json!({"tools": tools, "server": server, "prompts_rust": prompts})
    }
}
