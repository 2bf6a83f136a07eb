//! What models see: tool definitions in a provider's format ([`Format`]) and native MCP
//! servers.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::catalog::{Entry, Slot, Snapshot, server_candidates};
use super::discovery::View;
use super::hooks::Switches;
use super::names::NameCollision;
use super::provider::connector::{
    Approval, Connector, ConnectorExport, Refused, RemoteServer, connector_export,
};
use super::provider::{self, Fallback, Format, ToolExport};
use super::review::Reviewed;
use super::scope::Scope;
use super::{Toolbox, ToolboxOptions};
use crate::config::ServerConfig;
use crate::session::Session;

/// A server for a model with native MCP support: its tool definitions as MCP defines them,
/// and the live session to call them on.
#[derive(Debug, Clone)]
pub struct NativeServer {
    /// The server's alias.
    pub alias: String,
    /// The raw MCP tool definitions (after allow/deny lists and agent restrictions).
    pub tools: Vec<Value>,
    /// The session.
    pub session: Session,
}

impl Toolbox {
    /// The `tools` array of a chat-completions request: non-strict definitions, or strict
    /// ones where possible (the others non-strict; see [`Toolbox::openai_export`]).
    pub fn openai_tools(&self, strict: bool) -> Vec<Value> {
        self.openai_export(strict).tools
    }

    /// [`Toolbox::openai_tools`] with the list of strict fallbacks.
    pub fn openai_export(&self, strict: bool) -> ToolExport {
        self.export(if strict {
            Format::OpenAiStrict
        } else {
            Format::OpenAi
        })
    }

    /// Every tool in a provider's format ([`Format`]): OpenAI (strict or not), Anthropic or
    /// Gemini, with the tools that took a weaker form and why.
    ///
    /// With [`ToolboxOptions::compact`] the definitions are the compact ones; with
    /// progressive discovery ([`ToolboxBuilder::progressive`](super::ToolboxBuilder::progressive))
    /// the list is `search_tools`, `load_tools`, then the local, pinned and loaded tools.
    pub fn export(&self, format: Format) -> ToolExport {
        export(
            &self.snapshot(),
            format,
            self.scope(),
            &self.inner.watch.switches(),
            self.inner.options.compact,
            self.discovery_view().as_ref(),
        )
    }

    /// Raw MCP tool definitions and the live session of every connected server (a fake,
    /// which has no session, is left out).
    pub fn native_servers(&self) -> Vec<NativeServer> {
        native(&self.snapshot(), self.scope(), &self.inner.watch.switches())
    }

    /// The servers as a provider's native MCP connector takes them
    /// ([`provider::connector`]): Anthropic's `mcp_servers` and `mcp_toolset`s, or OpenAI
    /// Responses' `mcp` tools, each allowing exactly the tools this toolbox exports for the
    /// server, with its headers and OAuth token as the session sends them. Servers the
    /// provider cannot reach are in [`ConnectorExport::refused`] with the reason: stdio
    /// servers, servers not connected, and URLs on loopback or private addresses unless
    /// [`ConnectorOptions::public_url`] gives the one the provider reaches.
    ///
    /// The entries hold credentials: send them to the provider, never to a log.
    pub async fn mcp_connectors(
        &self,
        connector: Connector,
        options: &ConnectorOptions,
    ) -> ConnectorExport {
        let snap = self.snapshot();
        let scope = self.scope();
        let mut servers = Vec::new();
        let mut refused = Vec::new();
        // A provider's connector reads the server's own tools/list: a tool whose live words
        // differ from the reviewed ones would reach the model unreviewed, so it is left out.
        let differ: std::collections::BTreeSet<(&str, &str)> = snap
            .entries
            .iter()
            .filter(|e| e.words_differ)
            .map(|e| (e.tool.server.as_str(), e.tool.tool.as_str()))
            .collect();
        let off = self.inner.watch.switches();
        for mut server in native(&snap, scope, &off) {
            server.tools.retain(|t| {
                let name = t.get("name").and_then(Value::as_str).unwrap_or("");
                !differ.contains(&(server.alias.as_str(), name))
            });
            let Some((url, headers)) = server.session.http_target() else {
                refused.push(Refused::stdio(server.alias));
                continue;
            };
            let bearer = match server.session.bearer_token().await {
                Ok(token) => token,
                Err(e) => {
                    refused.push(Refused {
                        alias: server.alias,
                        reason: format!("no OAuth access token: {e}"),
                    });
                    continue;
                }
            };
            let url = options
                .public_urls
                .get(&server.alias)
                .cloned()
                .unwrap_or(url);
            servers.push(RemoteServer {
                alias: server.alias,
                url,
                headers,
                bearer,
                tools: server.tools,
            });
        }
        for alias in snap.slots.keys() {
            let listed = servers.iter().any(|s| &s.alias == alias)
                || refused.iter().any(|r| &r.alias == alias);
            if !listed && scope.is_none_or(|s| s.has_server(alias)) && !off.off(alias, "") {
                refused.push(Refused {
                    alias: alias.clone(),
                    reason: "not connected (a fake, or a lazy server before its first call)".into(),
                });
            }
        }
        connector_export(connector, &servers, options.approval, refused)
    }
}

