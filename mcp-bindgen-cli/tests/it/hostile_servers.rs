//! Servers that die, flood, grow without end or echo secrets, through the commands a user
//! runs (`snapshot`, `call`): each is a diagnosed failure of that server, memory stays
//! bounded, no resolved secret reaches the output or a fixture, and server text cannot
//! drive the terminal.

use std::path::Path;

use crate::common;
use common::{HttpDemo, Run, demo_server, run_with_registry};

/// Runs `cargo-mcp-bindgen ARGS` with the registry `toml` in `dir`.
fn run(dir: &Path, toml: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    run_with_registry(dir, toml, args, env)
}

/// The demo server's registry entry under `alias`, with `extra` lines.
fn demo(alias: &str, extra: &str) -> String {
    format!(
        "[servers.{alias}]\ncommand = {:?}\n{extra}\n",
        demo_server().display().to_string()
    )
}

/// The largest resident set of any child process this test binary waited for, in bytes.
fn peak_child_rss() -> u64 {
    // SAFETY: `getrusage` fills the zeroed struct it is given; no other memory is touched.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    // Linux reports kilobytes.
    usage.ru_maxrss as u64 * 1024
}

#[test]
fn a_server_that_dies_at_start_is_a_diagnosed_failure_never_the_death_of_the_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    let toml = format!(
        "[servers.dead]\ncommand = \"false\"\n\n[servers.dies]\ncommand = \"sh\"\nargs = [\"-c\", \"echo 'fatal: no config' >&2; exit 3\"]\n\n[servers.shuts]\ncommand = \"sh\"\nargs = [\"-c\", \"exec 0<&-; sleep 0.2; exit 4\"]\n\n{}",
        demo("demo", "")
    );
    // Beside a healthy server, every run writes its fixture (a SIGPIPE used to kill 1 in 3)
    // and ends with an exit code, never a signal: 1, since three servers failed, or 0 when
    // they may (`--allow-unreachable`). `shuts` closes its stdin and exits a moment later:
    // the broken pipe is seen before the process can be reaped, and its exit status is
    // still reported (a check at that instant used to miss it now and then).
    for round in 0..4 {
        let _ = std::fs::remove_file(dir.path().join("demo.json"));
        let allow = round % 2 == 1;
        let args: &[&str] = if allow {
            &["snapshot", "--allow-unreachable"]
        } else {
            &["snapshot"]
        };
        let out = run(dir.path(), &toml, args, &[]);
        let expected = if allow { 0 } else { 1 };
        assert_eq!(out.code, Some(expected), "killed or failed: {}", out.text());
        assert!(dir.path().join("demo.json").is_file(), "{}", out.text());
        let text = out.text();
        assert!(text.contains("server \"dead\""), "{text}");
        assert!(text.contains("fatal: no config"), "the stderr tail: {text}");
        assert!(text.contains("exit status: 3"), "the exit status: {text}");
        assert!(text.contains("exit status: 1"), "the exit status: {text}");
        assert!(text.contains("exit status: 4"), "the exit status: {text}");
    }
    // Alone, it is the command's failure, with words.
    for _ in 0..5 {
        let out = run(dir.path(), &toml, &["call", "dead", "anything"], &[]);
        assert_eq!(out.code, Some(1), "{}", out.text());
        assert!(
            out.stderr.contains("server \"dead\"") && out.stderr.contains("before"),
            "{}",
            out.stderr
        );
    }
    let out = run(dir.path(), &toml, &["snapshot", "--check", "dead"], &[]);
    assert_eq!(out.code, Some(1), "{}", out.text());
}

