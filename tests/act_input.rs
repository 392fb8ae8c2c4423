//! The form and pointer actions on the simulated-time harness: what `hover`, `select`,
//! `fill` and `drag` send (and on which session, OOPIFs included), their errors, and a
//! pending dialog refusing them before anything is sent.

mod harness;

use cdp_supervisor::act::{
    ActError, ActOptions, ActResult, Action, FieldKind, FillField, Target, MAX_FILL_FIELDS,
};
use cdp_supervisor::{CommandId, Config, Event};
use harness::{Harness, PAGE, PS};
use serde_json::{json, Value};

const OOPIF_S: &str = "S-OOPIF";

/// The top frame, an in-process `SRC` frame (on the page session) and an OOPIF `OOP`
/// (session `S-OOPIF`).
fn tab() -> Harness {
    let mut h = Harness::attached(Config::default());
    h.frame_attached(PS, "SRC", PAGE);
    h.frame_navigated(PS, "SRC", Some(PAGE), "about:srcdoc");
    h.attach_oopif(PS, OOPIF_S, "OOP", PAGE);
    h.frame_navigated(OOPIF_S, "OOP", Some(PAGE), "http://b.test/");
    h.drain();
    h.sent.clear();
    h
}

fn node(frame: &str, id: i64) -> Target {
    Target::Node {
        frame_id: frame.into(),
        backend_node_id: id,
    }
}

fn result(h: &Harness, id: CommandId) -> Option<Result<ActResult, ActError>> {
    h.events.iter().find_map(|e| match e {
        Event::ActFinished { id: i, outcome } if *i == id => Some(outcome.clone().map(|r| *r)),
        _ => None,
    })
}

fn params(h: &Harness, method: &str) -> Vec<(Option<String>, Value)> {
    h.sent_with(method)
        .iter()
        .map(|c| {
            let v: Value = serde_json::from_str(&c.json).unwrap();
            (c.session_id.clone(), v["params"].clone())
        })
        .collect()
}

