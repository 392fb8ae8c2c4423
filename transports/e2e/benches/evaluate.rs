//! The overhead of a trivial evaluate through the supervisor (the evaluate flow: budget,
//! routing, the reply read as a value) against a raw CDP round trip on the same socket
//! (`Runtime.evaluate` sent as a plain command through the same client), against a real
//! headless Chromium. Rounds are interleaved so a busy neighbour slows both alike. It uses
//! the smol transport, which wakes on each frame: the blocking transport polls its request
//! channel every 20 ms, which would hide the difference (both paths measure about 24 ms
//! there).
//!
//! `cargo bench -p cdp-supervisor-e2e --bench evaluate -- [--rounds N]`; the last line is
//! JSON: `{"rounds": N, "evaluate_us_median": ..., "raw_us_median": ..., "ratio": ...}`.

use std::time::{Duration, Instant};

use cdp_supervisor_smol::{Client, Evaluation, Options};
use serde_json::json;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000usize);
    smol::block_on(run(rounds));
}

async fn run(rounds: usize) {
    let client = Client::launch(Options::default())
        .await
        .expect("launch Chromium");
    let wait = Duration::from_secs(10);
    let params = json!({"expression": "1 + 1", "returnByValue": true});
    // Warm up both paths.
    for _ in 0..100 {
        let r = client.command(None, "Runtime.evaluate", params.clone(), wait);
        assert_eq!(r.await.expect("raw")["result"]["value"], 2);
        let v = client.evaluate(Evaluation::new("1 + 1")).await;
        assert_eq!(v.expect("evaluate").value, 2);
    }
    let (mut through, mut direct) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        client
            .evaluate(Evaluation::new("1 + 1"))
            .await
            .expect("evaluate");
        through.push(t.elapsed().as_secs_f64() * 1e6);
        let t = Instant::now();
        let r = client.command(None, "Runtime.evaluate", params.clone(), wait);
        r.await.expect("raw");
        direct.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let (e, r) = (median(through), median(direct));
    eprintln!(
        "evaluate through the supervisor: median {e:.1} us; raw round trip: median {r:.1} us"
    );
    println!(
        "{}",
        json!({"rounds": rounds, "evaluate_us_median": (e * 10.0).round() / 10.0,
               "raw_us_median": (r * 10.0).round() / 10.0, "ratio": (e / r * 1000.0).round() / 1000.0})
    );
    client.stop().await.expect("stop");
}
