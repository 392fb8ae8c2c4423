//! Where an agent may go (the rules' "Where an agent may go"): a navigation the URL policy
//! refuses is answered `url_refused` before anything is sent; a `javascript:` navigation
//! (allowed by the policy) is reported for what it did: the dialog it opened named at
//! once, never `net::ERR_ABORTED`.

mod harness;

use cdp_supervisor::act::{ActError, ActOptions, ActResult, Action};
use cdp_supervisor::url_policy::UrlPolicy;
use cdp_supervisor::{CommandId, Config, Event};
use harness::{Harness, PAGE};

fn result(h: &Harness, id: CommandId) -> Option<Result<ActResult, ActError>> {
    h.events.iter().find_map(|e| match e {
        Event::ActFinished { id: i, outcome } if *i == id => Some(outcome.clone().map(|r| *r)),
        _ => None,
    })
}

fn navigate(h: &mut Harness, url: &str) -> Result<CommandId, ActError> {
    let r = h.sup.act(
        h.now,
        Action::Navigate { url: url.into() },
        ActOptions::default(),
    );
    h.drain();
    r
}

/// What Chromium answers a `javascript:` navigation (recorded: `e2e/raw-doors.jsonl`).
const ABORTED: &str = r#"{"frameId":"PAGE","errorText":"net::ERR_ABORTED"}"#;

#[test]
fn a_javascript_navigation_names_its_dialog_at_once() {
    let mut h = Harness::attached(Config::default());
    let id = navigate(&mut h, "javascript:alert(1)").unwrap();
    let nav = h.last_sent("Page.navigate").id;
    h.reply(nav, ABORTED);
    assert!(
        result(&h, id).is_none(),
        "not a failure: it waits to see what the script did"
    );
    h.dialog_opening(PAGE, "alert", "1");
    let r = result(&h, id)
        .expect("ended at once")
        .expect("not an error");
    assert_eq!(r.ended_by_dialog.as_deref(), Some("d-1"));
    assert_eq!(r.pending_dialogs.len(), 1);
    assert_eq!(r.pending_dialogs[0].message, "1");
    assert!(!r.navigated, "a javascript: URL commits nothing");
}

#[test]
fn a_javascript_navigation_whose_dialog_comes_first_names_it_too() {
    let mut h = Harness::attached(Config::default());
    let id = navigate(&mut h, " JavaScript:alert(2)").unwrap();
    let nav = h.last_sent("Page.navigate").id;
    h.dialog_opening(PAGE, "alert", "2");
    h.reply(nav, ABORTED);
    let r = result(&h, id).expect("ended").expect("not an error");
    assert_eq!(r.ended_by_dialog.as_deref(), Some("d-1"));
}