/// One agent's tools on both routes at once ([`Toolbox::mixed_tools`]): connector entries
/// for the servers the provider reaches, function definitions for the others.
#[derive(Debug, Clone)]
pub struct MixedTools {
    /// The servers the provider reaches, as its connector takes them; `refused` holds the
    /// servers on neither route (unreachable, and without a function-call wrapper).
    pub connectors: ConnectorExport,
    /// The wrapped servers' tools (and the local tools) as function definitions in the
    /// connector's provider format — Anthropic, or OpenAI Responses — dispatched through
    /// [`Toolbox::call`].
    pub functions: ToolExport,
    /// The servers offered as functions, each with why it is not a connector entry.
    pub wrapped: Vec<Refused>,
}

impl MixedTools {
    /// The request's `tools` array: the connector entries (Anthropic's `mcp_toolset`s or
    /// OpenAI's `mcp` tools), then the function definitions. Anthropic also takes
    /// `connectors.mcp_servers`. The entries hold credentials: send them to the provider,
    /// never to a log.
    pub fn request_tools(&self) -> Vec<Value> {
        self.connectors
            .tools
            .iter()
            .chain(&self.functions.tools)
            .cloned()
            .collect()
    }
}

impl Toolbox {
    /// The tools for a model whose provider has an MCP connector, on both routes at once:
    /// each server the provider reaches ([`Toolbox::mcp_connectors`]) as a connector entry,
    /// and each server it cannot reach — a stdio server, one on a private network, a lazy
    /// one not connected yet — wrapped as function definitions in the provider's format
    /// ([`Format::Anthropic`] for [`Connector::Anthropic`], [`Format::OpenAiResponses`] for
    /// [`Connector::OpenAi`]), with the local tools. The registry's rules apply per server:
    /// only a server with `function_call_wrapper = true` is wrapped; another that the
    /// provider cannot reach is in `connectors.refused`, with the fix. An agent's toolbox
    /// keeps to the agent's servers and tools; switched-off tools are left out.
    pub async fn mixed_tools(
        &self,
        connector: Connector,
        options: &ConnectorOptions,
    ) -> MixedTools {
        let format = match connector {
            Connector::Anthropic => Format::Anthropic,
            Connector::OpenAi => Format::OpenAiResponses,
        };
        let mut connectors = self.mcp_connectors(connector, options).await;
        let configs = self.server_configs();
        let mut wrapped = Vec::new();
        let mut refused = Vec::new();
        for r in std::mem::take(&mut connectors.refused) {
            let wrapper = configs
                .iter()
                .find(|c| c.alias() == r.alias)
                .is_some_and(|c| c.function_call_wrapper());
            if wrapper {
                wrapped.push(r);
            } else {
                refused.push(Refused {
                    reason: format!(
                        "{}; and it has no function-call wrapper: set `function_call_wrapper = true` in [servers.{}] to offer its tools as function calls",
                        r.reason, r.alias
                    ),
                    alias: r.alias,
                });
            }
        }
        connectors.refused = refused;
        let snap = self.snapshot();
        let as_function = |name: &str| match snap.by_exported.get(name).and_then(|&i| snap.entry(i))
        {
            // The toolbox's own tools (progressive discovery's).
            None => true,
            Some(e) => e.tool.server.is_empty() || wrapped.iter().any(|w| w.alias == e.tool.server),
        };
        let mut functions = self.export(format);
        functions
            .tools
            .retain(|d| format.name_of(d).is_none_or(&as_function));
        functions.fallbacks.retain(|f| as_function(&f.exported));
        functions.left_out.retain(|f| as_function(&f.exported));
        MixedTools {
            connectors,
            functions,
            wrapped,
        }
    }
}

/// How [`Toolbox::mcp_connectors`] writes the entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectorOptions {
    /// Which calls need approval (OpenAI's `require_approval`).
    pub approval: Approval,
    /// The URL the provider reaches a server at, by alias, where it differs from the one
    /// this machine uses (a server on a private network behind a public gateway or tunnel).
    pub public_urls: BTreeMap<String, String>,
}

impl ConnectorOptions {
    /// Sets [`ConnectorOptions::approval`].
    pub fn approval(mut self, approval: Approval) -> Self {
        self.approval = approval;
        self
    }

    /// Adds a [`ConnectorOptions::public_urls`] entry.
    pub fn public_url(mut self, alias: impl Into<String>, url: impl Into<String>) -> Self {
        self.public_urls.insert(alias.into(), url.into());
        self
    }
}

