//! `cargo bench --bench replay -- [TRACE.jsonl]`: how fast the core supervises a recorded
//! trace, against the floor of reading the same JSON once (`IgnoredAny`) and the cost of
//! building `serde_json::Value` trees, all measured in this run. The last line is JSON.

use std::time::{Duration, Instant};

use cdp_supervisor::replay::{Replayer, Trace};
use cdp_supervisor::{Config, Supervisor};
use serde::de::IgnoredAny;

const ROUNDS: usize = 9;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time(rounds: usize, mut f: impl FnMut()) -> Duration {
    f(); // warm up
    median(
        (0..rounds)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let path = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .unwrap_or_else(|| {
            format!(
                "{}/tests/traces/heavy-ad-page.jsonl",
                env!("CARGO_MANIFEST_DIR")
            )
        });
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read trace {path}: {e}"));
    let trace = Trace::parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let incoming: Vec<&str> = trace.incoming().collect();
    let bytes: usize = incoming.iter().map(|m| m.len()).sum();
    let mb = bytes as f64 / 1e6;

    // `--profile`: run only the supervisor, many rounds, for perf/callgrind.
    if std::env::args().any(|a| a == "--profile") {
        for _ in 0..50 {
            let mut sup = Supervisor::new(Config::default());
            let mut replayer = Replayer::new(&trace);
            while replayer.step(&mut sup) {
                while let Some(e) = sup.poll_event() {
                    std::hint::black_box(e);
                }
            }
        }
        return;
    }
    let supervisor = time(ROUNDS, || {
        let mut sup = Supervisor::new(Config::default());
        let mut replayer = Replayer::new(&trace);
        while replayer.step(&mut sup) {
            while let Some(e) = sup.poll_event() {
                std::hint::black_box(e);
            }
        }
        std::hint::black_box(sup.snapshot());
    });
    let ignored_any = time(ROUNDS, || {
        for m in &incoming {
            let v: IgnoredAny = serde_json::from_str(m).expect("valid JSON");
            std::hint::black_box(v);
        }
    });
    let value = time(ROUNDS, || {
        for m in &incoming {
            let v: serde_json::Value = serde_json::from_str(m).expect("valid JSON");
            std::hint::black_box(v);
        }
    });
    let rate = |d: Duration| mb / d.as_secs_f64();
    eprintln!("trace: {path}");
    eprintln!(
        "messages: {}, bytes: {bytes}, rounds: {ROUNDS} (median)",
        incoming.len()
    );
    eprintln!(
        "supervisor : {:>9.3} ms  {:>8.1} MB/s",
        supervisor.as_secs_f64() * 1e3,
        rate(supervisor)
    );
    eprintln!(
        "ignored_any: {:>9.3} ms  {:>8.1} MB/s",
        ignored_any.as_secs_f64() * 1e3,
        rate(ignored_any)
    );
    eprintln!(
        "value      : {:>9.3} ms  {:>8.1} MB/s",
        value.as_secs_f64() * 1e3,
        rate(value)
    );
    println!(
        "{{\"messages\": {}, \"bytes\": {bytes}, \"supervisor_mb_s\": {:.1}, \"ignored_any_mb_s\": {:.1}, \"value_mb_s\": {:.1}, \"ratio_vs_ignored_any\": {:.3}}}",
        incoming.len(),
        rate(supervisor),
        rate(ignored_any),
        rate(value),
        rate(supervisor) / rate(ignored_any),
    );
}
