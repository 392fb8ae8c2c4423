//! The overhead of a trivial evaluate through the supervisor (the evaluate flow: budget,
//! routing, the reply read as a value) against a raw CDP round trip on the same socket
//! (`Runtime.evaluate` sent as a plain command through the same client), against a real
//! headless Chromium. Rounds are interleaved so a busy neighbour slows both alike. Through
//! the smol transport, then the same through the blocking one (a tenth of the rounds).
//!
//! `cargo bench -p cdp-supervisor-e2e --bench evaluate -- [--rounds N]`; the last line is
//! JSON: `{"rounds": N, "evaluate_us_median": ..., "raw_us_median": ..., "ratio": ...,
//! "blocking": {"rounds", "evaluate_us_median", "raw_us_median", "ratio"}}`.

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
    let smol = smol::block_on(run(rounds));
    let blocking = run_blocking((rounds / 10).max(10));
    let mut line = smol;
    line["blocking"] = blocking;
    println!("{line}");
}

fn summary(rounds: usize, through: Vec<f64>, direct: Vec<f64>) -> serde_json::Value {
    let (e, r) = (median(through), median(direct));
    json!({"rounds": rounds, "evaluate_us_median": (e * 10.0).round() / 10.0,
           "raw_us_median": (r * 10.0).round() / 10.0, "ratio": (e / r * 1000.0).round() / 1000.0})
}

/// The same rounds through the blocking transport.
fn run_blocking(rounds: usize) -> serde_json::Value {
    use cdp_supervisor_blocking::{Client, Evaluation, Options};
    let client = Client::launch(Options::default()).expect("launch Chromium");
    let wait = Duration::from_secs(10);
    let params = json!({"expression": "1 + 1", "returnByValue": true});
    let (mut through, mut direct) = (Vec::new(), Vec::new());
    for round in 0..rounds + 20 {
        let t = Instant::now();
        let v = client.evaluate(Evaluation::new("1 + 1")).expect("evaluate");
        assert_eq!(v.value, 2);
        let e = t.elapsed().as_secs_f64() * 1e6;
        let t = Instant::now();
        let r = client.command(None, "Runtime.evaluate", params.clone(), wait);
        assert_eq!(r.expect("raw")["result"]["value"], 2);
        if round >= 20 {
            through.push(e);
            direct.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    let line = summary(rounds, through, direct);
    eprintln!("blocking transport: {line}");
    client.stop().expect("stop");
    line
}

async fn run(rounds: usize) -> serde_json::Value {
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
    let line = summary(rounds, through, direct);
    eprintln!("smol transport: {line}");
    client.stop().await.expect("stop");
    line
}
