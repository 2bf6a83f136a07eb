//! `cargo xtask modules [CRATE_DIR]…`: the module graph of a crate's `src/` — its files
//! grouped into rooms (a folder directly under `src/` with everything in it, or a file
//! directly under `src/`), the imports between rooms, the rooms that import each other,
//! and every circle of imports between files.
//!
//! Read from the source text: a `crate::`, `super::` or `self::` path anywhere in a line of
//! code, and a `use` of a child module by its bare name, resolved to the file that defines
//! the longest matching module path. Test code (`#[cfg(test)]` modules, inline or as files)
//! is left out. An import between a module and one of its ancestors (a child using its
//! parent's items, a parent re-exporting its child's) is how Rust nests modules, and is not
//! counted as a circle; it is counted as an import.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One source file: its lines of non-test code and the module paths its code names.
struct File {
    lines: usize,
    uses: Vec<Vec<String>>,
}

/// The module graph of one crate.
pub struct Graph {
    /// Module path → file (relative to `src/`).
    files: BTreeMap<Vec<String>, (PathBuf, File)>,
    /// A top folder whose files and folders are rooms of their own (`--inside`).
    inside: Option<String>,
}

/// `cargo xtask modules [--inside FOLDER] [CRATE_DIR]…`: prints the graph of each crate
/// directory given (the runtime by default); `--inside session` splits the `session/` room
/// into its files and folders. Fails when files import each other in a circle.
pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let mut inside = None;
    let mut dirs = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--inside" {
            let folder = args
                .next()
                .ok_or("--inside needs a folder of src/, e.g. `session`")?;
            inside = Some(folder.trim_end_matches('/').to_string());
        } else {
            dirs.push(PathBuf::from(arg));
        }
    }
    if dirs.is_empty() {
        dirs.push(root.join("runtime"));
    }
    let mut circles = 0;
    for dir in dirs {
        let mut graph = Graph::read(&dir.join("src"))?;
        graph.inside = inside.clone();
        print!("{}", graph.report(&dir.display().to_string()));
        circles += graph.file_circles().len();
    }
    if circles > 0 {
        return Err(format!("{circles} circle(s) between files"));
    }
    Ok(())
}

impl Graph {
    /// Reads every non-test `.rs` file under `src`.
    pub fn read(src: &Path) -> Result<Graph, String> {
        let mut files = BTreeMap::new();
        let mut test_modules = BTreeSet::new();
        let mut paths = Vec::new();
        collect(src, &mut paths)?;
        paths.sort();
        for path in &paths {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let relative = path.strip_prefix(src).unwrap_or(path).to_path_buf();
            let module = module_of(&relative);
            let (file, tests) = parse(&module, &text);
            test_modules.extend(tests);
            files.insert(module, (relative, file));
        }
        files.retain(|module, _| !test_modules.iter().any(|t| module.starts_with(t)));
        Ok(Graph {
            files,
            inside: None,
        })
    }

    /// The room of a module's file: its top folder under `src/`, or the file itself
    /// directly under `src/`.
    fn room(&self, module: &[String]) -> String {
        let Some((path, _)) = self.files.get(module) else {
            return String::new();
        };
        let mut parts = path.iter().map(|p| p.to_string_lossy());
        match (parts.next(), parts.next(), parts.next()) {
            (Some(dir), Some(inner), rest) if self.inside.as_deref() == Some(&*dir) => match rest {
                Some(_) => format!("{dir}/{inner}/"),
                None => format!("{dir}/{inner}"),
            },
            (Some(dir), Some(_), _) => format!("{dir}/"),
            _ => path.display().to_string(),
        }
    }

    /// The file (module path) that defines the longest prefix of `path`.
    fn resolve(&self, path: &[String]) -> Option<&Vec<String>> {
        (0..=path.len())
            .rev()
            .find_map(|n| self.files.get_key_value(&path[..n]).map(|(k, _)| k))
    }

    /// Every import between two different files: (from, to) module paths with a count.
    fn file_edges(&self) -> BTreeMap<(Vec<String>, Vec<String>), usize> {
        let mut edges = BTreeMap::new();
        for (module, (_, file)) in &self.files {
            for used in &file.uses {
                if let Some(target) = self.resolve(used)
                    && target != module
                {
                    *edges.entry((module.clone(), target.clone())).or_insert(0) += 1;
                }
            }
        }
        edges
    }

    /// Imports between rooms, with counts.
    fn room_edges(&self) -> BTreeMap<(String, String), usize> {
        let mut edges = BTreeMap::new();
        for ((from, to), n) in self.file_edges() {
            if nested(&from, &to) {
                continue;
            }
            let (a, b) = (self.room(&from), self.room(&to));
            if a != b {
                *edges.entry((a, b)).or_insert(0) += n;
            }
        }
        edges
    }

    /// Groups of rooms that import each other (directly or around).
    pub fn room_circles(&self) -> Vec<Vec<String>> {
        let edges: BTreeSet<(String, String)> = self.room_edges().into_keys().collect();
        circles(&edges)
    }

