//! Property tests over event orderings (SPEC §3, §9, §10, §16; GitHub issues 6, 23).
//!
//! Proptest generates sequences of [`Op`]s; `model::Driver` turns them into CDP traffic
//! from a small model of a browser and its tabs (mostly plausible, sometimes wrong ids or
//! junk), drives the supervisor like a real embedder and checks one invariant per test
//! after every input.
//!
//! Cases: `PROPTEST_CASES` (default 10 000). Sequences are at most [`MAX_OPS`] ops so that
//! the whole suite stays within a few minutes in a debug build on two cores; run it longer
//! with `PROPTEST_CASES=100000 cargo test --release --test properties`.

// The model derives `arbitrary::Arbitrary` under `cfg(fuzzing)`, which only cargo-fuzz sets.
#![allow(unexpected_cfgs)]

mod harness;
mod model;

use model::{Checks, Driver, Op, ReplyKind};
use proptest::prelude::*;

/// Ops per generated sequence at most (keeps 10 000 cases per property fast in debug).
const MAX_OPS: usize = 40;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        max_shrink_iters: 4096,
        // ChaCha dominates the run time of a debug build; XorShift is plenty for this.
        rng_algorithm: proptest::test_runner::RngAlgorithm::XorShift,
        ..ProptestConfig::default()
    }
}

fn reply_kind() -> impl Strategy<Value = ReplyKind> {
    prop_oneof![
        6 => Just(ReplyKind::Realistic),
        2 => Just(ReplyKind::Ok),
        1 => Just(ReplyKind::NoDialog),
        1 => Just(ReplyKind::ServerError),
        1 => Just(ReplyKind::SessionNotFound),
    ]
}

/// One op, weighted so that replies and frame and dialog events dominate.
fn op() -> impl Strategy<Value = Op> {
    let p = any::<u8>;
    let b = any::<bool>;
    prop_oneof![
        4 => (p(), b()).prop_map(|(parent, navigate)| Op::FrameAttached { parent, navigate }),
        1 => (p(), p(), b()).prop_map(|(parent, count, oopif)| Op::FrameBurst { parent, count, oopif }),
        3 => (p(), b()).prop_map(|(frame, within_document)| Op::FrameNavigated { frame, within_document }),
        2 => (p(), b()).prop_map(|(frame, targets_first)| Op::FrameRemoved { frame, targets_first }),
        4 => (p(), b(), prop::bool::weighted(0.9))
            .prop_map(|(frame, detach_first, waiting)| Op::FrameSwapped { frame, detach_first, waiting }),
        1 => p().prop_map(|session| Op::OopifBackInProcess { session }),
        2 => (p(), b()).prop_map(|(session, service)| Op::WorkerAttached { session, service }),
        1 => p().prop_map(|session| Op::TargetDetached { session }),
        1 => p().prop_map(|session| Op::Crashed { session }),
        1 => (p(), b(), prop::bool::weighted(0.1))
            .prop_map(|(session, exception, burst)| Op::Console { session, exception, burst }),
        4 => (p(), p(), b()).prop_map(|(frame, kind, keep_old)| Op::DialogOpening { frame, kind, keep_old }),
        1 => p().prop_map(|count| Op::DialogBurst { count }),
        3 => (p(), b()).prop_map(|(which, result)| Op::DialogClosed { which, result }),
        10 => (p(), reply_kind(), prop::bool::weighted(0.8))
            .prop_map(|(command, kind, with_session)| Op::Reply { command, kind, with_session }),
        1 => p().prop_map(|command| Op::Forget { command }),
        3 => p().prop_map(|step| Op::Advance { step }),
        1 => Just(Op::Disconnect),
        1 => b().prop_map(|auto_attach| Op::Reconnect { auto_attach }),
        3 => (p(), b(), b(), b(), p())
            .prop_map(|(dialog, by_id, accept, text, tab)| Op::RespondDialog { dialog, by_id, accept, text, tab }),
        3 => (p(), b(), p(), p(), p())
            .prop_map(|(frame, top, method, timeout, tab)| Op::Command { frame, top, method, timeout, tab }),
        2 => (p(), b(), p(), p(), p())
            .prop_map(|(frame, top, element, timeout, tab)| Op::Evaluate { frame, top, element, timeout, tab }),
        1 => p().prop_map(|policy| Op::SetPolicy { policy }),
        1 => b().prop_map(|accept| Op::Settle { accept }),
        1 => p().prop_map(|tab| Op::Recover { tab }),
        1 => (p(), p()).prop_map(|(kind, pick)| Op::Junk { kind, pick }),
        3 => (p(), p(), p()).prop_map(|(frame, url, kind)| Op::RequestPaused { frame, url, kind }),
        // Several tabs (SPEC §16).
        // Most popups can reach their opener (`window.open`); fewer are cross-site.
        3 => (p(), prop::bool::weighted(0.4), prop::bool::weighted(0.75), prop::bool::weighted(0.9))
            .prop_map(|(opener, cross_site, access, waiting)| Op::PopupOpened { opener, cross_site, access, waiting }),
        2 => (p(), p()).prop_map(|(tab, how)| Op::TabClosed { tab, how }),
        1 => (p(), b()).prop_map(|(tab, cross_site)| Op::TabNavigated { tab, cross_site }),
        2 => p().prop_map(|tab| Op::Focus { tab }),
        1 => p().prop_map(|tab| Op::SelectTab { tab }),
        1 => p().prop_map(|url| Op::NewTab { url }),
        1 => (p(), b()).prop_map(|(tab, force)| Op::CloseTab { tab, force }),
        // Browser contexts.
        2 => Just(Op::NewContext),
        4 => p().prop_map(|context| Op::NewTabInContext { context }),
        1 => p().prop_map(|context| Op::DisposeContext { context }),
        // Every way a page waits for a person.
        2 => (p(), b()).prop_map(|(frame, multiple)| Op::FileChooser { frame, multiple }),
        2 => (p(), p(), p()).prop_map(|(frame, guid, step)| Op::Download { frame, guid, step }),
        2 => (p(), b(), b(), prop::bool::weighted(0.3)).prop_map(|(frame, known_origin, document, again)| {
            Op::AuthChallenge { frame, known_origin, document, again }
        }),
    ]
}

