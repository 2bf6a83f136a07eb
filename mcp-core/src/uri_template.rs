//! URI templates (RFC 6570), the `uriTemplate` of an MCP resource template: parsed once
//! (the generator checks every template of a fixture at build time) and expanded with string
//! values (what a generated `uri()` method and `Session::read_template` do at run time).
//!
//! Every operator of levels 1–3 is supported (`{x}`, `{+x}`, `{#x}`, `{.x}`, `{/x}`,
//! `{;x}`, `{?x,y}`, `{&x}`), and level 4's prefix modifier (`{x:3}`). Values are strings:
//! the explode modifier (`{x*}`), which only changes how lists and maps expand, is refused
//! at parse time rather than expanded as if it meant nothing.

use std::fmt;

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expression(Operator, Vec<Variable>),
}

/// A variable of a template expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// Its name, as written in the template.
    pub name: String,
    /// The expression's operator.
    pub operator: Operator,
    /// Level 4's prefix modifier: only the first `N` characters of the value are used.
    pub prefix: Option<usize>,
}

impl Variable {
    /// Whether a URI without this variable still reads as the template means it: variables
    /// of the query-like operators (`?`, `&`, `;`) are left out with their name; a missing
    /// path segment or host part would change what the URI names.
    pub fn optional(&self) -> bool {
        matches!(
            self.operator,
            Operator::Query | Operator::QueryContinuation | Operator::PathParameter
        )
    }
}

/// The operator of a template expression (RFC 6570 section 2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Operator {
    /// `{x}`: simple string expansion.
    Simple,
    /// `{+x}`: reserved characters kept.
    Reserved,
    /// `{#x}`: a fragment.
    Fragment,
    /// `{.x}`: a label with a dot prefix.
    Label,
    /// `{/x}`: path segments.
    Path,
    /// `{;x}`: path-style parameters.
    PathParameter,
    /// `{?x}`: a query.
    Query,
    /// `{&x}`: a query continued.
    QueryContinuation,
}

impl Operator {
    /// (first, separator, named, if empty, reserved characters allowed).
    fn rules(self) -> (&'static str, &'static str, bool, &'static str, bool) {
        match self {
            Operator::Simple => ("", ",", false, "", false),
            Operator::Reserved => ("", ",", false, "", true),
            Operator::Fragment => ("#", ",", false, "", true),
            Operator::Label => (".", ".", false, "", false),
            Operator::Path => ("/", "/", false, "", false),
            Operator::PathParameter => (";", ";", true, "", false),
            Operator::Query => ("?", "&", true, "=", false),
            Operator::QueryContinuation => ("&", "&", true, "=", false),
        }
    }
}

/// Why a template cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset of the offending expression in the template.
    pub at: usize,
    /// What is wrong, in words.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.at, self.message)
    }
}

impl std::error::Error for ParseError {}

