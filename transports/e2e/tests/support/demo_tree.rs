//! What both transports' end-to-end tests share that needs no client: the browser (or
//! the missing-browser rule), the wait bound, and the demo page's frames as a snapshot
//! shows them.

use std::path::PathBuf;
use std::time::Duration;

use cdp_supervisor::{FrameInfo, Snapshot};
use cdp_supervisor_chromium::{find_chromium, Browser};

/// Generous bound for waits on a loaded 2-core machine.
pub const WAIT: Duration = Duration::from_secs(20);

/// A browser, or `None` (with a loud message) when none is installed; under `CI` a
/// missing browser fails the test instead.
pub fn browser_or_skip(test: &str) -> Option<Browser> {
    if !chromium_for_test(test) {
        return None;
    }
    Some(Browser::launch().expect("launch Chromium"))
}

/// Whether a Chromium is there to test against. When it is missing, a run with `CI` set
/// fails (a skipped browser test must never pass silently there); elsewhere the test
/// prints a loud SKIPPED line and returns.
pub fn chromium_for_test(test: &str) -> bool {
    if find_chromium().is_some() {
        return true;
    }
    if std::env::var_os("CI").is_some() {
        panic!("{test}: no Chromium found and CI is set: install chromium or set $CHROME");
    }
    eprintln!(
        "\n!!!!! SKIPPED {test}: no Chromium found (set $CHROME or install chromium) !!!!!\n"
    );
    false
}

/// Where a scenario's trace is recorded (copy new ones into `tests/traces/e2e/`).
pub fn trace_path(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join("cdp-supervise-e2e-traces");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{test}.jsonl"))
}

/// The listed frame whose URL contains `needle`.
pub fn find<'a>(snap: &'a Snapshot, needle: &str) -> Option<&'a FrameInfo> {
    snap.frame_tree
        .children
        .iter()
        .find(|f| f.url.contains(needle))
}

/// Whether the snapshot shows the demo's four frames, both OOPIFs attached.
pub fn demo_loaded(s: &Snapshot) -> bool {
    find(s, "/nested").is_some_and(|f| f.is_oopif)
        && find(s, "/cross").is_some_and(|f| f.is_oopif)
        && find(s, "about:srcdoc").is_some()
}

/// The demo's frame ids.
#[derive(Debug, Clone)]
pub struct DemoFrames {
    pub top: String,
    pub srcdoc: String,
    pub cross: String,
    pub nested: String,
}

/// The demo's frame ids, from a snapshot where [`demo_loaded`] holds.
pub fn demo_frames(snap: &Snapshot) -> DemoFrames {
    DemoFrames {
        top: snap.frame_tree.top.as_ref().unwrap().frame_id.clone(),
        srcdoc: find(snap, "about:srcdoc").unwrap().frame_id.clone(),
        cross: find(snap, "/cross").unwrap().frame_id.clone(),
        nested: find(snap, "/nested").unwrap().frame_id.clone(),
    }
}

/// The id of the demo frame named `which` (`top`, `srcdoc`, `cross`, `nested`).
pub fn frame_id_of(which: &str, frames: &DemoFrames) -> String {
    match which {
        "top" => frames.top.clone(),
        "srcdoc" => frames.srcdoc.clone(),
        "cross" => frames.cross.clone(),
        "nested" => frames.nested.clone(),
        other => panic!("no frame {other}"),
    }
}