/// Whether the dialog bridge is on (SPEC §6.5), and the ops.
fn ops() -> impl Strategy<Value = (bool, Vec<Op>)> {
    (any::<bool>(), prop::collection::vec(op(), 1..=MAX_OPS))
}

/// Only the named check (every run also fails on any panic).
fn only(set: impl FnOnce(&mut Checks)) -> Checks {
    let mut c = Checks::default();
    set(&mut c);
    c
}

proptest! {
    #![proptest_config(config())]

    /// SPEC §3, §6.6, §16: no input panics; every table stays within its cap (tabs 4;
    /// per tab frames 20, sessions 8, console 50, pending 64; recent 20) and outputs drain
    /// fully. The tab table keeps its rules: ids unique, exactly one tab current while any
    /// is listed (the one `current_tab` names), every pending dialog's tab listed, the
    /// other tabs' frame trees beside the current one's, no destroyed target's tab listed
    /// beside another, a command sent on a session of the tab it names. (One property for
    /// both: each builds a snapshot after every input, most of a run's time.)
    #[test]
    fn never_panics_and_tables_stay_bounded((bridge, ops) in ops()) {
        Driver::run(&ops, only(|c| { c.bounds = true; c.tabs = true; }), bridge);
    }

    /// SPEC §10: no dialog is both pending and recent.
    #[test]
    fn no_dialog_is_both_pending_and_recent((bridge, ops) in ops()) {
        Driver::run(&ops, only(|c| c.dialogs_disjoint = true), bridge);
    }

    /// Fact 6: `Page.handleJavaScriptDialog` goes only to the page session from the attach.
    #[test]
    fn dialog_answers_go_only_to_the_page_session((bridge, ops) in ops()) {
        Driver::run(&ops, only(|c| c.answers_on_page_session = true), bridge);
    }

    /// Facts 2, 14: each child waiting for the debugger is resumed exactly once, after
    /// `Page.enable`, `Runtime.enable` and `Target.setAutoAttach` for an iframe.
    #[test]
    fn waiting_children_are_resumed_exactly_once_after_set_up((bridge, ops) in ops()) {
        Driver::run(&ops, only(|c| c.resume_once = true), bridge);
    }

    /// SPEC §5, §6.4: each `command`/`recover` ends in one `CommandFinished`, each
    /// `respond_dialog` in one `DialogAnswered`, by the time every deadline has passed.
    #[test]
    fn every_command_ends_in_exactly_one_outcome((bridge, ops) in ops()) {
        Driver::run(&ops, only(|c| c.outcomes = true), bridge);
    }

    /// SPEC §9: at most 30 children, parents listed or the top, no OOPIF deeper than 2,
    /// breadth-first in knowledge order, `truncated` exact.
    #[test]
    fn frame_tree_follows_the_rules_of_section_9((bridge, ops) in ops()) {
        Driver::run(&ops, only(|c| c.frame_tree = true), bridge);
    }

    /// SPEC §3: folding the emitted diffs gives `snapshot()`; the diff stream is well formed.
    #[test]
    fn folding_the_diffs_gives_the_snapshot((bridge, ops) in ops()) {
        Driver::run(&ops, only(|c| c.mirror = true), bridge);
    }

    /// SPEC §6.5, fact 12: each paused request (bridge, forged or other) is answered on
    /// the session it paused on, once (again only after a failed answer), and at least
    /// once unless its session, renderer or connection went first.
    #[test]
    fn each_paused_request_is_answered_once_on_its_own_session((bridge, ops) in ops()) {
        Driver::run(&ops, only(|c| c.fetch = true), bridge);
    }

    /// SPEC §3: the same inputs at the same times give the same outputs, byte for byte.
    #[test]
    fn same_inputs_give_the_same_outputs((bridge, ops) in ops()) {
        let first = Driver::run(&ops, only(|c| c.log = true), bridge).log;
        let second = Driver::run(&ops, only(|c| c.log = true), bridge).log;
        prop_assert!(first.len() > 1);
        prop_assert_eq!(first, second);
    }
}