/// Settles (no console for 500 ms) and answers the screenshot and title.
fn settle_and_capture(h: &mut Harness) {
    h.advance(0.6);
    let shot = h.last_sent("Page.captureScreenshot").id;
    h.reply(shot, r#"{"data":"UklGRg=="}"#);
    let title = h.last_sent("Runtime.evaluate").id;
    h.reply(title, r#"{"result":{"type":"string","value":"T"}}"#);
}

/// Answers every mouse event sent and not answered yet.
fn answer_mouse(h: &mut Harness, answered: &mut usize) {
    let ids: Vec<u64> = h
        .sent_with("Input.dispatchMouseEvent")
        .iter()
        .map(|c| c.id)
        .collect();
    for id in ids.into_iter().skip(*answered) {
        *answered += 1;
        h.reply(id, "{}");
    }
}

#[test]
fn hover_in_an_oopif_moves_the_mouse_to_the_node_through_its_iframe_and_presses_nothing() {
    let mut h = tab();
    let hover = Action::Hover {
        target: node("OOP", 5),
    };
    let id = h.sup.act(h.now, hover, ActOptions::default()).unwrap();
    h.drain();
    assert_eq!(
        h.sent_on(OOPIF_S),
        ["DOM.scrollIntoViewIfNeeded", "DOM.getContentQuads"]
    );
    let quads = h.last_sent("DOM.getContentQuads").id;
    h.reply(quads, r#"{"quads":[[10,10,30,10,30,30,10,30]]}"#);
    let owner = h.last_sent("DOM.getFrameOwner");
    assert_eq!(owner.session_id.as_deref(), Some(PS));
    let owner = owner.id;
    h.reply(owner, r#"{"backendNodeId":3}"#);
    let model = h.last_sent("DOM.getBoxModel").id;
    h.reply(
        model,
        r#"{"model":{"content":[100,50,400,50,400,350,100,350]}}"#,
    );
    let mouse = params(&h, "Input.dispatchMouseEvent");
    assert_eq!(mouse.len(), 1, "a hover is one move, no press");
    assert_eq!(mouse[0].0.as_deref(), Some(PS), "input goes to the page");
    assert_eq!(
        mouse[0].1,
        json!({"type": "mouseMoved", "x": 120.0, "y": 70.0})
    );
    let mut answered = 0;
    answer_mouse(&mut h, &mut answered);
    settle_and_capture(&mut h);
    let r = result(&h, id).expect("finished").unwrap();
    assert!(r.settled);
    assert_eq!(r.mouse.map(|m| (m.x, m.y)), Some((120.0, 70.0)));
}

#[test]
fn select_in_an_oopif_calls_the_setter_on_the_resolved_node_and_reports_the_pick() {
    let mut h = tab();
    let select = Action::select(node("OOP", 7), vec!["Blue".into()]).unwrap();
    let id = h.sup.act(h.now, select, ActOptions::default()).unwrap();
    h.drain();
    assert!(
        h.sent_with("Input.dispatchMouseEvent").is_empty(),
        "no mouse for a select"
    );
    let resolve = params(&h, "DOM.resolveNode");
    assert_eq!(resolve[0].0.as_deref(), Some(OOPIF_S));
    assert_eq!(resolve[0].1["backendNodeId"], 7);
    let resolve = h.last_sent("DOM.resolveNode").id;
    h.reply(resolve, r#"{"object":{"type":"object","objectId":"O-7"}}"#);
    let call = params(&h, "Runtime.callFunctionOn");
    assert_eq!(call[0].0.as_deref(), Some(OOPIF_S));
    let p = &call[0].1;
    assert_eq!(p["objectId"], "O-7");
    assert_eq!(p["userGesture"], true);
    assert_eq!(p["arguments"][0]["value"], "combobox");
    assert_eq!(p["arguments"][1]["value"], json!(["Blue"]));
    assert!(p["functionDeclaration"]
        .as_str()
        .unwrap()
        .contains("'change'"));
    let call = h.last_sent("Runtime.callFunctionOn").id;
    h.reply(
        call,
        r#"{"result":{"type":"object","value":{"ok":"selected \"Blue\""}}}"#,
    );
    assert_eq!(
        params(&h, "Runtime.releaseObjectGroup")[0].0.as_deref(),
        Some(OOPIF_S)
    );
    settle_and_capture(&mut h);
    let r = result(&h, id).expect("finished").unwrap();
    assert_eq!(r.fields, ["the <select>: selected \"Blue\""]);
}

#[test]
fn a_value_that_matches_no_option_is_an_error_naming_it_and_the_options() {
    let mut h = tab();
    let select = Action::select(node("OOP", 7), vec!["Mauve".into()]).unwrap();
    let id = h.sup.act(h.now, select, ActOptions::default()).unwrap();
    h.drain();
    let resolve = h.last_sent("DOM.resolveNode").id;
    h.reply(resolve, r#"{"object":{"type":"object","objectId":"O-7"}}"#);
    let call = h.last_sent("Runtime.callFunctionOn").id;
    h.reply(call, r#"{"result":{"type":"object","value":{"error":"no option has the value or label \"Mauve\"; its 2 options: \"Red\", \"Blue\""}}}"#);
    let e = result(&h, id).expect("finished").unwrap_err();
    assert_eq!(e.code(), "bad_request");
    let text = e.to_string();
    assert!(
        text.contains("Mauve") && text.contains("\"Red\", \"Blue\""),
        "{text}"
    );
    assert!(
        h.sent_with("Page.captureScreenshot").is_empty(),
        "ends at once"
    );
}

#[test]
fn fill_sets_fields_in_two_frames_one_after_the_other_under_one_budget() {
    let mut h = tab();
    let field = |target: Target, value: &str, kind: Option<FieldKind>| FillField {
        target,
        value: value.into(),
        name: None,
        kind,
    };
    let fill = Action::fill(vec![
        field(node("SRC", 11), "Ada", None),
        field(node("OOP", 21), "true", Some(FieldKind::Checkbox)),
    ])
    .unwrap();
    let id = h.sup.act(h.now, fill, ActOptions::default()).unwrap();
    h.drain();
    // The second field waits for the first.
    let resolves = params(&h, "DOM.resolveNode");
    assert_eq!(resolves.len(), 1);
    assert_eq!(
        resolves[0].0.as_deref(),
        Some(PS),
        "an in-process frame is on its parent's session"
    );
    let resolve = h.last_sent("DOM.resolveNode").id;
    h.reply(resolve, r#"{"object":{"type":"object","objectId":"O-11"}}"#);
    let call = params(&h, "Runtime.callFunctionOn");
    assert_eq!(
        call[0].1["arguments"][0]["value"],
        Value::Null,
        "the kind is read from the element"
    );
    let call = h.last_sent("Runtime.callFunctionOn").id;
    h.reply(
        call,
        r#"{"result":{"type":"object","value":{"ok":"textbox set to \"Ada\""}}}"#,
    );
    let resolves = params(&h, "DOM.resolveNode");
    assert_eq!(resolves.len(), 2);
    assert_eq!(resolves[1].0.as_deref(), Some(OOPIF_S));
    let resolve = h.last_sent("DOM.resolveNode").id;
    h.reply(resolve, r#"{"object":{"type":"object","objectId":"O-21"}}"#);
    let call = params(&h, "Runtime.callFunctionOn");
    assert_eq!(call[1].1["arguments"][0]["value"], "checkbox");
    assert_eq!(call[1].1["arguments"][1]["value"], json!(["true"]));
    let call = h.last_sent("Runtime.callFunctionOn").id;
    h.reply(
        call,
        r#"{"result":{"type":"object","value":{"ok":"checkbox already checked"}}}"#,
    );
    let released: Vec<_> = params(&h, "Runtime.releaseObjectGroup")
        .into_iter()
        .map(|(s, _)| s.unwrap_or_default())
        .collect();
    assert_eq!(released, [PS, OOPIF_S]);
    settle_and_capture(&mut h);
    let r = result(&h, id).expect("finished").unwrap();
    assert_eq!(
        r.fields,
        [
            "field 1 (node 11): textbox set to \"Ada\"",
            "field 2 (node 21): checkbox already checked"
        ]
    );
}

#[test]
fn a_fill_field_whose_node_is_gone_ends_the_fill_naming_it_and_what_was_set() {
    let mut h = tab();
    let fill = Action::from_json(&json!({"action": "fill", "fields": [
        {"frame_id": "OOP", "backend_node_id": 21, "value": "x", "name": "Email"},
    ]}))
    .unwrap();
    let id = h.sup.act(h.now, fill, ActOptions::default()).unwrap();
    h.drain();
    let resolve = h.last_sent("DOM.resolveNode").id;
    h.reply_error(resolve, -32000, "No node with given id found");
    let e = result(&h, id).expect("finished").unwrap_err();
    assert!(e.to_string().contains("field 1 (Email)"), "{e}");
}

#[test]
fn drag_presses_moves_in_steps_each_after_the_last_and_releases_at_the_end() {
    let mut h = tab();
    let drag = Action::from_json(
        &json!({"action": "drag", "x": 10, "y": 10, "to_frame_id": "PAGE", "to_backend_node_id": 9}),
    )
    .unwrap();
    let id = h.sup.act(h.now, drag, ActOptions::default()).unwrap();
    h.drain();
    // The end is an element: located first.
    assert!(h.sent_with("Input.dispatchMouseEvent").is_empty());
    let quads = h.last_sent("DOM.getContentQuads");
    assert_eq!(quads.session_id.as_deref(), Some(PS));
    let quads = quads.id;
    h.reply(quads, r#"{"quads":[[80,90,100,90,100,110,80,110]]}"#);
    let mut answered = 0;
    for sent in 1..=11 {
        assert_eq!(
            h.sent_with("Input.dispatchMouseEvent").len(),
            sent,
            "one at a time"
        );
        answer_mouse(&mut h, &mut answered);
    }
    let mouse: Vec<Value> = params(&h, "Input.dispatchMouseEvent")
        .into_iter()
        .map(|(_, p)| p)
        .collect();
    assert_eq!(mouse.len(), 11, "move, press, 8 moves, release");
    assert_eq!(
        mouse[0],
        json!({"type": "mouseMoved", "x": 10.0, "y": 10.0})
    );
    assert_eq!(mouse[1]["type"], "mousePressed");
    assert_eq!(
        (mouse[1]["x"].clone(), mouse[1]["y"].clone()),
        (json!(10.0), json!(10.0))
    );
    for m in &mouse[2..10] {
        assert_eq!(m["type"], "mouseMoved");
        assert_eq!(m["buttons"], 1, "the button is held while it moves");
    }
    assert_eq!(mouse[9]["x"], 90.0);
    assert_eq!(mouse[9]["y"], 100.0);
    assert_eq!(mouse[10]["type"], "mouseReleased");
    assert_eq!(mouse[10]["x"], 90.0);
    settle_and_capture(&mut h);
    let r = result(&h, id).expect("finished").unwrap();
    assert_eq!(r.mouse.map(|m| (m.x, m.y)), Some((90.0, 100.0)));
}

#[test]
fn bad_arguments_are_refused_before_anything_is_sent() {
    let mut h = tab();
    let bad = |v: Value| Action::from_json(&v).unwrap_err();
    for (v, names) in [
        (json!({"action": "hover"}), "ref"),
        (json!({"action": "select", "ref": "e1"}), "values"),
        (
            json!({"action": "select", "ref": "e1", "values": []}),
            "values",
        ),
        (
            json!({"action": "select", "x": 1, "y": 2, "values": ["a"]}),
            "ref",
        ),
        (json!({"action": "fill"}), "fields"),
        (json!({"action": "fill", "fields": []}), "fields"),
        (
            json!({"action": "fill", "fields": [{"value": "a"}]}),
            "fields[1].ref",
        ),
        (
            json!({"action": "fill", "fields": [{"ref": "e1"}]}),
            "fields[1].value",
        ),
        (
            json!({"action": "fill", "fields": [{"ref": "e1", "value": "yes", "type": "checkbox"}]}),
            "\"true\" or \"false\"",
        ),
        (
            json!({"action": "fill", "fields": [{"ref": "e1", "value": "a", "type": "button"}]}),
            "fields[1].type",
        ),
        (json!({"action": "drag", "ref": "e1"}), "to_ref"),
        (json!({"action": "drag", "ref": "e1", "to_x": 5}), "to_y"),
    ] {
        let e = bad(v.clone());
        assert_eq!(e.code(), "bad_request");
        assert!(e.to_string().contains(names), "{v}: {e}");
    }
    let many: Vec<Value> = (0..=MAX_FILL_FIELDS)
        .map(|_| json!({"ref": "e1", "value": "a"}))
        .collect();
    let e = bad(json!({"action": "fill", "fields": many}));
    assert!(e.to_string().contains("at most 50"), "{e}");
    // Playwright MCP's names are accepted.
    let a =
        Action::from_json(&json!({"action": "drag", "startRef": "e1", "endRef": "e2"})).unwrap();
    assert_eq!(
        a,
        Action::Drag {
            from: Target::Ref("e1".into()),
            to: Target::Ref("e2".into())
        }
    );
    // Refs the snapshot does not know are stale, whichever field names them.
    let fill = Action::from_json(&json!({"action": "fill", "fields": [
        {"frame_id": "OOP", "backend_node_id": 21, "value": "x"},
        {"ref": "e9", "value": "y"},
    ]}))
    .unwrap();
    let e = h.sup.act(h.now, fill, ActOptions::default()).unwrap_err();
    assert_eq!(e.code(), "stale_ref");
    // Built without its constructor, checked all the same: a field is never a point.
    let built = Action::Fill {
        fields: vec![FillField {
            target: Target::Point { x: 1.0, y: 1.0 },
            value: "a".into(),
            name: None,
            kind: None,
        }],
    };
    let e = h.sup.act(h.now, built, ActOptions::default()).unwrap_err();
    assert!(e.to_string().contains("not a point"), "{e}");
    let drag =
        Action::from_json(&json!({"action": "drag", "x": 1, "y": 1, "to_ref": "e9"})).unwrap();
    assert_eq!(
        h.sup
            .act(h.now, drag, ActOptions::default())
            .unwrap_err()
            .code(),
        "stale_ref"
    );
    h.drain();
    assert!(h.sent.is_empty(), "{:?}", h.sent);
}

#[test]
fn a_pending_dialog_blocks_each_of_them_at_once() {
    let mut h = tab();
    h.dialog_opening(PAGE, "alert", "hi");
    h.drain();
    h.sent.clear();
    let actions = [
        Action::Hover { target: node("OOP", 5) },
        Action::select(node("OOP", 7), vec!["Blue".into()]).unwrap(),
        Action::from_json(&json!({"action": "fill", "fields": [{"frame_id": "OOP", "backend_node_id": 7, "value": "a"}]})).unwrap(),
        Action::from_json(&json!({"action": "drag", "x": 1, "y": 1, "to_x": 5, "to_y": 5})).unwrap(),
    ];
    for a in actions {
        let name = a.name();
        let e = h.sup.act(h.now, a, ActOptions::default()).unwrap_err();
        assert_eq!(e.code(), "blocked", "{name}");
    }
    h.drain();
    assert!(h.sent.is_empty());
}

#[test]
fn a_dialog_a_field_opens_ends_the_fill_at_once() {
    let mut h = tab();
    let fill = Action::from_json(&json!({"action": "fill", "fields": [{"frame_id": "SRC", "backend_node_id": 11, "value": "true", "type": "checkbox"}]})).unwrap();
    let id = h.sup.act(h.now, fill, ActOptions::default()).unwrap();
    h.drain();
    let resolve = h.last_sent("DOM.resolveNode").id;
    h.reply(resolve, r#"{"object":{"type":"object","objectId":"O-11"}}"#);
    // The click's handler calls alert(): the call's reply waits for the dialog.
    h.dialog_opening("SRC", "alert", "checked!");
    let r = result(&h, id).expect("ended at once").unwrap();
    assert_eq!(r.ended_by_dialog.as_deref(), Some("d-1"));
    assert!(r.screenshot.is_none());
    // Its late reply is dropped quietly.
    h.take_events();
    let call = h.last_sent("Runtime.callFunctionOn").id;
    h.reply(
        call,
        r#"{"result":{"type":"object","value":{"ok":"checkbox checked"}}}"#,
    );
    assert!(h
        .events
        .iter()
        .all(|e| !matches!(e, Event::ActFinished { .. })));
}

#[test]
fn a_field_that_never_answers_ends_the_fill_at_its_one_budget_with_what_was_set() {
    let mut h = tab();
    let fill = Action::from_json(&json!({"action": "fill", "fields": [
        {"frame_id": "SRC", "backend_node_id": 11, "value": "a"},
        {"frame_id": "OOP", "backend_node_id": 21, "value": "b"},
    ]}))
    .unwrap();
    let mut options = ActOptions::default();
    options.timeout = std::time::Duration::from_secs(2);
    let id = h.sup.act(h.now, fill, options).unwrap();
    h.drain();
    let resolve = h.last_sent("DOM.resolveNode").id;
    h.reply(resolve, r#"{"object":{"type":"object","objectId":"O-11"}}"#);
    let call = h.last_sent("Runtime.callFunctionOn").id;
    h.reply(
        call,
        r#"{"result":{"type":"object","value":{"ok":"textbox set to \"a\""}}}"#,
    );
    // The second field's renderer is busy: its resolve never answers.
    h.advance(1.9);
    assert!(result(&h, id).is_none());
    h.advance(0.2);
    settle_and_capture(&mut h);
    let r = result(&h, id).expect("answered at its budget").unwrap();
    assert!(!r.settled);
    assert_eq!(r.fields, ["field 1 (node 11): textbox set to \"a\""]);
}

/// The recorded messages of a trace, in order: (direction, message).
fn recorded(name: &str) -> Vec<(String, Value)> {
    harness::trace_text(name)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("msg").is_some())
        .map(|v| (v["dir"].as_str().unwrap().to_owned(), v["msg"].clone()))
        .collect()
}

/// Chromium facts, "HTML5 drag and drop from mouse events", in the recording of the e2e
/// drag test: two drags of 11 mouse events each, the moves with the button held, no drag
/// interception; the HTML5 list's `drop` handler logs after the second drag's release, the
/// mouse-events list's `mouseup` handler after the first's. The whole recording replays
/// through the core without an input error.
#[test]
fn recorded_drags_run_html5_drag_and_drop_from_plain_mouse_events() {
    let name = "e2e/toolbox-input-drag";
    let msgs = recorded(name);
    let method = |m: &Value| m["method"].as_str().unwrap_or_default().to_owned();
    let mouse: Vec<usize> = (0..msgs.len())
        .filter(|&i| msgs[i].0 == "out" && method(&msgs[i].1) == "Input.dispatchMouseEvent")
        .collect();
    assert_eq!(mouse.len(), 22, "two drags of 11 events");
    for drag in mouse.chunks(11) {
        let kinds: Vec<String> = drag
            .iter()
            .map(|&i| msgs[i].1["params"]["type"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(kinds[1], "mousePressed");
        assert_eq!(kinds[10], "mouseReleased");
        for &i in &drag[2..10] {
            assert_eq!(msgs[i].1["params"]["buttons"], 1);
        }
    }
    assert!(msgs.iter().all(|(_, m)| {
        let m = method(m);
        m != "Input.setInterceptDrags" && m != "Input.dragIntercepted"
    }));
    let logged = |text: &str| {
        msgs.iter()
            .position(|(d, m)| {
                d == "in"
                    && method(m) == "Runtime.consoleAPICalled"
                    && m["params"]["args"][0]["value"] == text
            })
            .unwrap_or_else(|| panic!("{text:?} was logged"))
    };
    let (first_release, second_release) = (mouse[10], mouse[21]);
    let mouse_list = logged("mouse list: M2,M3,M1");
    let drag_list = logged("drag list: H2,H3,H1");
    assert!(first_release < mouse_list && mouse_list < mouse[11]);
    assert!(second_release < drag_list);
    let run = harness::replay_before_close(name, Config::default(), |_, _, _| {});
    assert!(
        run.stats.input_errors.is_empty(),
        "{:?}",
        run.stats.input_errors
    );
}
