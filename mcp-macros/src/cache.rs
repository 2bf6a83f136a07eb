//! The expansion cache: the module a `mcp_tools!` call generated, kept in the target
//! directory so that rebuilds of the calling crate (every `cargo check` after an edit)
//! do not run the generator again while nothing it reads has changed.
//!
//! An entry is valid for one key and one fixture: the key is the SHA-256 of what the
//! expansion depends on besides the fixture's content — the macro's own compiled library
//! (its path, size and modification time: any change to the generator or its dependencies
//! relinks it), the macro call's tokens (alias and options) and the fixture's path —, and
//! the file keeps a copy of the fixture's bytes, compared byte for byte (cheaper than
//! hashing them in an unoptimized proc macro). Each call site (crate, alias and options) has one file,
//! overwritten when its key changes, so the cache does not grow with fixture edits. Files are
//! written to a temporary name and renamed, so concurrent builds never read half a file.
//!
//! The cache lives in `<target>/<profile>/mcp-bindgen-expand/` next to the `deps/`
//! directory that holds the macro's library; where that library cannot be located (not a
//! Unix system, or a copy outside `deps/`) there is no cache and every expansion generates.
//! `MCP_BINDGEN_CACHE=0` in the build's environment turns it off. Only successful
//! expansions are cached: an error is generated (and reported) again each time.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The first line of a cache file, before the key.
const MAGIC: &str = "mcp-bindgen expansion cache v1 ";

/// One call site's cache file, the key its content must carry and the fixture it must
/// have been generated from.
pub(crate) struct Entry<'a> {
    path: PathBuf,
    key: String,
    fixture: &'a [u8],
}

/// What an expansion produced: the module's source text and the warnings to show.
#[derive(Debug, PartialEq)]
pub(crate) struct Expansion {
    pub(crate) code: String,
    pub(crate) warnings: Vec<String>,
}

impl<'a> Entry<'a> {
    /// The entry of a call (`call`: the macro input as text) on `fixture` (its path and
    /// bytes), or `None` when there is no cache (see the module docs).
    pub(crate) fn open(call: &str, fixture: &Path, bytes: &'a [u8]) -> Option<Entry<'a>> {
        if std::env::var_os("MCP_BINDGEN_CACHE").is_some_and(|v| v == "0") {
            return None;
        }
        let library = macro_library()?;
        let deps = library.parent()?;
        if deps.file_name()? != "deps" {
            return None;
        }
        let meta = std::fs::metadata(&library).ok()?;
        let modified = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        let generator = format!(
            "{}\n{}\n{}",
            library.display(),
            meta.len(),
            modified.as_nanos()
        );
        let dir = deps.parent()?.join("mcp-bindgen-expand");
        Some(Entry::at(&dir, &generator, call, fixture, bytes))
    }

    /// The entry in `dir` for a generator identity `generator` (see [`Entry::open`]).
    pub(crate) fn at(
        dir: &Path,
        generator: &str,
        call: &str,
        fixture: &Path,
        bytes: &'a [u8],
    ) -> Entry<'a> {
        // The file: one per crate and call site.
        let site = hex(&Sha256::new()
            .chain_update(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
            .chain_update([0])
            .chain_update(std::env::var("CARGO_CRATE_NAME").unwrap_or_default())
            .chain_update([0])
            .chain_update(call)
            .finalize());
        let key = hex(&Sha256::new()
            .chain_update(generator)
            .chain_update([0])
            .chain_update(call)
            .chain_update([0])
            .chain_update(fixture.to_string_lossy().as_bytes())
            .finalize());
        Entry {
            path: dir.join(format!("{}.rs", &site[..32])),
            key,
            fixture: bytes,
        }
    }

    /// The cached expansion, if the file exists, carries this entry's key and was
    /// generated from the same fixture bytes.
    pub(crate) fn get(&self) -> Option<Expansion> {
        let data = std::fs::read(&self.path).ok()?;
        let (header, rest) = split_line(&data)?;
        if header.strip_prefix(MAGIC.as_bytes())? != self.key.as_bytes() {
            return None;
        }
        let (length, rest) = split_line(rest)?;
        let length: usize = std::str::from_utf8(length).ok()?.parse().ok()?;
        if rest.get(..length)? != self.fixture {
            return None;
        }
        let text = std::str::from_utf8(rest.get(length..)?).ok()?;
        let (warnings, code) = text.split_once('\n')?;
        let warnings: Vec<String> = serde_json::from_str(warnings).ok()?;
        Some(Expansion {
            code: code.to_string(),
            warnings,
        })
    }

    /// Stores `expansion` under this entry's key. Best effort: a cache that cannot be
    /// written (read-only target directory, full disk) only means the next build generates.
    pub(crate) fn put(&self, expansion: &Expansion) {
        let Some(dir) = self.path.parent() else {
            return;
        };
        let Ok(warnings) = serde_json::to_string(&expansion.warnings) else {
            return;
        };
        let mut text = format!("{MAGIC}{}\n{}\n", self.key, self.fixture.len()).into_bytes();
        text.extend_from_slice(self.fixture);
        text.extend_from_slice(format!("{warnings}\n{}", expansion.code).as_bytes());
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        let written = std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&tmp, text))
            .and_then(|()| std::fs::rename(&tmp, &self.path));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// The bytes up to the first newline, and those after it.
fn split_line(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let end = data.iter().position(|&b| b == b'\n')?;
    Some((&data[..end], &data[end + 1..]))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The path of the shared library this code runs from (the proc macro, loaded by rustc).
#[cfg(unix)]
fn macro_library() -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let mut info: libc::Dl_info = libc::Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    let address = macro_library as *const libc::c_void;
    // SAFETY: `dladdr` reads no memory at `address` and only writes `info`, a valid local;
    // on success `dli_fname` is null or a NUL-terminated string owned by the dynamic
    // loader, alive while the library is loaded (we are running its code).
    let found = unsafe { libc::dladdr(address, &mut info) };
    if found == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: checked non-null above; see the previous comment.
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    let path = PathBuf::from(std::ffi::OsStr::from_bytes(name.to_bytes()));
    path.is_absolute().then_some(path)
}

#[cfg(not(unix))]
fn macro_library() -> Option<PathBuf> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expansion() -> Expansion {
        Expansion {
            code: "pub mod demo {\n    pub const A: u8 = 1;\n}\n".to_string(),
            warnings: vec!["tool \"x\": typed loosely\nsecond line".to_string()],
        }
    }

