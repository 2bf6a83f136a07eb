//! Examples of regex patterns (`pattern`, `patternProperties` keys): a recursive-descent
//! walk over a small subset of regex syntax.

/// One string matching `pattern` (a small subset of regex syntax), or `None` when the
/// pattern uses what this does not model (lookaround, backreferences).
pub fn regex_example(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut p = Regex { chars, at: 0 };
    let out = p.alternation()?;
    (p.at == p.chars.len()).then_some(out)
}

/// A recursive-descent walk of a regex, writing the shortest example of each piece.
struct Regex {
    chars: Vec<char>,
    at: usize,
}

impl Regex {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    /// The first alternative of `a|b|…` (each is parsed, to stay in step).
    fn alternation(&mut self) -> Option<String> {
        let first = self.sequence()?;
        while self.peek() == Some('|') {
            self.at += 1;
            self.sequence()?;
        }
        Some(first)
    }

    fn sequence(&mut self) -> Option<String> {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            let (min, _max) = self.quantifier()?;
            for _ in 0..min.min(64) {
                out.push_str(&atom);
            }
        }
        Some(out)
    }

    /// One atom's example (anchors give "").
    fn atom(&mut self) -> Option<String> {
        let c = self.peek()?;
        self.at += 1;
        match c {
            '^' | '$' => Some(String::new()),
            '.' => Some("a".into()),
            '(' => {
                if self.peek() == Some('?') {
                    self.at += 1;
                    match self.peek() {
                        Some(':') => self.at += 1,
                        // (?<name>…) named groups.
                        Some('<') if !matches!(self.chars.get(self.at + 1), Some('=' | '!')) => {
                            while self.peek().is_some_and(|c| c != '>') {
                                self.at += 1;
                            }
                            self.at += 1;
                        }
                        _ => return None,
                    }
                }
                let inner = self.alternation()?;
                (self.peek() == Some(')')).then_some(())?;
                self.at += 1;
                Some(inner)
            }
            '[' => self.class().map(String::from),
            '\\' => {
                let e = self.peek()?;
                self.at += 1;
                match e {
                    'd' => Some("0".into()),
                    'w' => Some("a".into()),
                    's' => Some(" ".into()),
                    'D' | 'W' | 'S' => Some("-".into()),
                    'b' | 'B' | 'A' | 'z' | 'Z' => Some(String::new()),
                    'n' => Some("\n".into()),
                    't' => Some("\t".into()),
                    'u' => {
                        let hex: String = self.chars.get(self.at..self.at + 4)?.iter().collect();
                        self.at += 4;
                        char::from_u32(u32::from_str_radix(&hex, 16).ok()?).map(String::from)
                    }
                    c if c.is_ascii_digit() => None,
                    c => Some(c.to_string()),
                }
            }
            c => Some(c.to_string()),
        }
    }

    /// `[…]`: a character of the class (the first one that fits).
    fn class(&mut self) -> Option<char> {
        let negated = self.peek() == Some('^');
        if negated {
            self.at += 1;
        }
        let mut members: Vec<(char, char)> = Vec::new();
        let mut first = true;
        loop {
            let c = self.peek()?;
            if c == ']' && !first {
                self.at += 1;
                break;
            }
            first = false;
            self.at += 1;
            let lo = if c == '\\' {
                let e = self.peek()?;
                self.at += 1;
                match e {
                    'd' => {
                        members.push(('0', '9'));
                        continue;
                    }
                    'w' => {
                        members.extend([('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')]);
                        continue;
                    }
                    's' => {
                        members.push((' ', ' '));
                        continue;
                    }
                    'n' => '\n',
                    't' => '\t',
                    e => e,
                }
            } else {
                c
            };
            if self.peek() == Some('-') && self.chars.get(self.at + 1).is_some_and(|c| *c != ']') {
                self.at += 1;
                let mut hi = self.peek()?;
                self.at += 1;
                if hi == '\\' {
                    hi = self.peek()?;
                    self.at += 1;
                }
                members.push((lo, hi));
            } else {
                members.push((lo, lo));
            }
        }
        if negated {
            return ['a', 'x', '0', '_', 'Q']
                .into_iter()
                .find(|c| !members.iter().any(|(lo, hi)| lo <= c && c <= hi));
        }
        // Prefer a letter or digit inside the class.
        members
            .iter()
            .find_map(|(lo, hi)| ['a', 'A', '0'].into_iter().find(|c| lo <= c && c <= hi))
            .or_else(|| members.first().map(|(lo, _)| *lo))
    }

    /// `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}` (and a lazy `?` after them): (min, max).
    fn quantifier(&mut self) -> Option<(usize, Option<usize>)> {
        let q = match self.peek() {
            Some('?') => (0, Some(1)),
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('{') => {
                let close = self.chars[self.at..].iter().position(|c| *c == '}')?;
                let body: String = self.chars[self.at + 1..self.at + close].iter().collect();
                let (min, max) = match body.split_once(',') {
                    None => {
                        let n = body.trim().parse().ok()?;
                        (n, Some(n))
                    }
                    Some((a, b)) => (
                        a.trim().parse().ok()?,
                        if b.trim().is_empty() {
                            None
                        } else {
                            Some(b.trim().parse().ok()?)
                        },
                    ),
                };
                self.at += close;
                (min, max)
            }
            _ => return Some((1, Some(1))),
        };
        self.at += 1;
        if matches!(self.peek(), Some('?' | '+')) {
            self.at += 1;
        }
        Some(q)
    }
}
