//! `cargo bench --bench flood`: memory under floods of events, and the idle memory of one
//! supervised tab. A counting global allocator tracks live heap bytes and their peak; each
//! phase reports the peak over its first, middle and last third. Every collection of the
//! core is bounded, so the last third's peak must not exceed the middle third's.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use cdp_supervisor::replay::{Replayer, Trace};
use cdp_supervisor::{Config, Supervisor};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
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

fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// The peak since the last call, which starts a new window at the live size.
fn take_peak() -> usize {
    PEAK.swap(live(), Ordering::Relaxed)
}

const PAGE: &str = "PAGE";
const PS: &str = "S-PAGE";

/// A supervisor attached to a page, its set-up answered.
fn attached() -> Supervisor {
    let mut sup = Supervisor::new(Config::default());
    let mut t = 0.0;
    sup.handle_connected(t);
    let mut step = |sup: &mut Supervisor, text: String| {
        t += 0.001;
        let _ = sup.handle_message(t, &text);
    };
    let id = sup.poll_transmit().map(|c| c.id).unwrap_or(0);
    step(
        &mut sup,
        format!(
            r#"{{"id":{id},"result":{{"targetInfos":[{{"targetId":"{PAGE}","type":"page","url":"about:blank"}}]}}}}"#
        ),
    );
    let id = sup.poll_transmit().map(|c| c.id).unwrap_or(0);
    step(
        &mut sup,
        format!(r#"{{"id":{id},"result":{{"sessionId":"{PS}"}}}}"#),
    );
    while let Some(c) = sup.poll_transmit() {
        step(&mut sup, format!(r#"{{"id":{},"result":{{}}}}"#, c.id));
    }
    step(
        &mut sup,
        format!(
            r#"{{"method":"Page.frameNavigated","params":{{"frame":{{"id":"{PAGE}","url":"http://a.test/","securityOrigin":"http://a.test"}}}},"sessionId":"{PS}"}}"#
        ),
    );
    drain(&mut sup);
    sup
}

fn drain(sup: &mut Supervisor) {
    while sup.poll_transmit().is_some() {}
    while sup.poll_event().is_some() {}
}

/// Runs `n` rounds of `round`, reporting the peak live heap over the first, middle and
/// last third of them.
fn phase(
    name: &str,
    n: usize,
    sup: &mut Supervisor,
    mut round: impl FnMut(&mut Supervisor, usize),
) -> serde_json::Value {
    drain(sup);
    take_peak();
    let started = Instant::now();
    let mut peaks = [0; 3];
    for i in 0..n {
        round(sup, i);
        drain(sup);
        if i + 1 == n / 3 {
            peaks[0] = take_peak();
        } else if i + 1 == 2 * n / 3 {
            peaks[1] = take_peak();
        }
    }
    peaks[2] = take_peak();
    let secs = started.elapsed().as_secs_f64();
    let [first, middle, last] = peaks;
    // A page-sized slack: the allocator's own rounding and a map's growth step.
    let flat = last <= middle + 4096;
    eprintln!(
        "{name:<31} n={n:>8}  peak heap: first third {first:>8} B, middle {middle:>8} B, last {last:>8} B  ({:.0} rounds/s){}",
        n as f64 / secs,
        if flat { "" } else { "  NOT FLAT" }
    );
    serde_json::json!({"phase": name, "n": n, "peak_first_third": first, "peak_middle_third": middle, "peak_last_third": last, "flat": flat})
}

fn main() {
    let mut results = Vec::new();
    let mut sup = attached();
    let mut t = 1.0;

    results.push(phase("console errors", 1_000_000, &mut sup, |sup, i| {
        t += 0.000_01;
        let msg = format!(r#"{{"method":"Runtime.consoleAPICalled","params":{{"type":"error","args":[{{"type":"string","value":"boom {i}"}}],"executionContextId":1}},"sessionId":"{PS}"}}"#);
        let _ = sup.handle_message(t, &msg);
    }));

    results.push(phase("frames attached+detached", 100_000, &mut sup, |sup, i| {
        t += 0.000_01;
        let a = format!(r#"{{"method":"Page.frameAttached","params":{{"frameId":"F{i}","parentFrameId":"{PAGE}"}},"sessionId":"{PS}"}}"#);
        let d = format!(r#"{{"method":"Page.frameDetached","params":{{"frameId":"F{i}","reason":"remove"}},"sessionId":"{PS}"}}"#);
        let _ = sup.handle_message(t, &a);
        let _ = sup.handle_message(t, &d);
    }));

    results.push(phase("frames attached, never detached", 100_000, &mut sup, |sup, i| {
        t += 0.000_01;
        let a = format!(r#"{{"method":"Page.frameAttached","params":{{"frameId":"G{i}","parentFrameId":"{PAGE}"}},"sessionId":"{PS}"}}"#);
        let _ = sup.handle_message(t, &a);
    }));

    // A fresh tab, so that the 10 000 capped frames above do not hide what follows.
    drop(sup);
    let mut sup = attached();
    results.push(phase("sessions attached+detached", 10_000, &mut sup, |sup, i| {
        t += 0.000_1;
        let a = format!(r#"{{"method":"Target.attachedToTarget","params":{{"sessionId":"S{i}","targetInfo":{{"targetId":"W{i}","type":"worker"}},"waitingForDebugger":true}},"sessionId":"{PS}"}}"#);
        let d = format!(r#"{{"method":"Target.detachedFromTarget","params":{{"sessionId":"S{i}"}},"sessionId":"{PS}"}}"#);
        let _ = sup.handle_message(t, &a);
        while let Some(c) = sup.poll_transmit() {
            let _ = sup.handle_message(t, &format!(r#"{{"id":{},"result":{{}}}}"#, c.id));
        }
        let _ = sup.handle_message(t, &d);
    }));

    results.push(phase("dialogs opened+closed", 10_000, &mut sup, |sup, i| {
        t += 0.000_1;
        let o = format!(r#"{{"method":"Page.javascriptDialogOpening","params":{{"url":"http://a.test/","frameId":"{PAGE}","message":"m{i}","type":"alert","hasBrowserHandler":false,"defaultPrompt":""}},"sessionId":"{PS}"}}"#);
        let c = format!(r#"{{"method":"Page.javascriptDialogClosed","params":{{"frameId":"{PAGE}","result":true,"userInput":""}},"sessionId":"{PS}"}}"#);
        let _ = sup.handle_message(t, &o);
        let _ = sup.handle_message(t, &c);
    }));
    drop(sup);

    // Idle memory of one supervised tab after the heavy page.
    let text = std::fs::read_to_string(format!(
        "{}/tests/traces/heavy-ad-page.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("heavy trace");
    let trace = Trace::parse(&text).expect("trace parses");
    let before = live();
    let mut sup = Supervisor::new(Config::default());
    let mut replayer = Replayer::new(&trace);
    while replayer.step(&mut sup) {
        drain(&mut sup);
    }
    drop(replayer);
    let idle = live() - before;
    eprintln!(
        "idle tab after heavy-ad-page: {idle} B live ({:?})",
        sup.table_sizes()
    );
    drop(sup);

    let flat = results.iter().all(|r| r["flat"] == true);
    println!(
        "{}",
        serde_json::json!({"phases": results, "idle_tab_bytes": idle, "flat": flat})
    );
}