#[test]
fn endless_output_keeps_memory_bounded_and_names_the_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let toml = "\
[servers.line]
command = \"sh\"
args = [\"-c\", \"head -c 400000000 /dev/zero\"]

[servers.stderr]
command = \"sh\"
args = [\"-c\", \"head -c 400000000 /dev/zero >&2; sleep 30\"]
connect_timeout = 3

[servers.noise]
command = \"sh\"
args = [\"-c\", \"yes 'not json' | head -n 100000; sleep 30\"]
connect_timeout = 3
";
    let line = run(dir.path(), toml, &["snapshot", "line"], &[]);
    assert_eq!(line.code, Some(1), "{}", line.text());
    assert!(
        line.stderr.contains("a stdout line larger than 16 MiB")
            && line.stderr.contains("max_message_bytes"),
        "{}",
        line.stderr
    );
    let stderr = run(dir.path(), toml, &["snapshot", "stderr"], &[]);
    assert_eq!(stderr.code, Some(1), "{}", stderr.text());
    let noise = run(dir.path(), toml, &["snapshot", "noise"], &[]);
    assert_eq!(noise.code, Some(1), "{}", noise.text());
    // 100 000 skipped lines: a few logged, the rest counted.
    let logged = noise.stderr.matches("skipping a stdout line").count();
    assert!(
        (1..=5).contains(&logged),
        "{logged} lines logged:\n{}",
        noise.stderr
    );
    assert!(
        noise
            .stderr
            .contains("lines to stdout that are not JSON-RPC"),
        "{}",
        noise.stderr
    );
    let peak = peak_child_rss();
    assert!(
        peak < 200 * 1024 * 1024,
        "a command grew to {} MB against an endless server",
        peak / (1024 * 1024)
    );
}

#[test]
fn tool_lists_past_the_limits_are_refused_with_the_setting_that_raises_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let toml = demo("many", "args = [\"--misbehave\", \"many-tools\"]")
        + &demo(
            "raised",
            "args = [\"--misbehave\", \"many-tools\"]\nmax_tools = 30000",
        )
        + &demo(
            "small",
            "args = [\"--misbehave\", \"many-tools\"]\nmax_tools = 30000\nmax_message_bytes = 65536",
        )
        + &demo(
            "listed",
            "args = [\"--misbehave\", \"many-tools\"]\nmax_tools = 30000\nmax_tools_list_bytes = 100000",
        );
    let out = run(dir.path(), &toml, &["snapshot", "many"], &[]);
    assert_eq!(out.code, Some(1), "{}", out.text());
    assert!(
        out.stderr
            .contains("more than 10000 tools (the `max_tools` limit"),
        "{}",
        out.stderr
    );
    assert!(!dir.path().join("many.json").exists());
    let out = run(dir.path(), &toml, &["snapshot", "raised"], &[]);
    assert_eq!(out.code, Some(0), "{}", out.text());
    assert!(out.stderr.contains("20000 tools"), "{}", out.stderr);
    let out = run(dir.path(), &toml, &["snapshot", "listed"], &[]);
    assert_eq!(out.code, Some(1), "{}", out.text());
    assert!(
        out.stderr
            .contains("took more than 97.7 KiB (the `max_tools_list_bytes` limit"),
        "{}",
        out.stderr
    );
    let out = run(dir.path(), &toml, &["snapshot", "small"], &[]);
    assert_eq!(out.code, Some(1), "{}", out.text());
    assert!(
        out.stderr.contains("larger than 64 KiB") && out.stderr.contains("max_message_bytes"),
        "{}",
        out.stderr
    );
}

#[test]
fn an_answer_over_the_size_limit_on_http_is_named_as_such() {
    let dir = tempfile::tempdir().expect("tempdir");
    let limits = "max_tools = 30000\nmax_message_bytes = 65536";
    // An event stream, and JSON bodies (the stateless revision), the latter behind OAuth
    // too: the limit reaches the client under the OAuth layer.
    let events = HttpDemo::start(&["--misbehave", "many-tools"]);
    let json = HttpDemo::start(&[
        "--misbehave",
        "many-tools",
        "--json-response",
        "--protocol",
        "2026-07-28",
    ]);
    let oauth = HttpDemo::start(&[
        "--misbehave",
        "many-tools",
        "--json-response",
        "--protocol",
        "2026-07-28",
        "--oauth",
        "--oauth-client",
        "bot:bot-secret-5512",
    ]);
    let toml = format!(
        "[servers.events]\nurl = \"{}\"\n{limits}\n\n\
         [servers.json]\nurl = \"{}\"\n{limits}\n\n\
         [servers.oauth]\nurl = \"{}\"\n{limits}\n\
         auth = {{ client_credentials = {{ client_id = \"bot\", client_secret = \"${{BOT_SECRET}}\" }} }}\n\n\
         [servers.listed]\nurl = \"{}\"\nmax_tools = 30000\nmax_tools_list_bytes = 100000\n",
        events.url, json.url, oauth.url, json.url
    );
    let env = [("BOT_SECRET", "bot-secret-5512")];
    for (alias, what) in [
        ("events", "an SSE event"),
        ("json", "an HTTP answer"),
        ("oauth", "an HTTP answer"),
    ] {
        let out = run(dir.path(), &toml, &["snapshot", alias], &env);
        assert_eq!(out.code, Some(1), "{alias}: {}", out.text());
        assert!(
            out.stderr.contains(&format!("{what} larger than 64 KiB"))
                && out.stderr.contains("max_message_bytes"),
            "{alias}: not \"the server closed the connection\": {}",
            out.stderr
        );
    }
    // JSON bodies are parsed before the tap sees them: the listing's size still counts.
    let out = run(dir.path(), &toml, &["snapshot", "listed"], &env);
    assert_eq!(out.code, Some(1), "{}", out.text());
    assert!(
        out.stderr.contains("the `max_tools_list_bytes` limit"),
        "{}",
        out.stderr
    );
}

#[test]
fn secrets_reach_neither_messages_nor_fixtures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let secret = "sk-live-4f9a8b7c6d5e";
    // A server that reflects its configuration into a tool: no fixture.
    let toml = demo(
        "echo",
        "args = [\"--misbehave\", \"reflect-env\"]\nenv = { MCP_DEMO_REFLECT = \"${PROBE_SECRET}\" }",
    ) + &demo(
        "plain",
        "args = [\"--misbehave\", \"reflect-env\"]\nenv = { MCP_DEMO_REFLECT = \"nothing secret\" }",
    );
    let out = run(
        dir.path(),
        &toml,
        &["snapshot", "echo", "plain"],
        &[("PROBE_SECRET", secret)],
    );
    assert_eq!(out.code, Some(1), "{}", out.text());
    assert!(!out.text().contains(secret), "{}", out.text());
    assert!(out.stderr.contains("contains a secret"), "{}", out.stderr);
    assert!(!dir.path().join("echo.json").exists());
    assert!(dir.path().join("plain.json").is_file(), "{}", out.text());
    // A server that quotes it in a JSON-RPC error.
    let toml = demo(
        "quoting",
        "args = [\"--misbehave\", \"reflect-env-error\"]\nenv = { MCP_DEMO_REFLECT = \"${PROBE_SECRET}\" }",
    );
    let out = run(
        dir.path(),
        &toml,
        &["snapshot", "quoting"],
        &[("PROBE_SECRET", secret)],
    );
    assert_eq!(out.code, Some(1), "{}", out.text());
    assert!(
        out.stderr
            .contains("the key <redacted> is not allowed here"),
        "{}",
        out.stderr
    );
    assert!(!out.text().contains(secret), "{}", out.text());
    // A key in the URL, on both HTTP transports: never in a message.
    for transport in ["streamable-http", "sse"] {
        let toml = format!(
            "[servers.remote]\ntransport = \"{transport}\"\nurl = \"http://user:pa55word@127.0.0.1:9/mcp?api_key=${{PROBE_SECRET}}&v=1\"\n"
        );
        for args in [
            &["call", "remote", "x"][..],
            &["snapshot", "--check", "remote"],
        ] {
            let out = run(dir.path(), &toml, args, &[("PROBE_SECRET", secret)]);
            assert_eq!(out.code, Some(1), "{}", out.text());
            let text = out.text();
            assert!(text.contains("remote"), "{text}");
            assert!(
                !text.contains(secret) && !text.contains("pa55word"),
                "{text}"
            );
        }
    }
}

