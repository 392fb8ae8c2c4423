//! `cargo bench --bench replay -- [TRACE.jsonl]`: how fast the core supervises a recorded
//! trace, against the floor of reading the same JSON once (`IgnoredAny`) and the cost of
//! building `serde_json::Value` trees, all measured in this run. The last line is JSON.
//!
//! Two more rows on stderr tell where the time goes: `envelope` is the core's reader alone
//! (no state), and `serde_minimum` is the least a serde visitor can do to learn what a
//! console line needs (envelope keys, the call's type and context, each argument's type,
//! value and description; every other value skipped as `IgnoredAny`, nothing built).
//! The JSON line's `ratio_vs_serde_minimum` is `serde_minimum` time / supervisor time:
//! the target is at least 0.83 on the heavy trace (supervising adds at most 20 %).

use std::time::{Duration, Instant};

use cdp_supervisor::replay::{Replayer, Trace};
use cdp_supervisor::{Config, Supervisor};
use serde::de::IgnoredAny;
use serde::Deserialize;
use std::borrow::Cow;

/// `serde_minimum`: the envelope keys the core reads; params typed only for console calls.
#[derive(Deserialize)]
#[allow(dead_code)] // read only to be visited
struct MinimalEnvelope<'a, P> {
    id: Option<u64>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<Cow<'a, str>>,
    params: Option<P>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct MinimalConsoleCall<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    args: Vec<MinimalRemoteObject<'a>>,
    #[serde(rename = "executionContextId")]
    execution_context_id: Option<i64>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct MinimalRemoteObject<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    value: Option<IgnoredAny>,
    #[serde(borrow)]
    description: Option<Cow<'a, str>>,
}

const ROUNDS: usize = 21;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time(f: &dyn Fn()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
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

    let run_supervisor = || {
        let mut sup = Supervisor::new(Config::default());
        let mut replayer = Replayer::new(&trace);
        while replayer.step(&mut sup) {
            while let Some(e) = sup.poll_event() {
                std::hint::black_box(e);
            }
        }
        std::hint::black_box(sup.snapshot());
    };
    let run_ignored_any = || {
        for m in &incoming {
            let v: IgnoredAny = serde_json::from_str(m).expect("valid JSON");
            std::hint::black_box(v);
        }
    };
    let run_value = || {
        for m in &incoming {
            let v: serde_json::Value = serde_json::from_str(m).expect("valid JSON");
            std::hint::black_box(v);
        }
    };
    // Reading alone, without supervising: where the time goes, for whoever profiles.
    let run_envelope = || {
        for m in &incoming {
            let v = cdp_supervisor::wire::Envelope::parse(m).expect("valid CDP");
            std::hint::black_box(v);
        }
    };
    let console_calls: Vec<(bool, &str)> = incoming
        .iter()
        .map(|m| (m.contains("\"Runtime.consoleAPICalled\""), *m))
        .collect();
    let run_serde_minimum = || {
        for (console, m) in &console_calls {
            if *console {
                let v: MinimalEnvelope<'_, MinimalConsoleCall<'_>> =
                    serde_json::from_str(m).expect("valid console call");
                std::hint::black_box(v);
            } else {
                let v: MinimalEnvelope<'_, IgnoredAny> =
                    serde_json::from_str(m).expect("valid CDP");
                std::hint::black_box(v);
            }
        }
    };
    // `--profile=NAME [--rounds=N]`: run one contender only (supervisor, ignored_any,
    // value, envelope), for perf or `valgrind --tool=callgrind`, whose instruction counts
    // do not depend on what else the machine is doing.
    let arg = |name: &str| std::env::args().find_map(|a| a.strip_prefix(name).map(str::to_owned));
    if let Some(name) = arg("--profile=") {
        let rounds: usize = arg("--rounds=").and_then(|r| r.parse().ok()).unwrap_or(50);
        let run: &dyn Fn() = match name.as_str() {
            "supervisor" => &run_supervisor,
            "ignored_any" => &run_ignored_any,
            "value" => &run_value,
            "envelope" => &run_envelope,
            "serde_minimum" => &run_serde_minimum,
            other => panic!(
                "--profile={other}: supervisor, ignored_any, value, envelope or serde_minimum"
            ),
        };
        for _ in 0..rounds {
            run();
        }
        return;
    }
    // Rounds are interleaved so that a noisy neighbour or a frequency change hits every
    // contender alike: the ratio is what this bench promises, more than the absolute rates.
    let mut contenders: [(&dyn Fn(), Vec<Duration>); 5] = [
        (&run_supervisor, Vec::new()),
        (&run_ignored_any, Vec::new()),
        (&run_value, Vec::new()),
        (&run_envelope, Vec::new()),
        (&run_serde_minimum, Vec::new()),
    ];
    for (run, _) in &contenders {
        run(); // warm up
    }
    for _ in 0..ROUNDS {
        for (run, times) in &mut contenders {
            times.push(time(run));
        }
    }
    let [supervisor, ignored_any, value, envelope, serde_minimum] =
        contenders.map(|(_, times)| median(times));
    let rate = |d: Duration| mb / d.as_secs_f64();
    eprintln!("trace: {path}");
    eprintln!(
        "messages: {}, bytes: {bytes}, rounds: {ROUNDS} (median)",
        incoming.len()
    );
    for (name, d) in [
        ("supervisor", supervisor),
        ("ignored_any", ignored_any),
        ("envelope", envelope),
        ("serde_minimum", serde_minimum),
        ("value", value),
    ] {
        eprintln!(
            "{name:<13} {:>9.3} ms {:>8.1} MB/s  {:>5.2}x the floor's time",
            d.as_secs_f64() * 1e3,
            rate(d),
            d.as_secs_f64() / ignored_any.as_secs_f64()
        );
    }
    println!(
        "{{\"messages\": {}, \"bytes\": {bytes}, \"supervisor_mb_s\": {:.1}, \"ignored_any_mb_s\": {:.1}, \"value_mb_s\": {:.1}, \"ratio_vs_ignored_any\": {:.3}, \"ratio_vs_serde_minimum\": {:.3}}}",
        incoming.len(),
        rate(supervisor),
        rate(ignored_any),
        rate(value),
        rate(supervisor) / rate(ignored_any),
        serde_minimum.as_secs_f64() / supervisor.as_secs_f64(),
    );
}
