//! Mutated trace files (SPEC §7): arbitrary bytes parsed with `Trace::parse` and, when
//! they parse, replayed with `Replayer` into a supervisor with small caps. Neither may
//! panic or loop; at the end the tables are within their caps and folding the diffs gives
//! the snapshot.
#![no_main]

use std::time::Duration;

use cdp_supervisor::replay::{Replayer, Trace};
use cdp_supervisor::{Config, Event, Mirror, Supervisor, MAX_PENDING_DIALOGS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(trace) = Trace::parse(text) else {
        return;
    };
    let config = {
        let mut config = Config::default();
        config.max_frames = 20;
        config.max_sessions = 8;
        config.dialog_timeout = Duration::from_secs(60);
        config
    };
    let mut sup = Supervisor::new(config);
    let mut replayer = Replayer::new(&trace);
    let mut mirror = Mirror::default();
    while replayer.step(&mut sup) {
        while let Some(ev) = sup.poll_event() {
            if let Event::Diff(d) = &ev {
                mirror.apply(d);
            }
        }
        let t = sup.table_sizes();
        assert!(t.frames <= 20 && t.sessions <= 8, "{t:?}");
        assert!(t.pending_dialogs <= MAX_PENDING_DIALOGS, "{t:?}");
        assert!(t.recent_dialogs <= 20 && t.console_errors <= 50, "{t:?}");
    }
    assert_eq!(
        mirror.snapshot(),
        sup.snapshot(),
        "folding the diffs gives the snapshot"
    );
});
