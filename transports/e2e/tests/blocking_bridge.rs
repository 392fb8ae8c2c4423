//! End-to-end: the dialog bridge against a real headless Chromium, behind a
//! proxy that closes every native dialog within milliseconds, as hosted CDP proxies do.

use support::bridge_site;
mod support;
use support::dialog_proxy;
use support::tls_relay;

use std::time::Duration;

use bridge_site::BridgeSite;
use cdp_supervisor::{ClosedBy, ClosedDialog, DialogAction, DialogPolicy, Event, Snapshot};
use cdp_supervisor_blocking::{Browser, Client, ClientEvent};
use dialog_proxy::DialogProxy;
use serde_json::{json, Value};
use support::blocking::*;
use support::demo_tree::chromium_for_test;
use tls_relay::{tls_tools_for_test, TlsRelay};

/// One scenario: a browser, the bridge site, optionally the dialog-closing proxy, and a
/// recorded client (through the proxy when there is one).
struct BridgeWorld {
    // Field order = drop order: the client first, the browser last.
    client: Client,
    proxy: Option<DialogProxy>,
    site: BridgeSite,
    _browser: Browser,
}

fn bridge_world(
    test: &str,
    bridge: bool,
    behind_proxy: bool,
    policy: DialogPolicy,
) -> Option<BridgeWorld> {
    let browser = browser_or_skip(test)?;
    Some(bridge_world_in(browser, test, bridge, behind_proxy, policy))
}

/// [`bridge_world`] with a browser the caller launched.
fn bridge_world_in(
    browser: Browser,
    test: &str,
    bridge: bool,
    behind_proxy: bool,
    policy: DialogPolicy,
) -> BridgeWorld {
    let site = BridgeSite::start();
    let proxy = behind_proxy.then(|| DialogProxy::start(browser.ws_url()));
    let mut opts = options(test);
    opts.config.bridge = bridge.then(cdp_supervisor::BridgeConfig::default);
    opts.config.policy = policy;
    let url = proxy
        .as_ref()
        .map_or_else(|| browser.ws_url().to_owned(), DialogProxy::ws_url);
    let client = Client::connect(&url, opts).unwrap();
    wait_live(&client);
    BridgeWorld {
        client,
        proxy,
        site,
        _browser: browser,
    }
}

/// Opens the bridge site's page at `path` and waits until it is the top document.
fn open_page(w: &BridgeWorld, path: &str) -> Snapshot {
    navigate(&w.client, &w.site.url(path), |s| {
        s.frame_tree
            .top
            .as_ref()
            .is_some_and(|t| t.url.contains(path))
    })
}

/// Opens the bridge site's top page and waits for its four frames and their scripts.
fn open_site(w: &BridgeWorld) -> DemoFrames {
    open_site_at(w, &w.site.url("/"))
}

/// [`open_site`] at `url`, the top page served some other way (e.g. over https).
fn open_site_at(w: &BridgeWorld, url: &str) -> DemoFrames {
    let snap = navigate(&w.client, url, demo_loaded);
    let frames = demo_frames(&snap);
    wait_until_defined(&w.client, &frames, &["top", "srcdoc", "cross", "nested"]);
    frames
}

/// Evaluates `expression`, in which `w` is the window of frame `which`: OOPIFs in their
/// own session, the srcdoc frame through the top page.
fn in_window(client: &Client, frames: &DemoFrames, which: &str, expression: &str) -> Value {
    let (frame, window) = match which {
        "srcdoc" => (&frames.top, "document.getElementById('same').contentWindow"),
        "top" => (&frames.top, "window"),
        "cross" => (&frames.cross, "window"),
        "nested" => (&frames.nested, "window"),
        other => panic!("no frame {other}"),
    };
    eval(
        client,
        Some(frame),
        &format!("((w) => {expression})({window})"),
    )
}

