//! Child processes of the tasks: run with a deadline and output captured, described in
//! messages; and the one hash the tasks' stamps use.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Lines of output a failure quotes.
const TAIL_LINES: usize = 20;

/// What a finished command wrote.
#[derive(Debug, Default)]
pub struct Captured {
    /// Its standard output, line by line.
    pub stdout: Vec<String>,
    /// Its standard error, line by line.
    pub stderr: Vec<String>,
}

/// The command line of `cmd`, for messages.
pub fn describe(cmd: &Command) -> String {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `cmd` with no input and its output captured, killing it after `timeout`. A failure
/// says why (exit status, or the timeout) and quotes the last lines of stderr (or of stdout
/// when stderr is empty).
pub fn run(cmd: &mut Command, timeout: Duration) -> Result<Captured, String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", describe(cmd)))?;
    let (sender, receiver) = mpsc::channel::<(bool, Option<String>)>();
    let readers = [
        child
            .stdout
            .take()
            .map(|out| spawn_reader(out, false, sender.clone())),
        child
            .stderr
            .take()
            .map(|err| spawn_reader(err, true, sender.clone())),
    ];
    drop(sender);
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) if started.elapsed() >= timeout => {
                // Ignore errors: the child may have exited in between.
                let _ = child.kill();
                let _ = child.wait();
                break Err(format!("timed out after {} s (killed)", timeout.as_secs()));
            }
            Ok(None) => thread::sleep(Duration::from_millis(50)),
            Err(e) => break Err(format!("cannot wait for the child: {e}")),
        }
    };
    // Collect output; a grandchild holding the pipes open must not hang us.
    let mut captured = Captured::default();
    let mut open = readers.iter().flatten().count();
    let deadline = Instant::now() + Duration::from_secs(5);
    while open > 0 {
        let left = deadline.saturating_duration_since(Instant::now());
        match receiver.recv_timeout(left) {
            Ok((true, Some(line))) => captured.stderr.push(line),
            Ok((false, Some(line))) => captured.stdout.push(line),
            Ok((_, None)) => open -= 1,
            Err(_) => break,
        }
    }
    let failure = match status {
        Ok(status) if status.success() => return Ok(captured),
        Ok(status) => format!("exited with {status}"),
        Err(error) => error,
    };
    let (label, lines) = if captured.stderr.is_empty() {
        ("stdout", &captured.stdout)
    } else {
        ("stderr", &captured.stderr)
    };
    let mut message = format!("  {failure}; last {label} lines:");
    for line in &lines[lines.len().saturating_sub(TAIL_LINES)..] {
        message.push_str("\n    | ");
        message.push_str(line);
    }
    Err(message)
}

/// Forwards the lines of `pipe` to `sender`, then `None`.
fn spawn_reader(
    pipe: impl Read + Send + 'static,
    is_err: bool,
    sender: mpsc::Sender<(bool, Option<String>)>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        let mut reader = BufReader::new(pipe);
        let mut buffer = Vec::new();
        loop {
            buffer.clear();
            match reader.read_until(b'\n', &mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buffer).trim_end().to_owned();
                    if sender.send((is_err, Some(line))).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = sender.send((is_err, None));
    })
}

/// 64-bit FNV-1a: enough to notice an edited lock file or pin list in a stamp.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// [`run`], the error naming the command.
pub(crate) fn run_command(cmd: &mut Command, timeout: Duration) -> Result<Captured, String> {
    run(cmd, timeout).map_err(|e| format!("`{}` {}", describe(cmd), e.trim_start()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_command_is_killed_and_failure_shows_stderr() {
        let started = Instant::now();
        let error = run(Command::new("sleep").arg("30"), Duration::from_millis(300)).unwrap_err();
        assert!(error.contains("timed out"), "{error}");
        assert!(started.elapsed() < Duration::from_secs(10));
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo out; echo first >&2; echo last >&2; exit 3"]);
        let error = run(&mut cmd, Duration::from_secs(10)).unwrap_err();
        assert!(error.contains("last stderr lines"), "{error}");
        assert!(
            error.contains("| last") && !error.contains("out"),
            "{error}"
        );
    }

    #[test]
    fn success_returns_the_output() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo a; echo b >&2"]);
        let out = run(&mut cmd, Duration::from_secs(10)).expect("runs");
        assert_eq!(out.stdout, ["a"]);
        assert_eq!(out.stderr, ["b"]);
    }

    #[test]
    fn fnv1a_matches_the_reference_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
