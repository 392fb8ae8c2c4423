//! The evaluate flow on the simulated-time harness: the budget, termination, promises,
//! frames and contexts, elements, dialogs, late replies.

mod harness;

use std::time::Duration;

use cdp_supervisor::evaluate::{Element, EvalError, Evaluation};
use cdp_supervisor::{CommandId, Config, Event};
use harness::{Harness, PAGE, PS};
use serde_json::{json, Value};

fn outcomes(h: &Harness, id: CommandId) -> Vec<&Result<cdp_supervisor::EvalValue, EvalError>> {
    h.events
        .iter()
        .filter_map(|e| match e {
            Event::Evaluated { id: i, outcome } if *i == id => Some(outcome),
            _ => None,
        })
        .collect()
}

fn params(h: &Harness, method: &str) -> Value {
    let cmd = h.last_sent(method);
    let v: Value = serde_json::from_str(&cmd.json).expect("json");
    v["params"].clone()
}

fn budget(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// Starts an evaluate of `expression` in the top frame within `ms`: its id, and the id of
/// the `Runtime.evaluate` it sent.
fn start(h: &mut Harness, expression: &str, ms: u64) -> (CommandId, u64) {
    let e = Evaluation::new(expression).within(budget(ms));
    let id = h.sup.evaluate(h.now, &e).expect("starts");
    h.drain();
    (id, h.last_sent("Runtime.evaluate").id)
}

/// An `alert` opens in the top frame.
fn alert(h: &mut Harness) {
    h.event(PS, "Page.javascriptDialogOpening", &format!(
        r#"{{"url":"http://a.test/","message":"1","type":"alert","hasBrowserHandler":false,"defaultPrompt":"","frameId":"{PAGE}"}}"#
    ));
}

#[test]
fn a_stuck_script_is_terminated_at_the_deadline_and_later_replies_are_dropped() {
    let mut h = Harness::attached(Config::default());
    let id = h
        .sup
        .evaluate(h.now, &Evaluation::new("while(true){}").within(budget(500)))
        .expect("starts");
    h.drain();
    let eval = h.last_sent("Runtime.evaluate").clone();
    assert_eq!(eval.session_id.as_deref(), Some(PS));
    let p = params(&h, "Runtime.evaluate");
    assert_eq!(
        p["timeout"], 400,
        "in-page bound: budget minus twice the headroom"
    );
    assert_eq!(p["awaitPromise"], false);
    assert!(
        p.get("uniqueContextId").is_none(),
        "top frame: the session's default"
    );
    h.advance(0.449);
    assert!(outcomes(&h, id).is_empty());
    assert!(h.sent_with("Runtime.terminateExecution").is_empty());
    h.advance(0.002);
    let out = outcomes(&h, id);
    assert_eq!(out.len(), 1);
    let Err(e) = out[0] else { panic!("{out:?}") };
    assert_eq!(e.code(), "timeout");
    // Nothing answered by the deadline: termination is requested, not claimed.
    let text = e.to_string();
    assert!(
        text.contains("the top frame ran past its 500 ms budget without an answer"),
        "{text}"
    );
    assert!(
        !text.contains("was terminated") && text.contains("is unknown"),
        "{text}"
    );
    let term = h.last_sent("Runtime.terminateExecution");
    assert_eq!(term.session_id.as_deref(), Some(PS));
    // The script's late reply (and the terminate's) are consumed quietly.
    h.reply_error(eval.id, -32000, "Execution was terminated");
    let term_id = h.last_sent("Runtime.terminateExecution").id;
    h.reply(term_id, "{}");
    assert_eq!(outcomes(&h, id).len(), 1, "exactly one outcome");
    // The next evaluate works at once.
    let next = h
        .sup
        .evaluate(h.now, &Evaluation::new("1+1"))
        .expect("starts");
    h.drain();
    let again = h.last_sent("Runtime.evaluate").id;
    h.reply(
        again,
        r#"{"result":{"type":"number","value":2,"description":"2"}}"#,
    );
    let out = outcomes(&h, next);
    assert!(matches!(out[0], Ok(v) if v.value == json!(2) && !v.undefined));
    h.advance(120.0);
    assert_eq!(
        h.sup.table_sizes().commands_in_flight,
        0,
        "nothing left in flight"
    );
}

#[test]
fn the_in_page_timeout_reply_is_a_timeout_error() {
    let mut h = Harness::attached(Config::default());
    let (id, eval) = start(&mut h, "while(true){}", 2000);
    h.advance(1.6);
    h.reply_error(eval, -32000, "Execution was terminated");
    let out = outcomes(&h, id);
    assert!(matches!(
        out[0],
        Err(EvalError::Timeout {
            terminated: true,
            budget_ms: 2000,
            ..
        })
    ));
}

#[test]
fn a_promise_is_raced_in_page_and_its_marker_rejection_is_a_timeout() {
    let mut h = Harness::attached(Config::default());
    let (id, eval) = start(&mut h, "new Promise(()=>{})", 1000);
    h.now += 0.01;
    h.reply(
        eval,
        r#"{"result":{"type":"object","subtype":"promise","className":"Promise","objectId":"O1"}}"#,
    );
    let p = params(&h, "Runtime.callFunctionOn");
    assert_eq!(p["objectId"], "O1");
    assert_eq!(p["awaitPromise"], true);
    assert_eq!(p["returnByValue"], true);
    assert_eq!(p["arguments"][0]["value"], 790);
    let race = h.last_sent("Runtime.callFunctionOn").id;
    h.reply(race, r#"{"result":{"type":"object","value":{}},"exceptionDetails":{"text":"Uncaught (in promise) Error: cdp-supervisor: evaluate budget spent","exception":{"type":"object","subtype":"error","description":"Error: cdp-supervisor: evaluate budget spent\n    at <anonymous>:1:1"}}}"#);
    let out = outcomes(&h, id);
    let Err(e) = out[0] else { panic!() };
    assert_eq!(e.code(), "timeout");
    assert!(e
        .to_string()
        .contains("did not settle within its 1000 ms budget"));
    assert!(h.sent_with("Runtime.terminateExecution").is_empty());
    let release = params(&h, "Runtime.releaseObjectGroup");
    assert_eq!(release["objectGroup"], p["objectGroup"]);
}

#[test]
fn values_undefined_objects_and_exceptions() {
    let mut h = Harness::attached(Config::default());
    let (undef, _) = start(&mut h, "void 0", 30_000);
    h.reply(
        h.last_sent("Runtime.evaluate").id,
        r#"{"result":{"type":"undefined"}}"#,
    );
    assert!(matches!(outcomes(&h, undef)[0], Ok(v) if v.undefined && v.value.is_null()));

    let (obj, _) = start(&mut h, "({a:1})", 30_000);
    h.reply(
        h.last_sent("Runtime.evaluate").id,
        r#"{"result":{"type":"object","objectId":"O2"}}"#,
    );
    h.reply(
        h.last_sent("Runtime.callFunctionOn").id,
        r#"{"result":{"type":"object","value":{"a":1,"b":[2]}}}"#,
    );
    assert!(matches!(outcomes(&h, obj)[0], Ok(v) if v.value == json!({"a":1,"b":[2]})));

    let (nan, _) = start(&mut h, "NaN", 30_000);
    h.reply(
        h.last_sent("Runtime.evaluate").id,
        r#"{"result":{"type":"number","unserializableValue":"NaN"}}"#,
    );
    assert!(matches!(outcomes(&h, nan)[0], Ok(v) if v.value == json!("NaN")));

    let boom = h
        .sup
        .evaluate(h.now, &Evaluation::new("throw new Error('boom')"))
        .unwrap();
    h.drain();
    h.reply(h.last_sent("Runtime.evaluate").id, r#"{"result":{"type":"object","subtype":"error","objectId":"O3"},"exceptionDetails":{"text":"Uncaught","exception":{"type":"object","description":"Error: boom\n    at <anonymous>:1:7"}}}"#);
    let out = outcomes(&h, boom);
    let Err(e) = out[0] else { panic!() };
    assert_eq!(e.code(), "exception");
    assert!(e.to_string().contains("Error: boom"), "{e}");
}

#[test]
fn a_dialog_opening_ends_it_as_blocked_and_the_reply_is_consumed_later() {
    let mut h = Harness::attached(Config::default());
    let (id, eval) = start(&mut h, "alert(1); 5", 30_000);
    alert(&mut h);
    let out = outcomes(&h, id);
    assert_eq!(out.len(), 1);
    let Err(e) = out[0] else { panic!() };
    assert_eq!(e.code(), "blocked");
    assert_eq!(e.dialog().map(|d| d.id.as_str()), Some("d-1"));
    assert!(e.to_string().contains("d-1"));
    // While it shows, a new evaluate is refused at once.
    let refused = h.sup.evaluate(h.now, &Evaluation::new("1")).unwrap_err();
    assert_eq!(refused.code(), "blocked");
    h.reply(eval, r#"{"result":{"type":"number","value":5}}"#);
    assert_eq!(outcomes(&h, id).len(), 1);
}

#[test]
fn an_auto_answered_dialog_does_not_block() {
    let mut config = Config::default();
    config.policy = cdp_supervisor::DialogPolicy::AutoAccept;
    let mut h = Harness::attached(config);
    let (id, eval) = start(&mut h, "alert(1); 5", 30_000);
    alert(&mut h);
    assert!(outcomes(&h, id).is_empty());
    h.reply(eval, r#"{"result":{"type":"number","value":5}}"#);
    assert!(matches!(outcomes(&h, id)[0], Ok(v) if v.value == json!(5)));
}

/// An in-process child frame `C` with contexts: the initial one, then its document's.
fn with_child(h: &mut Harness) {
    h.event(
        PS,
        "Page.frameAttached",
        &format!(r#"{{"frameId":"C","parentFrameId":"{PAGE}"}}"#),
    );
    h.event(PS, "Runtime.executionContextCreated", r#"{"context":{"id":7,"origin":"","name":"","uniqueId":"U-7","auxData":{"isDefault":true,"type":"default","frameId":"C"}}}"#);
    h.event(PS, "Runtime.executionContextCreated", r#"{"context":{"id":8,"origin":"","name":"","uniqueId":"U-8","auxData":{"isDefault":true,"type":"default","frameId":"C"}}}"#);
    h.event(PS, "Runtime.executionContextCreated", r#"{"context":{"id":9,"origin":"","name":"iso","uniqueId":"U-9","auxData":{"isDefault":false,"type":"isolated","frameId":"C"}}}"#);
}

#[test]
fn an_in_process_frame_runs_in_its_latest_default_context() {
    let mut h = Harness::attached(Config::default());
    with_child(&mut h);
    h.sup
        .evaluate(h.now, &Evaluation::new("window.who").in_frame("C"))
        .unwrap();
    h.drain();
    assert_eq!(params(&h, "Runtime.evaluate")["uniqueContextId"], "U-8");
    // Destroyed: no context until a new one comes.
    h.event(
        PS,
        "Runtime.executionContextDestroyed",
        r#"{"executionContextId":8,"executionContextUniqueId":"U-8"}"#,
    );
    let e = h
        .sup
        .evaluate(h.now, &Evaluation::new("1").in_frame("C"))
        .unwrap_err();
    assert_eq!(e.code(), "no_context");
    assert!(e.to_string().contains("frame C"));
    h.event(
        PS,
        "Runtime.executionContextCreated",
        r#"{"context":{"id":10,"uniqueId":"U-10","auxData":{"isDefault":true,"frameId":"C"}}}"#,
    );
    h.sup
        .evaluate(h.now, &Evaluation::new("1").in_frame("C"))
        .unwrap();
    h.drain();
    assert_eq!(params(&h, "Runtime.evaluate")["uniqueContextId"], "U-10");
    h.event(PS, "Runtime.executionContextsCleared", "{}");
    let e = h
        .sup
        .evaluate(h.now, &Evaluation::new("1").in_frame("C"))
        .unwrap_err();
    assert_eq!(e.code(), "no_context");
    // The top frame by its id: the session's default, no context needed.
    h.sup
        .evaluate(h.now, &Evaluation::new("1").in_frame(PAGE))
        .unwrap();
    h.drain();
    assert!(params(&h, "Runtime.evaluate")
        .get("uniqueContextId")
        .is_none());
}

#[test]
fn an_unknown_frame_and_a_stale_ref_are_refused_by_name() {
    let mut h = Harness::attached(Config::default());
    let e = h
        .sup
        .evaluate(h.now, &Evaluation::new("1").in_frame("NOPE"))
        .unwrap_err();
    assert_eq!(e.code(), "no_such_frame");
    assert!(e.to_string().contains("NOPE"));
    let e = h
        .sup
        .evaluate(
            h.now,
            &Evaluation::new("el => el.id").on_element(Element::Ref("e3".into())),
        )
        .unwrap_err();
    assert_eq!(e.code(), "stale_ref");
    assert!(e.to_string().contains("take a new snapshot"));
    let e = h.sup.evaluate(h.now, &Evaluation::new("  ")).unwrap_err();
    assert_eq!(e.code(), "bad_request");
    let e = h
        .sup
        .evaluate(h.now, &Evaluation::new("1").within(Duration::ZERO))
        .unwrap_err();
    assert_eq!(e.code(), "bad_request");
}

#[test]
fn an_element_is_resolved_then_called_and_a_gone_node_is_stale() {
    let mut h = Harness::attached(Config::default());
    let id = h
        .sup
        .evaluate(
            h.now,
            &Evaluation::new("el => el.textContent").on_element(Element::BackendNodeId(12)),
        )
        .unwrap();
    h.drain();
    assert_eq!(params(&h, "DOM.resolveNode")["backendNodeId"], 12);
    h.reply(
        h.last_sent("DOM.resolveNode").id,
        r#"{"object":{"type":"object","subtype":"node","objectId":"N1"}}"#,
    );
    let p = params(&h, "Runtime.callFunctionOn");
    assert_eq!(p["objectId"], "N1");
    assert!(p["functionDeclaration"]
        .as_str()
        .unwrap()
        .contains("el => el.textContent"));
    h.reply(
        h.last_sent("Runtime.callFunctionOn").id,
        r#"{"result":{"type":"string","value":"Hello"}}"#,
    );
    assert!(matches!(outcomes(&h, id)[0], Ok(v) if v.value == json!("Hello")));

    let gone = h
        .sup
        .evaluate(
            h.now,
            &Evaluation::new("el => el.id").on_element(Element::BackendNodeId(99)),
        )
        .unwrap();
    h.drain();
    h.reply_error(
        h.last_sent("DOM.resolveNode").id,
        -32000,
        "No node with given id found",
    );
    let out = outcomes(&h, gone);
    let Err(e) = out[0] else { panic!() };
    assert_eq!(e.code(), "stale_ref");
    assert!(e.to_string().contains("backend node 99"), "{e}");
}

#[test]
fn a_disconnect_ends_it_once() {
    let mut h = Harness::attached(Config::default());
    let id = h.sup.evaluate(h.now, &Evaluation::new("1")).unwrap();
    h.drain();
    h.sup.handle_disconnected(h.now);
    h.drain();
    let out = outcomes(&h, id);
    assert_eq!(out.len(), 1);
    assert!(matches!(out[0], Err(e) if e.code() == "disconnected"));
    h.advance(100.0);
    assert_eq!(outcomes(&h, id).len(), 1);
}

/// Recorded against Chromium 156 (`e2e/evaluate-frames.jsonl`, the blocking end-to-end
/// test `evaluate_runs_in_the_frame_it_names`): replaying what the browser sent leaves
/// the supervisor with the same default context per in-process frame that the live run
/// evaluated in (the srcdoc frame first, then the same-site iframe the test added).
#[test]
fn replayed_contexts_give_each_in_process_frame_its_own() {
    use cdp_supervisor::replay::{Direction, Replayer, Trace};
    use cdp_supervisor::Supervisor;
    let text = harness::trace_text("e2e/evaluate-frames");
    let mut trace = Trace::parse(&text).expect("trace parses");
    let mut recorded: Vec<String> = Vec::new();
    for entry in trace.entries.iter().filter(|e| e.dir == Direction::Out) {
        let msg: Value = serde_json::from_str(entry.msg.map_or("{}", |m| m.get())).unwrap();
        if let Some(u) = msg["params"]["uniqueContextId"].as_str() {
            if !recorded.iter().any(|r| r == u) {
                recorded.push(u.to_owned());
            }
        }
    }
    assert_eq!(recorded.len(), 2, "srcdoc and same-site: {recorded:?}");
    if let Some(last) = trace
        .entries
        .iter()
        .rposition(|e| e.dir == Direction::Disconnect)
    {
        trace.entries.truncate(last);
    }
    let mut sup = Supervisor::new(Config::default());
    let mut replayer = Replayer::new(&trace);
    replayer.run(&mut sup);
    while sup.poll_transmit().is_some() {}
    let snap = sup.snapshot();
    let frame = |needle: &str| {
        snap.frame_tree
            .children
            .iter()
            .find(|f| f.url.contains(needle))
            .unwrap_or_else(|| panic!("no frame {needle}: {:?}", snap.frame_tree.children))
            .frame_id
            .clone()
    };
    for (needle, expected) in [("about:srcdoc", &recorded[0]), ("same-site", &recorded[1])] {
        let e = Evaluation::new("1").in_frame(&frame(needle));
        sup.evaluate(1e9, &e).expect("starts");
        let sent = std::iter::from_fn(|| sup.poll_transmit())
            .find(|c| c.method == "Runtime.evaluate")
            .expect("Runtime.evaluate sent");
        let v: Value = serde_json::from_str(&sent.json).unwrap();
        assert_eq!(&v["params"]["uniqueContextId"], expected, "{needle}");
    }
}

#[test]
fn a_planned_stop_terminates_a_running_evaluate() {
    let mut h = Harness::attached(Config::default());
    let (id, _) = start(&mut h, "while(true){}", 30_000);
    h.sup.begin_stop(h.now, None, Duration::from_secs(2));
    h.drain();
    let out = outcomes(&h, id);
    assert_eq!(out.len(), 1);
    let Err(e) = out[0] else { panic!() };
    assert_eq!(e.code(), "cancelled");
    assert!(e.to_string().contains("stopping"), "{e}");
    assert_eq!(
        h.last_sent("Runtime.terminateExecution")
            .session_id
            .as_deref(),
        Some(PS)
    );
    assert!(h.sup.ready_to_close());
}

/// Playwright's `function`: the source is evaluated as an expression (between line breaks
/// in parentheses, its trailing semicolon dropped), and the function it gives is called by
/// the second step, whose promise is raced like any other.
#[test]
fn a_function_source_is_read_as_an_expression_and_called() {
    let mut h = Harness::attached(Config::default());
    let id = h
        .sup
        .evaluate(
            h.now,
            &Evaluation::function("async function () { return 6 * 7 };").within(budget(1000)),
        )
        .unwrap();
    h.drain();
    let p = params(&h, "Runtime.evaluate");
    assert_eq!(
        p["expression"], "(\nasync function () { return 6 * 7 }\n)",
        "an expression, so an anonymous function is a value, not a syntax error"
    );
    assert_eq!(p["timeout"], 800, "the same in-page bound as a script");
    h.reply(
        h.last_sent("Runtime.evaluate").id,
        r#"{"result":{"type":"function","className":"AsyncFunction","objectId":"F1"}}"#,
    );
    let call = params(&h, "Runtime.callFunctionOn");
    assert_eq!(call["objectId"], "F1");
    assert_eq!(call["awaitPromise"], true);
    let declaration = call["functionDeclaration"].as_str().unwrap();
    assert!(
        declaration.contains("typeof this === 'function' ? this() : this"),
        "{declaration}"
    );
    assert!(declaration.contains("Promise.race"), "{declaration}");
    h.reply(
        h.last_sent("Runtime.callFunctionOn").id,
        r#"{"result":{"type":"number","value":42,"description":"42"}}"#,
    );
    assert!(matches!(outcomes(&h, id)[0], Ok(v) if v.value == json!(42)));
}

/// An expression is sent as written (statements keep their completion value); the object
/// it gives goes through the same call step, which calls it when it is a function.
#[test]
fn an_expression_is_sent_as_written_and_its_function_value_called() {
    let mut h = Harness::attached(Config::default());
    let (id, eval) = start(&mut h, "var x = 1; () => x + 41", 30_000);
    assert_eq!(
        params(&h, "Runtime.evaluate")["expression"],
        "var x = 1; () => x + 41"
    );
    h.reply(
        eval,
        r#"{"result":{"type":"function","className":"Function","objectId":"F2"}}"#,
    );
    let call = params(&h, "Runtime.callFunctionOn");
    assert_eq!(call["objectId"], "F2");
    assert!(call["functionDeclaration"]
        .as_str()
        .unwrap()
        .contains("this()"));
    h.reply(
        h.last_sent("Runtime.callFunctionOn").id,
        r#"{"result":{"type":"number","value":42}}"#,
    );
    assert!(matches!(outcomes(&h, id)[0], Ok(v) if v.value == json!(42)));
}

/// A called function that never returns has no `Runtime.evaluate {timeout}` over it: the
/// flow's deadline terminates it, answers `timeout` within the budget, and the next call
/// in the frame runs at once.
#[test]
fn a_stuck_function_is_terminated_at_the_deadline_and_the_next_call_runs() {
    let mut h = Harness::attached(Config::default());
    let id = h
        .sup
        .evaluate(
            h.now,
            &Evaluation::function("() => { while (true) {} }").within(budget(500)),
        )
        .unwrap();
    h.drain();
    h.now += 0.005;
    h.reply(
        h.last_sent("Runtime.evaluate").id,
        r#"{"result":{"type":"function","objectId":"F3"}}"#,
    );
    let call = h.last_sent("Runtime.callFunctionOn").clone();
    h.advance(0.44);
    assert!(outcomes(&h, id).is_empty());
    h.advance(0.006);
    let out = outcomes(&h, id);
    let Err(e) = out[0] else { panic!("{out:?}") };
    assert_eq!(e.code(), "timeout");
    assert!(e.to_string().contains("termination was requested"), "{e}");
    assert_eq!(
        h.last_sent("Runtime.terminateExecution")
            .session_id
            .as_deref(),
        Some(PS)
    );
    h.reply_error(call.id, -32000, "Execution was terminated");
    assert_eq!(outcomes(&h, id).len(), 1, "the late reply is dropped");
    let next = h
        .sup
        .evaluate(h.now, &Evaluation::function("() => 6*7"))
        .expect("the frame is free again");
    h.drain();
    h.reply(
        h.last_sent("Runtime.evaluate").id,
        r#"{"result":{"type":"function","objectId":"F4"}}"#,
    );
    h.reply(
        h.last_sent("Runtime.callFunctionOn").id,
        r#"{"result":{"type":"number","value":42}}"#,
    );
    assert!(matches!(outcomes(&h, next)[0], Ok(v) if v.value == json!(42)));
}

/// With an element, a function's source takes the element path, its trailing semicolon
/// dropped so that it can sit between parentheses.
#[test]
fn a_function_on_an_element_is_called_with_it() {
    let mut h = Harness::attached(Config::default());
    let id = h
        .sup
        .evaluate(
            h.now,
            &Evaluation::function("(el) => el.tagName;").on_element(Element::BackendNodeId(7)),
        )
        .unwrap();
    h.drain();
    h.reply(
        h.last_sent("DOM.resolveNode").id,
        r#"{"object":{"type":"object","subtype":"node","objectId":"N7"}}"#,
    );
    let declaration = params(&h, "Runtime.callFunctionOn")["functionDeclaration"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        declaration.contains("(\n(el) => el.tagName\n).call(this, this)"),
        "{declaration}"
    );
    h.reply(
        h.last_sent("Runtime.callFunctionOn").id,
        r#"{"result":{"type":"string","value":"BUTTON"}}"#,
    );
    assert!(matches!(outcomes(&h, id)[0], Ok(v) if v.value == json!("BUTTON")));
}
