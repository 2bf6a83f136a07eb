//! [`Root`]: a directory or file the client offers a server (the `roots` setting).

/// A root the client offers the server: a directory or file (a `file://` URI) it may work in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[non_exhaustive]
pub struct Root {
    /// The root's URI (`file:///home/me/project`).
    pub uri: String,
    /// A name for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Root {
    /// The root `uri` without a name.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: None,
        }
    }

    /// The `file://` URI of `path` (made absolute against the current directory).
    pub fn directory(path: impl AsRef<std::path::Path>) -> Self {
        Self::new(file_uri(path.as_ref()))
    }

    /// Sets [`Root::name`].
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// `path` with `.` segments dropped and each `..` taking back the segment before it (as
/// written: no link is followed), so that `a/./b/../c` is `a/c`.
pub(crate) fn normalize(path: &std::path::Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `file://` + the absolute path, normalized ([`normalize`]), with the characters a URI
/// path cannot hold escaped.
fn file_uri(path: &std::path::Path) -> String {
    let absolute = normalize(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
    let text = absolute.to_string_lossy().replace('\\', "/");
    let mut out = String::from("file://");
    if !text.starts_with('/') {
        out.push('/');
    }
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' | b':' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_an_escaped_file_uri() {
        assert_eq!(
            file_uri(std::path::Path::new("/tmp/a b")),
            "file:///tmp/a%20b"
        );
        assert_eq!(Root::directory("/srv").uri, "file:///srv");
        assert_eq!(Root::directory("/srv/./a/../b/").uri, "file:///srv/b");
        assert_eq!(
            normalize(std::path::Path::new("a/../../b")),
            std::path::Path::new("../b")
        );
    }
}
