//! End-to-end: every tab of the browser over the blocking transport (issue 23): tabs that
//! a `target=_blank` link and `window.open` open are listed, become current and can be
//! snapshotted, evaluated and acted on; a popup's first-script `alert` is pending with its
//! tab; a dialog stalls the opener of a same-site popup and nothing of a cross-site one's
//! (Chromium facts: "Tabs that share a renderer"); a crashed tab answers `crashed` at once and
//! `recover` brings it back.

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor::act::{ActOptions, ActResult, Action, Target};
use cdp_supervisor::ax::AxOptions;
use cdp_supervisor::{Evaluation, TabInfo, TabState};
use cdp_supervisor_blocking::{Browser, Client, ClientError, CommandUpdate, DialogAction};
use serde_json::json;
use support::blocking::*;
use support::tabs_site::TabsSite;

struct TabsWorld {
    client: Client,
    site: TabsSite,
    _browser: Browser,
    /// The first tab, the opener of the others.
    opener: String,
}

/// A browser, the site, and the first tab on the opener page.
fn tabs_world(test: &str) -> Option<TabsWorld> {
    let browser = browser_or_skip(test)?;
    let site = TabsSite::start();
    let client = Client::connect(browser.ws_url(), options(test)).unwrap();
    wait_live(&client);
    let r = act(&client, Action::Navigate { url: site.url("/") });
    assert!(r.navigated && r.title == "opener", "{r:?}");
    let tabs = client.tabs().unwrap();
    assert_eq!(tabs.len(), 1, "{tabs:?}");
    assert!(tabs[0].current);
    let opener = tabs[0].tab_id.clone();
    Some(TabsWorld {
        client,
        site,
        _browser: browser,
        opener,
    })
}

fn act(client: &Client, action: Action) -> ActResult {
    client.act(action, ActOptions::default()).unwrap()
}

fn click((x, y): (f64, f64)) -> Action {
    Action::Click {
        target: Target::Point { x, y },
    }
}

fn eval_in(client: &Client, tab: Option<&str>, expression: &str) -> serde_json::Value {
    client
        .evaluate_in(tab, Evaluation::new(expression))
        .unwrap_or_else(|e| panic!("{expression} in {tab:?}: {e}"))
        .value
}

/// Waits until tab `tab_id` is live on a URL containing `url_part`, and returns it.
fn wait_tab(client: &Client, tab_id: &str, url_part: &str) -> TabInfo {
    let live = |t: &TabInfo| t.tab_id == tab_id && t.state == TabState::Live;
    let snap = client
        .wait_for(WAIT, &format!("tab {tab_id} live on {url_part}"), |s| {
            s.tabs.iter().any(|t| live(t) && t.url.contains(url_part))
        })
        .unwrap();
    snap.tabs.into_iter().find(live).unwrap()
}

