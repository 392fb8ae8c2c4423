//! `cargo bench --bench tabs -- [--tabs N] [TRACE.jsonl]`: many tabs on one connection.
//!
//! The browser messages of a recorded one-tab trace (default the heavy ad page) are copied
//! once per tab, every Chromium id (32 hex digits: targets, frames, sessions) made that
//! tab's own, and the copies interleaved message by message, as one connection carrying N
//! busy tabs would deliver them. Each tab arrives as the browser's auto-attach gives it (a
//! browser-level `attachedToTarget`). The baseline feeds the same interleaved messages to
//! one supervisor per tab (one connection per tab, as before the browser layer): both runs
//! touch every tab's state in turn. The run prints the rate per message of both, measured
//! in the same run, and of the same messages fed tab after tab (each tab's state hot in the
//! cache), with their ratio (target: at least 0.95),
//! and the live heap per tab once the traffic is over (target: within 64 KiB). Replies are
//! left out (their ids belong to the recording); events are the bulk of the traffic.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use cdp_supervisor::replay::{Direction, Trace};
use cdp_supervisor::{Config, Supervisor};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Makes every 32-hex-digit id of `text` tab `tab`'s own (its first four digits).
fn own_ids(text: &str, tab: usize) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let run = bytes[i..]
            .iter()
            .take_while(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(b))
            .count();
        if run == 32 {
            out.push_str(&format!("{tab:04X}"));
            out.push_str(&text[i + 4..i + 32]);
            i += 32;
        } else if run > 0 {
            out.push_str(&text[i..i + run]);
            i += run;
        } else {
            let ch = text[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// The browser messages of one tab: its attach, then the trace's events (replies and the
/// recording's own browser-level page attach left out).
fn tab_messages(trace: &Trace<'_>, tab: usize) -> Vec<String> {
    let mut page: Option<(String, String)> = None;
    let mut messages = Vec::new();
    for entry in &trace.entries {
        let (Direction::In, Some(msg)) = (entry.dir, entry.msg) else {
            continue;
        };
        let v: serde_json::Value = serde_json::from_str(msg.get()).unwrap_or_default();
        if v.get("id").is_some() {
            if page.is_none() {
                // `attachToTarget`'s reply names the page session.
                if let Some(s) = v.pointer("/result/sessionId").and_then(|s| s.as_str()) {
                    page = Some((String::new(), s.to_owned()));
                }
            }
            continue;
        }
        let method = v.get("method").and_then(|m| m.as_str()).unwrap_or("");
        if method == "Target.attachedToTarget" && v.get("sessionId").is_none() {
            let target = v
                .pointer("/params/targetInfo/targetId")
                .and_then(|t| t.as_str());
            let session = v.pointer("/params/sessionId").and_then(|s| s.as_str());
            if let (Some(t), Some(s)) = (target, session) {
                page = Some((t.to_owned(), s.to_owned()));
            }
            continue;
        }
        messages.push(own_ids(msg.get(), tab));
    }
    let (target, session) = page.unwrap_or_default();
    let attach = format!(
        r#"{{"method":"Target.attachedToTarget","params":{{"sessionId":"{session}","targetInfo":{{"targetId":"{target}","type":"page","url":"about:blank"}},"waitingForDebugger":false}}}}"#
    );
    messages.insert(0, own_ids(&attach, tab));
    messages
}

/// The baseline: the same interleaved messages, each tab's to a supervisor of its own
/// (one connection per tab, as before the browser layer); messages per second. Both runs
/// touch N tabs' state in turn, so both pay the same cache misses: the ratio is what
/// carrying every tab in one supervisor costs.
fn run_one_per_tab(per_tab: &[Vec<String>]) -> f64 {
    let mut sups: Vec<Supervisor> = per_tab
        .iter()
        .map(|_| {
            let mut sup = Supervisor::new(Config::default());
            sup.handle_connected(0.0);
            while sup.poll_transmit().is_some() {}
            sup
        })
        .collect();
    let longest = per_tab.iter().map(Vec::len).max().unwrap_or(0);
    let mut count = 0usize;
    let start = Instant::now();
    for i in 0..longest {
        for (tab, sup) in per_tab.iter().zip(sups.iter_mut()) {
            if let Some(m) = tab.get(i) {
                let _ = sup.handle_message(1.0 + i as f64 * 1e-4, m);
                while sup.poll_transmit().is_some() {}
                while sup.poll_event().is_some() {}
                count += 1;
            }
        }
    }
    count as f64 / start.elapsed().as_secs_f64()
}

/// The same messages tab after tab to one supervisor (each tab's state hot in the cache
/// while its traffic lasts); messages per second.
fn run_sequential(per_tab: &[Vec<String>]) -> f64 {
    let mut config = Config::default();
    config.max_tabs = per_tab.len().max(1);
    let mut sup = Supervisor::new(config);
    sup.handle_connected(0.0);
    while sup.poll_transmit().is_some() {}
    let mut count = 0usize;
    let start = Instant::now();
    for tab in per_tab {
        for (i, m) in tab.iter().enumerate() {
            let _ = sup.handle_message(1.0 + i as f64 * 1e-4, m);
            while sup.poll_transmit().is_some() {}
            while sup.poll_event().is_some() {}
            count += 1;
        }
    }
    count as f64 / start.elapsed().as_secs_f64()
}

/// Feeds the interleaved messages of `tabs` tabs to one supervisor; messages per second.
fn run(per_tab: &[Vec<String>]) -> (f64, usize, Supervisor) {
    let mut config = Config::default();
    config.max_tabs = per_tab.len().max(1);
    let mut sup = Supervisor::new(config);
    sup.handle_connected(0.0);
    while sup.poll_transmit().is_some() {}
    let longest = per_tab.iter().map(Vec::len).max().unwrap_or(0);
    let mut count = 0usize;
    let start = Instant::now();
    for i in 0..longest {
        for tab in per_tab {
            if let Some(m) = tab.get(i) {
                let _ = sup.handle_message(1.0 + i as f64 * 1e-4, m);
                while sup.poll_transmit().is_some() {}
                while sup.poll_event().is_some() {}
                count += 1;
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    (count as f64 / secs, count, sup)
}

fn main() {
    let mut tabs = 100usize;
    let mut path = format!(
        "{}/tests/traces/heavy-ad-page.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--tabs" => tabs = args.next().and_then(|n| n.parse().ok()).unwrap_or(tabs),
            "--bench" => {}
            other if other.ends_with(".jsonl") => path = other.to_owned(),
            _ => {}
        }
    }
    let text = std::fs::read_to_string(&path).expect("read the trace");
    let trace = Trace::parse(&text).expect("a trace");
    let per_tab: Vec<Vec<String>> = (0..tabs).map(|t| tab_messages(&trace, t + 1)).collect();
    drop(trace);

    // Alternate one tab and N tabs, three rounds each; medians.
    let mut one = Vec::new();
    let mut many = Vec::new();
    let mut sequential = Vec::new();
    let mut heap_per_tab = 0usize;
    let mut listed = 0usize;
    for _ in 0..3 {
        one.push(run_one_per_tab(&per_tab));
        sequential.push(run_sequential(&per_tab));
        let before = LIVE.load(Ordering::Relaxed);
        let (rate, _, sup) = run(&per_tab);
        many.push(rate);
        let after = LIVE.load(Ordering::Relaxed);
        listed = sup.tabs().len();
        heap_per_tab = after.saturating_sub(before) / tabs.max(1);
        drop(sup);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (one, many) = (median(&mut one), median(&mut many));
    let sequential = median(&mut sequential);
    eprintln!(
        "{tabs} one-tab supervisors, interleaved: {one:.0} messages/s; one supervisor of {tabs} tabs ({listed} listed), interleaved: {many:.0} messages/s; ratio {:.3}; tab after tab: {sequential:.0} messages/s; {heap_per_tab} B live heap per tab",
        many / one
    );
    println!(
        "{}",
        serde_json::json!({
            "tabs": tabs,
            "tabs_listed": listed,
            "messages_per_tab": per_tab.first().map(Vec::len),
            "one_tab_supervisors_msgs_per_s": one,
            "tab_after_tab_msgs_per_s": sequential,
            "many_tabs_msgs_per_s": many,
            "ratio": many / one,
            "heap_bytes_per_tab": heap_per_tab,
        })
    );
}
