//! Replays of the traces the end-to-end tests recorded against real Chromium 156
//! (`tests/traces/e2e/`, written by the transports' recorder). Each asserts the outcome the
//! live test saw, so the core keeps agreeing with what the browser actually sent.
//! The client's own commands and answers are not replayed (their replies are dropped), so
//! dialogs the live client answered close `remote` here unless the test acts the same way.

mod harness;

use std::collections::BTreeMap;
use std::time::Duration;

use cdp_supervisor::{ClosedBy, Config, DialogPolicy, Diff, PageState};
use harness::{replay_before_close, ReplayRun};

fn run(name: &str) -> ReplayRun {
    run_with(name, Config::default())
}

fn run_with(name: &str, config: Config) -> ReplayRun {
    let run = replay_before_close(&format!("e2e/{name}"), config, |_, _, _| {});
    assert!(
        run.stats.input_errors.is_empty(),
        "{name}: {:?}",
        run.stats.input_errors
    );
    run
}

/// The page states of a run whose socket was cut once: attached, lost, attached again.
const RECONNECTED: [PageState; 5] = [
    PageState::Attaching,
    PageState::Live,
    PageState::Detached,
    PageState::Attaching,
    PageState::Live,
];

/// The demo page: a srcdoc iframe and a cross-site OOPIF that nests another OOPIF.
fn assert_demo_tree(run: &ReplayRun) {
    let tree = &run.snapshot.frame_tree;
    assert_eq!(tree.children.len(), 3, "{:?}", tree.children);
    assert!(!tree.truncated);
    let oopifs: Vec<_> = tree.children.iter().filter(|c| c.is_oopif).collect();
    assert_eq!(oopifs.len(), 2);
    assert!(oopifs.iter().all(|f| f.session_id.is_some()));
    let top = tree.top.as_ref().unwrap();
    let nested = oopifs
        .iter()
        .find(|f| f.parent_frame_id.as_deref() != Some(top.frame_id.as_str()))
        .unwrap();
    assert!(
        oopifs
            .iter()
            .any(|f| Some(f.frame_id.as_str()) == nested.parent_frame_id.as_deref()),
        "nested under the first OOPIF"
    );
    assert!(tree
        .children
        .iter()
        .any(|c| !c.is_oopif && c.url == "about:srcdoc"));
}

#[test]
fn every_dialog_type_in_every_frame_kind() {
    let run = run("every-dialog-type");
    assert_demo_tree(&run);
    let mut by_frame: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for d in run.diffs() {
        if let Diff::DialogOpened { dialog } = d {
            by_frame
                .entry(dialog.frame_id.clone())
                .or_default()
                .push(dialog.kind.to_string());
        }
    }
    assert_eq!(
        by_frame.len(),
        4,
        "top, srcdoc, OOPIF, nested OOPIF: {by_frame:?}"
    );
    let tree = &run.snapshot.frame_tree;
    for frame in by_frame.keys() {
        let known = tree.top.as_ref().is_some_and(|t| &t.frame_id == frame)
            || tree.children.iter().any(|c| &c.frame_id == frame);
        assert!(known, "dialog frame {frame} is in the tree");
    }
    for kinds in by_frame.values() {
        for kind in ["alert", "confirm", "prompt"] {
            assert!(kinds.iter().any(|k| k == kind), "{kinds:?}");
        }
    }
    assert!(run.snapshot.pending_dialogs.is_empty());
}

#[test]
fn page_loaded_before_attach_is_seeded_from_get_frame_tree() {
    assert_demo_tree(&run("loaded-before-attach"));
}

#[test]
fn thirty_five_iframes_list_thirty() {
    let run = run("thirty-five-iframes");
    let tree = &run.snapshot.frame_tree;
    assert_eq!((tree.children.len(), tree.truncated), (30, true));
    let added = run
        .diffs()
        .filter(|d| matches!(d, Diff::FrameAdded { .. }))
        .count();
    assert!(added >= 36, "diffs describe every frame: {added}");
}

#[test]
fn depth_three_oopif_is_left_out() {
    let run = run("depth-three-oopif");
    let tree = &run.snapshot.frame_tree;
    assert_eq!(tree.children.len(), 2);
    assert!(tree.truncated);
    assert!(tree.children.iter().all(|c| c.is_oopif));
}

#[test]
fn reconnect_reattaches_and_recovers_the_tree() {
    let run = run("reconnect");
    assert_eq!(run.page_states(), RECONNECTED);
    assert_demo_tree(&run);
}

#[test]
fn crash_then_recover() {
    let run = run("crash-recover");
    assert_eq!(
        run.page_states(),
        [
            PageState::Attaching,
            PageState::Live,
            PageState::Crashed,
            PageState::Live
        ]
    );
    assert_demo_tree(&run);
}