/// Waits until tab `tab_id`'s document has loaded. Nothing in the snapshot says so, and
/// its first context may not be known yet (`no_context`): poll.
fn wait_loaded(client: &Client, tab_id: &str) {
    let end = Instant::now() + WAIT;
    loop {
        let state = client.evaluate_in(Some(tab_id), Evaluation::new("document.readyState"));
        if matches!(&state, Ok(v) if v.value == json!("complete")) {
            return;
        }
        assert!(Instant::now() < end, "tab {tab_id} never loaded: {state:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The tab an action opened: exactly one, current, listed with its opener.
fn opened_by(w: &TabsWorld, r: &ActResult, url_part: &str) -> String {
    assert_eq!(r.opened_tabs.len(), 1, "{r:?}");
    let tab = r.opened_tabs[0].clone();
    let info = wait_tab(&w.client, &tab, url_part);
    wait_loaded(&w.client, &tab);
    assert!(info.current, "{info:?}");
    assert_eq!(info.opener_tab_id.as_deref(), Some(w.opener.as_str()));
    let tabs = w.client.tabs().unwrap();
    let ids: Vec<&str> = tabs.iter().map(|t| t.tab_id.as_str()).collect();
    assert_eq!(ids, [w.opener.as_str(), tab.as_str()], "listed in order");
    tab
}

/// The popup is usable through calls that name no tab: its snapshot has its button, an
/// evaluate reads its title, a click by ref runs its handler; the opener answers calls
/// that name it. Then the popup is closed (`force` or not) and the opener is current again.
fn use_then_close(w: &TabsWorld, popup: &str, force: bool) {
    let c = &w.client;
    assert_eq!(eval_in(c, None, "document.title"), json!("popup"));
    let ax = c.ax_snapshot(AxOptions::default()).unwrap();
    let hit = ax
        .refs
        .iter()
        .find(|r| r.role == "button" && r.name == "hit");
    let hit = hit.unwrap_or_else(|| panic!("the popup's button: {}", ax.text));
    let r = act(
        c,
        Action::Click {
            target: Target::Ref(hit.id.clone()),
        },
    );
    assert!(r.console.iter().any(|l| l.text == "popup hit"), "{r:?}");
    assert_eq!(eval_in(c, Some(popup), "window.hits"), json!(1));
    // The opener works on, named by its id.
    assert_eq!(
        eval_in(c, Some(&w.opener), "document.title"),
        json!("opener")
    );
    let snap = c.snapshot().unwrap();
    assert_eq!(snap.page.as_ref().unwrap().target_id, popup);
    assert!(
        snap.tab_frame_trees.contains_key(&w.opener),
        "{:?}",
        snap.tab_frame_trees.keys()
    );

    let closed = c.close_tab(None, force).unwrap();
    assert!(closed.closed && closed.tab_id == popup, "{closed:?}");
    let tabs = c.tabs().unwrap();
    assert_eq!(tabs.len(), 1, "{tabs:?}");
    assert!(tabs[0].current && tabs[0].tab_id == w.opener, "{tabs:?}");
    assert_eq!(eval_in(c, None, "document.title"), json!("opener"));
    let e = c
        .evaluate_in(Some(popup), Evaluation::new("1"))
        .unwrap_err();
    assert_eq!(e.code(), "no_such_tab");
}

#[test]
fn link_and_window_open_tabs_are_listed_current_and_usable() {
    let Some(w) = tabs_world("tabs-open") else {
        return;
    };
    let r = act(&w.client, click(TabsSite::LINK));
    let blank = opened_by(&w, &r, "via=blank");
    use_then_close(&w, &blank, false);

    let r = act(&w.client, click(TabsSite::OPEN));
    let popup = opened_by(&w, &r, "via=open");
    use_then_close(&w, &popup, true);

    // The opener acted on after both: its counter counts.
    act(&w.client, click(TabsSite::COUNT));
    assert_eq!(eval_in(&w.client, None, "window.count"), json!(1));
    // Selecting a tab that is gone is an error with its code.
    let e = w.client.select_tab(&popup).unwrap_err();
    assert_eq!(e.code(), "no_such_tab");
}

/// A popup whose first inline script raises `alert`: the alert is pending with the
/// popup's `tab_id` (set up before its first script; Chromium facts: "A new tab waits for its
/// set-up"); while it shows, the opener
/// of this same-site `window.open` popup is reported blocked at once (Chromium facts: "Tabs that
/// share a renderer"); answered,
/// everything goes on.
#[test]
fn first_script_alert_of_a_same_site_popup_blocks_its_opener_until_answered() {
    let Some(w) = tabs_world("tabs-same-site-alert") else {
        return;
    };
    let c = &w.client;
    let mut options = ActOptions::default();
    options.screenshot = false;
    let t0 = Instant::now();
    let r = c.act(click(TabsSite::ALERT_POPUP), options).unwrap();
    let popup = r.opened_tabs.first().cloned().expect("the popup is named");
    let dialog = wait_dialog(c);
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    assert_eq!(dialog.tab_id.as_deref(), Some(popup.as_str()), "{dialog:?}");
    assert_eq!(
        dialog.message,
        format!("first script of {}", host_of(&w.site.url("/")))
    );
    // The click's settle wait in the opener is stalled by the popup's alert: it ended at
    // once, naming it (not at the end of its budget).
    assert_eq!(
        r.ended_by_dialog.as_deref(),
        Some(dialog.id.as_str()),
        "{r:?}"
    );
    assert_eq!(c.snapshot().unwrap().page.unwrap().target_id, popup);

    // The opener shares the popup's renderer: its calls are blocked, said at once.
    let t0 = Instant::now();
    let e = c
        .evaluate_in(Some(&w.opener), Evaluation::new("document.title"))
        .unwrap_err();
    assert_eq!(e.code(), "blocked", "{e}");
    let pending = c
        .start_command_in(
            Some(&w.opener),
            None,
            "Runtime.evaluate",
            json!({"expression": "2 + 2", "returnByValue": true}),
            WAIT,
        )
        .unwrap();
    assert_eq!(
        pending.next_update(WAIT).unwrap(),
        CommandUpdate::Blocked {
            dialog_id: dialog.id.clone()
        }
    );
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());

    // Answered in its own tab, the popup's script goes on, and so does the opener.
    let closed = c
        .respond_dialog_in(Some(&popup), DialogAction::Accept, None, None)
        .unwrap();
    assert_eq!(closed.tab_id.as_deref(), Some(popup.as_str()));
    assert!(pending.wait().unwrap().contains('4'));
    wait_tab(c, &popup, "/alert-popup");
    wait_loaded(c, &popup);
    assert_eq!(eval_in(c, None, "window.after"), json!("resumed"));
    assert_eq!(
        eval_in(c, Some(&w.opener), "document.title"),
        json!("opener")
    );
    let closed = c.close_tab(Some(&popup), false).unwrap();
    assert!(closed.closed, "{closed:?}");
    assert_eq!(c.tabs().unwrap().len(), 1);
}

/// A dialog in a cross-site popup (`localhost`) stalls nothing of its opener: evaluates,
/// commands and actions there answer while it is pending.
#[test]
fn a_dialog_in_a_cross_site_popup_blocks_nothing_in_its_opener() {
    let Some(w) = tabs_world("tabs-cross-site-alert") else {
        return;
    };
    let c = &w.client;
    let mut options = ActOptions::default();
    options.screenshot = false;
    let r = c.act(click(TabsSite::CROSS_POPUP), options).unwrap();
    let popup = r.opened_tabs.first().cloned().expect("the popup is named");
    let dialog = wait_dialog(c);
    assert_eq!(dialog.tab_id.as_deref(), Some(popup.as_str()), "{dialog:?}");
    assert!(
        dialog.message.starts_with("first script of localhost"),
        "{dialog:?}"
    );

    let t0 = Instant::now();
    assert_eq!(
        eval_in(c, Some(&w.opener), "document.title"),
        json!("opener")
    );
    let v = c
        .command_in(
            Some(&w.opener),
            None,
            "Runtime.evaluate",
            json!({"expression": "3", "returnByValue": true}),
            WAIT,
        )
        .unwrap();
    assert_eq!(v["result"]["value"], 3);
    let r = c
        .act_in(
            Some(&w.opener),
            click(TabsSite::COUNT),
            ActOptions::default(),
        )
        .unwrap();
    assert!(
        r.screenshot.is_some() && r.ended_by_dialog.is_none(),
        "{r:?}"
    );
    assert_eq!(eval_in(c, Some(&w.opener), "window.count"), json!(1));
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    assert!(
        c.snapshot().unwrap().pending_dialogs.len() == 1,
        "still pending"
    );

    // A dialog of another tab is not one of this tab's.
    let e = c
        .respond_dialog_in(Some(&w.opener), DialogAction::Dismiss, None, None)
        .unwrap_err();
    assert_eq!(e.code(), "no_dialog", "{e}");
    c.respond_dialog_in(Some(&popup), DialogAction::Dismiss, None, Some(&dialog.id))
        .unwrap();
    let closed = c.close_tab(Some(&popup), true).unwrap();
    assert!(closed.closed, "{closed:?}");
    assert_eq!(c.tabs().unwrap()[0].tab_id, w.opener);
}

/// `Page.crash` of a tab (`new_tab`, on the other site so it has a renderer of its own):
/// its state is `crashed`, its calls answer `crashed` at once, the other tab works on, and
/// `recover` reloads it.
#[test]
fn a_crashed_tab_answers_crashed_at_once_and_recover_brings_it_back() {
    let Some(w) = tabs_world("tabs-crash") else {
        return;
    };
    let c = &w.client;
    let tab = c.new_tab(&w.site.cross_url("/popup")).unwrap();
    assert!(tab.current && tab.opener_tab_id.is_none(), "{tab:?}");
    let id = tab.tab_id.clone();
    wait_tab(c, &id, "/popup");
    wait_loaded(c, &id);
    assert_eq!(eval_in(c, None, "document.title"), json!("popup"));

    // Page.crash itself never replies (Chromium facts: "A crash, a title, a reload"): do not
    // wait for it.
    let _crash = c
        .start_command_in(Some(&id), None, "Page.crash", json!({}), WAIT)
        .unwrap();
    c.wait_for(WAIT, "the tab crashed", |s| {
        s.tabs
            .iter()
            .any(|t| t.tab_id == id && t.state == TabState::Crashed)
    })
    .unwrap();
    let t0 = Instant::now();
    let e = c.evaluate_in(None, Evaluation::new("1")).unwrap_err();
    assert_eq!(e.code(), "crashed", "{e}");
    let e = c
        .command_in(
            Some(&id),
            None,
            "Runtime.evaluate",
            json!({"expression": "1"}),
            WAIT,
        )
        .unwrap_err();
    assert_eq!(e.code(), "crashed", "{e}");
    let e = c
        .act(click(TabsSite::COUNT), ActOptions::default())
        .unwrap_err();
    assert_eq!(e.code(), "crashed", "{e}");
    let e = c.ax_snapshot(AxOptions::default()).unwrap_err();
    assert_eq!(e.code(), "crashed", "{e}");
    assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
    assert_eq!(
        eval_in(c, Some(&w.opener), "document.title"),
        json!("opener")
    );

    c.recover_in(Some(&id)).unwrap();
    wait_tab(c, &id, "/popup");
    wait_loaded(c, &id);
    assert_eq!(eval_in(c, Some(&id), "document.title"), json!("popup"));
    assert!(matches!(c.close_tab(Some(&id), false), Ok(ref t) if t.closed));
    let e = c.close_tab(Some(&id), false).unwrap_err();
    assert!(
        matches!(&e, ClientError::Command(_)) && e.code() == "no_such_tab",
        "{e}"
    );
}

/// `close_tab` without `force` runs the page's `beforeunload`: the page asks to stay, the
/// answer says so with the pending dialog, and accepting it closes the tab; with `force`
/// nothing is asked.
#[test]
fn closing_a_tab_that_asks_to_stay() {
    let Some(w) = tabs_world("tabs-beforeunload") else {
        return;
    };
    let c = &w.client;
    let open_leave = || {
        let tab = c.new_tab("about:blank").unwrap().tab_id;
        // A navigate action waits for the load: the button is there to click after it.
        let r = act(
            c,
            Action::Navigate {
                url: w.site.url("/leave"),
            },
        );
        assert!(r.navigated && r.title == "leave", "{r:?}");
        // The gesture Chromium wants before it shows a beforeunload dialog.
        act(c, click(TabsSite::LINK));
        assert_eq!(eval_in(c, Some(&tab), "window.armed"), json!(true));
        tab
    };
    let tab = open_leave();
    let asked = c.close_tab(Some(&tab), false).unwrap();
    assert!(!asked.closed, "{asked:?}");
    let dialog = asked.dialog.expect("the beforeunload dialog");
    assert_eq!(dialog.kind.to_string(), "beforeunload");
    assert_eq!(dialog.tab_id.as_deref(), Some(tab.as_str()));
    assert!(
        c.tabs().unwrap().iter().any(|t| t.tab_id == tab),
        "still open"
    );
    c.respond_dialog(DialogAction::Accept, None, Some(&dialog.id))
        .unwrap();
    c.wait_for(WAIT, "the tab gone", |s| {
        s.tabs.iter().all(|t| t.tab_id != tab)
    })
    .unwrap();
    assert_eq!(c.tabs().unwrap()[0].tab_id, w.opener);
    assert!(c.tabs().unwrap()[0].current);

    let tab = open_leave();
    let closed = c.close_tab(None, true).unwrap();
    assert!(
        closed.closed && closed.tab_id == tab && closed.dialog.is_none(),
        "{closed:?}"
    );
    assert!(c.snapshot().unwrap().pending_dialogs.is_empty());
}

fn host_of(url: &str) -> &str {
    url.split("://").nth(1).unwrap().split('/').next().unwrap()
}
