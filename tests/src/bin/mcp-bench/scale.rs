//! `mcp-bench balancer --server PATH --nginx PATH --dir DIR [--replicas N] [--inflight N]
//! [--calls N] [--rounds N]`: the `balancer` section of `cargo xtask bench`.
//!
//! The demo server as N replicas (default 3) behind nginx, round-robin, no affinity
//! (`mcp_bindgen_tests::balancer`), and the typed client of the demo server over Streamable
//! HTTP on the stateless 2026-07-28 revision: small calls with `inflight` outstanding
//! through the balancer, and the same against one replica directly, rounds interleaved.
//! Prints calls per second of each round as JSON.

use std::path::Path;
use std::time::Duration;

use mcp_bindgen::{Protocol, ServerConfig};
use mcp_bindgen_tests::balancer::Balancer;
use serde_json::{Value, json};

use crate::Res;
use crate::contenders::Typed;

struct Args {
    server: String,
    nginx: String,
    dir: String,
    replicas: usize,
    inflight: usize,
    calls: usize,
    rounds: usize,
}

fn parse(args: &[String]) -> Res<Args> {
    let mut out = Args {
        server: String::new(),
        nginx: String::new(),
        dir: String::new(),
        replicas: 3,
        inflight: 64,
        calls: 2048,
        rounds: 7,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it
            .next()
            .ok_or_else(|| format!("{flag} needs a value"))?
            .clone();
        let count = |v: &str| -> Res<usize> {
            v.parse()
                .map_err(|e| format!("{flag}: `{v}` is not a count: {e}").into())
        };
        match flag.as_str() {
            "--server" => out.server = value,
            "--nginx" => out.nginx = value,
            "--dir" => out.dir = value,
            "--replicas" => out.replicas = count(&value)?.max(1),
            "--inflight" => out.inflight = count(&value)?.max(1),
            "--calls" => out.calls = count(&value)?.max(1),
            "--rounds" => out.rounds = count(&value)?.max(1),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if out.server.is_empty() || out.nginx.is_empty() || out.dir.is_empty() {
        return Err("--server, --nginx and --dir are required".into());
    }
    Ok(out)
}

pub(crate) fn run(args: &[String]) -> Res<Value> {
    let args = parse(args)?;
    let balancer = Balancer::start(
        Path::new(&args.server),
        Path::new(&args.nginx),
        Path::new(&args.dir),
        args.replicas,
        false,
        &[],
    )?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let config = |alias: &str, url: &str| {
        ServerConfig::http(alias, false, url)
            .with_protocol(Protocol::V2026_07_28)
            .with_timeout(Duration::from_secs(30))
    };
    let direct_url = balancer
        .replicas
        .first()
        .ok_or("no replica started")?
        .clone();
    let (mut through, mut direct) = runtime.block_on(async {
        Ok::<_, crate::BoxError>((
            Typed::connect_to(&config("through", &balancer.url)).await?,
            Typed::connect_to(&config("direct", &direct_url)).await?,
        ))
    })?;
    let (k, n) = (args.inflight, args.calls.max(args.inflight));
    runtime.block_on(async {
        through.concurrent(k, k * 2).await?;
        direct.concurrent(k, k * 2).await.map(drop)
    })?;
    let (mut via, mut one) = (Vec::new(), Vec::new());
    for round in 0..args.rounds {
        // The first contender alternates: neither always runs after the other.
        for first in [round % 2 == 0, round % 2 == 1] {
            let (who, series) = if first {
                (&mut through, &mut via)
            } else {
                (&mut direct, &mut one)
            };
            let elapsed = runtime.block_on(who.concurrent(k, n))?;
            series.push(n as f64 / elapsed.as_secs_f64());
        }
        eprint!("\rmcp-bench: balancer: round {}/{}", round + 1, args.rounds);
    }
    eprintln!();
    let used = balancer.replicas_used().len();
    crate::check(used == args.replicas, || {
        format!("round-robin reached {used} of {} replicas", args.replicas)
    })?;
    runtime.block_on(async {
        through.close().await;
        direct.close().await;
    });
    Ok(json!({
        "unit": "calls per second",
        "replicas": args.replicas,
        "replicas_used": used,
        "inflight": k,
        "calls_per_round": n,
        "through_balancer": via,
        "one_replica": one,
    }))
}