#[test]
fn a_javascript_navigation_without_a_dialog_settles_without_an_error() {
    let mut h = Harness::attached(Config::default());
    let id = navigate(&mut h, "javascript:void(0)").unwrap();
    let nav = h.last_sent("Page.navigate").id;
    h.reply(nav, ABORTED);
    h.advance(0.6);
    if let Some(shot) = h.sent_with("Page.captureScreenshot").last().map(|c| c.id) {
        h.reply(shot, r#"{"data":"UklGRg=="}"#);
        let title = h.last_sent("Runtime.evaluate").id;
        h.reply(title, r#"{"result":{"type":"string","value":"T"}}"#);
    }
    let r = result(&h, id).expect("finished").expect("not an error");
    assert!(!r.navigated && r.pending_dialogs.is_empty());
}

#[test]
fn another_aborted_navigation_is_still_an_error() {
    let mut h = Harness::attached(Config::default());
    let id = navigate(&mut h, "http://a.test/download").unwrap();
    let nav = h.last_sent("Page.navigate").id;
    h.reply(nav, ABORTED);
    let e = result(&h, id).expect("finished").unwrap_err();
    assert!(e.to_string().contains("ERR_ABORTED"), "{e}");
}

fn agent() -> Harness {
    let mut config = Config::default();
    config.url_policy = UrlPolicy::agent();
    Harness::attached(config)
}

#[test]
fn the_agent_policy_refuses_doors_before_anything_is_sent() {
    let mut h = agent();
    h.sent.clear();
    for (url, flag) in [
        ("file:///etc/passwd", "--allow-file-access"),
        ("chrome://settings", "--allow-internal-urls"),
        (
            "devtools://devtools/bundled/inspector.html",
            "--allow-internal-urls",
        ),
        ("chrome-extension://x/y.html", "--allow-internal-urls"),
        ("javascript:alert(1)", "--allow-internal-urls"),
    ] {
        let e = navigate(&mut h, url).unwrap_err();
        assert_eq!(e.code(), "url_refused", "{url}");
        assert!(e.to_string().contains(flag), "{url}: {e}");
        let e = h.sup.new_tab(h.now, url).unwrap_err();
        assert_eq!(e.code(), "url_refused", "{url}");
    }
    h.drain();
    assert!(h.sent.is_empty(), "{:?}", h.sent);
    // The web stays open.
    navigate(&mut h, "https://example.com/").unwrap();
    assert!(h.last_sent("Page.navigate").json.contains("example.com"));
}

#[test]
fn origins_restrict_http_navigations() {
    let mut config = Config::default();
    let mut policy = UrlPolicy::agent();
    policy.set_allowed_origins("http://a.test");
    policy.set_blocked_origins("http://a.test:8080");
    config.url_policy = policy;
    let mut h = Harness::attached(config);
    assert!(navigate(&mut h, "http://a.test/x").is_ok());
    let e = navigate(&mut h, "http://b.test/").unwrap_err();
    assert!(e.to_string().contains("--allowed-origins"), "{e}");
    let e = navigate(&mut h, "http://a.test:8080/").unwrap_err();
    assert!(e.to_string().contains("--blocked-origins"), "{e}");
}

fn warnings(h: &Harness) -> Vec<cdp_supervisor::Warning> {
    h.events
        .iter()
        .filter_map(|e| match e {
            Event::Warning(w) => Some(w.clone()),
            _ => None,
        })
        .collect()
}

/// Blocks `http://blocked.test` (and shuts every door, as an agent's server does).
fn guarded() -> Harness {
    let mut config = Config::default();
    let mut policy = UrlPolicy::agent();
    policy.set_blocked_origins("blocked.test");
    config.url_policy = policy;
    Harness::attached(config)
}

#[test]
fn a_link_to_a_blocked_origin_is_stopped_before_it_commits() {
    let mut h = guarded();
    let id = h
        .sup
        .act(
            h.now,
            Action::Click {
                target: cdp_supervisor::act::Target::Point { x: 5.0, y: 5.0 },
            },
            ActOptions::default(),
        )
        .unwrap();
    h.drain();
    // As recorded (e2e/raw-doors.jsonl, scenario 5): requested, then started.
    h.event(harness::PS, "Page.frameRequestedNavigation",
        r#"{"frameId":"PAGE","reason":"anchorClick","url":"http://blocked.test/x?k=SECRET","disposition":"currentTab"}"#);
    let stop = h.last_sent("Page.stopLoading");
    assert_eq!(stop.session_id.as_deref(), Some(harness::PS));
    let w = warnings(&h);
    assert!(w.iter().any(|w| w.code() == "navigation_refused"), "{w:?}");
    assert!(!w[0].to_string().contains("SECRET"), "{}", w[0]);
    h.event(harness::PS, "Page.frameStartedNavigating",
        r#"{"frameId":"PAGE","url":"http://blocked.test/x","loaderId":"L9","navigationType":"differentDocument"}"#);
    // The action does not wait for a load that will not come: it settles on quiet.
    for c in h
        .sent_with("Input.dispatchMouseEvent")
        .iter()
        .map(|c| c.id)
        .collect::<Vec<_>>()
    {
        h.reply(c, "{}");
    }
    h.advance(0.6);
    if let Some(shot) = h.sent_with("Page.captureScreenshot").last().map(|c| c.id) {
        h.reply(shot, r#"{"data":"UklGRg=="}"#);
        let title = h.last_sent("Runtime.evaluate").id;
        h.reply(title, r#"{"result":{"type":"string","value":"T"}}"#);
    }
    let r = result(&h, id).expect("settled").unwrap();
    assert!(r.settled, "{r:?}");
    let why = r.navigation_refused.expect("the result names the refusal");
    assert!(why.contains("--blocked-origins"), "{why}");
}

#[test]
fn an_allowed_link_and_an_iframe_navigation_are_left_alone() {
    let mut h = guarded();
    h.event(harness::PS, "Page.frameRequestedNavigation",
        r#"{"frameId":"PAGE","reason":"anchorClick","url":"http://fine.test/","disposition":"currentTab"}"#);
    h.event(harness::PS, "Page.frameStartedNavigating",
        r#"{"frameId":"CHILD","url":"http://blocked.test/","loaderId":"L1","navigationType":"differentDocument"}"#);
    assert!(h.sent_with("Page.stopLoading").is_empty());
    assert!(warnings(&h).is_empty());
}

#[test]
fn a_popup_to_a_shut_door_is_closed_before_it_shows_anything() {
    let mut h = guarded();
    // A popup of PAGE (fact 23: attached at browser level, paused, url ''), then its first
    // navigation on its own session.
    h.recv(r#"{"method":"Target.attachedToTarget","params":{"sessionId":"S-POP","targetInfo":{"targetId":"POP","type":"page","url":"","title":"","canAccessOpener":false,"openerId":"PAGE"},"waitingForDebugger":true}}"#);
    h.event("S-POP", "Page.frameStartedNavigating",
        r#"{"frameId":"POP","url":"http://blocked.test/","loaderId":"L1","navigationType":"differentDocument"}"#);
    let close = h.last_sent("Target.closeTarget");
    assert!(
        close.json.contains("POP") && close.session_id.is_none(),
        "{}",
        close.json
    );
    assert!(warnings(&h).iter().any(|w| matches!(w,
        cdp_supervisor::Warning::NavigationRefused { tab_closed: true, tab_id, .. } if tab_id == "POP")));
}

#[test]
fn the_library_default_guards_nothing() {
    let mut h = Harness::attached(Config::default());
    h.event(harness::PS, "Page.frameStartedNavigating",
        r#"{"frameId":"PAGE","url":"file:///etc/passwd","loaderId":"L1","navigationType":"differentDocument"}"#);
    assert!(h.sent_with("Page.stopLoading").is_empty());
}