#[test]
fn server_text_cannot_drive_the_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let toml = "[servers.evil]\ncommand = \"sh\"\nargs = [\"-c\", \"printf '\\\\033]52;c;aGk=\\\\007\\\\033[2J boom\\\\n' >&2; exit 2\"]\n";
    let out = run(dir.path(), toml, &["call", "evil", "x"], &[]);
    assert_eq!(out.code, Some(1), "{}", out.text());
    assert!(
        out.stderr.contains("boom"),
        "the stderr tail is shown: {}",
        out.stderr
    );
    assert!(
        !out.text().contains('\x1b') && !out.text().contains('\x07'),
        "{:?}",
        out.stderr
    );
    assert!(out.stderr.contains("\\u{1b}]52;c;aGk="), "{}", out.stderr);
}

/// A secret a server reflects into a tool's name, or echoes percent-encoded, JSON-escaped
/// or in base64: in no message of `snapshot` or `call`.
#[test]
fn a_reflected_secret_is_redacted_in_every_field_and_encoding() {
    let dir = tempfile::tempdir().expect("tempdir");
    let secret = "sk-live/4f9a+8b7c6d5e";
    let env = [("PROBE_SECRET", secret)];
    let named = demo(
        "named",
        "args = [\"--misbehave\", \"reflect-env-name\"]\nenv = { MCP_DEMO_REFLECT = \"${PROBE_SECRET}\" }",
    );
    // The refusal that keeps the name out of the fixture does not print it either.
    let out = run(dir.path(), &named, &["snapshot", "named"], &env);
    assert_eq!(out.code, Some(1), "{}", out.text());
    assert!(out.stderr.contains("contains a secret"), "{}", out.stderr);
    assert!(!out.text().contains(secret), "{}", out.text());
    assert!(!dir.path().join("named.json").exists());
    // Nor does `call`'s list of the server's tools.
    let out = run(dir.path(), &named, &["call", "named", "no_such_tool"], &env);
    assert_eq!(out.code, Some(1), "{}", out.text());
    assert!(out.stderr.contains("its tools:"), "{}", out.stderr);
    assert!(out.stderr.contains("key_<redacted>"), "{}", out.stderr);
    assert!(!out.text().contains(secret), "{}", out.text());
    // Echoed in three encodings in an error.
    let encoded = demo(
        "encoded",
        "args = [\"--misbehave\", \"reflect-env-encoded\"]\nenv = { MCP_DEMO_REFLECT = \"${PROBE_SECRET}\" }",
    );
    let out = run(dir.path(), &encoded, &["snapshot", "encoded"], &env);
    assert_eq!(out.code, Some(1), "{}", out.text());
    let text = out.text();
    assert!(text.contains("rejected: url="), "{text}");
    for form in [
        secret,
        "sk-live%2F4f9a%2B8b7c6d5e",
        "sk-live\\/4f9a+8b7c6d5e",
    ] {
        assert!(!text.contains(form), "{form}: {text}");
    }
    let line = text
        .lines()
        .find(|l| l.contains("rejected: url="))
        .unwrap_or_default();
    assert!(
        line.contains("url=<redacted>") && line.contains("json=\"<redacted>\""),
        "{line}"
    );
    // The base64 of `Authorization: <secret>`: what depends on the secret alone is gone.
    let base64 = line.split("base64=").nth(1).unwrap_or_default();
    assert!(base64.contains("<redacted>"), "{line}");
}
