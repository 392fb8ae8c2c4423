//! Browser contexts (the manual's rules, browser contexts; Chromium's facts on them), on the
//! scripted harness with the message shapes of `tests/traces/e2e/tabs-contexts.jsonl`, and
//! that recording replayed.

mod harness;

use cdp_supervisor::{CommandError, Config, Diff, Event, TabInfo};
use harness::{replay_trace, Harness, PAGE};
use std::time::Duration;

const CTX: &str = "CTX-A";
const OTHER: &str = "CTX-B";
const TAB: &str = "TAB-A";
const TABS: &str = "S-TAB-A";
const POP: &str = "POP-A";
const POPS: &str = "S-POP-A";
const TAB_B: &str = "TAB-B";
const TABS_B: &str = "S-TAB-B";

/// Creates a context and answers it with `id`.
fn create(h: &mut Harness, id: &str) {
    let cmd = h.sup.create_context(h.now).unwrap();
    h.drain();
    h.reply(cmd.0, &format!(r#"{{"browserContextId":"{id}"}}"#));
}

/// A page of context `ctx` attached by the browser's auto-attach, paused, as recorded.
fn attached_in(h: &mut Harness, session: &str, target: &str, ctx: &str, opener: Option<&str>) {
    let opener = opener
        .map(|o| format!(r#","openerId":"{o}","canAccessOpener":true,"openerFrameId":"{o}""#))
        .unwrap_or(r#","canAccessOpener":false"#.into());
    h.recv(&format!(
        r#"{{"method":"Target.attachedToTarget","params":{{"sessionId":"{session}","targetInfo":{{"targetId":"{target}","type":"page","title":"","url":"","attached":true{opener},"browserContextId":"{ctx}"}},"waitingForDebugger":true}}}}"#
    ));
    let enable = h.last_sent("Page.enable").id;
    h.recv(&format!(
        r#"{{"id":{enable},"result":{{}},"sessionId":"{session}"}}"#
    ));
    h.frame_navigated(session, target, None, "http://127.0.0.1:8000/login");
}

/// Context A with a tab and its popup, context B with a tab.
fn two_contexts() -> Harness {
    let mut h = Harness::attached(Config::default());
    create(&mut h, CTX);
    create(&mut h, OTHER);
    let open = h
        .sup
        .new_tab_in_context(h.now, "http://127.0.0.1:8000/login", Some(CTX))
        .unwrap();
    h.drain();
    attached_in(&mut h, TABS, TAB, CTX, None);
    h.reply(open.0, &format!(r#"{{"targetId":"{TAB}"}}"#));
    attached_in(&mut h, POPS, POP, CTX, Some(TAB));
    let open = h
        .sup
        .new_tab_in_context(h.now, "http://127.0.0.1:8000/plain", Some(OTHER))
        .unwrap();
    h.drain();
    attached_in(&mut h, TABS_B, TAB_B, OTHER, None);
    h.reply(open.0, &format!(r#"{{"targetId":"{TAB_B}"}}"#));
    h
}

fn tab<'a>(tabs: &'a [TabInfo], id: &str) -> &'a TabInfo {
    tabs.iter()
        .find(|t| t.tab_id == id)
        .unwrap_or_else(|| panic!("{id} in {tabs:?}"))
}

/// The one outcome of command `id` (exactly one is reported).
fn once(h: &Harness, id: cdp_supervisor::CommandId) -> Result<String, CommandError> {
    let outcomes = h.finished(id);
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    outcomes.into_iter().next().unwrap()
}

fn closed(h: &Harness) -> Vec<String> {
    h.events
        .iter()
        .filter_map(|e| match e {
            Event::Diff(Diff::TabClosed { tab_id }) => Some(tab_id.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_context_is_created_at_browser_level_and_ends_with_the_connection() {
    let mut h = Harness::attached(Config::default());
    let cmd = h.sup.create_context(h.now).unwrap();
    h.drain();
    let sent = h.last_sent("Target.createBrowserContext").clone();
    assert_eq!(sent.session_id, None);
    assert!(
        sent.json.contains(r#""disposeOnDetach":true"#),
        "{}",
        sent.json
    );
    h.reply(cmd.0, r#"{"browserContextId":"C1"}"#);
    let outcome = once(&h, cmd);
    assert!(outcome.unwrap().contains("C1"));
    assert_eq!(h.sup.contexts(), ["C1"]);
    // Chromium disposes it with the connection (`disposeOnDetach`).
    h.sup.handle_disconnected(h.now);
    h.drain();
    assert!(h.sup.contexts().is_empty());
    let e = h.sup.new_tab_in_context(h.now, "about:blank", Some("C1"));
    assert_eq!(e.unwrap_err().code(), "no_such_context");
}

#[test]
fn a_current_tab_of_a_created_context_is_not_kept_for_the_reconnect() {
    let mut h = two_contexts();
    assert_eq!(
        h.sup.current_tab(),
        Some(TAB_B),
        "the last new tab is current"
    );
    h.sup.handle_disconnected(h.now);
    h.drain();
    // Chromium disposed both contexts with the connection: nothing is kept to re-attach.
    assert!(h.sup.tabs().is_empty(), "{:?}", h.sup.tabs());
    assert_eq!(h.sup.current_tab(), None);
    h.sup.handle_connected(h.now);
    h.drain();
    let get_targets = h.last_sent("Target.getTargets").id;
    h.reply(
        get_targets,
        &format!(
            r#"{{"targetInfos":[{{"targetId":"{PAGE}","type":"page","url":"about:blank"}}]}}"#
        ),
    );
    let attach = h.last_sent("Target.attachToTarget");
    assert!(
        attach.json.contains(PAGE),
        "the first page is attached: {}",
        attach.json
    );
    assert_eq!(h.sup.current_tab(), Some(PAGE));
}

#[test]
fn a_current_tab_of_the_default_context_is_kept_for_the_reconnect() {
    let mut h = two_contexts();
    h.sup.select_tab(h.now, PAGE).unwrap();
    h.sup.handle_disconnected(h.now);
    h.drain();
    let ids: Vec<String> = h.sup.tabs().into_iter().map(|t| t.tab_id).collect();
    assert_eq!(ids, [PAGE]);
    assert_eq!(h.sup.current_tab(), Some(PAGE));
}

#[test]
fn tabs_and_their_popups_carry_their_context() {
    let h = two_contexts();
    let tabs = h.snapshot().tabs;
    let create = h.sent_with("Target.createTarget");
    assert!(create[0]
        .json
        .contains(&format!(r#""browserContextId":"{CTX}""#)));
    assert_eq!(tab(&tabs, TAB).browser_context_id.as_deref(), Some(CTX));
    assert_eq!(tab(&tabs, POP).browser_context_id.as_deref(), Some(CTX));
    assert_eq!(tab(&tabs, POP).opener_tab_id.as_deref(), Some(TAB));
    assert_eq!(tab(&tabs, TAB_B).browser_context_id.as_deref(), Some(OTHER));
    // Scripted without a context id, the first page has none.
    assert_eq!(tab(&tabs, PAGE).browser_context_id, None);
    let opened = h.events.iter().any(|e| {
        matches!(e, Event::Diff(Diff::TabOpened { tab })
            if tab.tab_id == POP && tab.browser_context_id.as_deref() == Some(CTX))
    });
    assert!(opened, "the tab_opened diff names the context");
    // Each new tab was set up before it was resumed, like any other.
    assert_eq!(
        h.sent_on(POPS).last(),
        Some(&"Runtime.runIfWaitingForDebugger")
    );
}

#[test]
fn a_target_info_change_keeps_the_context_current() {
    let mut h = Harness::attached(Config::default());
    h.recv(&format!(
        r#"{{"method":"Target.targetInfoChanged","params":{{"targetInfo":{{"targetId":"{PAGE}","type":"page","title":"","url":"http://a.test/","attached":true,"canAccessOpener":false,"browserContextId":"DEFAULT"}}}}}}"#
    ));
    assert_eq!(
        h.snapshot().tabs[0].browser_context_id.as_deref(),
        Some("DEFAULT")
    );
    let updated = h.events.iter().any(|e| {
        matches!(e, Event::Diff(Diff::TabUpdated { tab })
            if tab.browser_context_id.as_deref() == Some("DEFAULT"))
    });
    assert!(updated);
    // A context a tab is in may be named, though this supervisor did not create it.
    assert!(h
        .sup
        .new_tab_in_context(h.now, "about:blank", Some("DEFAULT"))
        .is_ok());
}

#[test]
fn disposing_a_context_with_a_dialog_open_leaves_nothing_of_it() {
    let mut h = two_contexts();
    h.event(TABS, "Page.javascriptDialogOpening", &format!(
        r#"{{"url":"http://127.0.0.1:8000/login","frameId":"{TAB}","message":"in A","type":"alert","hasBrowserHandler":false,"defaultPrompt":""}}"#
    ));
    let pending = h.snapshot().pending_dialogs;
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].tab_id.as_deref(), Some(TAB));
    // B is not blocked by A's dialog.
    let b = h
        .sup
        .command_in(
            h.now,
            Some(TAB_B),
            None,
            "Runtime.evaluate",
            None,
            Duration::from_secs(5),
        )
        .unwrap();
    h.drain();
    assert_eq!(
        h.last_sent("Runtime.evaluate").session_id.as_deref(),
        Some(TABS_B)
    );
    assert!(!h
        .events
        .iter()
        .any(|e| matches!(e, Event::CommandBlocked { id, .. } if *id == b)));

    let dispose = h.sup.dispose_context(h.now, CTX).unwrap();
    h.drain();
    let sent = h.last_sent("Target.disposeBrowserContext").clone();
    assert_eq!(sent.session_id, None);
    // What Chromium sent, in its order (the recording): the dialog closes, the sessions
    // detach, the targets go, then the reply.
    h.event(
        TABS,
        "Page.javascriptDialogClosed",
        &format!(r#"{{"frameId":"{TAB}","result":false,"userInput":""}}"#),
    );
    h.event(
        TABS,
        "Inspector.detached",
        r#"{"reason":"Render process gone."}"#,
    );
    h.event(
        POPS,
        "Inspector.detached",
        r#"{"reason":"Render process gone."}"#,
    );
    for (session, target) in [(POPS, POP), (TABS, TAB)] {
        let _ = h.recv_any(&format!(
            r#"{{"method":"Target.detachedFromTarget","params":{{"sessionId":"{session}","targetId":"{target}"}}}}"#
        ));
        h.recv(&format!(
            r#"{{"method":"Target.targetDestroyed","params":{{"targetId":"{target}"}}}}"#
        ));
    }
    h.reply(sent.id, "{}");
    assert!(once(&h, dispose).is_ok());
    let s = h.snapshot();
    let ids: Vec<&str> = s.tabs.iter().map(|t| t.tab_id.as_str()).collect();
    assert_eq!(ids, [PAGE, TAB_B], "A's tabs are gone, B's stays");
    assert!(s.pending_dialogs.is_empty());
    assert!(!s.tab_frame_trees.contains_key(TAB) && !s.tab_frame_trees.contains_key(POP));
    let gone = closed(&h);
    assert!(
        gone.contains(&TAB.to_owned()) && gone.contains(&POP.to_owned()),
        "{gone:?}"
    );
    assert_eq!(h.sup.contexts(), [OTHER]);
    // Nothing routes to A's sessions any more; B still answers.
    let late = h.recv_any(&format!(
        r#"{{"method":"Runtime.consoleAPICalled","params":{{"type":"error","args":[],"executionContextId":1,"timestamp":1}},"sessionId":"{TABS}"}}"#
    ));
    assert!(
        late.is_err(),
        "a late event of a gone session is refused, not routed"
    );
    assert!(h
        .sup
        .command_in(
            h.now,
            Some(TAB_B),
            None,
            "Runtime.evaluate",
            None,
            Duration::from_secs(5)
        )
        .is_ok());
    assert_eq!(
        h.sup.dispose_context(h.now, CTX).unwrap_err(),
        CommandError::NoSuchContext {
            context_id: CTX.into()
        }
    );
    let e = h
        .sup
        .new_tab_in_context(h.now, "about:blank", Some(CTX))
        .unwrap_err();
    assert_eq!(e.code(), "no_such_context");
    assert!(e.to_string().contains(CTX), "{e}");
}

#[test]
fn a_reply_before_the_targets_go_still_takes_every_tab_of_the_context() {
    let mut h = two_contexts();
    let dispose = h.sup.dispose_context(h.now, CTX).unwrap();
    h.drain();
    h.reply(dispose.0, "{}");
    let ids: Vec<String> = h.snapshot().tabs.into_iter().map(|t| t.tab_id).collect();
    assert_eq!(ids, [PAGE, TAB_B]);
    // The events that follow name what is gone: ignored.
    let _ = h.recv_any(&format!(
        r#"{{"method":"Target.detachedFromTarget","params":{{"sessionId":"{TABS}","targetId":"{TAB}"}}}}"#
    ));
    h.recv(&format!(
        r#"{{"method":"Target.targetDestroyed","params":{{"targetId":"{TAB}"}}}}"#
    ));
    assert_eq!(h.snapshot().tabs.len(), 2);
}

#[test]
fn a_context_holding_the_last_tab_takes_it_too() {
    let mut h = Harness::attached(Config::default());
    create(&mut h, CTX);
    attached_in(&mut h, TABS, TAB, CTX, None);
    // The default tab goes: the context's tab is the last one.
    h.recv(&format!(
        r#"{{"method":"Target.targetDestroyed","params":{{"targetId":"{PAGE}"}}}}"#
    ));
    let dispose = h.sup.dispose_context(h.now, CTX).unwrap();
    h.drain();
    h.recv(&format!(
        r#"{{"method":"Target.targetDestroyed","params":{{"targetId":"{TAB}"}}}}"#
    ));
    h.reply(dispose.0, "{}");
    let s = h.snapshot();
    assert!(s.tabs.is_empty(), "{:?}", s.tabs);
    assert_eq!(h.sup.current_tab(), None);
}

#[test]
fn a_context_chromium_no_longer_knows_is_forgotten_and_others_stay() {
    let mut h = Harness::attached(Config::default());
    create(&mut h, CTX);
    let dispose = h.sup.dispose_context(h.now, CTX).unwrap();
    h.drain();
    let message = format!("Failed to find context with id {CTX}");
    h.reply_error(dispose.0, -32000, &message);
    let e = once(&h, dispose).unwrap_err();
    assert_eq!(e.code(), "cdp_error");
    assert!(h.sup.contexts().is_empty());
    // Any other refusal (the default context) keeps what is there.
    create(&mut h, OTHER);
    let dispose = h.sup.dispose_context(h.now, OTHER).unwrap();
    h.drain();
    h.reply_error(dispose.0, -32000, "Cannot dispose default browser context.");
    assert_eq!(h.sup.contexts(), [OTHER]);
    // A dispose that timed out changes nothing either.
    let dispose = h.sup.dispose_context(h.now, OTHER).unwrap();
    h.drain();
    h.advance(60.0);
    assert_eq!(once(&h, dispose).unwrap_err().code(), "timeout");
    assert_eq!(h.sup.contexts(), [OTHER]);
}

#[test]
fn contexts_are_bounded() {
    let mut h = Harness::attached(Config::default());
    let limit = cdp_supervisor::limits::MAX_BROWSER_CONTEXTS;
    // Creations in flight count.
    let first = h.sup.create_context(h.now).unwrap();
    for i in 1..limit {
        create(&mut h, &format!("C{i}"));
    }
    let e = h.sup.create_context(h.now).unwrap_err();
    assert_eq!(e, CommandError::TooManyContexts { limit });
    assert_eq!(e.code(), "too_many_contexts");
    h.drain();
    h.reply(first.0, r#"{"browserContextId":"C0"}"#);
    assert_eq!(h.sup.contexts().len(), limit);
    let dispose = h.sup.dispose_context(h.now, "C0").unwrap();
    h.drain();
    h.reply(dispose.0, "{}");
    assert!(h.sup.create_context(h.now).is_ok());
}

#[test]
fn a_browser_command_goes_on_no_session_and_is_answered_once() {
    let mut h = Harness::attached(Config::default());
    let raw = serde_json::value::RawValue::from_string("[1]".into()).unwrap();
    let e = h
        .sup
        .browser_command(
            h.now,
            "Target.getBrowserContexts",
            Some(&raw),
            Duration::from_secs(1),
        )
        .unwrap_err();
    assert_eq!(e.code(), "bad_request");
    let id = h
        .sup
        .browser_command(
            h.now,
            "Target.getBrowserContexts",
            None,
            Duration::from_secs(1),
        )
        .unwrap();
    h.drain();
    let sent = h.last_sent("Target.getBrowserContexts").clone();
    assert_eq!((sent.id, sent.session_id), (id.0, None));
    h.reply(
        id.0,
        r#"{"browserContextIds":["B"],"defaultBrowserContextId":"D"}"#,
    );
    assert!(once(&h, id).unwrap().contains(r#""B""#));
    // A second reply to it is refused as unknown.
    assert!(h
        .recv_any(&format!(r#"{{"id":{},"result":{{}}}}"#, id.0))
        .is_err());
}

#[test]
fn the_recorded_contexts_replay_to_their_tabs_and_leave_none_of_the_disposed() {
    let run = replay_trace("e2e/tabs-contexts", |_, _, _| {});
    let opened: Vec<TabInfo> = run
        .diffs()
        .filter_map(|d| match d {
            Diff::TabOpened { tab } => Some(tab.clone()),
            _ => None,
        })
        .collect();
    // The first page, A's tab, B's tab, A's popup, the second connection's tab.
    assert!(opened.len() >= 4, "{opened:?}");
    assert!(
        opened.iter().all(|t| t.browser_context_id.is_some()),
        "{opened:?}"
    );
    let popup = opened
        .iter()
        .find(|t| t.opener_tab_id.is_some())
        .expect("the popup");
    let opener = opened
        .iter()
        .find(|t| Some(&t.tab_id) == popup.opener_tab_id.as_ref())
        .expect("its opener");
    assert_eq!(popup.browser_context_id, opener.browser_context_id);
    // A's alert was pending with A's tab, and closed when A was disposed.
    let alert = run.diffs().find_map(|d| match d {
        Diff::DialogOpened { dialog } if dialog.message == "in A" => dialog.tab_id.clone(),
        _ => None,
    });
    assert_eq!(alert.as_deref(), Some(opener.tab_id.as_str()));
    assert!(run.snapshot.pending_dialogs.is_empty());
    // A's tabs closed with the dispose (t 13.2 s of the recording) while B's tab was
    // still open (B is disposed at the end).
    let a = opener.browser_context_id.clone();
    let b = opened
        .iter()
        .find(|t| {
            t.browser_context_id.is_some()
                && t.browser_context_id != a
                && t.url.contains("/plain")
                && t.opener_tab_id.is_none()
        })
        .expect("B's tab");
    let closed_at = |id: &str| {
        run.events.iter().find_map(|(t, e)| match e {
            Event::Diff(Diff::TabClosed { tab_id }) if tab_id == id => Some(*t),
            _ => None,
        })
    };
    let b_closed = closed_at(&b.tab_id).unwrap_or(f64::INFINITY);
    for t in opened.iter().filter(|t| t.browser_context_id == a) {
        let at = closed_at(&t.tab_id).unwrap_or_else(|| panic!("{} of A closed", t.tab_id));
        assert!(
            at < b_closed,
            "{} closed at {at}, B's tab at {b_closed}",
            t.tab_id
        );
    }
}

#[test]
fn a_created_context_gets_the_downloads_and_permissions_of_the_default_one() {
    let mut config = Config::default();
    config.downloads = Some(cdp_supervisor::downloads::DownloadConfig::new(
        "/tmp/downloads".to_owned(),
    ));
    config.permissions = Some(cdp_supervisor::permissions::PermissionConfig::grant(vec![
        "geolocation".to_owned(),
    ]));
    let mut h = Harness::attached(config);
    // At connect: the default context's, with no context named.
    let downloads = h.sent_with("Browser.setDownloadBehavior");
    assert_eq!(downloads.len(), 1);
    assert!(
        !downloads[0].json.contains("browserContextId"),
        "{}",
        downloads[0].json
    );
    create(&mut h, CTX);
    h.drain();
    // Once Chromium made the context: the same again, naming it (the default context's
    // settings do not reach it), sent before any tab can be opened in it.
    for method in ["Browser.setDownloadBehavior", "Browser.grantPermissions"] {
        let sent = h.last_sent(method);
        assert_eq!(sent.session_id, None);
        assert!(
            sent.json
                .contains(&format!(r#""browserContextId":"{CTX}""#)),
            "{method}: {}",
            sent.json
        );
    }
    assert!(h
        .last_sent("Browser.grantPermissions")
        .json
        .contains("geolocation"));
}