impl UriTemplate {
    /// Parses `template`.
    pub fn parse(template: &str) -> Result<Self, ParseError> {
        let mut parts = Vec::new();
        let mut rest = template;
        let mut offset = 0;
        while !rest.is_empty() {
            match rest.find(['{', '}']) {
                None => {
                    parts.push(Part::Literal(rest.to_string()));
                    break;
                }
                Some(i) if rest.as_bytes()[i] == b'}' => {
                    return Err(ParseError {
                        at: offset + i,
                        message: "a `}` without its `{`".to_string(),
                    });
                }
                Some(i) => {
                    if i > 0 {
                        parts.push(Part::Literal(rest[..i].to_string()));
                    }
                    let Some(len) = rest[i..].find('}') else {
                        return Err(ParseError {
                            at: offset + i,
                            message: "an expression without its closing `}`".to_string(),
                        });
                    };
                    let body = &rest[i + 1..i + len];
                    let at = offset + i;
                    parts.push(expression(body).map_err(|message| ParseError { at, message })?);
                    rest = &rest[i + len + 1..];
                    offset += i + len + 1;
                }
            }
        }
        Ok(UriTemplate {
            source: template.to_string(),
            parts,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variables, in template order (a name used twice is listed once).
    pub fn variables(&self) -> Vec<&Variable> {
        let mut out: Vec<&Variable> = Vec::new();
        for part in &self.parts {
            if let Part::Expression(_, vars) = part {
                for var in vars {
                    if !out.iter().any(|v| v.name == var.name) {
                        out.push(var);
                    }
                }
            }
        }
        out
    }

    /// Expands the template; `value` gives each variable's value (`None`: undefined, left
    /// out as RFC 6570 says).
    pub fn expand<'v>(&self, value: impl Fn(&str) -> Option<&'v str>) -> String {
        let mut out = String::with_capacity(self.source.len() + 16);
        for part in &self.parts {
            match part {
                Part::Literal(text) => encode(&mut out, text, true),
                Part::Expression(op, vars) => {
                    let (first, sep, named, if_empty, reserved) = op.rules();
                    let mut started = false;
                    for var in vars {
                        let Some(v) = value(&var.name) else {
                            continue;
                        };
                        out.push_str(if started { sep } else { first });
                        started = true;
                        let v = match var.prefix {
                            Some(n) => v.char_indices().nth(n).map_or(v, |(i, _)| &v[..i]),
                            None => v,
                        };
                        if named {
                            out.push_str(&var.name);
                            if v.is_empty() {
                                out.push_str(if_empty);
                                continue;
                            }
                            out.push('=');
                        }
                        encode(&mut out, v, reserved);
                    }
                }
            }
        }
        out
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// One `{…}` expression's body.
fn expression(body: &str) -> Result<Part, String> {
    let (op, list) = match body.chars().next() {
        Some('+') => (Operator::Reserved, &body[1..]),
        Some('#') => (Operator::Fragment, &body[1..]),
        Some('.') => (Operator::Label, &body[1..]),
        Some('/') => (Operator::Path, &body[1..]),
        Some(';') => (Operator::PathParameter, &body[1..]),
        Some('?') => (Operator::Query, &body[1..]),
        Some('&') => (Operator::QueryContinuation, &body[1..]),
        Some(c @ ('=' | ',' | '!' | '@' | '|')) => {
            return Err(format!(
                "the operator `{c}` is reserved for future extensions of RFC 6570"
            ));
        }
        Some(_) => (Operator::Simple, body),
        None => return Err("an empty expression `{}`".to_string()),
    };
    let mut vars = Vec::new();
    for spec in list.split(',') {
        if spec.ends_with('*') {
            return Err(format!(
                "`{spec}`: the explode modifier applies to lists and maps; resource template values are strings"
            ));
        }
        let (name, prefix) = match spec.split_once(':') {
            Some((name, n)) => {
                let n: usize = n
                    .parse()
                    .ok()
                    .filter(|n| (1..10_000).contains(n))
                    .ok_or_else(|| format!("`{spec}`: a prefix length is 1 to 9999"))?;
                (name, Some(n))
            }
            None => (spec, None),
        };
        if !valid_name(name) {
            return Err(format!(
                "`{spec}` is not a variable name (letters, digits, `_`, percent-encoded bytes, dots between them)"
            ));
        }
        vars.push(Variable {
            name: name.to_string(),
            operator: op,
            prefix,
        });
    }
    Ok(Part::Expression(op, vars))
}

/// RFC 6570 `varname`: `varchar *( ["."] varchar )`, a varchar being ALPHA, DIGIT, `_` or a
/// percent-encoded byte.
fn valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes[0] == b'.' || bytes[bytes.len() - 1] == b'.' {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' => i += 1,
            b'.' if bytes[i - 1] != b'.' => i += 1,
            b'%' if bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit) =>
            {
                i += 3
            }
            _ => return false,
        }
    }
    true
}

/// Appends `text`, percent-encoding every byte that is not unreserved (and, when `reserved`,
/// not a reserved character or an existing percent-encoded triplet).
fn encode(out: &mut String, text: &str, reserved: bool) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let keep = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~')
            || (reserved && b":/?#[]@!$&'()*+,;=".contains(&b));
        if keep {
            out.push(b as char);
        } else if reserved
            && b == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            out.push_str(&text[i..i + 3]);
            i += 3;
            continue;
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values of RFC 6570's examples (section 3.2.1) that are strings.
    fn rfc(name: &str) -> Option<&'static str> {
        match name {
            "var" => Some("value"),
            "hello" => Some("Hello World!"),
            "path" => Some("/foo/bar"),
            "empty" => Some(""),
            "x" => Some("1024"),
            "y" => Some("768"),
            "base" => Some("http://example.com/home/"),
            _ => None,
        }
    }

    fn expand(template: &str) -> String {
        UriTemplate::parse(template)
            .unwrap_or_else(|e| panic!("{template}: {e}"))
            .expand(rfc)
    }

    #[test]
    fn the_rfc_examples_of_levels_1_to_4_expand_as_written() {
        let cases = [
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{+var}", "value"),
            ("{+hello}", "Hello%20World!"),
            ("{+path}/here", "/foo/bar/here"),
            ("here?ref={+path}", "here?ref=/foo/bar"),
            ("X{#var}", "X#value"),
            ("X{#hello}", "X#Hello%20World!"),
            ("map?{x,y}", "map?1024,768"),
            ("{x,hello,y}", "1024,Hello%20World%21,768"),
            ("{+x,hello,y}", "1024,Hello%20World!,768"),
            ("{+path,x}/here", "/foo/bar,1024/here"),
            ("{#x,hello,y}", "#1024,Hello%20World!,768"),
            ("{#path,x}/here", "#/foo/bar,1024/here"),
            ("X{.var}", "X.value"),
            ("X{.x,y}", "X.1024.768"),
            ("{/var}", "/value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{;x,y}", ";x=1024;y=768"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{?x,y}", "?x=1024&y=768"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{&x,y,empty}", "&x=1024&y=768&empty="),
            ("{var:3}", "val"),
            ("{var:30}", "value"),
            ("{+path:6}/here", "/foo/b/here"),
            ("{#path:6}/here", "#/foo/b/here"),
            ("X{.var:3}", "X.val"),
            ("{/var:1,var}", "/v/value"),
            ("{;hello:5}", ";hello=Hello"),
            ("{?var:3}", "?var=val"),
            ("{&var:3}", "&var=val"),
            // Undefined variables are left out, with their operator when all are.
            ("{?undef}", ""),
            ("{?x,undef,y}", "?x=1024&y=768"),
            ("a{/undef}b", "ab"),
            ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
            ("{+base}index", "http://example.com/home/index"),
        ];
        for (template, expected) in cases {
            assert_eq!(expand(template), expected, "{template}");
        }
    }

    #[test]
    fn prefixes_count_characters_not_bytes() {
        let t = UriTemplate::parse("{v:2}").unwrap();
        assert_eq!(t.expand(|_| Some("éàü")), "%C3%A9%C3%A0");
    }

    #[test]
    fn variables_are_listed_once_in_order_with_what_makes_them_optional() {
        let t = UriTemplate::parse("github://repos/{owner}/{repo}/issues{/number}{?state,owner}")
            .unwrap();
        let vars: Vec<(&str, bool)> = t
            .variables()
            .iter()
            .map(|v| (v.name.as_str(), v.optional()))
            .collect();
        assert_eq!(
            vars,
            [
                ("owner", false),
                ("repo", false),
                ("number", false),
                ("state", true)
            ]
        );
        assert_eq!(
            t.expand(|n| (n != "state").then_some("a b")),
            "github://repos/a%20b/a%20b/issues/a%20b?owner=a%20b"
        );
    }

    #[test]
    fn what_cannot_be_expanded_is_an_error_with_its_place() {
        let cases = [
            ("a{b", 1, "without its closing"),
            ("a}b", 1, "without its `{`"),
            ("{}", 0, "an empty expression"),
            ("x{=y}", 1, "reserved for future extensions"),
            ("{list*}", 0, "explode modifier"),
            ("{v:0}", 0, "1 to 9999"),
            ("{v:x}", 0, "1 to 9999"),
            ("{a b}", 0, "not a variable name"),
            ("{a..b}", 0, "not a variable name"),
            ("{a,}", 0, "not a variable name"),
        ];
        for (template, at, words) in cases {
            let e = UriTemplate::parse(template).expect_err(template);
            assert_eq!(e.at, at, "{template}: {e}");
            assert!(e.message.contains(words), "{template}: {e}");
        }
        assert!(UriTemplate::parse("{a%20b.c_1}").is_ok());
    }

    #[test]
    fn literals_keep_reserved_characters_and_encode_the_rest() {
        let t = UriTemplate::parse("file:///a b/{x}?q=1#f").unwrap();
        assert_eq!(t.expand(|_| Some("y")), "file:///a%20b/y?q=1#f");
        assert_eq!(t.to_string(), "file:///a b/{x}?q=1#f");
    }
}
