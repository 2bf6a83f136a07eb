//! `login ALIAS [--no-browser]` and `logout ALIAS`: the OAuth login of a server with
//! `auth = "oauth"` in the registry, kept in the user's token store.
//!
//! `login` runs the authorization code flow with PKCE: it listens on
//! `http://127.0.0.1:PORT/callback` (the registry's `redirect_port`, else a free port),
//! prints the authorization URL, opens a browser when there is one, waits for the
//! redirect, stores the tokens (owner-only file under the user's config directory), then
//! connects with them and lists the tools to show the login works. For
//! `auth = { client_credentials = … }` it requests a token and checks it the same way.
//! `logout` deletes the stored tokens.

use std::process::ExitCode;
use std::sync::Arc;

use mcp_bindgen::AuthConfig;
use mcp_bindgen::auth::LoopbackAuthorizer;

use crate::args::{Arg, Parser};
use crate::paths::{LOCATE_USAGE, Locate};
use crate::{Cli, Error, Result};

fn usage(cli: &Cli, command: &str) -> String {
    let p = &cli.invoked_as;
    if command == "logout" {
        format!(
            "usage: {p} logout ALIAS

Deletes the stored OAuth tokens of a server (`auth = \"oauth\"` in the registry).
{LOCATE_USAGE}"
        )
    } else {
        format!(
            "usage: {p} login ALIAS [--no-browser]

Logs in to a server with `auth = \"oauth\"` in the registry: prints the authorization URL
(and opens a browser when there is one), waits for the redirect on 127.0.0.1, stores the
tokens in the user's token store (never in the project) and checks them by listing the
server's tools. Sessions, snapshots and calls then use the login and refresh it.

  --no-browser           print the URL only
{LOCATE_USAGE}"
        )
    }
}

/// Entry point of `login` and `logout`; `words` are the words after the command.
pub(crate) fn run(cli: &Cli, command: &str, words: &[String]) -> Result<ExitCode> {
    let mut p = Parser::new(words, usage(cli, command));
    let mut alias = None;
    let mut browser = true;
    let mut locate = Locate::default();
    while let Some(arg) = p.next()? {
        match arg {
            Arg::Word(w) if alias.is_none() => alias = Some(w),
            Arg::Word(w) => return Err(p.error(&format!("unexpected argument `{w}`"))),
            Arg::Flag(f) if f == "--no-browser" && command == "login" => browser = false,
            Arg::Flag(f) => {
                if !locate.take(&f, &mut p)? {
                    return Err(p.unknown(&f));
                }
            }
        }
    }
    let alias = alias.ok_or_else(|| p.error("which server? give its ALIAS"))?;
    let registry = locate.load_registry(cli, command)?;
    let server = registry.get(&alias)?.clone();
    if command == "logout" {
        return match mcp_bindgen::auth::logout(&server)? {
            Some(file) => {
                outln!("logged out of \"{alias}\": deleted {}", file.display());
                Ok(ExitCode::SUCCESS)
            }
            None => {
                outln!("no stored login for \"{alias}\"");
                Ok(ExitCode::SUCCESS)
            }
        };
    }
    let port = match server.auth() {
        Some(AuthConfig::OAuth(o)) => o.redirect_port,
        Some(_) => None,
        None if server.transport().kind() == "stdio" => {
            return Err(Error::Other(format!(
                "server \"{alias}\" is a stdio server: OAuth logins are for HTTP servers (`url`); a stdio server takes its credentials from its `env` (e.g. `env = {{ API_TOKEN = \"${{API_TOKEN}}\" }}`)"
            )));
        }
        None => {
            return Err(Error::Other(format!(
                "server \"{alias}\" has no `auth` setting in the registry: add `auth = \"oauth\"` to its entry (static tokens go in `headers`)"
            )));
        }
    };
    crate::async_runtime()?.block_on(async {
        let authorizer = LoopbackAuthorizer::bind(port)
            .await
            .map_err(|e| {
                Error::Other(format!(
                    "cannot listen for the redirect on 127.0.0.1:{}: {e}",
                    port.unwrap_or(0)
                ))
            })?
            .open_browser(browser);
        let login = cli
            .connect_options()
            .login(&server, Arc::new(authorizer))
            .await?;
        let session = cli.connect_options().connect(&server).await?;
        let tools = session.list_tools().await;
        let _ = session.close().await;
        let tools = tools?;
        let scopes = if login.scopes.is_empty() {
            String::new()
        } else {
            format!(" (scopes: {})", login.scopes.join(" "))
        };
        match &login.token_file {
            Some(file) => outln!(
                "logged in to \"{alias}\"{scopes}: {} tools; tokens stored in {}",
                tools.len(),
                file.display()
            ),
            None => outln!(
                "client credentials of \"{alias}\" accepted{scopes}: {} tools",
                tools.len()
            ),
        }
        Ok(ExitCode::SUCCESS)
    })
}
