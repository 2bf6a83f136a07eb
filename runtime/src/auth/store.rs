//! The token store: one file per server URL (the OAuth resource) holding the issuer that
//! minted the tokens, the client registration and the tokens, created with owner-only
//! permissions in the user's config directory, never in a project.
//!
//! Owner-only means, on Unix, mode 0600 for files and 0700 for the `tokens` directory. On
//! Windows, where there are no mode bits, the default directory is `%APPDATA%\mcp-bindgen\tokens`
//! inside the user's profile, whose access list (inherited by what is created in it) grants
//! the user, SYSTEM and administrators only; the store sets no access list of its own, so a
//! `token_store`/`MCP_BINDGEN_TOKEN_DIR` outside the profile gets that folder's access list.
//! There, refreshes are serialized within a process only (no cross-process file lock).

use std::collections::HashMap;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use rmcp::transport::auth::{
    AuthError, CredentialRefreshGuard, CredentialStore, StoredCredentials,
};
use serde::{Deserialize, Serialize};

/// The variable that overrides the token directory (tests, CI, several accounts).
pub const TOKEN_DIR_VAR: &str = "MCP_BINDGEN_TOKEN_DIR";

/// What one token file holds.
#[derive(Clone, Default, Serialize, Deserialize)]
pub(crate) struct TokenFile {
    /// The server URL these tokens are for (the OAuth resource).
    pub(crate) resource: String,
    /// The client secret of a dynamically registered client (rmcp's credentials do not
    /// keep it, and a refresh must send it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client_secret: Option<String>,
    /// The redirect URI the client was registered with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) redirect_uri: Option<String>,
    /// The client id, issuer, tokens and granted scopes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) credentials: Option<StoredCredentials>,
}

impl fmt::Debug for TokenFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenFile")
            .field("resource", &self.resource)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("redirect_uri", &self.redirect_uri)
            // rmcp's Debug redacts the token response.
            .field("credentials", &self.credentials)
            .finish()
    }
}

/// The file of one server's tokens; implements rmcp's [`CredentialStore`].
#[derive(Clone)]
pub(crate) struct TokenStore {
    path: PathBuf,
    resource: String,
    /// Held across a refresh and its save: one refresh at a time per file in this process.
    refresh: Arc<tokio::sync::Mutex<()>>,
    /// Held while a session reads the token and refreshes it if needed, so that sessions
    /// sharing the file refresh once: the next one reads the refreshed token.
    flight: Arc<tokio::sync::Mutex<()>>,
    /// The file as last read or written, with the modification time and size it had then:
    /// every request asks for the token, and a `stat` is cheaper than a parse.
    cache: Arc<Mutex<Option<(std::time::SystemTime, u64, TokenFile)>>>,
}

impl fmt::Debug for TokenStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenStore")
            .field("path", &self.path)
            .finish()
    }
}

