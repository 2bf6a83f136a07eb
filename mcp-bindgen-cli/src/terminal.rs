//! Everything the commands print goes through here: [`out`] (stdout) and [`err`] (stderr),
//! through the `outln!`/`out!`/`errln!`/`err!` macros.
//!
//! * **Server text cannot drive the terminal.** Every control character but line breaks and
//!   tabs is escaped (`\u{1b}`): a tool name or a result that carries an escape sequence
//!   (clear the screen, write the clipboard through OSC 52) is shown, not obeyed.
//! * **A closed stdout is not a crash.** The process keeps Rust's default of ignoring
//!   `SIGPIPE`, so that a stdio server that exits before reading its stdin is a diagnosed
//!   failure of that server, never the silent death of the command. A write to a closed
//!   stdout (`… | head`) is then an error, which is dropped here: the command finishes its
//!   work (fixtures included) and prints nothing more.

use std::io::Write;

/// Writes `text` (and a newline when `newline`) to stdout, control characters escaped.
pub(crate) fn out(text: &str, newline: bool) {
    let text = mcp_bindgen_core::text::printable(text, true);
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    if newline {
        let _ = stdout.write_all(b"\n");
    }
    let _ = stdout.flush();
}

/// Writes `text` (and a newline when `newline`) to stderr, control characters escaped.
pub(crate) fn err(text: &str, newline: bool) {
    let text = mcp_bindgen_core::text::printable(text, true);
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    if newline {
        let _ = stderr.write_all(b"\n");
    }
}

/// Writes `text` to stdout as is: only for text this program composed (colours included);
/// anything a server wrote in it must already be escaped.
pub(crate) fn out_raw(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// `println!` through [`out`].
macro_rules! outln {
    () => { $crate::terminal::out("", true) };
    ($($arg:tt)*) => { $crate::terminal::out(&format!($($arg)*), true) };
}

/// `print!` through [`out`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::terminal::out(&format!($($arg)*), false) };
}

/// `eprintln!` through [`err`].
macro_rules! errln {
    () => { $crate::terminal::err("", true) };
    ($($arg:tt)*) => { $crate::terminal::err(&format!($($arg)*), true) };
}

/// `eprint!` through [`err`].
macro_rules! err {
    ($($arg:tt)*) => { $crate::terminal::err(&format!($($arg)*), false) };
}
