//! The demo server as replicas behind nginx, for the scale-out tests (`tests/it/balancer.rs`)
//! and the benchmark's `balancer` section (`mcp-bench balancer`).
//!
//! nginx runs as one process (`master_process off`: killing it ends it), round-robin or with
//! `ip_hash` (every request of one client address to one replica), without buffering (a
//! call's progress arrives as the server sends it), passing the client's `Host` on (the demo
//! server checks it), and logging which replica answered each request.

use std::io::{BufRead as _, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Replicas behind nginx, and nginx; every process is killed when this is dropped.
pub struct Balancer {
    /// The balancer's MCP endpoint.
    pub url: String,
    /// Each replica's own MCP endpoint.
    pub replicas: Vec<String>,
    dir: PathBuf,
    children: Vec<Child>,
}

impl Drop for Balancer {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Balancer {
    /// Starts `replicas` × `demo_server --transport http --port 0 ARGS…` and `nginx` in
    /// front of them on a free port, its files in `dir`; `affinity`: `ip_hash`.
    pub fn start(
        demo_server: &Path,
        nginx: &Path,
        dir: &Path,
        replicas: usize,
        affinity: bool,
        args: &[&str],
    ) -> Result<Balancer, String> {
        let mut balancer = Balancer {
            url: String::new(),
            replicas: Vec::new(),
            dir: dir.to_path_buf(),
            children: Vec::new(),
        };
        let mut servers = String::new();
        for _ in 0..replicas {
            let (child, url) = start_demo_http(demo_server, args)?;
            balancer.children.push(child);
            let authority = url
                .strip_prefix("http://")
                .and_then(|rest| rest.strip_suffix("/mcp"))
                .ok_or_else(|| format!("unexpected replica URL {url}"))?;
            servers.push_str(&format!("    server {authority};\n"));
            balancer.replicas.push(url);
        }
        std::fs::create_dir_all(dir.join("logs"))
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(|e| format!("no free port: {e}"))?;
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, nginx_conf(port, &servers, affinity))
            .map_err(|e| format!("cannot write {}: {e}", conf.display()))?;
        let _ = std::fs::remove_file(dir.join(UPSTREAM_LOG));
        let child = Command::new(nginx)
            .arg("-p")
            .arg(dir)
            .arg("-c")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", nginx.display()))?;
        balancer.children.push(child);
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(Ok(Some(status))) = balancer.children.last_mut().map(Child::try_wait) {
                return Err(format!("nginx exited before listening on {port}: {status}"));
            }
            if Instant::now() > deadline {
                return Err(format!("nginx does not listen on {port} after 30 s"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        balancer.url = format!("http://127.0.0.1:{port}/mcp");
        Ok(balancer)
    }

    /// The replicas that answered a request, from nginx's log of `$upstream_addr`.
    pub fn replicas_used(&self) -> std::collections::BTreeSet<String> {
        let log = std::fs::read_to_string(self.dir.join(UPSTREAM_LOG)).unwrap_or_default();
        log.lines()
            .flat_map(|l| l.split(", "))
            .filter(|a| !a.is_empty() && *a != "-")
            .map(str::to_string)
            .collect()
    }
}

/// Starts `demo_server --transport http --port 0 ARGS…` and returns it with the URL it
/// listens on (its first line of output).
pub fn start_demo_http(demo_server: &Path, args: &[&str]) -> Result<(Child, String), String> {
    let mut child = Command::new(demo_server)
        .args(["--transport", "http", "--port", "0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", demo_server.display()))?;
    let mut line = String::new();
    if let Some(stdout) = child.stdout.take() {
        BufReader::new(stdout)
            .read_line(&mut line)
            .map_err(|e| format!("the demo server said nothing: {e}"))?;
    }
    match line.trim().strip_prefix("listening on ") {
        Some(url) => Ok((child, url.to_string())),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            Err(format!(
                "unexpected first line from the demo server: {line:?}"
            ))
        }
    }
}

/// nginx's log of the replica that answered each request.
const UPSTREAM_LOG: &str = "upstreams.log";

/// The configuration: `servers` are `server HOST:PORT;` lines.
pub fn nginx_conf(port: u16, servers: &str, affinity: bool) -> String {
    let hash = if affinity { "    ip_hash;\n" } else { "" };
    format!(
        "master_process off;\ndaemon off;\nerror_log error.log warn;\npid nginx.pid;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n  log_format upstream '$upstream_addr';\n  access_log {UPSTREAM_LOG} upstream;\n\
         \x20 client_body_temp_path tmp;\n  proxy_temp_path tmp;\n  fastcgi_temp_path tmp;\n\
         \x20 uwsgi_temp_path tmp;\n  scgi_temp_path tmp;\n\
         \x20 upstream demo {{\n{hash}{servers}    keepalive 64;\n  }}\n\
         \x20 server {{\n    listen 127.0.0.1:{port};\n    location / {{\n\
         \x20     proxy_pass http://demo;\n      proxy_http_version 1.1;\n\
         \x20     proxy_set_header Connection \"\";\n      proxy_set_header Host $http_host;\n\
         \x20     proxy_buffering off;\n      proxy_read_timeout 60s;\n    }}\n  }}\n}}\n"
    )
}