#[test]
fn wedged_tab_is_blocked_then_released_by_recover() {
    // The live test used a 1 s enable bound, then called recover.
    let config = {
        let mut config = Config::default();
        config.enable_timeout = Duration::from_secs(1);
        config
    };
    let mut recovered = false;
    let run = replay_before_close("e2e/wedged-then-recover-2", config, |sup, t, _| {
        let blocked = sup
            .snapshot()
            .page
            .is_some_and(|p| p.state == PageState::Blocked);
        if blocked && !recovered {
            recovered = true;
            sup.recover(t).unwrap();
        }
    });
    assert!(
        run.stats.input_errors.is_empty(),
        "{:?}",
        run.stats.input_errors
    );
    assert!(recovered);
    assert_eq!(
        run.page_states(),
        [PageState::Attaching, PageState::Blocked, PageState::Live]
    );
}

#[test]
fn auto_accept_answers_are_attributed_to_the_policy() {
    let config = {
        let mut config = Config::default();
        config.policy = DialogPolicy::AutoAccept;
        config
    };
    let run = run_with("auto-policies", config);
    let recent = &run.snapshot.recent_dialogs;
    assert!(!recent.is_empty());
    assert_eq!(recent[0].closed_by, ClosedBy::AutoPolicy, "{recent:?}");
}

#[test]
fn watchdog_answers_are_attributed_to_the_watchdog() {
    let config = {
        let mut config = Config::default();
        config.dialog_timeout = Duration::from_secs(1);
        config
    };
    let run = run_with("watchdog", config);
    let recent = &run.snapshot.recent_dialogs;
    assert_eq!(recent.len(), 1);
    assert_eq!(
        (recent[0].kind.as_str(), recent[0].closed_by),
        ("confirm", ClosedBy::Watchdog)
    );
}

#[test]
fn navigation_closes_a_pending_dialog_and_drops_subframes() {
    let run = run("navigate-with-dialog");
    let d = &run.snapshot.recent_dialogs[0];
    assert_eq!(
        (d.kind.as_str(), d.closed_by, d.accepted),
        ("prompt", ClosedBy::Remote, false)
    );
    assert!(run.snapshot.frame_tree.children.is_empty());
}

#[test]
fn second_dialog_replaces_the_first() {
    let run = run("second-dialog");
    let recent = &run.snapshot.recent_dialogs;
    assert_eq!(recent[0].kind, "alert");
    assert!(
        !recent[0].accepted,
        "fact 8: the first closed with result false"
    );
    assert_ne!(recent[0].frame_id, recent[1].frame_id);
}

#[test]
fn beforeunload_after_a_gesture() {
    let run = run("beforeunload");
    let d = &run.snapshot.recent_dialogs[0];
    assert_eq!((d.kind.as_str(), d.message.as_str()), ("beforeunload", ""));
}

#[test]
fn the_remaining_recordings_replay_cleanly() {
    for name in [
        "blocked-evaluate",
        "frames-go",
        "routing-errors",
        "smol-dialogs",
        "stop-then-reattach",
        "stop-then-reattach-2",
        "wedged-then-recover",
    ] {
        let run = run(name);
        assert_eq!(
            run.snapshot.page.as_ref().map(|p| p.state),
            Some(PageState::Live),
            "{name}"
        );
    }
}

fn bridge_config(name: &str) -> Config {
    let text = harness::trace_text(&format!("e2e/{name}"));
    let trace = cdp_supervisor::replay::Trace::parse(&text).unwrap();
    let token = trace
        .recorded_bridge_token()
        .expect("the recording ran the bridge");
    {
        let mut config = Config::default();
        config.bridge = Some(cdp_supervisor::BridgeConfig::new(token));
        config
    }
}

