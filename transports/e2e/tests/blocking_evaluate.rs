//! End-to-end: evaluate under one budget, against a real headless Chromium (blocking
//! transport). The smol twin is in `smol_evaluate.rs`.

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor_blocking::{Client, ClientError, Element, Evaluation};
use serde_json::{json, Value};
use support::blocking::*;

/// What an evaluate must answer within: its budget plus a small margin.
const MARGIN: Duration = Duration::from_millis(300);

fn value(client: &Client, e: Evaluation) -> Value {
    client.evaluate(e).unwrap().value
}

/// The error's code and message, checking it came within `budget` + [`MARGIN`].
fn fails_within(client: &Client, e: Evaluation) -> (String, String) {
    let budget = e.timeout;
    let start = Instant::now();
    let outcome = client.evaluate(e);
    let took = start.elapsed();
    assert!(
        took <= budget + MARGIN,
        "answered after {took:?} for a {budget:?} budget"
    );
    match outcome {
        Err(ClientError::Evaluate(e)) => (e.code().to_owned(), e.to_string()),
        other => panic!("expected an evaluate error, got {other:?}"),
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A stuck script, a promise that never settles, and a stuck script in an OOPIF each end
/// as `timeout` within the budget, and the next evaluate in the same frame works at once.
#[test]
fn a_stuck_evaluate_never_wedges_the_tab() {
    let Some(w) = world("evaluate-stuck", options("evaluate-stuck")) else {
        return;
    };
    let frames = open_demo(&w);
    let c = &w.client;

    let (code, message) = fails_within(c, Evaluation::new("while(true){}").within(ms(500)));
    assert_eq!(code, "timeout");
    // Chromium's in-page timeout usually answers first ("was terminated"); on a loaded
    // machine the deadline may come first, and then the message claims no termination.
    assert!(
        message.contains("ran past its 500 ms budget and was terminated")
            || message.contains("ran past its 500 ms budget without an answer"),
        "{message}"
    );
    let start = Instant::now();
    assert_eq!(
        value(c, Evaluation::new("window.frameLabel").within(ms(2000))),
        "top"
    );
    assert!(
        start.elapsed() < ms(500),
        "the next evaluate waited {:?}",
        start.elapsed()
    );

    let (code, message) = fails_within(c, Evaluation::new("new Promise(() => {})").within(ms(500)));
    assert_eq!(code, "timeout");
    assert!(message.contains("did not settle"), "{message}");
    assert_eq!(value(c, Evaluation::new("1 + 1").within(ms(2000))), 2);

    let stuck = Evaluation::new("while(true){}")
        .in_frame(&frames.cross)
        .within(ms(500));
    let (code, message) = fails_within(c, stuck);
    assert_eq!(code, "timeout");
    assert!(
        message.contains(&format!("frame {}", frames.cross)),
        "{message}"
    );
    let next = Evaluation::new("window.frameLabel").in_frame(&frames.cross);
    assert_eq!(value(c, next.within(ms(2000))), "cross");

    // A promise that settles in time gives its value; values come as JSON.
    let settles = Evaluation::new("new Promise(r => setTimeout(() => r({a: 1, b: [2]}), 50))");
    assert_eq!(
        value(c, settles.within(ms(2000))),
        json!({"a": 1, "b": [2]})
    );
    let undefined = c.evaluate(Evaluation::new("undefined")).unwrap();
    assert!(undefined.undefined && undefined.value.is_null());
    let (code, message) = fails_within(
        c,
        Evaluation::new("throw new Error('boom')").within(ms(2000)),
    );
    assert_eq!(code, "exception");
    assert!(message.contains("Error: boom"), "{message}");
    w.client.stop().unwrap();
}

/// Playwright's `function` is called: a function's source (arrow, async, `function`
/// keyword) answers what it returns, in any frame and with an element; a script whose
/// value is a function calls it, and a script keeps its completion value. A function that
/// never returns ends `timeout` within its budget and the next call answers at once.
#[test]
fn a_function_is_called_under_one_budget() {
    let Some(w) = world("evaluate-function", options("evaluate-function")) else {
        return;
    };
    let frames = open_demo(&w);
    let c = &w.client;
    assert_eq!(value(c, Evaluation::function("() => 6*7")), 42);
    let slow =
        "async () => { await new Promise(r => setTimeout(r, 20)); return window.frameLabel; }";
    assert_eq!(value(c, Evaluation::function(slow)), "top");
    let keyword =
        Evaluation::function("function () { return window.frameLabel };").in_frame(&frames.nested);
    assert_eq!(value(c, keyword), "nested");
    assert_eq!(value(c, Evaluation::new("() => 6*7")), 42);
    assert_eq!(value(c, Evaluation::new("var x = 1; x + 1")), 2);
    assert_eq!(value(c, Evaluation::new("({a: [1]})")), json!({"a": [1]}));
    let undefined = c.evaluate(Evaluation::function("() => {}")).unwrap();
    assert!(undefined.undefined, "{undefined:?}");
    let (code, message) = fails_within(
        c,
        Evaluation::function("() => { throw new Error('boom') }").within(ms(2000)),
    );
    assert_eq!(code, "exception");
    assert!(message.contains("Error: boom"), "{message}");

    let snap = c.ax_snapshot(Default::default()).unwrap();
    let heading = snap
        .refs
        .iter()
        .find(|r| r.role == "heading" && r.name == "cross frame")
        .unwrap_or_else(|| panic!("no heading ref: {}", snap.text));
    let tag = Evaluation::function("(element) => element.tagName")
        .on_element(Element::Ref(heading.id.clone()));
    assert_eq!(value(c, tag), "H1");

    let stuck = Evaluation::function("() => { while (true) {} }").within(ms(500));
    let (code, message) = fails_within(c, stuck);
    assert_eq!(code, "timeout");
    // A function has no in-page timeout: at the deadline termination is requested, and
    // the message claims no more than that.
    assert!(message.contains("termination was requested"), "{message}");
    let start = Instant::now();
    assert_eq!(value(c, Evaluation::function("() => 6*7")), 42);
    assert!(start.elapsed() < ms(500), "waited {:?}", start.elapsed());
    w.client.stop().unwrap();
}

/// Each frame answers with its own values: a srcdoc frame, a same-site iframe, an OOPIF
/// nested in an OOPIF; an unknown frame is `no_such_frame`.
#[test]
fn evaluate_runs_in_the_frame_it_names() {
    let Some(w) = world("evaluate-frames", options("evaluate-frames")) else {
        return;
    };
    let frames = open_demo(&w);
    let c = &w.client;
    let label = |frame: &str| value(c, Evaluation::new("window.frameLabel").in_frame(frame));
    assert_eq!(label(&frames.top), "top");
    assert_eq!(label(&frames.srcdoc), "srcdoc");
    assert_eq!(label(&frames.cross), "cross");
    assert_eq!(label(&frames.nested), "nested");
    let href = Evaluation::new("location.href").in_frame(&frames.srcdoc);
    assert_eq!(value(c, href), "about:srcdoc");

    // A same-site iframe added to the top page.
    let add = "var f = document.createElement('iframe'); f.src = '/title?t=same-site'; document.body.appendChild(f); 'added'";
    assert_eq!(value(c, Evaluation::new(add)), "added");
    let snap = c
        .wait_for(WAIT, "the same-site iframe", |s| {
            find(s, "/title?t=same-site").is_some()
        })
        .unwrap();
    let same = find(&snap, "/title?t=same-site").unwrap().clone();
    assert!(!same.is_oopif);
    let end = Instant::now() + WAIT;
    loop {
        let title = c.evaluate(Evaluation::new("document.title").in_frame(&same.frame_id));
        match title {
            Ok(v) if v.value == "same-site" => break,
            // Its document may still be loading: no context yet, or the initial one.
            Ok(_) | Err(ClientError::Evaluate(_)) if Instant::now() < end => {
                std::thread::sleep(ms(20))
            }
            other => panic!("same-site iframe: {other:?}"),
        }
    }

    let Err(ClientError::Evaluate(e)) = c.evaluate(Evaluation::new("1").in_frame("NOPE")) else {
        panic!("an unknown frame must fail");
    };
    assert_eq!(e.code(), "no_such_frame");
    assert!(e.to_string().contains("NOPE"));
    w.client.stop().unwrap();
}

/// A function on an element found by `backend_node_id` inside an OOPIF returns its text,
/// and the same through its ref of an accessibility snapshot; a ref the snapshot did not
/// give and a node id that names nothing are `stale_ref`.
#[test]
fn evaluate_on_an_element_inside_an_oopif() {
    let Some(w) = world("evaluate-element", options("evaluate-element")) else {
        return;
    };
    let frames = open_demo(&w);
    let c = &w.client;
    let h1 = c
        .command(
            Some(&frames.cross),
            "Runtime.evaluate",
            json!({"expression": "document.querySelector('h1')"}),
            WAIT,
        )
        .unwrap();
    let object = h1["result"]["objectId"].as_str().unwrap().to_owned();
    let node = c
        .command(
            Some(&frames.cross),
            "DOM.describeNode",
            json!({"objectId": object}),
            WAIT,
        )
        .unwrap();
    let backend = node["node"]["backendNodeId"].as_i64().unwrap();
    let text = Evaluation::new("el => el.textContent")
        .in_frame(&frames.cross)
        .on_element(Element::BackendNodeId(backend));
    assert_eq!(value(c, text), "cross frame");
    // The same heading by its ref in an accessibility snapshot.
    let snap = c.ax_snapshot(Default::default()).unwrap();
    let heading = snap
        .refs
        .iter()
        .find(|r| r.role == "heading" && r.name == "cross frame")
        .unwrap_or_else(|| panic!("no heading ref: {}", snap.text));
    assert_eq!(heading.frame_id, frames.cross);
    let by_ref =
        Evaluation::new("el => el.textContent").on_element(Element::Ref(heading.id.clone()));
    assert_eq!(value(c, by_ref), "cross frame");
    let unknown =
        Evaluation::new("el => el.textContent").on_element(Element::Ref("e999999".into()));
    let (code, message) = fails_within(c, unknown.within(ms(2000)));
    assert_eq!(code, "stale_ref", "{message}");
    assert!(message.contains("take a new snapshot"), "{message}");
    let gone = Evaluation::new("el => el.textContent")
        .in_frame(&frames.cross)
        .on_element(Element::BackendNodeId(987_654));
    let (code, message) = fails_within(c, gone.within(ms(2000)));
    assert_eq!(code, "stale_ref", "{message}");
    w.client.stop().unwrap();
}

/// An evaluate that raises `alert` answers `blocked` with the dialog at once; once the
/// dialog is answered the frame evaluates again.
#[test]
fn an_alert_answers_blocked_at_once() {
    let Some(w) = world("evaluate-alert", options("evaluate-alert")) else {
        return;
    };
    let _frames = open_demo(&w);
    let c = &w.client;
    let start = Instant::now();
    let outcome = c.evaluate(Evaluation::new("alert('hi from evaluate'); 5"));
    assert!(start.elapsed() < ms(2000), "took {:?}", start.elapsed());
    let Err(ClientError::Evaluate(e)) = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(e.code(), "blocked");
    let dialog = e.dialog().unwrap().clone();
    assert_eq!(dialog.message, "hi from evaluate");
    c.respond_dialog(
        cdp_supervisor_blocking::DialogAction::Accept,
        None,
        Some(&dialog.id),
    )
    .unwrap();
    assert_eq!(value(c, Evaluation::new("'after'")), "after");
    w.client.stop().unwrap();
}

/// An evaluate that a dialog blocked leaves nothing behind: the object its script returns
/// once the dialog is answered (its reply is dropped) is released, so the page can collect it.
#[test]
fn a_blocked_evaluate_leaves_no_object_behind() {
    let Some(w) = world(
        "evaluate-blocked-release",
        options("evaluate-blocked-release"),
    ) else {
        return;
    };
    let _frames = open_demo(&w);
    let c = &w.client;
    let script = "(() => { const o = { big: new Array(100000).fill(7) }; \
                  window.__held = new WeakRef(o); alert('hold'); return o; })()";
    let Err(ClientError::Evaluate(e)) = c.evaluate(Evaluation::new(script)) else {
        panic!("the alert should block the evaluate")
    };
    assert_eq!(e.code(), "blocked");
    let dialog = e.dialog().unwrap().id.clone();
    c.respond_dialog(
        cdp_supervisor_blocking::DialogAction::Accept,
        None,
        Some(&dialog),
    )
    .unwrap();
    let collected = (0..20).any(|_| {
        let gc = c.command(None, "HeapProfiler.collectGarbage", json!({}), ms(5000));
        gc.unwrap();
        let gone = value(c, Evaluation::new("window.__held.deref() === undefined"));
        gone == json!(true) || {
            std::thread::sleep(ms(100));
            false
        }
    });
    assert!(
        collected,
        "the blocked script's returned object is still held"
    );
    w.client.stop().unwrap();
}