    /// Groups of files that import each other in a circle (ancestor imports left out).
    pub fn file_circles(&self) -> Vec<Vec<String>> {
        let edges: BTreeSet<(String, String)> = self
            .file_edges()
            .into_keys()
            .filter(|(a, b)| !nested(a, b))
            .map(|(a, b)| (self.file_name(&a), self.file_name(&b)))
            .collect();
        circles(&edges)
    }

    fn file_name(&self, module: &[String]) -> String {
        self.files
            .get(module)
            .map(|(p, _)| p.display().to_string())
            .unwrap_or_default()
    }

    /// The graph in words.
    pub fn report(&self, name: &str) -> String {
        let mut rooms: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for (module, (_, file)) in &self.files {
            let room = rooms.entry(self.room(module)).or_default();
            room.0 += 1;
            room.1 += file.lines;
        }
        let edges = self.room_edges();
        let room_circles = self.room_circles();
        let file_circles = self.file_circles();
        let mut out = format!(
            "{name}/src: {} files in {} rooms, {} imports between rooms, {} group(s) of rooms importing each other, {} circle(s) between files\n",
            self.files.len(),
            rooms.len(),
            edges.len(),
            room_circles.len(),
            file_circles.len()
        );
        for (room, (files, lines)) in &rooms {
            let to: Vec<String> = edges
                .iter()
                .filter(|((from, _), _)| from == room)
                .map(|((_, to), n)| format!("{to} {n}"))
                .collect();
            out.push_str(&format!(
                "  {room:<22} {files:>2} files {lines:>6} lines  -> {}\n",
                if to.is_empty() {
                    "-".to_string()
                } else {
                    to.join(", ")
                }
            ));
        }
        for circle in room_circles {
            out.push_str(&format!(
                "  rooms importing each other: {}\n",
                circle.join(" <-> ")
            ));
        }
        for circle in file_circles {
            out.push_str(&format!(
                "  circle between files: {}\n",
                circle.join(" <-> ")
            ));
        }
        out
    }
}

/// Whether one module is an ancestor of the other (or the same).
fn nested(a: &[String], b: &[String]) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// `session/native/call.rs` → `[session, native, call]`; `lib.rs` → `[]`; `x/mod.rs` → `[x]`.
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" && !(parts.is_empty() && (stem == "lib" || stem == "main")) {
            parts.push(stem.to_string());
        }
    }
    parts
}

/// The module paths a file's code names, and the test modules it declares.
fn parse(module: &[String], text: &str) -> (File, Vec<Vec<String>>) {
    let mut uses = Vec::new();
    let mut tests = Vec::new();
    let mut children = BTreeSet::new();
    let mut cfg_test = false;
    // Depth of the braces, and the depth at which a skipped test module started.
    let (mut depth, mut skip_from): (i64, Option<i64>) = (0, None);
    let mut lines = 0;
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("").trim();
        let opens = code.matches('{').count() as i64 - code.matches('}').count() as i64;
        if let Some(start) = skip_from {
            depth += opens;
            if depth <= start {
                skip_from = None;
            }
            continue;
        }
        lines += 1;
        if code.starts_with("#[cfg(test)]") {
            cfg_test = true;
            depth += opens;
            continue;
        }
        if let Some(name) = mod_declaration(code) {
            let mut path = module.to_vec();
            path.push(name.trim_end_matches([';', ' ', '{']).to_string());
            if cfg_test {
                if code.ends_with('{') {
                    skip_from = Some(depth);
                } else {
                    tests.push(path);
                }
            } else {
                children.insert(path[path.len() - 1].clone());
            }
        }
        cfg_test = false;
        depth += opens;
        uses.extend(paths_in(module, code, &children));
    }
    (File { lines, uses }, tests)
}

/// The module a `mod NAME;` or `mod NAME {` line declares.
fn mod_declaration(code: &str) -> Option<&str> {
    let rest = code
        .strip_prefix("pub ")
        .or_else(|| {
            code.strip_prefix("pub(")
                .and_then(|r| r.split_once(") ").map(|(_, r)| r))
        })
        .unwrap_or(code);
    rest.strip_prefix("mod ")
        .map(|r| r.split([';', ' ', '{']).next().unwrap_or(""))
        .filter(|name| !name.is_empty())
}

/// The module paths in one line of code: `crate::a::b`, `super::x`, `self::x`, and in a
/// `use`, a child module named bare (`use native::Wire`).
fn paths_in(module: &[String], code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = code.is_char_boundary(i)
            && (i == 0
                || !(bytes[i - 1].is_ascii_alphanumeric()
                    || bytes[i - 1] == b'_'
                    || bytes[i - 1] == b':'));
        if !starts_word {
            i += 1;
            continue;
        }
        let rest = &code[i..];
        let (base, after) = if let Some(r) = rest.strip_prefix("crate::") {
            (Vec::new(), r)
        } else if rest.starts_with("super::") {
            let mut base = module.to_vec();
            let mut r = rest;
            while let Some(next) = r.strip_prefix("super::") {
                base.pop();
                r = next;
            }
            (base, r)
        } else if let Some(r) = rest.strip_prefix("self::") {
            (module.to_vec(), r)
        } else {
            i += 1;
            continue;
        };
        expand(base, after, &mut found);
        i += rest.len() - after.len();
    }
    if let Some(used) = code
        .strip_prefix("use ")
        .or_else(|| code.strip_prefix("pub use "))
        .or_else(|| code.split_once(") use ").map(|(_, r)| r))
        && segments(used).first().is_some_and(|s| children.contains(s))
    {
        expand(module.to_vec(), used, &mut found);
    }
    found
}