fn opened(run: &ReplayRun) -> Vec<(String, String)> {
    run.diffs()
        .filter_map(|d| match d {
            Diff::DialogOpened { dialog } => {
                Some((dialog.kind.to_string(), dialog.frame_id.clone()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn bridge_dialogs_in_every_frame_replay_with_the_recorded_token() {
    let run = run_with("bridge-every-frame", bridge_config("bridge-every-frame"));
    let dialogs = opened(&run);
    let frames: std::collections::BTreeSet<&str> =
        dialogs.iter().map(|(_, f)| f.as_str()).collect();
    assert_eq!(
        frames.len(),
        4,
        "top, srcdoc, OOPIF, nested OOPIF: {dialogs:?}"
    );
    // Without the token the same requests are forgeries: no dialog at all.
    let forged = run_with("bridge-every-frame", {
        let mut config = Config::default();
        config.bridge = Some(cdp_supervisor::BridgeConfig::new("other"));
        config
    });
    assert!(opened(&forged).is_empty());
}

#[test]
fn forged_bridge_requests_replay_as_forgeries() {
    let run = run_with("bridge-forged", bridge_config("bridge-forged"));
    assert!(opened(&run).is_empty());
}

#[test]
fn sandboxed_frame_makes_no_bridge_request() {
    let run = run_with("bridge-sandbox", bridge_config("bridge-sandbox"));
    assert!(
        opened(&run).is_empty(),
        "an opaque origin keeps the native functions"
    );
}

#[test]
fn bridge_dialog_of_a_navigating_frame_is_answered_before_the_navigation() {
    for name in ["bridge-navigated-same-site", "bridge-navigated-oopif-0"] {
        let run = run_with(name, bridge_config(name));
        let recent = &run.snapshot.recent_dialogs;
        assert!(!recent.is_empty(), "{name}");
        assert!(
            recent.iter().all(|d| d.closed_by == ClosedBy::Remote),
            "{name}: {recent:?}"
        );
        assert!(run.snapshot.pending_dialogs.is_empty(), "{name}");
    }
}

#[test]
fn csp_and_policy_recordings_replay_cleanly() {
    for name in ["bridge-csp", "bridge-policies"] {
        let run = run_with(name, bridge_config(name));
        assert_eq!(
            run.snapshot.page.as_ref().map(|p| p.state),
            Some(PageState::Live),
            "{name}"
        );
    }
}

/// Every recording in `tests/traces/e2e/` replays without a refused message and ends with a
/// live page before the client closed the socket (bridge recordings with their token).
#[test]
fn every_recording_replays_cleanly() {
    let dir = format!("{}/tests/traces/e2e", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter_map(|n| n.strip_suffix(".jsonl").map(str::to_owned))
        // The browser-level probes (`tabs-*`: raw CDP, several tabs, crashes and closes on
        // purpose, the browser closed at the end) do not end live: `tests/tabs.rs` reads
        // them.
        .filter(|n| !n.starts_with("tabs-"))
        // Raw-CDP recordings of a recipe (`raw-*`) measure Chromium, not the supervisor's
        // own set-up.
        .filter(|n| !n.starts_with("raw-"))
        .collect();
    names.sort();
    assert!(names.len() >= 30, "{names:?}");
    for name in names {
        let text = harness::trace_text(&format!("e2e/{name}"));
        let trace = cdp_supervisor::replay::Trace::parse(&text).unwrap();
        let config = match trace.recorded_bridge_token() {
            Some(token) => {
                let mut config = Config::default();
                config.bridge = Some(cdp_supervisor::BridgeConfig::new(token));
                config
            }
            None => Config::default(),
        };
        let run = run_with(&name, config);
        let state = run.snapshot.page.as_ref().map(|p| p.state);
        // The reconnect scenarios end on a live page too; crash-recover recovered.
        assert_eq!(state, Some(PageState::Live), "{name}");
    }
}

#[test]
fn a_page_that_stole_nothing_raised_no_dialog_of_its_own() {
    let run = run_with("bridge-token-leak", bridge_config("bridge-token-leak"));
    let messages: Vec<String> = run
        .diffs()
        .filter_map(|d| match d {
            Diff::DialogOpened { dialog } => Some(dialog.message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        messages,
        ["innocent"],
        "only the page's own alert, never the forged \"pay\""
    );
}

#[test]
fn smol_reconnect_recovers_the_tree() {
    let run = run("smol-reconnect");
    assert_eq!(run.page_states(), RECONNECTED);
    assert_demo_tree(&run);
}

/// The agent-action scenario (an alert raised by a click, scrolls, a confirm of an OOPIF
/// pending while `navigate` runs, a reload): every event of it (lifecycle events, console
/// lines of every level) is read without error, and both dialogs end closed, the confirm
/// by the navigation.
#[test]
fn act_alert_and_navigate_through_a_confirm() {
    let run = run("act-alert");
    assert!(run.snapshot.pending_dialogs.is_empty());
    let kinds: Vec<String> = run
        .snapshot
        .recent_dialogs
        .iter()
        .map(|d| {
            serde_json::to_value(&d.kind)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(kinds, vec!["alert", "confirm"]);
    let confirm = &run.snapshot.recent_dialogs[1];
    assert_eq!(confirm.closed_by, ClosedBy::Remote);
    assert_eq!(
        run.snapshot.page.as_ref().map(|p| p.state),
        Some(PageState::Live)
    );
}

/// The raw-CDP file chooser probe (`recipes/file-chooser.py`): every chooser Chromium
/// reported, on the page session and on the OOPIF's, becomes a pending `file_chooser` of
/// its own frame; the answers the probe sent close none of them here (the supervisor sent
/// none), so the choosers stay pending with their mode and element.
#[test]
fn file_chooser_probe_replays_as_pending_choosers() {
    let run = run("file-chooser");
    let opened: Vec<(String, Option<String>)> = run
        .diffs()
        .filter_map(|d| match d {
            Diff::DialogOpened { dialog } => Some((dialog.kind.to_string(), dialog.mode.clone())),
            _ => None,
        })
        .collect();
    assert!(opened.len() >= 5, "{opened:?}");
    assert!(opened.iter().all(|(k, _)| k == "file_chooser"));
    assert!(opened
        .iter()
        .any(|(_, m)| m.as_deref() == Some("selectMultiple")));
    let frames: std::collections::BTreeSet<String> = run
        .snapshot
        .pending_dialogs
        .iter()
        .map(|d| d.frame_id.clone())
        .collect();
    assert_eq!(
        frames.len(),
        2,
        "the top frame's and the OOPIF's: {frames:?}"
    );
}