/// The user's token directory: `$MCP_BINDGEN_TOKEN_DIR`, else
/// `$XDG_CONFIG_HOME/mcp-bindgen/tokens`, else `~/.config/mcp-bindgen/tokens`
/// (`%APPDATA%\mcp-bindgen\tokens` on Windows).
pub fn default_token_dir(lookup: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |name: &str| lookup(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = set(TOKEN_DIR_VAR) {
        return Some(dir);
    }
    let config = if cfg!(windows) {
        set("APPDATA")
    } else {
        set("XDG_CONFIG_HOME").or_else(|| set("HOME").map(|h| h.join(".config")))
    };
    config.map(|c| c.join("mcp-bindgen").join("tokens"))
}

/// A file name for a resource URL: readable host and port, then a hash of the whole URL.
pub(crate) fn file_name(resource: &str) -> String {
    let readable: String = resource
        .split("://")
        .nth(1)
        .unwrap_or(resource)
        .split('/')
        .next()
        .unwrap_or("")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    // FNV-1a: stable across builds and platforms.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in resource.as_bytes() {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{readable}-{hash:016x}.json")
}

/// One in-process lock per token file.
fn refresh_lock(path: &Path) -> Arc<tokio::sync::Mutex<()>> {
    static LOCKS: OnceLock<Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>> = OnceLock::new();
    let mut map = LOCKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    map.entry(path.to_path_buf()).or_default().clone()
}

impl TokenStore {
    /// The store of `resource`'s tokens in directory `dir`.
    pub(crate) fn new(dir: &Path, resource: &str) -> Self {
        let path = dir.join(file_name(resource));
        TokenStore {
            refresh: refresh_lock(&path),
            flight: refresh_lock(&path.with_extension("flight")),
            cache: Arc::default(),
            path,
            resource: resource.to_string(),
        }
    }

    /// Whether the stored access token still has more than `margin` to live (or no known
    /// expiry): then reading it needs no lock, as nothing will refresh it.
    pub(crate) fn fresh(&self, margin: std::time::Duration) -> bool {
        use oauth2::TokenResponse as _;
        let Ok(Some(file)) = self.read() else {
            return false;
        };
        let Some(credentials) = file.credentials else {
            return false;
        };
        let Some(token) = credentials.token_response else {
            return false;
        };
        let (Some(expires_in), Some(received)) =
            (token.expires_in(), credentials.token_received_at)
        else {
            return true;
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(u64::MAX);
        let elapsed = now.saturating_sub(received);
        expires_in.as_secs().saturating_sub(elapsed) > margin.as_secs()
    }

    /// Serializes reading-and-refreshing the token among this process's sessions.
    ///
    /// Across processes too: the guard also holds an exclusive lock (`flock`) on the file
    /// `<token file>.lock`, so two commands refreshing one login at once refresh it once
    /// (an authorization server that rotates refresh tokens would otherwise reject the
    /// second). When the lock file cannot be used, the in-process lock alone is kept.
    pub(crate) async fn flight(&self) -> Flight {
        let local = self.flight.clone().lock_owned().await;
        let lock_path = self.path.with_extension("lock");
        let file = if self.path.parent().is_some_and(Path::exists) {
            tokio::task::spawn_blocking(move || lock_file(&lock_path))
                .await
                .ok()
                .and_then(Result::ok)
        } else {
            None
        };
        Flight {
            _file: file,
            _local: local,
        }
    }

    /// The token file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The file's contents; `None` when there is no file.
    pub(crate) fn read(&self) -> Result<Option<TokenFile>, String> {
        private(&self.path)?;
        let stamp = std::fs::metadata(&self.path)
            .and_then(|m| Ok((m.modified()?, m.len())))
            .ok();
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let (Some((time, len)), Some((t, l, file))) = (stamp, cache.as_ref())
            && (time, len) == (*t, *l)
        {
            return Ok(Some(file.clone()));
        }
        match std::fs::read(&self.path) {
            Ok(bytes) => {
                // serde's message may quote the file's values (tokens): only where and what
                // kind of error it is.
                let file: TokenFile = serde_json::from_slice(&bytes).map_err(|e| {
                    let kind = match e.classify() {
                        serde_json::error::Category::Io => "unreadable",
                        serde_json::error::Category::Syntax => "not JSON",
                        serde_json::error::Category::Data => "not a token file",
                        serde_json::error::Category::Eof => "cut short",
                    };
                    format!(
                        "the token file {} is not valid ({kind} at line {}, column {}); delete it with `logout` and log in again",
                        self.path.display(),
                        e.line(),
                        e.column()
                    )
                })?;
                *cache = stamp.map(|(t, l)| (t, l, file.clone()));
                Ok(Some(file))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!(
                "cannot read the token file {}: {e}",
                self.path.display()
            )),
        }
    }

    /// Writes the file atomically (a temporary file renamed over it), readable and writable
    /// by its owner only; the directory is created owner-only too.
    pub(crate) fn write(&self, file: &TokenFile) -> Result<(), String> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        create_private_dir(dir)
            .map_err(|e| format!("cannot create the token directory {}: {e}", dir.display()))?;
        private(&self.path)?;
        let bytes = serde_json::to_vec_pretty(file).map_err(|e| e.to_string())?;
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        let result = (|| {
            let mut f = private_file(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &self.path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        // The next read parses the file again (its time may not have changed visibly).
        *self.cache.lock().unwrap_or_else(|e| e.into_inner()) = None;
        result.map_err(|e| format!("cannot write the token file {}: {e}", self.path.display()))
    }

    /// Changes the file under the refresh lock's protection of the caller.
    pub(crate) fn update(&self, f: impl FnOnce(&mut TokenFile)) -> Result<(), String> {
        let mut file = self.read()?.unwrap_or_default();
        file.resource = self.resource.clone();
        f(&mut file);
        self.write(&file)
    }

    /// Deletes the file; whether there was one.
    pub(crate) fn remove(&self) -> Result<bool, String> {
        *self.cache.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let _ = std::fs::remove_file(self.path.with_extension("lock"));
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(format!(
                "cannot delete the token file {}: {e}",
                self.path.display()
            )),
        }
    }
}

/// The locks of one read-and-refresh: released on drop (closing the file releases `flock`).
pub(crate) struct Flight {
    _file: Option<std::fs::File>,
    _local: tokio::sync::OwnedMutexGuard<()>,
}

/// Opens (creating, owner-only) and locks `path` exclusively, waiting for other processes.
#[cfg(unix)]
fn lock_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)?;
    // SAFETY: flock on a file descriptor this function owns; no memory is shared.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(file)
}

#[cfg(not(unix))]
fn lock_file(_path: &Path) -> std::io::Result<std::fs::File> {
    Err(std::io::Error::other("file locks are used on unix only"))
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    // A directory that already existed keeps its mode unless it is ours alone to set.
    let mode = std::fs::metadata(dir)?.permissions().mode();
    if mode & 0o077 != 0 && dir.file_name().is_some_and(|n| n == "tokens") {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Refuses, in words, a token file (or its directory) that is a symbolic link or that other
/// users can read or write: tokens are kept in a file of their own, for its owner alone.
/// A file or directory that does not exist yet passes.
#[cfg(unix)]
fn private(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let dir = path.parent().unwrap_or(Path::new("."));
    for (what, place, fix) in [("directory", dir, "700"), ("file", path, "600")] {
        let meta = match std::fs::symlink_metadata(place) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                return Err(format!(
                    "cannot check the token {what} {}: {e}",
                    place.display()
                ));
            }
        };
        if meta.file_type().is_symlink() {
            return Err(format!(
                "the token {what} {} is a symbolic link, which could point anywhere: refused; replace it with a real {what} (`logout`, then log in again)",
                place.display()
            ));
        }
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(format!(
                "the token {what} {} can be read or written by other users (mode {mode:o}): refused; `chmod {fix} {}`, or `logout` and log in again",
                place.display(),
                place.display()
            ));
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn private(_path: &Path) -> Result<(), String> {
    Ok(())
}

#[cfg(unix)]
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

fn store_error(message: String) -> AuthError {
    AuthError::CredentialStoreError(message)
}

#[async_trait::async_trait]
impl CredentialStore for TokenStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self
            .read()
            .map_err(store_error)?
            .and_then(|f| f.credentials))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.update(|f| f.credentials = Some(credentials))
            .map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.remove().map(|_| ()).map_err(store_error)
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        let guard = self.refresh.clone().lock_owned().await;
        Ok(Some(CredentialRefreshGuard::new(guard)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A token file (or directory) that others can read, or a symbolic link, is refused in
    /// words before it is read or written.
    #[cfg(unix)]
    #[test]
    fn a_token_file_others_can_read_or_a_link_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temporary directory");
        let tokens = dir.path().join("tokens");
        let store = TokenStore::new(&tokens, "https://mcp.example.com/mcp");
        store
            .write(&TokenFile::default())
            .expect("a private file is written");
        assert!(store.read().expect("and read").is_some());
        let set = |p: &Path, mode| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod")
        };
        set(store.path(), 0o644);
        let e = store.read().expect_err("world-readable");
        assert!(e.contains("mode 644") && e.contains("chmod 600"), "{e}");
        assert!(store.write(&TokenFile::default()).is_err());
        set(store.path(), 0o600);
        set(&tokens, 0o755);
        let e = store.read().expect_err("a readable directory");
        assert!(
            e.contains("token directory") && e.contains("chmod 700"),
            "{e}"
        );
        set(&tokens, 0o700);
        let elsewhere = dir.path().join("elsewhere.json");
        std::fs::rename(store.path(), &elsewhere).expect("move");
        std::os::unix::fs::symlink(&elsewhere, store.path()).expect("link");
        let e = store.read().expect_err("a link");
        assert!(e.contains("symbolic link"), "{e}");
    }

    /// A tampered token file is refused with where and what kind of error, never with its
    /// values (serde's own message would quote them).
    #[test]
    fn a_tampered_token_file_is_not_quoted() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let store = TokenStore::new(&dir.path().join("tokens"), "https://mcp.example.com/mcp");
        create_private_dir(store.path().parent().expect("a parent")).expect("dir");
        for tampered in [
            r#"{"resource": "x", "credentials": "sk-live-0123456789abcdef"}"#,
            r#"{"resource": ["sk-live-0123456789abcdef"]}"#,
            r#"{"resource": "x", "client_secret": 42, "note": "sk-live-0123456789abcdef"#,
            "sk-live-0123456789abcdef",
        ] {
            std::fs::write(store.path(), tampered).expect("write");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(store.path(), std::fs::Permissions::from_mode(0o600))
                    .expect("chmod");
            }
            let e = store.read().expect_err("a tampered file is refused");
            assert!(!e.contains("sk-live"), "{e}");
            assert!(e.contains("is not valid (") && e.contains("line 1"), "{e}");
        }
    }
}