/// Waits until `ask` is defined in each frame. Nothing in the snapshot says a document
/// ran its scripts, so this polls.
fn wait_until_defined(client: &Client, frames: &DemoFrames, which: &[&str]) {
    let end = std::time::Instant::now() + WAIT;
    for which in which {
        while in_window(client, frames, which, "typeof w.ask") != json!("function") {
            assert!(
                std::time::Instant::now() < end,
                "{which} never ran its script"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Calls `ask(kind, message, default)` in frame `which`; returns how many results the
/// frame had before, for [`result_after`].
fn ask(
    client: &Client,
    frames: &DemoFrames,
    which: &str,
    kind: &str,
    message: &str,
    default: Option<&str>,
) -> u64 {
    let before = in_window(client, frames, which, "w.__results.length")
        .as_u64()
        .unwrap();
    let mut args = vec![json!(kind), json!(message)];
    if let Some(d) = default {
        args.push(json!(d));
    }
    let args: Vec<String> = args.iter().map(Value::to_string).collect();
    let v = in_window(
        client,
        frames,
        which,
        &format!("w.ask({})", args.join(", ")),
    );
    assert_eq!(v, json!("scheduled"));
    before
}

/// Waits for the frame's result number `index` (the page's script resumed).
fn result_after(client: &Client, frames: &DemoFrames, which: &str, index: u64) -> Value {
    let end = std::time::Instant::now() + WAIT;
    loop {
        let v = in_window(
            client,
            frames,
            which,
            &format!("w.__results[{index}] || null"),
        );
        if !v.is_null() {
            return v;
        }
        assert!(
            std::time::Instant::now() < end,
            "{which}: the dialog's return value never reached the page"
        );
        // No event tells that the page's script resumed; poll briefly.
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until a closed dialog with `message` is listed.
fn wait_closed_with(client: &Client, message: &str) -> ClosedDialog {
    let has = |s: &Snapshot| s.recent_dialogs.iter().any(|d| d.message == message);
    let snap = client
        .wait_for(WAIT, &format!("dialog {message:?} closed"), has)
        .unwrap();
    snap.recent_dialogs
        .iter()
        .find(|d| d.message == message)
        .unwrap()
        .clone()
}

fn expected(kind: &str, value: Value) -> Value {
    let ty = match &value {
        Value::Null if kind == "alert" => "undefined",
        Value::Null => "object",
        Value::Bool(_) => "boolean",
        _ => "string",
    };
    json!({"kind": kind, "type": ty, "value": value})
}

/// The dialog bridge motivation: behind a proxy that closes dialogs, a native dialog vanishes
/// before anyone can answer; it is recorded `closed_by: remote` and the page gets the
/// proxy's dismissal.
#[test]
fn without_the_bridge_a_proxy_closes_native_dialogs_remote() {
    let Some(w) = bridge_world("bridge-off-proxy", false, true, DialogPolicy::MustRespond) else {
        return;
    };
    let frames = open_site(&w);
    for (i, (which, kind)) in [("top", "confirm"), ("cross", "prompt"), ("nested", "alert")]
        .into_iter()
        .enumerate()
    {
        let message = format!("{kind} in {which} behind the proxy");
        let at = ask(&w.client, &frames, which, kind, &message, Some("d"));
        let closed = wait_closed_with(&w.client, &message);
        assert_eq!(closed.closed_by, ClosedBy::Remote, "{message}");
        assert!(!closed.accepted);
        assert_eq!(closed.frame_id, frame_id_of(which, &frames));
        let none = if kind == "confirm" {
            json!(false)
        } else {
            Value::Null
        };
        assert_eq!(
            result_after(&w.client, &frames, which, at),
            expected(kind, none)
        );
        let proxy = w.proxy.as_ref().unwrap();
        let closed_by_proxy = proxy.wait_closed(i + 1, WAIT);
        assert_eq!(closed_by_proxy[i]["message"], json!(message));
    }
    // Every answer of the proxy succeeded: nothing was left for the supervisor.
    let replies = w.proxy.as_ref().unwrap().replies();
    assert!(
        replies.iter().all(|r| r.get("error").is_none()),
        "{replies:?}"
    );
    assert!(w.client.snapshot().unwrap().pending_dialogs.is_empty());
}

/// Every dialog kind and answer (alert dismissed / accepted; prompt with text, default,
/// dismissed, without default; confirm accepted / dismissed) in the top frame, the srcdoc
/// frame, the OOPIF and the nested OOPIF: each is pending with its frame id until the
/// agent answers, and the page's script gets the answer. Behind the proxy, it closes no
/// native dialog; nothing is left pending.
fn answer_every_kind_in_every_frame(w: &BridgeWorld, frames: &DemoFrames) {
    for which in ["top", "srcdoc", "cross", "nested"] {
        assert_eq!(
            in_window(&w.client, frames, which, "w.__cdpSupervisorBridge === true"),
            json!(true),
            "the bridge script is installed in {which}"
        );
    }
    type Case<'a> = (
        &'a str,
        Option<&'a str>,
        DialogAction,
        Option<&'a str>,
        Value,
    );
    let cases: &[Case] = &[
        ("alert", None, DialogAction::Dismiss, None, Value::Null),
        ("alert", None, DialogAction::Accept, None, Value::Null),
        (
            "prompt",
            Some("d"),
            DialogAction::Accept,
            Some("hello"),
            json!("hello"),
        ),
        ("prompt", Some("d"), DialogAction::Accept, None, json!("d")),
        (
            "prompt",
            Some("d"),
            DialogAction::Dismiss,
            None,
            Value::Null,
        ),
        ("prompt", None, DialogAction::Accept, None, json!("")),
        ("confirm", None, DialogAction::Accept, None, json!(true)),
        ("confirm", None, DialogAction::Dismiss, None, json!(false)),
    ];
    for which in ["top", "srcdoc", "cross", "nested"] {
        for (kind, default, action, text, value) in cases {
            let message = format!("{kind} in {which}, answered {action:?} {text:?} (é&=?)");
            let at = ask(&w.client, frames, which, kind, &message, *default);
            let dialog = wait_dialog_of(&w.client, kind);
            assert_eq!(dialog.frame_id, frame_id_of(which, frames), "{message}");
            assert_eq!(dialog.message, message);
            assert_eq!(dialog.default_prompt, default.unwrap_or(""));
            let closed = w
                .client
                .respond_dialog(*action, *text, Some(&dialog.id))
                .unwrap();
            assert_eq!(closed.id, dialog.id);
            assert_eq!(closed.closed_by, ClosedBy::Agent, "{message}");
            assert_eq!(closed.accepted, *action == DialogAction::Accept);
            assert_eq!(
                result_after(&w.client, frames, which, at),
                expected(kind, value.clone()),
                "{message}"
            );
        }
    }
    if let Some(proxy) = &w.proxy {
        assert_eq!(
            proxy.closed(),
            Vec::<Value>::new(),
            "no native dialog opened"
        );
    }
    assert!(w.client.snapshot().unwrap().pending_dialogs.is_empty());
}

/// The dialog bridge: with the bridge, behind the same proxy, every dialog kind in the top
/// frame, a srcdoc iframe, an OOPIF and an OOPIF nested in it is pending with its frame
/// id until the agent answers, and the page's JavaScript gets the answer: `alert`
/// returns `undefined`, `prompt` the text or its default, `confirm` true or false. No
/// native dialog opens (the proxy closes none).
#[test]
fn bridge_answers_reach_the_page_in_every_kind_of_frame() {
    let Some(w) = bridge_world("bridge-every-frame", true, true, DialogPolicy::MustRespond) else {
        return;
    };
    let frames = open_site(&w);
    answer_every_kind_in_every_frame(&w, &frames);
}

/// The dialog bridge ("a synchronous XHR to a reserved host on the page's own scheme"): on an
/// https page the script calls `https://bridge.invalid/`, which the core's `Fetch`
/// patterns also pause. The bridge site is served over https through a TLS relay (a
/// throwaway self-signed certificate; Chromium launched with
/// `--ignore-certificate-errors`), behind the dialog-closing proxy: every dialog kind in
/// every kind of frame (the OOPIFs are https too) is pending until the agent answers, the
/// page gets the answer, and every frame's requests went to `https://bridge.invalid/`.
#[test]
fn bridge_answers_reach_an_https_page() {
    let test = "bridge-https";
    if !tls_tools_for_test(test) || !chromium_for_test(test) {
        return;
    }
    let browser =
        Browser::launch_with_args(&["--ignore-certificate-errors"]).expect("launch Chromium");
    let w = bridge_world_in(browser, test, true, true, DialogPolicy::MustRespond);
    // Declared after the world, so dropped (killed) before it.
    let relay = TlsRelay::start(w.site.port());
    let top_url = relay.url("127.0.0.1", "/");
    let frames = open_site_at(&w, &top_url);
    let snap = w.client.snapshot().unwrap();
    assert_eq!(snap.frame_tree.top.as_ref().unwrap().url, top_url);
    assert!(
        find(&snap, "/cross")
            .unwrap()
            .url
            .starts_with("https://localhost:"),
        "{:?}",
        snap.frame_tree
    );
    for which in ["top", "cross", "nested"] {
        assert_eq!(
            in_window(&w.client, &frames, which, "w.location.protocol"),
            json!("https:"),
            "{which}"
        );
    }

    answer_every_kind_in_every_frame(&w, &frames);

    // The requests went to the https endpoint (the token is in the body, not the URL).
    for which in ["top", "srcdoc", "cross", "nested"] {
        let endpoints = in_window(
            &w.client,
            &frames,
            which,
            "[...new Set(w.performance.getEntriesByType('resource').map((e) => e.name)\
             .filter((n) => n.includes('bridge.invalid')))]",
        );
        assert_eq!(endpoints, json!(["https://bridge.invalid/"]), "{which}");
    }
}

/// Commands blocked by a dialog with the bridge: an evaluation that raises a bridge `confirm` is reported
/// blocked by that dialog at once, and gets its real reply after the answer.
#[test]
fn bridge_dialog_blocks_the_evaluate_that_raised_it() {
    let Some(w) = bridge_world("bridge-blocked", true, true, DialogPolicy::MustRespond) else {
        return;
    };
    let frames = open_site(&w);
    let result = blocked_until_accepted(
        &w.client,
        &frames.cross,
        "confirm('in the way') ? 'yes' : 'no'",
    );
    assert_eq!(result["result"]["value"], json!("yes"));
    assert!(w.proxy.as_ref().unwrap().closed().is_empty());
}

/// The dialog bridge: a page that calls the bridge host itself, without the token, gets an
/// error status and no dialog appears.
#[test]
fn forged_bridge_requests_make_no_dialog() {
    let Some(w) = bridge_world("bridge-forged", true, true, DialogPolicy::MustRespond) else {
        return;
    };
    let snap = open_page(&w, "/forge");
    let top = snap.frame_tree.top.unwrap().frame_id;
    while eval(&w.client, Some(&top), "typeof window.forge") != json!("function") {
        // No event says the document ran its script; poll briefly.
        std::thread::sleep(Duration::from_millis(20));
    }
    let events = w.client.subscribe().unwrap();
    assert_eq!(eval(&w.client, Some(&top), "forge()"), json!("forged"));
    let end = std::time::Instant::now() + WAIT;
    let forged = loop {
        let v = eval(&w.client, Some(&top), "window.__forged");
        if v.get("fetch").is_some() {
            break v;
        }
        assert!(
            std::time::Instant::now() < end,
            "the forged fetch never ended"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(forged, json!({"xhr": 403, "fetch": 403}));
    let snap = w.client.snapshot().unwrap();
    assert!(
        snap.pending_dialogs.is_empty(),
        "{:?}",
        snap.pending_dialogs
    );
    assert!(snap.recent_dialogs.is_empty(), "{:?}", snap.recent_dialogs);
    let warnings = events
        .try_iter()
        .filter(|e| {
            matches!(e, ClientEvent::Event(Event::Warning(w)) if w.to_string().contains("forge"))
        })
        .count();
    assert_eq!(warnings, 2, "one warning per forged request");
}

/// The dialog bridge: when CSP forbids the bridge's request, the script falls back to the native
/// dialog, never to a silent `false`. Without a proxy the agent answers it; behind the
/// proxy it opens and the proxy closes it (`remote`).
#[test]
fn csp_that_forbids_the_bridge_falls_back_to_a_native_dialog() {
    for behind_proxy in [false, true] {
        let test = if behind_proxy {
            "bridge-csp-proxy"
        } else {
            "bridge-csp"
        };
        let Some(w) = bridge_world(test, true, behind_proxy, DialogPolicy::MustRespond) else {
            return;
        };
        let snap = open_page(&w, "/csp");
        let frames = DemoFrames {
            top: snap.frame_tree.top.unwrap().frame_id,
            srcdoc: String::new(),
            cross: String::new(),
            nested: String::new(),
        };
        wait_until_defined(&w.client, &frames, &["top"]);
        let at = ask(&w.client, &frames, "top", "confirm", "csp", None);
        if behind_proxy {
            let closed = wait_closed_with(&w.client, "csp");
            assert_eq!(closed.closed_by, ClosedBy::Remote);
            assert_eq!(w.proxy.as_ref().unwrap().wait_closed(1, WAIT).len(), 1);
            assert_eq!(
                result_after(&w.client, &frames, "top", at),
                expected("confirm", json!(false))
            );
        } else {
            let dialog = wait_dialog_of(&w.client, "confirm");
            assert_eq!(dialog.frame_id, frames.top);
            let closed = w
                .client
                .respond_dialog(DialogAction::Accept, None, Some(&dialog.id))
                .unwrap();
            assert_eq!(closed.closed_by, ClosedBy::Agent);
            assert_eq!(
                result_after(&w.client, &frames, "top", at),
                expected("confirm", json!(true))
            );
        }
        let violations = in_window(&w.client, &frames, "top", "w.__violations");
        assert_eq!(
            violations,
            json!(["connect-src"]),
            "the bridge's XHR was refused"
        );
    }
}

/// The dialog policy with the bridge: `auto_accept` gives a bridge prompt its default text and
/// `auto_dismiss` a bridge confirm `false`, both `closed_by: auto_policy`.
#[test]
fn policies_answer_bridge_dialogs() {
    let Some(w) = bridge_world("bridge-policies", true, true, DialogPolicy::AutoAccept) else {
        return;
    };
    let frames = open_site(&w);
    let at = ask(
        &w.client,
        &frames,
        "cross",
        "prompt",
        "auto accepted",
        Some("d"),
    );
    assert_eq!(
        result_after(&w.client, &frames, "cross", at),
        expected("prompt", json!("d"))
    );
    let closed = wait_closed_with(&w.client, "auto accepted");
    assert_eq!(
        (closed.closed_by, closed.accepted),
        (ClosedBy::AutoPolicy, true)
    );
    assert_eq!(closed.frame_id, frames.cross);
    w.client.set_policy(DialogPolicy::AutoDismiss).unwrap();
    let at = ask(
        &w.client,
        &frames,
        "srcdoc",
        "confirm",
        "auto dismissed",
        None,
    );
    assert_eq!(
        result_after(&w.client, &frames, "srcdoc", at),
        expected("confirm", json!(false))
    );
    let closed = wait_closed_with(&w.client, "auto dismissed");
    assert_eq!(
        (closed.closed_by, closed.accepted),
        (ClosedBy::AutoPolicy, false)
    );
    assert_eq!(closed.frame_id, frames.srcdoc);
    assert!(w.proxy.as_ref().unwrap().closed().is_empty());
}

/// The dialog bridge ("a request without the right token ... never becomes a dialog"): the page
/// must not be able to learn the token. The bridge script calls `x.open(...)` through
/// `XMLHttpRequest.prototype`, which the page can patch before it calls `alert`; it then
/// reads the token from the URL and raises dialogs of its own text ("pay") that look
/// like the page's; or it reads it from Resource Timing. The script captures what it
/// calls at install time and sends the token in a POST body, never in the URL.
#[test]
fn page_cannot_learn_the_bridge_token() {
    let Some(w) = bridge_world("bridge-token-leak", true, false, DialogPolicy::MustRespond) else {
        return;
    };
    let frames = open_site(&w);
    let steal = r#"(() => {
      const open = XMLHttpRequest.prototype.open, seen = [];
      XMLHttpRequest.prototype.open = function (m, u) { seen.push(String(u)); return open.apply(this, arguments); };
      setTimeout(() => {
        alert('innocent');
        // Resource Timing lists every request's URL, the bridge's included.
        const timing = performance.getEntriesByType('resource').map((e) => e.name).join(' ');
        const t = (/[?&]t=([^&]*)/.exec(seen[0] || '') || [])[1]
          || (/[?&]t=([^&]*)/.exec(timing) || [])[1];
        window.__stolen = t || 'nothing';
        if (t) fetch('http://bridge.invalid/?t=' + t + '&k=confirm&m=pay');
      }, 0);
      return 'armed';
    })()"#;
    assert_eq!(eval(&w.client, Some(&frames.top), steal), json!("armed"));
    let dialog = wait_dialog_of(&w.client, "alert");
    w.client
        .respond_dialog(DialogAction::Accept, None, Some(&dialog.id))
        .unwrap();
    let end = std::time::Instant::now() + WAIT;
    let stolen = loop {
        let v = eval(&w.client, Some(&frames.top), "window.__stolen || null");
        if !v.is_null() {
            break v;
        }
        assert!(std::time::Instant::now() < end, "the page never resumed");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Give a forged request time to pause and become a dialog.
    let forged = w
        .client
        .wait_for(Duration::from_secs(2), "a forged dialog", |s| {
            !s.pending_dialogs.is_empty()
        });
    assert!(
        forged.is_err(),
        "the page learned the token ({stolen}) and raised a dialog of its own: {:?}",
        forged.map(|s| s.pending_dialogs)
    );
    assert_eq!(stolen, json!("nothing"), "the page read the token");
}

/// The dialog bridge: a bridge dialog whose frame navigates is closed `remote`: a bridge
/// `confirm` in the top frame when the top navigates to another site (a new renderer
/// process, so the blocked one does not hold the navigation up).
#[test]
fn bridge_dialog_of_a_top_that_navigates_to_another_site_closes_remote() {
    let Some(w) = bridge_world("bridge-navigated", true, true, DialogPolicy::MustRespond) else {
        return;
    };
    let to = w.site.cross_url("/nested");
    navigate_away_from_a_bridge_dialog(&w, "top", &to);
    assert!(w.proxy.as_ref().unwrap().closed().is_empty());
}

/// The dialog bridge: a bridge dialog whose session detaches is closed `remote`, and nothing
/// else happens. Real Chromium, when the top navigates while an OOPIF's bridge `confirm`
/// is pending: the OOPIF's session detaches, Chromium lets the paused request go to the
/// network, it fails, and a script that fell back to the *native* `confirm` opened one in
/// the dying frame; about one run in four the browser then crashed. The core now answers
/// the request when the frame starts navigating, and the script falls back only when the
/// request could not be sent at all. Without a proxy, so that nothing but Chromium answers.
#[test]
fn bridge_dialog_of_an_oopif_whose_parent_navigates_closes_remote() {
    for round in 0..4 {
        let test = format!("bridge-navigated-oopif-{round}");
        let Some(w) = bridge_world(&test, true, false, DialogPolicy::MustRespond) else {
            return;
        };
        let to = w.site.url("/nested");
        navigate_away_from_a_bridge_dialog(&w, "cross", &to);
        // The browser is still there, and no second (native) dialog appeared.
        assert_eq!(eval(&w.client, None, "1 + 1"), json!(2), "round {round}");
        let snap = w.client.snapshot().unwrap();
        assert_eq!(snap.recent_dialogs.len(), 1, "{:?}", snap.recent_dialogs);
        assert!(snap.pending_dialogs.is_empty());
    }
}

/// As a navigation closes a native dialog: navigating the top frame within its site while its
/// own bridge dialog is pending should close the dialog `remote`. Real Chromium cannot
/// commit the navigation while the renderer's main thread waits in the bridge's
/// synchronous XHR, so the core answers the request (dismissed, `remote`) as soon as the
/// frame starts navigating (`Page.frameStartedNavigating`), and `recover` does the same
/// before its own `Page.navigate`.
#[test]
fn navigating_the_top_within_its_site_closes_its_bridge_dialog() {
    let Some(w) = bridge_world(
        "bridge-navigated-same-site",
        true,
        true,
        DialogPolicy::MustRespond,
    ) else {
        return;
    };
    let to = w.site.url("/nested");
    navigate_away_from_a_bridge_dialog(&w, "top", &to);
}

fn navigate_away_from_a_bridge_dialog(w: &BridgeWorld, which: &str, to: &str) {
    let frames = open_site(w);
    ask(&w.client, &frames, which, "confirm", "left behind", None);
    let dialog = wait_dialog_of(&w.client, "confirm");
    assert_eq!(dialog.frame_id, frame_id_of(which, &frames));
    w.client
        .command(None, "Page.navigate", json!({ "url": to }), WAIT)
        .unwrap();
    let closed = wait_closed(&w.client, &dialog.id);
    assert_eq!(closed.closed_by, ClosedBy::Remote, "{which}");
    w.client
        .wait_for(WAIT, &format!("{to} loaded"), |s| {
            s.frame_tree.top.as_ref().is_some_and(|t| t.url == to)
        })
        .unwrap();
}

/// A sandboxed iframe without `allow-modals` cannot show dialogs: natively `confirm`
/// returns false at once and no dialog opens (checked on Chromium 156 with the bridge
/// off). The bridge must not give it one: a frame with an opaque origin keeps the native
/// functions.
#[test]
fn sandboxed_frame_without_allow_modals_gets_no_dialog() {
    let Some(w) = bridge_world("bridge-sandbox", true, false, DialogPolicy::MustRespond) else {
        return;
    };
    let snap = navigate(&w.client, &w.site.url("/sandbox"), |s| {
        find(s, "about:srcdoc").is_some()
    });
    let top = snap.frame_tree.top.unwrap().frame_id;
    let end = std::time::Instant::now() + WAIT;
    let answers = loop {
        eval(
            &w.client,
            Some(&top),
            "document.getElementById('boxed').contentWindow.postMessage('boxed?', '*')",
        );
        let v = eval(&w.client, Some(&top), "window.__sandboxed");
        if v.as_array().is_some_and(|a| !a.is_empty()) {
            break v;
        }
        let snap = w.client.snapshot().unwrap();
        if let Some(d) = snap.pending_dialogs.first() {
            panic!("a sandboxed frame without allow-modals got a dialog: {d:?}");
        }
        assert!(
            std::time::Instant::now() < end,
            "the sandboxed frame never answered"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(answers[0], json!(false));
}

/// The script tells a request refused before it left (CSP: native fallback, tested above)
/// from one that failed after it left, as when its frame is torn down and Chromium lets
/// the paused request fall through to the network: that one must not come back as a
/// native dialog (in a dying frame it can crash Chromium). Simulated by turning the top
/// session's `Fetch` off, so the bridge request goes to the network and fails there.
#[test]
fn a_bridge_request_that_fails_after_leaving_is_dismissed_not_shown_natively() {
    let Some(w) = bridge_world("bridge-failed-late", true, false, DialogPolicy::MustRespond) else {
        return;
    };
    let frames = open_site(&w);
    w.client
        .command(None, "Fetch.disable", json!({}), WAIT)
        .unwrap();
    let at = ask(
        &w.client,
        &frames,
        "top",
        "confirm",
        "goes to the network",
        None,
    );
    assert_eq!(
        result_after(&w.client, &frames, "top", at),
        expected("confirm", json!(false))
    );
    let snap = w.client.snapshot().unwrap();
    assert!(
        snap.pending_dialogs.is_empty(),
        "{:?}",
        snap.pending_dialogs
    );
    assert!(snap.recent_dialogs.is_empty(), "{:?}", snap.recent_dialogs);
}