/// The paths `base::text` names: `a::b::C`, or each item of a `a::{b::C, d}` group.
fn expand(base: Vec<String>, text: &str, found: &mut Vec<Vec<String>>) {
    let mut path = base;
    let leading = segments(text);
    let consumed: usize = leading.iter().map(|s| s.len() + 2).sum();
    path.extend(leading);
    let rest = text.get(consumed..).unwrap_or("");
    let Some(group) = rest.strip_prefix('{') else {
        found.push(path);
        return;
    };
    // The group's items, split at its top-level commas, up to its closing brace.
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                expand(path.clone(), group[start..i].trim(), found);
                return;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand(path.clone(), group[start..i].trim(), found);
                start = i + 1;
            }
            _ => {}
        }
    }
    // The group goes on past this line: what it names so far.
    if !group[start..].trim().is_empty() {
        expand(path.clone(), group[start..].trim(), found);
    }
    found.push(path);
}

/// The leading `a::b::c` segments of a path (stops at `{`, `*`, a type's capital letter
/// is kept: resolution takes the longest module prefix).
fn segments(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in text.split("::") {
        let name: String = part
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            break;
        }
        let whole = name.len() == part.len();
        out.push(name);
        if !whole {
            break;
        }
    }
    out
}

/// Strongly connected groups of two or more nodes (Tarjan), each sorted, in sorted order.
fn circles(edges: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    let index_of: BTreeMap<&String, usize> =
        nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let names: Vec<&String> = nodes.into_iter().collect();
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    for (a, b) in edges {
        next[index_of[a]].push(index_of[b]);
    }
    struct State {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        groups: Vec<Vec<usize>>,
    }
    fn visit(v: usize, next: &[Vec<usize>], s: &mut State) {
        s.index[v] = Some(s.counter);
        s.low[v] = s.counter;
        s.counter += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &next[v] {
            match s.index[w] {
                None => {
                    visit(w, next, s);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                group.push(w);
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                s.groups.push(group);
            }
        }
    }
    let n = names.len();
    let mut s = State {
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        counter: 0,
        groups: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(v, &next, &mut s);
        }
    }
    let mut out: Vec<Vec<String>> = s
        .groups
        .into_iter()
        .map(|g| {
            let mut g: Vec<String> = g.into_iter().map(|i| names[i].clone()).collect();
            g.sort();
            g
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn paths_resolve_relative_to_the_file() {
        let module = strings(&["session", "native", "call"]);
        let children = BTreeSet::new();
        let found = paths_in(
            &module,
            "use super::{Session, conn::Conn}; let x = crate::protocol::Round::default();",
            &children,
        );
        assert_eq!(
            found,
            vec![
                strings(&["session", "native", "Session"]),
                strings(&["session", "native", "conn", "Conn"]),
                strings(&["protocol", "Round", "default"]),
            ]
        );
        let children: BTreeSet<String> = ["native".to_string()].into();
        let found = paths_in(&strings(&["session"]), "use native::Wire;", &children);
        assert_eq!(found, vec![strings(&["session", "native", "Wire"])]);
    }

    #[test]
    fn a_circle_is_found_and_a_chain_is_not() {
        let edge = |a: &str, b: &str| (a.to_string(), b.to_string());
        let chain: BTreeSet<_> = [edge("a", "b"), edge("b", "c")].into();
        assert!(circles(&chain).is_empty());
        let circle: BTreeSet<_> = [
            edge("a", "b"),
            edge("b", "c"),
            edge("c", "a"),
            edge("c", "d"),
        ]
        .into();
        assert_eq!(circles(&circle), vec![strings(&["a", "b", "c"])]);
    }

    /// No two files of the runtime import each other, directly or around.
    #[test]
    fn the_runtime_has_no_circle() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/src");
        let graph = Graph::read(&src).expect("the runtime's source reads");
        assert!(graph.files.len() > 50, "read {} files", graph.files.len());
        assert_eq!(graph.file_circles(), Vec::<Vec<String>>::new());
        assert!(graph.report("runtime").contains("session/"));
        let graph = Graph {
            inside: Some("session".into()),
            ..graph
        };
        let report = graph.report("runtime");
        assert!(report.contains("session/native/"), "{report}");
        // The wire-independent part of the session builds no transport.
        let common = report
            .lines()
            .filter(|l| l.trim_start().starts_with("session/") && !l.contains("session/native/ "))
            .filter(|l| !l.trim_start().starts_with("session/native/"));
        for line in common {
            assert!(!line.contains("transport/"), "{line}");
        }
    }
}
