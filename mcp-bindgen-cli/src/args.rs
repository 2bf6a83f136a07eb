//! A small command-line parser: `--flag`, `--option VALUE`, `--option=VALUE` and positional
//! words, in any order; `--` ends the options.

use std::collections::VecDeque;

use crate::{Error, Result};

/// One item of the command line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Arg {
    /// `--check`, `-h`; an `=VALUE` part waits for [`Parser::value`].
    Flag(String),
    /// A positional word (`-` included).
    Word(String),
}

/// Iterates over the words after the command.
pub(crate) struct Parser {
    words: VecDeque<String>,
    inline: Option<String>,
    only_words: bool,
    /// The usage text of the command, appended to every usage error.
    usage: String,
}

impl Parser {
    pub fn new(args: &[String], usage: impl Into<String>) -> Parser {
        Parser {
            words: args.iter().cloned().collect(),
            inline: None,
            only_words: false,
            usage: usage.into(),
        }
    }

    /// The next item; an error when the previous flag was given a value it does not take.
    pub fn next(&mut self) -> Result<Option<Arg>> {
        if self.inline.is_some() {
            return Err(self.error("an option that takes no value was given one (`--flag=…`)"));
        }
        let Some(word) = self.words.pop_front() else {
            return Ok(None);
        };
        if self.only_words {
            return Ok(Some(Arg::Word(word)));
        }
        if word == "--" {
            self.only_words = true;
            return self.next();
        }
        if word.starts_with("--") {
            if let Some((name, value)) = word.split_once('=') {
                self.inline = Some(value.to_string());
                return Ok(Some(Arg::Flag(name.to_string())));
            }
            return Ok(Some(Arg::Flag(word)));
        }
        if word.len() > 1 && word.starts_with('-') {
            return Ok(Some(Arg::Flag(word)));
        }
        Ok(Some(Arg::Word(word)))
    }

    /// The value of `flag`: its `=VALUE` part, else the next word.
    pub fn value(&mut self, flag: &str) -> Result<String> {
        if let Some(v) = self.inline.take() {
            return Ok(v);
        }
        match self.words.pop_front() {
            Some(v) if !v.starts_with("--") => Ok(v),
            _ => Err(self.error(&format!("{flag} needs a value"))),
        }
    }

    /// A usage error with the command's usage text.
    pub fn error(&self, message: &str) -> Error {
        Error::Usage(format!("{message}\n\n{}", self.usage))
    }

    /// The error for a flag the command does not know (or `--help`), with the command's
    /// closest options: those its usage text names, so the two cannot drift apart.
    pub fn unknown(&self, flag: &str) -> Error {
        if flag == "-h" || flag == "--help" {
            return Error::Help(self.usage.clone());
        }
        let known = options_of(&self.usage);
        let hint = mcp_bindgen_core::naming::did_you_mean(flag, known.iter().map(String::as_str));
        self.error(&format!("unknown option `{flag}`{hint}"))
    }
}

/// The `--options` a usage text names, each once.
fn options_of(usage: &str) -> Vec<String> {
    let mut found: Vec<String> = usage
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.len() > 2 && w.starts_with("--") && !w.ends_with('-'))
        .map(str::to_string)
        .collect();
    found.sort();
    found.dedup();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn flags_values_and_words_in_any_order() {
        let mut p = Parser::new(
            &words("a --config=x.toml --check b --fixtures d -- --c"),
            "u",
        );
        assert_eq!(p.next().unwrap(), Some(Arg::Word("a".into())));
        assert_eq!(p.next().unwrap(), Some(Arg::Flag("--config".into())));
        assert_eq!(p.value("--config").unwrap(), "x.toml");
        assert_eq!(p.next().unwrap(), Some(Arg::Flag("--check".into())));
        assert_eq!(p.next().unwrap(), Some(Arg::Word("b".into())));
        assert_eq!(p.next().unwrap(), Some(Arg::Flag("--fixtures".into())));
        assert_eq!(p.value("--fixtures").unwrap(), "d");
        assert_eq!(p.next().unwrap(), Some(Arg::Word("--c".into())));
        assert_eq!(p.next().unwrap(), None);
    }

    #[test]
    fn missing_and_unwanted_values_are_usage_errors() {
        let mut p = Parser::new(&words("--config"), "usage: x");
        p.next().unwrap();
        let e = p.value("--config").unwrap_err().to_string();
        assert!(
            e.contains("--config needs a value") && e.contains("usage: x"),
            "{e}"
        );
        let mut p = Parser::new(&words("--check=yes"), "u");
        p.next().unwrap();
        assert!(p.next().is_err());
        assert!(matches!(p.unknown("--help"), Error::Help(_)));
        assert!(matches!(p.unknown("--nope"), Error::Usage(_)));
    }

    #[test]
    fn unknown_options_suggest_the_closest_the_usage_names() {
        let p = Parser::new(
            &[],
            "usage: x [--check] [--allow-unreachable]\n  --fail-on LEVEL  …",
        );
        let e = p.unknown("--chek").to_string();
        assert!(
            e.contains("unknown option `--chek` (did you mean \"--check\"?)"),
            "{e}"
        );
        let e = p.unknown("--allow-unreachble").to_string();
        assert!(e.contains("did you mean \"--allow-unreachable\""), "{e}");
        let e = p.unknown("--zzzzzzzz").to_string();
        assert!(!e.contains("did you mean"), "{e}");
    }
}