/// Every check at once on a hand-written ordering that touches each rule, so a broken
/// driver (one that checks nothing) shows up here as well as in the generated cases.
#[test]
fn a_scripted_tab_passes_every_check() {
    use Op::*;
    let realistic = |command| Reply {
        command,
        kind: ReplyKind::Realistic,
        with_session: true,
    };
    let ops = vec![
        realistic(0),
        realistic(0),
        realistic(0),
        realistic(0),
        FrameAttached {
            parent: 0,
            navigate: true,
        },
        FrameSwapped {
            frame: 0,
            detach_first: false,
            waiting: true,
        },
        FrameAttached {
            parent: 1,
            navigate: true,
        },
        FrameSwapped {
            frame: 1,
            detach_first: true,
            waiting: true,
        },
        WorkerAttached {
            session: 1,
            service: false,
        },
        WorkerAttached {
            session: 0,
            service: true,
        },
        DialogOpening {
            frame: 2,
            kind: 1,
            keep_old: false,
        },
        Command {
            frame: 0,
            top: true,
            method: 0,
            timeout: 1,
            tab: 0,
        },
        DialogOpening {
            frame: 0,
            kind: 2,
            keep_old: false,
        },
        RespondDialog {
            dialog: 0,
            by_id: false,
            accept: true,
            text: true,
            tab: 0,
        },
        realistic(200),
        FrameNavigated {
            frame: 0,
            within_document: false,
        },
        Advance { step: 7 },
    ];
    let d = Driver::run(&ops, Checks::ALL, false);
    let sent = |m: &str| {
        d.log
            .iter()
            .filter(|l| l.starts_with("> ") && l.contains(m))
            .count()
    };
    // The scenario really reached the rules the properties check.
    assert_eq!(sent("Runtime.runIfWaitingForDebugger"), 4);
    assert!(sent("Page.handleJavaScriptDialog") >= 1);
    assert!(d.log.iter().any(|l| l.contains("CommandFinished")));
    assert!(d.log.iter().any(|l| l.contains("DialogAnswered")));
}