    #[test]
    fn a_stored_expansion_is_found_under_its_key_only() {
        let dir =
            std::env::temp_dir().join(format!("mcp-bindgen-macros-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let fixture = Path::new("/p/fixtures/demo.json");
        let entry = Entry::at(&dir, "gen 1", "\"demo\"", fixture, b"{}");
        assert_eq!(entry.get(), None, "nothing stored yet");
        entry.put(&expansion());
        assert_eq!(entry.get(), Some(expansion()));

        // Another fixture content, generator or call: the same file (one per call site) or
        // another, never the stored content.
        for other in [
            Entry::at(&dir, "gen 1", "\"demo\"", fixture, b"{ }"),
            Entry::at(&dir, "gen 2", "\"demo\"", fixture, b"{}"),
            Entry::at(&dir, "gen 1", "\"demo\", only = [\"a\"]", fixture, b"{}"),
            Entry::at(&dir, "gen 1", "\"demo\"", Path::new("/q/demo.json"), b"{}"),
        ] {
            assert_eq!(other.get(), None);
        }
        // A new fixture overwrites the call site's file.
        let edited = Entry::at(&dir, "gen 1", "\"demo\"", fixture, b"{ }");
        assert_eq!(edited.path, entry.path);
        edited.put(&Expansion {
            code: "pub mod demo {}".to_string(),
            warnings: Vec::new(),
        });
        assert_eq!(entry.get(), None);
        assert_eq!(
            edited.get().map(|e| e.code),
            Some("pub mod demo {}".to_string())
        );
        assert_eq!(std::fs::read_dir(&dir).map(|d| d.count()).ok(), Some(1));

        // A damaged file is a miss.
        std::fs::write(&edited.path, "mcp-bindgen expansion cache v1 x").ok();
        assert_eq!(edited.get(), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_library_is_located_in_a_test_binary_too() {
        // In a test the code runs from an executable, not a library: still a path.
        #[cfg(unix)]
        assert!(macro_library().is_some_and(|p| p.exists()));
    }
}
