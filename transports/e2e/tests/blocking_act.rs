//! End-to-end: agent actions (click, type, press, scroll, navigate) against a real
//! headless Chromium, over the blocking transport.

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor::act::{ActOptions, ActResult, Action, Scroll, Target, Wait};
use cdp_supervisor::Snapshot;
use cdp_supervisor_blocking::{Browser, Client, ClientError, DialogAction};
use serde_json::{json, Value};
use support::act_site::{webp_size, ActSite};
use support::blocking::*;

struct ActWorld {
    client: Client,
    site: ActSite,
    _browser: Browser,
}

fn act_world(test: &str) -> Option<ActWorld> {
    let browser = browser_or_skip(test)?;
    let site = ActSite::start();
    let client = Client::connect(browser.ws_url(), options(test)).unwrap();
    wait_live(&client);
    Some(ActWorld {
        client,
        site,
        _browser: browser,
    })
}

fn act(client: &Client, action: Action) -> ActResult {
    client.act(action, ActOptions::default()).unwrap()
}

fn frames_loaded(s: &Snapshot) -> bool {
    find(s, "/nested").is_some_and(|f| f.is_oopif) && find(s, "/cross").is_some_and(|f| f.is_oopif)
}

/// Opens the top page with `navigate` and returns (cross, nested) frame ids.
fn open_top(w: &ActWorld) -> (String, String) {
    let r = act(
        &w.client,
        Action::Navigate {
            url: w.site.url("/"),
        },
    );
    assert!(r.navigated && r.settled, "{r:?}");
    let snap = w
        .client
        .wait_for(WAIT, "both OOPIFs", frames_loaded)
        .unwrap();
    let cross = find(&snap, "/cross").unwrap().frame_id.clone();
    let nested = find(&snap, "/nested").unwrap().frame_id.clone();
    for f in [&cross, &nested] {
        let end = Instant::now() + WAIT;
        while eval(&w.client, Some(f), "document.readyState") != json!("complete") {
            assert!(Instant::now() < end, "frame {f} never loaded");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    (cross, nested)
}

/// The `backendNodeId` of `selector` in `frame` (a raw DOM query through the routed
/// command).
fn node(client: &Client, frame: &str, selector: &str) -> Target {
    let doc = client
        .command(Some(frame), "DOM.getDocument", json!({}), WAIT)
        .unwrap();
    let root = doc["root"]["nodeId"].clone();
    let q = client
        .command(
            Some(frame),
            "DOM.querySelector",
            json!({"nodeId": root, "selector": selector}),
            WAIT,
        )
        .unwrap();
    let d = client
        .command(
            Some(frame),
            "DOM.describeNode",
            json!({"nodeId": q["nodeId"]}),
            WAIT,
        )
        .unwrap();
    Target::Node {
        frame_id: frame.to_owned(),
        backend_node_id: d["node"]["backendNodeId"].as_i64().unwrap(),
    }
}

fn texts(r: &ActResult) -> Vec<String> {
    r.console
        .iter()
        .map(|l| format!("{}:{}", l.level, l.text))
        .collect()
}

#[test]
fn click_on_a_link_navigates_and_answers_with_a_webp_screenshot() {
    let Some(w) = act_world("act-click-link") else {
        return;
    };
    let top = open_top(&w);
    drop(top);
    let r = act(
        &w.client,
        Action::Click {
            target: Target::Point { x: 50.0, y: 20.0 },
        },
    );
    assert!(r.navigated, "{r:?}");
    assert!(r.settled);
    assert!(r.url.ends_with("/second"), "{}", r.url);
    assert_eq!(r.title, "second page");
    let shot = r.screenshot.expect("a screenshot");
    assert_eq!(shot.mime, "image/webp");
    let size = webp_size(&shot.data).expect("RIFF....WEBP");
    let vw = eval(&w.client, None, "innerWidth").as_u64().unwrap() as u32;
    let vh = eval(&w.client, None, "innerHeight").as_u64().unwrap() as u32;
    assert_eq!(size, (vw, vh));
    assert_eq!(r.mouse.map(|m| (m.x, m.y)), Some((50.0, 20.0)));
    // back returns to the top page.
    let r = act(&w.client, Action::Back);
    assert!(r.navigated && r.url.ends_with('/'), "{r:?}");
}

/// `back` into the back/forward cache (manual, Chromium facts: "A back/forward cache
/// restore sends no load"): the page is restored (its `pageshow` says `persisted`), and the
/// action settles at the restore under both waits, inside a 5 s budget that it used to
/// wait out for a `load` that never comes.
#[test]
fn back_into_the_back_forward_cache_settles_at_the_restore() {
    let Some(w) = act_world("act-bfcache") else {
        return;
    };
    let mut options = ActOptions::default();
    options.timeout = Duration::from_secs(5);
    for wait in [Wait::Quiet, Wait::Load] {
        options.wait = wait;
        for path in ["/bf1", "/bf2"] {
            let url = w.site.url(path);
            let r = w.client.act(Action::Navigate { url }, options).unwrap();
            assert!(r.settled && r.navigated, "{wait:?} {path}: {r:?}");
        }
        let r = w.client.act(Action::Back, options).unwrap();
        eprintln!("{wait:?}: back settled={} {:?}", r.settled, r.timing);
        assert!(r.settled && r.navigated, "{wait:?}: {r:?}");
        assert!(r.url.ends_with("/bf1"), "{}", r.url);
        assert_eq!(r.title, "page bf1");
        assert!(r.screenshot.is_some());
        assert_eq!(
            eval(&w.client, None, "window.restored"),
            json!(true),
            "{wait:?}: restored from the back/forward cache"
        );
        if wait == Wait::Quiet {
            // The restore's own console line falls in the quiet window.
            assert!(
                texts(&r).contains(&"log:pageshow persisted=true".to_owned()),
                "{r:?}"
            );
        }
    }
}

/// `wait: load`: a navigation answers at its load, a click that starts nothing right after
/// its input, a click on a link at the new page's load.
#[test]
fn wait_load_answers_at_the_load_or_after_the_input() {
    let Some(w) = act_world("act-wait-load") else {
        return;
    };
    let mut options = ActOptions::default();
    options.wait = Wait::Load;
    let url = w.site.url("/");
    let r = w.client.act(Action::Navigate { url }, options).unwrap();
    assert!(r.settled && r.navigated && r.title == "act top", "{r:?}");
    // Blank space: nothing starts.
    let blank = Target::Point { x: 250.0, y: 400.0 };
    let r = w
        .client
        .act(Action::Click { target: blank }, options)
        .unwrap();
    assert!(r.settled && !r.navigated && r.screenshot.is_some(), "{r:?}");
    // The link: the navigation it starts is waited for.
    let link = Target::Point { x: 50.0, y: 20.0 };
    let r = w
        .client
        .act(Action::Click { target: link }, options)
        .unwrap();
    assert!(r.settled && r.navigated, "{r:?}");
    assert!(r.url.ends_with("/second"), "{}", r.url);
    assert_eq!(r.title, "second page");
}

#[test]
fn type_then_enter_submits_the_form() {
    let Some(w) = act_world("act-type-enter") else {
        return;
    };
    open_top(&w);
    let top = w.client.snapshot().unwrap().page.unwrap().target_id;
    let input = node(&w.client, &top, "#q");
    let r = act(&w.client, Action::typing("hello", Some(input)).unwrap());
    assert!(!r.navigated && r.settled, "{r:?}");
    assert_eq!(
        eval(&w.client, None, "document.getElementById('q').value"),
        json!("hello")
    );
    let r = act(&w.client, Action::press("Enter").unwrap());
    assert!(r.navigated, "{r:?}");
    assert!(r.url.contains("/submitted?q=hello"), "{}", r.url);
    assert_eq!(r.title, "submitted");
}

#[test]
fn click_and_type_inside_nested_oopifs_with_their_console() {
    let Some(w) = act_world("act-oopif") else {
        return;
    };
    let (cross, nested) = open_top(&w);
    let r = act(
        &w.client,
        Action::Click {
            target: node(&w.client, &nested, "#nbtn"),
        },
    );
    assert_eq!(
        eval(&w.client, Some(&nested), "window.clicked"),
        json!(1),
        "{r:?}"
    );
    let lines = texts(&r);
    assert!(lines.contains(&"log:nested log".to_owned()), "{lines:?}");
    assert!(
        lines.contains(&"error:nested error".to_owned()),
        "{lines:?}"
    );
    assert!(r
        .console
        .iter()
        .all(|l| l.frame_id.as_deref() == Some(nested.as_str())));
    // The cross frame's button, and typing into its input.
    let r = act(
        &w.client,
        Action::Click {
            target: node(&w.client, &cross, "#btn"),
        },
    );
    assert_eq!(eval(&w.client, Some(&cross), "window.clicked"), json!(1));
    assert!(texts(&r).contains(&"log:cross log".to_owned()), "{r:?}");
    assert!(!texts(&r).iter().any(|t| t.contains("nested")), "{r:?}");
    let input = node(&w.client, &cross, "#inp");
    let r = act(
        &w.client,
        Action::typing("oopif text", Some(input)).unwrap(),
    );
    assert!(r.console.is_empty(), "{r:?}");
    assert_eq!(
        eval(
            &w.client,
            Some(&cross),
            "document.getElementById('inp').value"
        ),
        json!("oopif text")
    );
    // The top frame's button at coordinates: its lines, and none of the earlier ones.
    let r = act(
        &w.client,
        Action::Click {
            target: Target::Point { x: 60.0, y: 120.0 },
        },
    );
    assert_eq!(
        texts(&r),
        vec!["log:top log".to_owned(), "error:top error".to_owned()]
    );
}

#[test]
fn an_alert_ends_the_click_at_once_and_the_next_action_works() {
    let Some(w) = act_world("act-alert") else {
        return;
    };
    let (cross, _) = open_top(&w);
    let t0 = Instant::now();
    let r = act(
        &w.client,
        Action::Click {
            target: Target::Point { x: 60.0, y: 70.0 },
        },
    );
    assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
    let d = r.ended_by_dialog.clone().expect("ended by the alert");
    assert!(r.screenshot.is_none() && !r.settled);
    assert_eq!(r.pending_dialogs.len(), 1);
    assert_eq!(r.pending_dialogs[0].id, d);
    // While it shows, input is refused.
    let e = w
        .client
        .act(Action::press("Tab").unwrap(), ActOptions::default())
        .unwrap_err();
    assert!(
        matches!(&e, ClientError::Act(a) if a.code() == "blocked"),
        "{e}"
    );
    w.client
        .respond_dialog(DialogAction::Accept, None, Some(&d))
        .unwrap();
    // The next action works, and scroll moves by about a viewport.
    let r = act(&w.client, Action::Scroll(Scroll::Down));
    assert!(r.settled && r.screenshot.is_some(), "{r:?}");
    let y = eval(&w.client, None, "scrollY").as_f64().unwrap();
    let vh = eval(&w.client, None, "innerHeight").as_f64().unwrap();
    assert!((y - vh).abs() < vh * 0.2, "scrollY {y}, viewport {vh}");
    // Scroll to a node far below the fold.
    let top = w.client.snapshot().unwrap().page.unwrap().target_id;
    let far = node(&w.client, &top, "#far");
    act(&w.client, Action::Scroll(Scroll::To(far)));
    let inside = eval(
        &w.client,
        None,
        "(function(){var r=document.getElementById('far').getBoundingClientRect();return r.top>=0&&r.bottom<=innerHeight;})()",
    );
    assert_eq!(inside, json!(true));
    // A confirm from the OOPIF pending: navigate goes through, the dialog closes remote.
    let raised = eval(&w.client, Some(&cross), "raise('confirm', 'sure?')");
    assert_eq!(raised, json!("scheduled"));
    let d = wait_dialog(&w.client);
    let r = act(
        &w.client,
        Action::Navigate {
            url: w.site.url("/second"),
        },
    );
    assert!(r.navigated && r.url.ends_with("/second"), "{r:?}");
    assert!(r.pending_dialogs.is_empty(), "{r:?}");
    let snap = w
        .client
        .wait_for(WAIT, "the confirm recorded closed", |s| {
            s.recent_dialogs.iter().any(|c| c.id == d.id)
        })
        .unwrap();
    let closed = snap.recent_dialogs.iter().find(|c| c.id == d.id).unwrap();
    assert_eq!(
        serde_json::to_value(closed.closed_by).unwrap(),
        Value::from("remote")
    );
    let r = act(&w.client, Action::Reload);
    assert!(r.pending_dialogs.is_empty() && r.settled, "{r:?}");
}

#[test]
fn a_missing_parameter_is_a_bad_request_before_anything_is_sent() {
    let e = Action::from_json(&json!({"action": "type"})).unwrap_err();
    assert_eq!(e.code(), "bad_request");
    assert!(e.to_string().contains("text"));
    let e = Action::press("Hyper+Q").unwrap_err();
    assert_eq!(e.code(), "bad_request");
}

/// Click by ref: the accessibility snapshot gives the nested OOPIF's button (inside a
/// scrolled box of its parent OOPIF) a ref, and a click on that ref runs its handler in
/// that frame; a ref of a frame that navigated since is `stale_ref`.
#[test]
fn click_by_ref_on_a_button_inside_a_nested_oopif() {
    let Some(w) = act_world("act-by-ref") else {
        return;
    };
    let (_cross, nested) = open_top(&w);
    let ax = w
        .client
        .ax_snapshot(cdp_supervisor::ax::AxOptions::default())
        .unwrap();
    let button = ax
        .refs
        .iter()
        .find(|r| r.role == "button" && r.name == "nbtn")
        .unwrap_or_else(|| panic!("no ref for the nested button:\n{}", ax.text));
    assert_eq!(button.frame_id, nested);
    let r = act(
        &w.client,
        Action::Click {
            target: Target::Ref(button.id.clone()),
        },
    );
    assert_eq!(
        eval(&w.client, Some(&nested), "window.clicked"),
        json!(1),
        "{r:?}"
    );
    assert!(
        texts(&r).contains(&"log:nested log".to_owned()),
        "{:?}",
        texts(&r)
    );

    let r = act(
        &w.client,
        Action::Navigate {
            url: w.site.url("/nested"),
        },
    );
    assert!(r.navigated, "{r:?}");
    match w.client.act(
        Action::Click {
            target: Target::Ref(button.id.clone()),
        },
        ActOptions::default(),
    ) {
        Err(e) => assert_eq!(e.code(), "stale_ref", "{e}"),
        Ok(r) => panic!("a ref of a navigated frame was clicked: {r:?}"),
    }
}

/// A ref whose element was re-rendered (the same document, its DOM node replaced by an
/// equal one) is found again by role, name and nth: an evaluate on the old ref runs on
/// the new node, a click on the old ref runs the new button's handler. A ref whose element
/// was removed with nothing equal in its place is `stale_ref`. In the nested OOPIF, so the
/// fresh tree is asked on that frame's own session.
#[test]
fn a_re_rendered_element_is_found_again_by_its_old_ref() {
    use cdp_supervisor::{Element, Evaluation};
    let Some(w) = act_world("act-ref-re-rendered") else {
        return;
    };
    let (_cross, nested) = open_top(&w);
    let c = &w.client;
    eval(
        c,
        Some(&nested),
        "document.body.insertAdjacentHTML('beforeend', '<button id=again data-gen=1 onclick=\"window.hits = (window.hits || 0) + 1\">Again</button><button id=lone>Lone</button><input id=field aria-label=Field>'); 1",
    );
    let ax = c
        .ax_snapshot(cdp_supervisor::ax::AxOptions::default())
        .unwrap();
    let find = |name: &str| {
        ax.refs
            .iter()
            .find(|r| r.role == "button" && r.name == name)
            .unwrap_or_else(|| panic!("no ref for {name}:\n{}", ax.text))
            .clone()
    };
    let (again, lone) = (find("Again"), find("Lone"));
    let field = ax
        .refs
        .iter()
        .find(|r| r.role == "textbox" && r.name == "Field")
        .unwrap_or_else(|| panic!("no ref for the field:\n{}", ax.text))
        .clone();
    assert_eq!(again.frame_id, nested);
    // Re-rendered: the old node removed, an equal one (a clone, its onclick attribute
    // included) in its place.
    let replace = |generation: u32| {
        eval(
            c,
            Some(&nested),
            &format!("(() => {{ const b = document.getElementById('again'); const n = b.cloneNode(true); n.dataset.gen = '{generation}'; b.replaceWith(n); return 1; }})()"),
        );
    };
    replace(2);
    let text =
        Evaluation::new("el => el.dataset.gen + ' ' + el.textContent + ' ' + el.isConnected")
            .on_element(Element::Ref(again.id.clone()));
    assert_eq!(
        c.evaluate(text.clone()).unwrap().value,
        json!("2 Again true")
    );

    replace(3);
    let r = act(
        c,
        Action::Click {
            target: Target::Ref(again.id.clone()),
        },
    );
    assert_eq!(eval(c, Some(&nested), "window.hits"), json!(1), "{r:?}");
    assert_eq!(c.evaluate(text).unwrap().value, json!("3 Again true"));

    // `type` by the old ref of a re-rendered field (`DOM.focus` on the removed node answers
    // "Element is not focusable"): the new field gets the text.
    eval(
        c,
        Some(&nested),
        "(() => { const f = document.getElementById('field'); f.replaceWith(f.cloneNode(true)); return 1; })()",
    );
    let r = act(
        c,
        Action::Type {
            text: "hi".into(),
            target: Some(Target::Ref(field.id.clone())),
        },
    );
    assert_eq!(
        eval(c, Some(&nested), "document.getElementById('field').value"),
        json!("hi"),
        "{r:?}"
    );

    // Removed, nothing equal in its place: stale, for an evaluate and for a click.
    eval(
        c,
        Some(&nested),
        "document.getElementById('lone').remove(); 1",
    );
    let on_lone = Evaluation::new("el => el.textContent").on_element(Element::Ref(lone.id.clone()));
    match c.evaluate(on_lone) {
        Err(e) => {
            assert_eq!(e.code(), "stale_ref", "{e}");
            assert!(e.to_string().contains("take a new snapshot"), "{e}");
        }
        Ok(v) => panic!("a removed element was evaluated: {v:?}"),
    }
    match c.act(
        Action::Click {
            target: Target::Ref(lone.id.clone()),
        },
        ActOptions::default(),
    ) {
        Err(e) => assert_eq!(e.code(), "stale_ref", "{e}"),
        Ok(r) => panic!("a removed element was clicked: {r:?}"),
    }
}