/// Every check at once on a hand-written ordering with several tabs (SPEC §16): a
/// same-site popup that can reach its opener attaches paused, commands go into each tab,
/// the popup's dialog blocks both, the opener gets one too, the popup's is answered on its
/// session, the popup closes with a command in flight, then the embedder selects, opens
/// and closes tabs.
#[test]
fn a_scripted_browser_passes_every_check() {
    use Op::*;
    let realistic = |command| Reply {
        command,
        kind: ReplyKind::Realistic,
        with_session: true,
    };
    // `tab` picks: even, the current tab; 1, the first listed; 3, the second.
    let evaluate_in = |tab| Command {
        frame: 0,
        top: true,
        method: 0,
        timeout: 2,
        tab,
    };
    let mut ops = vec![realistic(0); 7];
    ops.extend([
        PopupOpened {
            opener: 0,
            cross_site: false,
            access: true,
            waiting: true,
        },
        evaluate_in(3),
        evaluate_in(1),
        DialogOpening {
            frame: 0,
            kind: 0,
            keep_old: false,
        },
        Focus { tab: 0 },
        DialogOpening {
            frame: 0,
            kind: 1,
            keep_old: false,
        },
        RespondDialog {
            dialog: 0,
            by_id: true,
            accept: true,
            text: false,
            tab: 3,
        },
        realistic(240),
        TabClosed { tab: 3, how: 0 },
        SelectTab { tab: 1 },
        NewTab { url: 1 },
        realistic(240),
        CloseTab {
            tab: 3,
            force: false,
        },
        realistic(240),
        Advance { step: 7 },
    ]);
    let d = Driver::run(&ops, Checks::ALL, false);
    let has = |m: &str| d.log.iter().any(|l| l.contains(m));
    let popup_sent: Vec<&String> = d
        .log
        .iter()
        .filter(|l| l.starts_with("> ") && l.contains(r#""sessionId":"SQ1-1""#))
        .collect();
    let at = |m: &str| popup_sent.iter().position(|l| l.contains(m));
    let resumes = popup_sent
        .iter()
        .filter(|l| l.contains("Runtime.runIfWaitingForDebugger"))
        .count();
    assert_eq!(resumes, 1, "fact 24: resumed once: {popup_sent:#?}");
    for m in ["Page.enable", "Runtime.enable", "Target.setAutoAttach"] {
        assert!(
            at(m) < at("Runtime.runIfWaitingForDebugger"),
            "fact 24: {m} before the resume: {popup_sent:#?}"
        );
    }
    for m in [
        "# a tab with its opener",
        "# blocked by another tab's dialog",
        "# a closed tab's calls ended with it",
        "Diff(TabClosed { tab_id: \"POP1\" })",
        "Page.bringToFront",
        "Target.createTarget",
        "CurrentTab { tab_id: Some(\"POP2\") }",
        "\"method\":\"Page.close\"",
        "Diff(TabClosed { tab_id: \"POP2\" })",
    ] {
        assert!(has(m), "the scenario never reached {m}");
    }
    assert_eq!(d.sup.current_tab(), Some(model::TOP));
}

/// Every check at once on browser contexts (SPEC §19): a context created, a tab opened in
/// it (and one in an unknown context refused), a dialog in it, then the context disposed
/// and answered without the events Chromium sends first (so only the reply can take its
/// tab), and again realistically for a second context: nothing of either is left.
#[test]
fn a_scripted_context_passes_every_check() {
    use Op::*;
    let reply = |kind| Reply {
        command: 240,
        kind,
        with_session: true,
    };
    let ops = vec![
        reply(ReplyKind::Realistic),
        reply(ReplyKind::Realistic),
        reply(ReplyKind::Realistic),
        NewContext,
        NewTabInContext { context: 1 },
        reply(ReplyKind::Realistic),
        NewTabInContext { context: 250 },
        Focus { tab: 1 },
        DialogOpening {
            frame: 0,
            kind: 0,
            keep_old: false,
        },
        DisposeContext { context: 1 },
        reply(ReplyKind::Ok),
        NewContext,
        NewTabInContext { context: 1 },
        reply(ReplyKind::Realistic),
        DisposeContext { context: 1 },
        reply(ReplyKind::Realistic),
        Advance { step: 7 },
    ];
    let d = Driver::run(&ops, Checks::ALL, false);
    let has = |m: &str| d.log.iter().any(|l| l.contains(m));
    for m in [
        "browser_context_id: Some(\"CTX0\")",
        "browser_context_id: Some(\"CTX1\")",
        "NoSuchContext",
        "\"method\":\"Target.disposeBrowserContext\"",
    ] {
        assert!(has(m), "the scenario never reached {m}: {:#?}", d.log);
    }
    let tabs = d.sup.tabs();
    assert!(
        tabs.iter().all(|t| t.browser_context_id.is_none()),
        "{tabs:?}"
    );
    assert!(d.sup.contexts().is_empty());
    assert!(d.sup.snapshot().pending_dialogs.is_empty());
}

/// The generator reaches every rule the properties are about: a generator that stopped
/// producing, say, waiting iframes or wedged dialogs would make those properties pass
/// vacuously. Samples 1 500 sequences from a fixed seed and looks for each in the outputs
/// (600 stopped reaching a tab in a created browser context and a wedged dialog once file
/// choosers, downloads and sign-ins joined the operations).
#[test]
fn the_generator_reaches_every_rule() {
    const SAMPLES: usize = 1500;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    let rng = TestRng::deterministic_rng(RngAlgorithm::XorShift);
    let mut runner = TestRunner::new_with_rng(ProptestConfig::default(), rng);
    let wanted = [
        "> {\"id\":", // anything transmitted
        "Runtime.runIfWaitingForDebugger\",\"params\":{},\"sessionId\":\"S",
        "Page.handleJavaScriptDialog",
        "CommandBlocked",
        "CommandFinished { id: CommandId(",
        "DialogAnswered { id: CommandId(",
        "outcome: Ok(ClosedDialog",
        "Timeout {",
        "Disconnected {",
        "SessionGone {",
        "TooManyInFlight",
        "session cap",
        "closed_by: Agent",
        "closed_by: AutoPolicy",
        "closed_by: Watchdog",
        "closed_by: Remote",
        "Wedged",
        // A close that contradicts the answer in flight (Chromium closing it itself).
        "ClosedByBrowser",
        "state: Blocked",
        "state: Crashed",
        "FrameRemoved",
        "is_oopif: true",
        "UnknownSession",
        "Malformed",
        "Fetch.fulfillRequest",
        "Fetch.continueRequest",
        "forge a dialog",
        // Several tabs (SPEC §16).
        "# a tab with its opener",
        // A paused popup, set up then resumed on its own session.
        "Runtime.runIfWaitingForDebugger\",\"params\":{},\"sessionId\":\"SQ",
        "CurrentTab { tab_id: Some(\"POP",
        "TabUpdated {",
        "TabClosed {",
        "TabCapReached",
        "# a closed tab's calls ended with it",
        "# blocked by another tab's dialog",
        "tab_id: Some(\"POP", // a popup's dialog, frames, commands
        "# a command into another tab than the current",
        "Target.createTarget",
        "\"method\":\"Page.close\"",
        "Target.closeTarget",
        "Page.bringToFront",
        "NoSuchTab",
        "Crashed { tab_id",
        "Inspector.detached",
        "Target.targetDestroyed",
        // Browser contexts.
        "browser_context_id: Some(\"CTX",
        "Target.disposeBrowserContext",
        "NoSuchContext",
    ];
    let mut seen = vec![false; wanted.len()];
    let mut truncated = false;
    for _ in 0..SAMPLES {
        let (bridge, ops) = ops().new_tree(&mut runner).unwrap().current();
        let d = Driver::run(&ops, Checks::ALL, bridge);
        for (i, w) in wanted.iter().enumerate() {
            seen[i] |= d.log.iter().any(|l| l.contains(w));
        }
        truncated |= d.sup.snapshot().frame_tree.truncated;
    }
    let missing: Vec<&str> = (0..wanted.len())
        .filter(|&i| !seen[i])
        .map(|i| wanted[i])
        .collect();
    assert!(missing.is_empty(), "never reached: {missing:?}");
    assert!(truncated, "never a truncated frame_tree");
}

/// Found by `each_paused_request_is_answered_once_on_its_own_session` (minimal case).
/// SPEC §6.5 and `on_request_paused`'s own contract: each paused request gets exactly one
/// answer. A second `respond_dialog` while the first bridge answer awaits its reply sent
/// a second `Fetch.fulfillRequest` for the same request (fixed: it is refused now).
#[test]
fn a_bridge_request_is_fulfilled_once_when_answered_twice() {
    let config = {
        let mut config = cdp_supervisor::Config::default();
        config.bridge = Some(cdp_supervisor::BridgeConfig::new("tok"));
        config
    };
    let mut h = harness::Harness::attached(config);
    h.event(
        harness::PS,
        "Fetch.requestPaused",
        r#"{"requestId":"R1","request":{"url":"http://bridge.invalid/?t=tok&k=confirm&m=Sure%3F","method":"GET","headers":{}},"frameId":"PAGE"}"#,
    );
    assert_eq!(h.snapshot().pending_dialogs.len(), 1);
    let first = h.sup.respond_dialog(
        h.now,
        cdp_supervisor::Answer::new(cdp_supervisor::DialogAction::Dismiss, None),
        None,
    );
    h.drain();
    let second = h.sup.respond_dialog(
        h.now,
        cdp_supervisor::Answer::new(cdp_supervisor::DialogAction::Accept, None),
        None,
    );
    h.drain();
    assert!(first.is_ok());
    let fulfills: Vec<&str> = h
        .sent
        .iter()
        .filter(|c| c.method == "Fetch.fulfillRequest" && c.json.contains(r#""requestId":"R1""#))
        .map(|c| c.json.as_str())
        .collect();
    assert_eq!(
        fulfills.len(),
        1,
        "second respond_dialog -> {second:?}: {fulfills:#?}"
    );
}
