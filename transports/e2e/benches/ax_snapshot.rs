//! The accessibility snapshot of a large page (four frames, two of them OOPIFs, 2 000+
//! nodes) against the raw `Accessibility.getFullAXTree` round trips alone, in one run on
//! a real headless Chromium; and the outline's size per node.
//!
//! `cargo bench -p cdp-supervisor-e2e --bench ax_snapshot -- [--buttons N] [--rounds R]`
//! (defaults 600 buttons a frame, 15 rounds). Rounds are interleaved (snapshot, raw, ...)
//! so a busy neighbour slows both alike; the last line is JSON.

#[path = "../tests/support/ax_site.rs"]
mod ax_site;

use std::time::{Duration, Instant};

use cdp_supervisor::ax::AxOptions;
use cdp_supervisor_blocking::{Client, Options};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(30);

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() {
    if cdp_supervisor_chromium::find_chromium().is_none() {
        eprintln!("SKIPPED: no Chromium (set $CHROME or install chromium)");
        return;
    }
    let buttons = arg("--buttons", 600);
    let rounds = arg("--rounds", 15).max(1);
    let site = ax_site::AxSite::start();
    let client = Client::launch(Options::default()).expect("launch");
    client
        .command(
            None,
            "Page.navigate",
            json!({"url": site.url(&format!("/big?n={buttons}"))}),
            WAIT,
        )
        .expect("navigate");
    let mut options = AxOptions::default();
    options.max_nodes = 100_000;
    options.timeout = WAIT;
    let want = 4 * buttons;
    let end = Instant::now() + WAIT;
    let full = loop {
        let s = client.ax_snapshot(options.clone()).expect("snapshot");
        if s.refs.len() >= want || Instant::now() > end {
            break s;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(full.refs.len() >= want, "only {} refs", full.refs.len());
    // Where each frame's tree is asked: (frame for routing, params).
    let snap = client.snapshot().expect("state");
    let top = snap.frame_tree.top.clone().expect("top").frame_id;
    let mut raw_calls = vec![(top.clone(), json!({}))];
    for f in &snap.frame_tree.children {
        let params = if f.is_oopif {
            json!({})
        } else {
            json!({"frameId": f.frame_id})
        };
        raw_calls.push((f.frame_id.clone(), params));
    }
    assert_eq!(raw_calls.len(), 4, "four frames");

    let (mut built, mut raw) = (Vec::new(), Vec::new());
    let (mut raw_bytes, mut raw_nodes) = (0usize, 0usize);
    for _ in 0..rounds {
        let t = Instant::now();
        let s = client.ax_snapshot(options.clone()).expect("snapshot");
        built.push(t.elapsed().as_secs_f64());
        assert!(s.frames_left_out.is_empty());
        let t = Instant::now();
        let pending: Vec<_> = raw_calls
            .iter()
            .map(|(frame, params)| {
                client
                    .start_command(
                        Some(frame),
                        "Accessibility.getFullAXTree",
                        params.clone(),
                        WAIT,
                    )
                    .expect("send")
            })
            .collect();
        let texts: Vec<String> = pending
            .into_iter()
            .map(|p| p.wait().expect("tree"))
            .collect();
        raw.push(t.elapsed().as_secs_f64());
        raw_bytes = texts.iter().map(String::len).sum();
        raw_nodes = texts
            .iter()
            .map(|t| cdp_supervisor::ax::AxNode::parse_tree(t).map_or(0, |n| n.len()))
            .sum();
    }
    let (b, r) = (median(built), median(raw));
    let lines = full.text.lines().count();
    eprintln!(
        "snapshot {:.1} ms, raw getFullAXTree x4 {:.1} ms (medians of {rounds}); {} refs, {lines} lines, {} bytes of outline",
        b * 1e3,
        r * 1e3,
        full.refs.len(),
        full.text.len()
    );
    println!(
        "{}",
        json!({
            "frames": 4, "refs": full.refs.len(), "lines": lines, "ax_nodes": raw_nodes,
            "snapshot_ms": b * 1e3, "raw_round_trips_ms": r * 1e3, "ratio": b / r,
            "outline_bytes_per_line": full.text.len() as f64 / lines.max(1) as f64,
            "raw_json_bytes_per_ax_node": raw_bytes as f64 / raw_nodes.max(1) as f64,
        })
    );
    client.stop().expect("stop");
}