pub(super) fn export(
    snap: &Snapshot,
    format: Format,
    scope: Option<&Scope>,
    off: &Switches,
    compact: bool,
    view: Option<&View<'_>>,
) -> ToolExport {
    let mut entries: Vec<&Entry> = snap
        .entries
        .iter()
        .filter(|e| super::catalog::visible(e, scope))
        .filter(|e| !off.off(&e.tool.server, &e.tool.tool))
        .filter(|e| view.is_none_or(|v| v.exports(e)))
        .collect();
    entries.sort_by(|a, b| a.tool.exported.cmp(&b.tool.exported));
    let mut out = ToolExport {
        format,
        tools: Vec::with_capacity(entries.len() + 2),
        fallbacks: Vec::new(),
        left_out: Vec::new(),
    };
    if view.is_some() {
        out.tools.extend(View::definitions(format));
    }
    for e in entries {
        let t = &e.tool;
        // One definition the provider refuses fails the whole request: it stays out. The
        // OpenAI definitions and their checks are computed once per snapshot (typed tools:
        // fixed at compile time); a strict one refused falls back to the plain form.
        let checked = match (format, &e.refused) {
            (Format::OpenAi | Format::OpenAiStrict, Some(refused)) => Err(refused.clone()),
            // The plain form may have widened the schema to what OpenAI accepts: the reason.
            (Format::OpenAi, None) => Ok((t.function.clone(), e.widened.clone())),
            (Format::OpenAiStrict, None) => Ok(match &t.strict_function {
                Ok(s) => (s.clone(), None),
                Err(reason) => (t.function.clone(), Some(reason.clone())),
            }),
            (Format::OpenAiResponses | Format::Anthropic | Format::Gemini, _) => {
                // A local tool's schema is the application's own: never compacted.
                let (definition, fallback) = provider::model_definition(
                    format,
                    compact && !t.server.is_empty(),
                    &t.exported,
                    t.exported_description.as_deref(),
                    t.model_schema(),
                );
                provider::check(format, &definition).map(|()| (definition, fallback))
            }
        };
        let noted = |reason: String| Fallback {
            exported: t.exported.clone(),
            server: t.server.clone(),
            tool: t.tool.clone(),
            reason,
        };
        let (definition, fallback) = match checked {
            Ok(checked) => checked,
            Err(reason) => {
                out.left_out.push(noted(reason));
                continue;
            }
        };
        if let Some(reason) = fallback {
            out.fallbacks.push(noted(reason));
        }
        out.tools.push(definition);
    }
    out
}

pub(super) fn native(snap: &Snapshot, scope: Option<&Scope>, off: &Switches) -> Vec<NativeServer> {
    snap.slots
        .values()
        .filter(|slot| scope.is_none_or(|s| s.has_server(slot.config.alias())))
        .filter(|slot| !off.off(slot.config.alias(), ""))
        .filter_map(|slot| {
            let session = slot.session.clone()?;
            let tools = snap
                .entries
                .iter()
                .filter(|e| e.tool.server == slot.config.alias())
                .filter(|e| super::catalog::visible(e, scope))
                .filter(|e| !off.off(&e.tool.server, &e.tool.tool))
                .map(|e| e.tool.definition.clone())
                .collect();
            Some(NativeServer {
                alias: slot.config.alias().to_string(),
                tools,
                session,
            })
        })
        .collect()
}

/// Exports the tools of several servers offline (from fixtures or any tool lists), exactly
/// as a [`Toolbox`] over live servers with the same tools would: used by `cargo xtask tools`.
/// Each server comes with its configuration (its registry entry, or
/// `ServerConfig::stdio(alias, "", vec![])`): what it sets for the export
/// ([`ServerConfig::max_description_chars`]) applies as in a [`Toolbox`].
pub fn export_offline(
    servers: &[(ServerConfig, Vec<Value>)],
    options: &ToolboxOptions,
    format: Format,
) -> (ToolExport, Vec<NameCollision>) {
    let slots: BTreeMap<String, Arc<Slot>> = servers
        .iter()
        .map(|(config, tools)| {
            let alias = config.alias().to_string();
            (
                alias.clone(),
                Arc::new(
                    Slot::new(config.clone(), None, Vec::new(), None, None)
                        // The tools given are the reviewed ones: exported as they are.
                        .with_reviewed(Some(Reviewed::from_tools(&alias, tools))),
                ),
            )
        })
        .collect();
    let mut candidates = Vec::new();
    for slot in slots.values() {
        candidates.extend(server_candidates(slot).candidates);
    }
    let snap = Snapshot::build_from(slots, BTreeMap::new(), candidates, options);
    (
        export(
            &snap,
            format,
            None,
            &Switches::default(),
            options.compact,
            None,
        ),
        snap.collisions.clone(),
    )
}
