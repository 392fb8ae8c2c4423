//! The accessibility snapshot flow on simulated time: pipelining, a frame that never
//! answers, refs across a navigation.

mod harness;

use cdp_supervisor::ax::{AxError, AxOptions, AxSnapshot};
use cdp_supervisor::{CommandId, Config, Event};
use harness::{Harness, PAGE, PS};

const OOPIF_S: &str = "S-OOPIF";

/// The top frame, an in-process `SRC` frame and an OOPIF `OOP` (session `S-OOPIF`).
fn tab() -> Harness {
    let mut h = Harness::attached(Config::default());
    h.frame_attached(PS, "SRC", PAGE);
    h.frame_navigated(PS, "SRC", Some(PAGE), "about:srcdoc");
    h.attach_oopif(PS, OOPIF_S, "OOP", PAGE);
    h.frame_navigated(OOPIF_S, "OOP", Some(PAGE), "http://b.test/");
    h.sent.clear();
    h
}

fn tree(nodes: &str) -> String {
    format!(r#"{{"nodes":[{nodes}]}}"#)
}

fn top_tree() -> String {
    tree(
        r#"{"nodeId":"1","role":{"value":"RootWebArea"},"childIds":["2","3","4"],"backendDOMNodeId":1,"frameId":"PAGE"},
        {"nodeId":"2","role":{"value":"heading"},"name":{"value":"Title"},"properties":[{"name":"level","value":{"value":1}}],"backendDOMNodeId":2},
        {"nodeId":"3","role":{"value":"Iframe"},"backendDOMNodeId":3},
        {"nodeId":"4","role":{"value":"Iframe"},"backendDOMNodeId":4}"#,
    )
}

fn srcdoc_tree() -> String {
    tree(
        r#"{"nodeId":"1","role":{"value":"RootWebArea"},"childIds":["2"],"backendDOMNodeId":10},
        {"nodeId":"2","role":{"value":"checkbox"},"name":{"value":"Agree"},"backendDOMNodeId":11}"#,
    )
}

fn oopif_tree(label: &str) -> String {
    tree(&format!(
        r#"{{"nodeId":"1","role":{{"value":"RootWebArea"}},"childIds":["2"],"backendDOMNodeId":1}},
        {{"nodeId":"2","role":{{"value":"button"}},"name":{{"value":"{label}"}},"backendDOMNodeId":5}}"#
    ))
}

fn outcome(h: &Harness, id: CommandId) -> Vec<Result<AxSnapshot, AxError>> {
    h.events
        .iter()
        .filter_map(|e| match e {
            Event::AxSnapshot { id: i, outcome } if *i == id => Some(outcome.clone()),
            _ => None,
        })
        .collect()
}

/// Sends each frame's answers; `skip_oopif_tree` leaves the OOPIF's tree unanswered.
fn answer(h: &mut Harness, oopif_label: &str, skip_oopif_tree: bool) {
    let trees: Vec<_> = h
        .sent_with("Accessibility.getFullAXTree")
        .into_iter()
        .map(|c| (c.id, c.session_id.clone(), c.json.clone()))
        .collect();
    let owners: Vec<_> = h
        .sent_with("DOM.getFrameOwner")
        .into_iter()
        .map(|c| (c.id, c.json.clone()))
        .collect();
    for (id, json) in owners {
        let backend = if json.contains("SRC") { 3 } else { 4 };
        h.reply(id, &format!(r#"{{"backendNodeId":{backend}}}"#));
    }
    for (id, session, json) in trees {
        let result = match session.as_deref() {
            Some(OOPIF_S) if skip_oopif_tree => continue,
            Some(OOPIF_S) => oopif_tree(oopif_label),
            _ if json.contains("SRC") => srcdoc_tree(),
            _ => top_tree(),
        };
        h.reply(id, &result);
    }
}

#[test]
fn every_frame_is_asked_at_once_on_its_own_session_and_grafted_in_place() {
    let mut h = tab();
    let id = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap();
    h.drain();
    // Pipelined: all five commands are out before any reply.
    let trees = h.sent_with("Accessibility.getFullAXTree");
    assert_eq!(trees.len(), 3);
    let on = |s: &str| {
        trees
            .iter()
            .filter(|c| c.session_id.as_deref() == Some(s))
            .count()
    };
    assert_eq!((on(PS), on(OOPIF_S)), (2, 1));
    assert!(trees.iter().any(|c| c.json.contains(r#""frameId":"SRC""#)));
    assert!(trees
        .iter()
        .filter(|c| c.session_id.as_deref() == Some(OOPIF_S))
        .all(|c| !c.json.contains("frameId")));
    let owners = h.sent_with("DOM.getFrameOwner");
    assert_eq!(owners.len(), 2);
    assert!(owners.iter().all(|c| c.session_id.as_deref() == Some(PS)));

    answer(&mut h, "Go", false);
    let got = outcome(&h, id);
    assert_eq!(got.len(), 1);
    let snap = got[0].clone().unwrap();
    assert_eq!(
        snap.text,
        "- heading \"Title\" [level=1] [ref=e1]\n- iframe [ref=e2]:\n  - checkbox \"Agree\" [ref=e3]\n- iframe [ref=e4]:\n  - button \"Go\" [ref=e5]\n"
    );
    assert_eq!(snap.refs[4].frame_id, "OOP");
    assert!(snap.frames_left_out.is_empty());
    let r = h.sup.resolve_ref("e5").unwrap();
    assert_eq!((r.session_id.as_str(), r.backend_node_id), (OOPIF_S, 5));
}

#[test]
fn a_frame_that_never_answers_is_left_out_at_the_budget() {
    let mut h = tab();
    let mut options = AxOptions::default();
    options.timeout = std::time::Duration::from_secs(2);
    let id = h.sup.ax_snapshot(h.now, options).unwrap();
    h.drain();
    answer(&mut h, "Go", true);
    assert!(outcome(&h, id).is_empty(), "waits for the OOPIF");
    h.advance(1.9);
    assert!(outcome(&h, id).is_empty());
    h.advance(0.2);
    let snap = outcome(&h, id).pop().unwrap().unwrap();
    assert_eq!(snap.frames_left_out.len(), 1);
    let left = &snap.frames_left_out[0];
    assert_eq!(left.frame_id, "OOP");
    assert!(left.reason.contains("2000 ms"), "{}", left.reason);
    assert!(snap.text.contains("checkbox \"Agree\""));
}

#[test]
fn unchanged_nodes_keep_their_refs_and_a_navigation_gives_new_ones() {
    let mut h = tab();
    let first = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap();
    h.drain();
    answer(&mut h, "Go", false);
    let a = outcome(&h, first).pop().unwrap().unwrap();

    h.sent.clear();
    let second = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap();
    h.drain();
    answer(&mut h, "Go now", false);
    let b = outcome(&h, second).pop().unwrap().unwrap();
    assert_eq!(
        a.refs,
        b.refs
            .iter()
            .map(|r| {
                let mut r = r.clone();
                if r.name == "Go now" {
                    r.name = "Go".into();
                }
                r
            })
            .collect::<Vec<_>>(),
        "same nodes, same refs, also when a name changed"
    );

    // The OOPIF navigates: its nodes are new, the old ref is stale.
    h.frame_navigated(OOPIF_S, "OOP", Some(PAGE), "http://b.test/next");
    let e = h.sup.resolve_ref("e5").unwrap_err();
    assert_eq!(e.code(), "stale_ref");
    assert!(e.to_string().contains("take a new snapshot"));
    h.sent.clear();
    let third = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap();
    h.drain();
    answer(&mut h, "Go", false);
    let c = outcome(&h, third).pop().unwrap().unwrap();
    let ids = |s: &AxSnapshot| s.refs.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&c)[..4], ids(&a)[..4], "the other frames keep theirs");
    assert_eq!(ids(&c)[4], "e6", "the navigated frame's button is new");
}

#[test]
fn the_frame_budget_names_the_frames_beyond_it() {
    let mut h = Harness::attached(Config::default());
    for i in 0..5 {
        let f = format!("F{i}");
        h.frame_attached(PS, &f, PAGE);
    }
    h.sent.clear();
    let mut options = AxOptions::default();
    options.max_frames = 3;
    let id = h.sup.ax_snapshot(h.now, options).unwrap();
    h.drain();
    let trees = h.sent_with("Accessibility.getFullAXTree");
    assert_eq!(trees.len(), 3);
    let top = trees[0].id;
    h.reply(top, &top_tree());
    h.advance(6.0);
    let snap = outcome(&h, id).pop().unwrap();
    let snap = match snap {
        Err(e) => panic!("{e}"),
        Ok(s) => s,
    };
    let over: Vec<_> = snap
        .frames_left_out
        .iter()
        .filter(|f| f.reason.contains("frame budget of 3"))
        .collect();
    assert_eq!(over.len(), 3);
}

#[test]
fn errors_name_what_to_do() {
    let mut h = tab();
    let mut options = AxOptions::default();
    options.frame_id = Some("NOPE".into());
    assert_eq!(
        h.sup.ax_snapshot(h.now, options).unwrap_err().code(),
        "no_such_frame"
    );
    let mut options = AxOptions::default();
    options.reference = Some("e77".into());
    assert_eq!(
        h.sup.ax_snapshot(h.now, options).unwrap_err().code(),
        "stale_ref"
    );
    // The root's tree failing is an error, not an empty outline.
    let id = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap();
    h.drain();
    let top = h
        .sent_with("Accessibility.getFullAXTree")
        .into_iter()
        .find(|c| c.session_id.as_deref() == Some(PS) && !c.json.contains("SRC"))
        .unwrap()
        .id;
    h.reply_error(top, -32000, "boom");
    h.advance(6.0);
    let e = outcome(&h, id).pop().unwrap().unwrap_err();
    assert_eq!(e.code(), "cdp_error");
}

#[test]
fn hostile_replies_cost_only_their_frame_and_snapshots_running_are_capped() {
    let mut h = tab();
    let id = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap();
    h.drain();
    let cmds: Vec<_> = h
        .sent
        .iter()
        .filter(|c| c.method.starts_with("Accessibility") || c.method.starts_with("DOM"))
        .map(|c| (c.id, c.method.clone(), c.session_id.clone(), c.json.clone()))
        .collect();
    for (cid, method, session, json) in cmds {
        let result = match (method.as_str(), session.as_deref()) {
            ("DOM.getFrameOwner", _) if json.contains("SRC") => {
                r#"{"backendNodeId":"x"}"#.to_owned()
            }
            ("DOM.getFrameOwner", _) => r#"{"backendNodeId":4}"#.to_owned(),
            (_, Some(OOPIF_S)) => {
                r#"{"nodes":[{"nodeId":"1","childIds":["1","1"]},{"nodeId":null},7]}"#.to_owned()
            }
            _ if json.contains("SRC") => "[1,2]".to_owned(),
            _ => top_tree(),
        };
        let _ = h.recv_any(&format!(r#"{{"id":{cid},"result":{result}}}"#));
    }
    let snap = outcome(&h, id).pop().unwrap().unwrap();
    let left: Vec<_> = snap
        .frames_left_out
        .iter()
        .map(|f| f.frame_id.as_str())
        .collect();
    assert!(left.contains(&"SRC"), "{left:?}");
    assert!(snap.text.contains("heading \"Title\""));

    let started: Vec<_> = (0..10)
        .map(|_| h.sup.ax_snapshot(h.now, AxOptions::default()))
        .collect();
    assert_eq!(started.iter().filter(|r| r.is_ok()).count(), 8);
    assert_eq!(started[9].as_ref().unwrap_err().code(), "bad_request");
    h.advance(6.0);
    assert!(
        h.sup.ax_snapshot(h.now, AxOptions::default()).is_ok(),
        "room again after the deadline"
    );
}

/// The recorded real-Chromium run of the four-frame page (`blocking_ax.rs`): replayed, a
/// snapshot taken where the recording took its first one grafts the four frames in place,
/// and one taken where the recording took its second (after the heading's text changed)
/// keeps every ref.
#[test]
fn recorded_four_frames_replay_with_the_same_refs() {
    let text = harness::trace_text("e2e/ax-four-frames");
    let trace = cdp_supervisor::replay::Trace::parse(&text).unwrap();
    // The steps after which the recording sent each snapshot's first tree request.
    let mut firsts = Vec::new();
    let mut last_was_tree = false;
    for (i, e) in trace.entries.iter().enumerate() {
        let is_tree = e.dir == cdp_supervisor::replay::Direction::Out
            && e.msg
                .is_some_and(|m| m.get().contains("Accessibility.getFullAXTree"));
        if is_tree && !last_was_tree {
            firsts.push(i);
        }
        if e.dir == cdp_supervisor::replay::Direction::Out {
            last_was_tree = is_tree;
        }
    }
    assert!(firsts.len() >= 2, "{firsts:?}");
    let mut step = 0;
    let mut ids = Vec::new();
    let run = harness::replay_before_close("e2e/ax-four-frames", Config::default(), |sup, t, _| {
        if firsts[..2].contains(&step) {
            ids.push(sup.ax_snapshot(t, AxOptions::default()).unwrap());
        }
        step += 1;
    });
    let got = |id: CommandId| {
        run.events
            .iter()
            .find_map(|(_, e)| match e {
                Event::AxSnapshot { id: i, outcome } if *i == id => Some(outcome.clone()),
                _ => None,
            })
            .unwrap()
            .unwrap()
    };
    let (a, b) = (got(ids[0]), got(ids[1]));
    for (role, name) in [
        ("heading", "Welcome"),
        ("checkbox", "Agree"),
        ("button", "Go"),
        ("link", "Deep link"),
    ] {
        assert!(
            a.refs.iter().any(|r| r.role == role && r.name == name),
            "{role} {name} in\n{}",
            a.text
        );
    }
    let frames: std::collections::HashSet<_> = a.refs.iter().map(|r| &r.frame_id).collect();
    assert_eq!(frames.len(), 4, "{}", a.text);
    assert!(a.frames_left_out.is_empty(), "{:?}", a.frames_left_out);
    assert!(b.text.contains("heading \"Changed\""), "{}", b.text);
    let refs = |s: &AxSnapshot| s.refs.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    assert_eq!(refs(&a), refs(&b));
}

#[test]
fn a_scoped_snapshot_keeps_the_refs_outside_its_scope() {
    let mut h = tab();
    let full = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap();
    h.drain();
    answer(&mut h, "Go", false);
    let a = outcome(&h, full).pop().unwrap().unwrap();
    h.sent.clear();
    let mut options = AxOptions::default();
    options.frame_id = Some("SRC".into());
    let scoped = h.sup.ax_snapshot(h.now, options).unwrap();
    h.drain();
    assert_eq!(h.sent_with("Accessibility.getFullAXTree").len(), 1);
    assert!(
        h.sent_with("DOM.getFrameOwner").is_empty(),
        "the root needs no owner"
    );
    answer(&mut h, "Go", false);
    let s = outcome(&h, scoped).pop().unwrap().unwrap();
    assert_eq!(s.text, "- checkbox \"Agree\" [ref=e3]\n");
    assert_eq!(
        h.sup.resolve_ref("e5").unwrap().backend_node_id,
        5,
        "outside the scope, kept"
    );
    assert_eq!(a.refs.len(), 5);
}

#[test]
fn a_re_rendered_node_is_found_again_by_role_name_and_nth() {
    let mut h = tab();
    let full = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap();
    h.drain();
    answer(&mut h, "Go", false);
    outcome(&h, full).pop().unwrap().unwrap();
    let resolved = |h: &Harness, id: CommandId| {
        h.events
            .iter()
            .find_map(|e| match e {
                Event::RefResolved { id: i, outcome } if *i == id => Some(outcome.clone()),
                _ => None,
            })
            .unwrap()
    };
    let fresh_tree = |backend: i64, label: &str| {
        tree(&format!(
            r#"{{"nodeId":"1","role":{{"value":"RootWebArea"}},"childIds":["2"],"backendDOMNodeId":1}},
            {{"nodeId":"2","role":{{"value":"button"}},"name":{{"value":"{label}"}},"backendDOMNodeId":{backend}}}"#
        ))
    };
    let wait = std::time::Duration::from_secs(2);

    // Re-rendered: a new DOM node with the same role and name.
    h.sent.clear();
    let id = h.sup.resolve_ref_fresh(h.now, "e5", wait).unwrap();
    h.drain();
    let ask = h.last_sent("Accessibility.getFullAXTree");
    assert_eq!(
        (ask.session_id.as_deref(), ask.json.contains("frameId")),
        (Some(OOPIF_S), false)
    );
    let ask = ask.id;
    h.reply(ask, &fresh_tree(55, "Go"));
    assert_eq!(resolved(&h, id).unwrap().backend_node_id, 55);
    assert_eq!(
        h.sup.resolve_ref("e5").unwrap().backend_node_id,
        55,
        "rebound"
    );

    // Gone: no node, no same (role, name, nth).
    let id = h.sup.resolve_ref_fresh(h.now, "e5", wait).unwrap();
    h.drain();
    let ask = h.last_sent("Accessibility.getFullAXTree").id;
    h.reply(ask, &fresh_tree(56, "Stop"));
    assert_eq!(resolved(&h, id).unwrap_err().code(), "stale_ref");

    // No answer: a timeout at the deadline.
    let id = h.sup.resolve_ref_fresh(h.now, "e3", wait).unwrap();
    h.drain();
    h.advance(2.5);
    assert_eq!(resolved(&h, id).unwrap_err().code(), "timeout");

    // The frame navigated: stale at once.
    h.frame_navigated(OOPIF_S, "OOP", Some(PAGE), "http://b.test/2");
    assert_eq!(
        h.sup
            .resolve_ref_fresh(h.now, "e5", wait)
            .unwrap_err()
            .code(),
        "stale_ref"
    );
}

/// A snapshot taken (e5: the OOPIF's button "Go", node 5 on `S-OOPIF`), and a tree of that
/// frame whose button is node `backend` named `label`.
fn snapshot_taken() -> (Harness, impl Fn(i64, &str) -> String) {
    let mut h = tab();
    let full = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap();
    h.drain();
    answer(&mut h, "Go", false);
    outcome(&h, full).pop().unwrap().unwrap();
    h.sent.clear();
    let fresh_tree = |backend: i64, label: &str| {
        tree(&format!(
            r#"{{"nodeId":"1","role":{{"value":"RootWebArea"}},"childIds":["2"],"backendDOMNodeId":1}},
            {{"nodeId":"2","role":{{"value":"button"}},"name":{{"value":"{label}"}},"backendDOMNodeId":{backend}}}"#
        ))
    };
    (h, fresh_tree)
}

fn evaluated(
    h: &Harness,
    id: CommandId,
) -> Vec<Result<cdp_supervisor::EvalValue, cdp_supervisor::EvalError>> {
    h.events
        .iter()
        .filter_map(|e| match e {
            Event::Evaluated { id: i, outcome } if *i == id => Some(outcome.clone()),
            _ => None,
        })
        .collect()
}

fn acted(
    h: &Harness,
    id: CommandId,
) -> Vec<Result<cdp_supervisor::act::ActResult, cdp_supervisor::act::ActError>> {
    h.events
        .iter()
        .filter_map(|e| match e {
            Event::ActFinished { id: i, outcome } if *i == id => Some(outcome.clone().map(|r| *r)),
            _ => None,
        })
        .collect()
}

fn backend_of(h: &Harness, method: &str) -> i64 {
    let p: serde_json::Value = serde_json::from_str(&h.last_sent(method).json).unwrap();
    p["params"]["backendNodeId"].as_i64().unwrap()
}

#[test]
fn an_evaluate_on_a_ref_whose_node_was_re_rendered_runs_on_the_new_node() {
    use cdp_supervisor::{Element, Evaluation};
    let (mut h, fresh_tree) = snapshot_taken();
    let on_e5 = Evaluation::new("el => el.textContent").on_element(Element::Ref("e5".into()));
    let id = h.sup.evaluate(h.now, &on_e5).unwrap();
    h.drain();
    assert_eq!(backend_of(&h, "DOM.resolveNode"), 5);
    // The node was removed (collected): Chromium finds no node with that id.
    let resolve = h.last_sent("DOM.resolveNode").id;
    h.reply_error(resolve, -32000, "No node with given id found");
    let ask = h.last_sent("Accessibility.getFullAXTree");
    assert_eq!(ask.session_id.as_deref(), Some(OOPIF_S), "the ref's frame");
    let ask = ask.id;
    h.reply(ask, &fresh_tree(55, "Go"));
    assert_eq!(
        backend_of(&h, "DOM.resolveNode"),
        55,
        "retried on the new node"
    );
    assert_eq!(
        h.sup.resolve_ref("e5").unwrap().backend_node_id,
        55,
        "rebound"
    );
    let resolve = h.last_sent("DOM.resolveNode").id;
    h.reply(resolve, r#"{"object":{"type":"object","objectId":"N55"}}"#);
    let call = h.last_sent("Runtime.callFunctionOn");
    assert!(
        call.json.contains("isConnected") && call.json.contains("N55"),
        "{}",
        call.json
    );
    let call = call.id;
    h.reply(call, r#"{"result":{"type":"string","value":"Go"}}"#);
    let out = evaluated(&h, id);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].as_ref().unwrap().value, serde_json::json!("Go"));

    // Removed but still in memory: the function sees it detached; no equal one replaced
    // it: stale_ref, once.
    h.sent.clear();
    let id = h.sup.evaluate(h.now, &on_e5).unwrap();
    h.drain();
    let resolve = h.last_sent("DOM.resolveNode").id;
    h.reply(resolve, r#"{"object":{"type":"object","objectId":"N55"}}"#);
    let call = h.last_sent("Runtime.callFunctionOn").id;
    h.reply(
        call,
        r#"{"result":{"type":"object"},"exceptionDetails":{"text":"Uncaught","exception":{"type":"object","description":"Error: cdp-supervisor: node detached"}}}"#,
    );
    let ask = h.last_sent("Accessibility.getFullAXTree").id;
    h.reply(ask, &fresh_tree(56, "Stop"));
    let out = evaluated(&h, id);
    assert_eq!(out.len(), 1);
    let e = out[0].clone().unwrap_err();
    assert_eq!(e.code(), "stale_ref");
    assert!(e.to_string().contains("take a new snapshot"), "{e}");
    assert_eq!(
        h.sent_with("Accessibility.getFullAXTree").len(),
        1,
        "looked up once"
    );
}

#[test]
fn an_action_on_a_ref_whose_node_was_re_rendered_acts_on_the_new_node() {
    use cdp_supervisor::act::{ActOptions, Action, Target};
    let (mut h, fresh_tree) = snapshot_taken();
    let click = || Action::Click {
        target: Target::Ref("e5".into()),
    };
    let id = h.sup.act(h.now, click(), ActOptions::default()).unwrap();
    h.drain();
    assert_eq!(backend_of(&h, "DOM.scrollIntoViewIfNeeded"), 5);
    // Removed but still in memory (what Chromium 156 answers), in order.
    let scroll = h.last_sent("DOM.scrollIntoViewIfNeeded").id;
    let quads = h.last_sent("DOM.getContentQuads").id;
    h.reply_error(scroll, -32000, "Node is detached from document");
    h.reply(quads, r#"{"quads":[]}"#);
    let ask = h.last_sent("Accessibility.getFullAXTree");
    assert_eq!(ask.session_id.as_deref(), Some(OOPIF_S));
    let ask = ask.id;
    h.reply(ask, &fresh_tree(55, "Go"));
    assert!(
        acted(&h, id).is_empty(),
        "not ended by the first attempt's replies"
    );
    assert_eq!(backend_of(&h, "DOM.scrollIntoViewIfNeeded"), 55);
    assert_eq!(backend_of(&h, "DOM.getContentQuads"), 55);
    let scroll = h.last_sent("DOM.scrollIntoViewIfNeeded").id;
    let quads = h.last_sent("DOM.getContentQuads").id;
    h.reply(scroll, "{}");
    h.reply(quads, r#"{"quads":[[10,10,30,10,30,20,10,20]]}"#);
    // The OOPIF's <iframe> offset, then the mouse.
    let owner = h.last_sent("DOM.getFrameOwner").id;
    h.reply(owner, r#"{"backendNodeId":4}"#);
    let model = h.last_sent("DOM.getBoxModel").id;
    h.reply(model, r#"{"model":{"content":[100,200,0,0,0,0,0,0]}}"#);
    let mouse = h.sent_with("Input.dispatchMouseEvent");
    assert_eq!(mouse.len(), 3);
    assert!(
        mouse[0].json.contains(r#""x":120.0"#) && mouse[0].json.contains(r#""y":215.0"#),
        "{}",
        mouse[0].json
    );
    assert!(acted(&h, id).is_empty());

    // A node gone with none like it in its place: stale_ref, looked up once.
    h.sent.clear();
    let id = h.sup.act(h.now, click(), ActOptions::default()).unwrap();
    h.drain();
    let scroll = h.last_sent("DOM.scrollIntoViewIfNeeded").id;
    h.reply_error(scroll, -32000, "No node found for given backend id");
    let ask = h.last_sent("Accessibility.getFullAXTree").id;
    h.reply(ask, &fresh_tree(56, "Stop"));
    let out = acted(&h, id);
    assert_eq!(out.len(), 1);
    let e = out[0].clone().unwrap_err();
    assert_eq!(e.code(), "stale_ref");
    assert!(e.to_string().contains("take a fresh snapshot"), "{e}");
    let quads = h.last_sent("DOM.getContentQuads").id;
    h.reply(quads, r#"{"quads":[]}"#);
    assert_eq!(acted(&h, id).len(), 1, "a late reply changes nothing");
    assert_eq!(h.sent_with("Accessibility.getFullAXTree").len(), 1);

    // `type` on a ref: DOM.focus on the old node fails, the new node is focused.
    let (mut h, fresh_tree) = snapshot_taken();
    let (id, ask) = type_into_e5_whose_focus_fails(&mut h);
    h.reply(ask, &fresh_tree(57, "Go"));
    assert_eq!(backend_of(&h, "DOM.focus"), 57);
    let focus = h.last_sent("DOM.focus").id;
    h.reply(focus, "{}");
    assert!(!h.sent_with("Input.dispatchKeyEvent").is_empty());
    assert!(acted(&h, id).is_empty());
}

/// `type` on ref e5 whose `DOM.focus` fails: the act's id and the fresh tree's request
/// (the ref is looked up again).
fn type_into_e5_whose_focus_fails(h: &mut Harness) -> (CommandId, u64) {
    use cdp_supervisor::act::{ActOptions, Action, Target};
    let typing = Action::Type {
        target: Some(Target::Ref("e5".into())),
        text: "hi".into(),
    };
    let id = h.sup.act(h.now, typing, ActOptions::default()).unwrap();
    h.drain();
    let focus = h.last_sent("DOM.focus").id;
    h.reply_error(focus, -32000, "Element is not focusable");
    (id, h.last_sent("Accessibility.getFullAXTree").id)
}

#[test]
fn a_ref_whose_node_is_still_shown_reports_the_first_error() {
    let (mut h, fresh_tree) = snapshot_taken();
    let (id, ask) = type_into_e5_whose_focus_fails(&mut h);
    h.reply(ask, &fresh_tree(5, "Go"));
    let out = acted(&h, id);
    assert_eq!(out.len(), 1);
    let e = out[0].clone().unwrap_err();
    assert!(e.to_string().contains("Element is not focusable"), "{e}");
    assert_eq!(
        h.sent_with("DOM.focus").len(),
        1,
        "not retried on the same node"
    );
    assert_eq!(h.sup.resolve_ref("e5").unwrap().backend_node_id, 5);
}

// ---- dialogs: a dialog holds its renderer, and only it -----------------------------------

/// [`tab`] plus `DEEP`, an OOPIF (session `S-DEEP`) of a third site nested in `OOP`, and
/// `BACK`, an OOPIF (session `S-BACK`) nested in `OOP` back on the top's site, so in the
/// top's renderer.
fn nested_tab() -> Harness {
    let mut h = tab();
    h.attach_oopif(OOPIF_S, "S-DEEP", "DEEP", "OOP");
    h.frame_navigated("S-DEEP", "DEEP", Some("OOP"), "http://c.test/");
    h.attach_oopif(OOPIF_S, "S-BACK", "BACK", "OOP");
    h.frame_navigated("S-BACK", "BACK", Some("OOP"), "http://a.test/back");
    h.sent.clear();
    h
}

/// The sessions the snapshot asked for trees.
fn tree_sessions(h: &Harness) -> Vec<String> {
    h.sent_with("Accessibility.getFullAXTree")
        .iter()
        .filter_map(|c| c.session_id.clone())
        .collect()
}

#[test]
fn a_dialog_in_the_top_frame_is_an_immediate_blocked_error_that_names_it() {
    let mut h = nested_tab();
    h.dialog_opening(PAGE, "alert", "top says hi");
    h.drain();
    h.sent.clear();
    let e = h
        .sup
        .ax_snapshot(h.now, AxOptions::default())
        .expect_err("no outline without the top frame");
    assert_eq!(e.code(), "blocked");
    let dialog = e.dialog().expect("the dialog is in the error");
    assert_eq!(
        (dialog.id.as_str(), dialog.frame_id.as_str()),
        ("d-1", PAGE)
    );
    assert!(e.to_string().contains("d-1"), "{e}");
    assert!(e.to_string().contains("take a new snapshot"), "{e}");
    h.drain();
    assert!(h.sent.is_empty(), "nothing asked of a blocked renderer");
}

/// A dialog in an OOPIF nested back on the top's site holds the top's renderer too.
#[test]
fn a_dialog_in_a_nested_oopif_of_the_top_site_blocks_the_whole_outline() {
    let mut h = nested_tab();
    h.dialog_opening("BACK", "confirm", "sure?");
    let e = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap_err();
    assert_eq!(e.code(), "blocked");
    assert_eq!(e.dialog().map(|d| d.frame_id.as_str()), Some("BACK"));
}

/// A dialog in an OOPIF of its own site: the rest of the tab is outlined at once, that
/// frame and the frames grafted under it left out with the dialog's id.
#[test]
fn a_dialog_in_an_oopif_leaves_out_only_the_frames_of_its_renderer() {
    let mut h = nested_tab();
    h.dialog_opening("DEEP", "alert", "deep");
    let id = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap();
    h.drain();
    let asked = tree_sessions(&h);
    assert!(!asked.iter().any(|s| s == "S-DEEP"), "{asked:?}");
    assert!(asked.iter().any(|s| s == OOPIF_S) && asked.iter().any(|s| s == "S-BACK"));
    answer(&mut h, "Go", false);
    let out = outcome(&h, id);
    assert_eq!(
        out.len(),
        1,
        "answered without waiting for the blocked frame"
    );
    let snap = out[0].as_ref().unwrap();
    assert!(snap.text.contains("button \"Go\""), "{}", snap.text);
    let deep = snap
        .frames_left_out
        .iter()
        .find(|f| f.frame_id == "DEEP")
        .unwrap_or_else(|| panic!("{:?}", snap.frames_left_out));
    assert!(deep.reason.contains("d-1"), "{}", deep.reason);
    assert!(deep.reason.contains("blocked"), "{}", deep.reason);

    // A dialog in the middle OOPIF: it and everything grafted under it are left out.
    let mut h = nested_tab();
    h.dialog_opening("OOP", "prompt", "name?");
    let id = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap();
    h.drain();
    assert_eq!(tree_sessions(&h), vec![PS.to_owned(), PS.to_owned()]);
    answer(&mut h, "Go", false);
    let snap = outcome(&h, id).remove(0).unwrap();
    let mut out: Vec<_> = snap
        .frames_left_out
        .iter()
        .map(|f| f.frame_id.as_str())
        .collect();
    out.sort_unstable();
    assert_eq!(out, ["BACK", "DEEP", "OOP"], "{:?}", snap.frames_left_out);
    for f in &snap.frames_left_out {
        let expected = if f.frame_id == "OOP" {
            "d-1"
        } else {
            "parent frame OOP"
        };
        assert!(f.reason.contains(expected), "{f:?}");
    }
}

/// A dialog that opens while the snapshot waits ends the commands of its renderer at once
/// (the snapshot does not wait out its budget); their replies, once the dialog is
/// answered, are dropped.
#[test]
fn a_dialog_opening_while_it_runs_ends_the_frames_it_blocks_at_once() {
    let mut h = tab();
    let id = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap();
    h.drain();
    answer(&mut h, "Go", true);
    assert!(outcome(&h, id).is_empty(), "still waiting for the OOPIF");
    h.now += 0.01;
    h.dialog_opening("OOP", "alert", "late");
    let out = outcome(&h, id);
    assert_eq!(out.len(), 1, "ended by the dialog, at once");
    let snap = out[0].as_ref().unwrap();
    let oop = &snap.frames_left_out[0];
    assert_eq!(oop.frame_id, "OOP");
    assert!(oop.reason.contains("alert dialog d-1"), "{}", oop.reason);
    let late = h
        .sent_with("Accessibility.getFullAXTree")
        .into_iter()
        .find(|c| c.session_id.as_deref() == Some(OOPIF_S))
        .unwrap()
        .id;
    h.dialog_closed("OOP", true);
    h.reply(late, &oopif_tree("Go"));
    assert_eq!(outcome(&h, id).len(), 1);
}

/// A `beforeunload` dialog of the top frame opening mid-snapshot ends it as `blocked`, at
/// once, naming the dialog.
#[test]
fn a_beforeunload_opening_while_it_runs_ends_it_as_blocked() {
    let mut h = tab();
    let id = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap();
    h.drain();
    h.dialog_opening(PAGE, "beforeunload", "");
    let out = outcome(&h, id);
    assert_eq!(out.len(), 1);
    let e = out[0].as_ref().unwrap_err();
    assert_eq!(e.code(), "blocked");
    let dialog = e.dialog().unwrap();
    assert_eq!(dialog.kind.to_string(), "beforeunload");
    // The late replies change nothing.
    answer(&mut h, "Go", false);
    assert_eq!(outcome(&h, id).len(), 1);
}

/// A dialog the policy answers at once holds nothing for long: every frame is asked.
#[test]
fn a_dialog_the_policy_answers_blocks_no_frame() {
    let mut config = Config::default();
    config.policy = cdp_supervisor::DialogPolicy::AutoDismiss;
    let mut h = Harness::attached(config);
    h.attach_oopif(PS, OOPIF_S, "OOP", PAGE);
    h.frame_navigated(OOPIF_S, "OOP", Some(PAGE), "http://b.test/");
    h.dialog_opening("OOP", "alert", "auto");
    h.drain();
    h.sent.clear();
    let id = h.sup.ax_snapshot(h.now, AxOptions::default()).unwrap();
    h.drain();
    assert!(tree_sessions(&h).iter().any(|s| s == OOPIF_S));
    h.dialog_opening(PAGE, "alert", "auto too");
    assert!(
        outcome(&h, id).is_empty(),
        "an answered dialog ends nothing"
    );
}

/// The frames of the recorded five-frame page (`e2e/ax-dialog-renderers.jsonl`) by label:
/// `T` the top, `A` an OOPIF with `N` (back on the top's site) and `M` nested in it, `S`
/// beside `A` (see the blocking end-to-end test that recorded it).
fn renderer_labels(snapshot: &cdp_supervisor::Snapshot) -> Vec<(String, &'static str, String)> {
    let mut labels = Vec::new();
    let (Some(top), Some(page)) = (&snapshot.frame_tree.top, &snapshot.page) else {
        return labels;
    };
    let session = page.session_id.clone().unwrap_or_default();
    labels.push((top.frame_id.clone(), "T", session));
    for f in &snapshot.frame_tree.children {
        for (path, label) in [
            ("/frame-a", "A"),
            ("/frame-n", "N"),
            ("/frame-m", "M"),
            ("/frame-s", "S"),
        ] {
            if f.url.ends_with(path) {
                labels.push((
                    f.frame_id.clone(),
                    label,
                    f.session_id.clone().unwrap_or_default(),
                ));
            }
        }
    }
    labels
}

/// The frames a dialog in `label`'s frame blocks: those of its renderer.
fn renderer_of(label: &str) -> &'static [&'static str] {
    match label {
        "T" | "N" => &["T", "N"],
        "A" => &["A"],
        "M" => &["M"],
        _ => &["S"],
    }
}

/// Chromium fact "A dialog blocks its renderer, and only it", as recorded on Chromium 156
/// (`e2e/ax-dialog-renderers.jsonl`): while an alert shows in each of the five frames in
/// turn, the commands sent to the sessions of its renderer are answered only after it
/// closes, and those sent to every other session before.
#[test]
fn recorded_a_dialog_blocks_its_renderer_and_only_it() {
    let run =
        harness::replay_before_close("e2e/ax-dialog-renderers", Config::default(), |_, _, _| {});
    let labels = renderer_labels(&run.snapshot);
    assert_eq!(labels.len(), 5, "{labels:?}");
    let label_of_session = |s: &str| labels.iter().find(|l| l.2 == s).map(|l| l.1);
    let label_of_frame = |f: &str| labels.iter().find(|l| l.0 == f).map(|l| l.1);

    let text = harness::trace_text("e2e/ax-dialog-renderers");
    let trace = cdp_supervisor::replay::Trace::parse(&text).unwrap();
    let msgs: Vec<(cdp_supervisor::replay::Direction, serde_json::Value)> = trace
        .entries
        .iter()
        .filter_map(|e| Some((e.dir, serde_json::from_str(e.msg?.get()).ok()?)))
        .collect();
    let mut windows = 0;
    let mut i = 0;
    while i < msgs.len() {
        let (_, m) = &msgs[i];
        if m["method"] != "Page.javascriptDialogOpening" {
            i += 1;
            continue;
        }
        let dialog = label_of_frame(m["params"]["frameId"].as_str().unwrap()).unwrap();
        let close = (i..msgs.len())
            .find(|&j| msgs[j].1["method"] == "Page.javascriptDialogClosed")
            .unwrap();
        // Commands sent while it showed, by id: their session's label.
        let mut sent = std::collections::BTreeMap::new();
        for (dir, m) in &msgs[i..close] {
            let method = m["method"].as_str().unwrap_or("");
            // Answers go to the browser, not the page's renderer (and reply after the close).
            if *dir == cdp_supervisor::replay::Direction::Out
                && method != "Page.handleJavaScriptDialog"
            {
                if let Some(label) = m["sessionId"].as_str().and_then(label_of_session) {
                    sent.insert(m["id"].as_i64().unwrap(), label);
                }
            }
        }
        let replied_before: std::collections::BTreeSet<&str> = msgs[i..close]
            .iter()
            .filter(|(dir, m)| {
                *dir == cdp_supervisor::replay::Direction::In && m.get("id").is_some()
            })
            .filter_map(|(_, m)| sent.get(&m["id"].as_i64().unwrap()).copied())
            .collect();
        let asked: std::collections::BTreeSet<&str> = sent.values().copied().collect();
        let blocked: std::collections::BTreeSet<&str> =
            renderer_of(dialog).iter().copied().collect();
        assert_eq!(
            asked.len(),
            5,
            "every session asked under {dialog}'s dialog"
        );
        assert_eq!(
            replied_before,
            asked.difference(&blocked).copied().collect(),
            "under {dialog}'s dialog only its renderer waits"
        );
        windows += 1;
        i = close;
    }
    assert_eq!(windows, 5);
}

/// Replayed, a snapshot taken as each recorded dialog opens: `blocked` naming it at once
/// when it holds the top's renderer, else the other renderers' frames outlined with the
/// dialog's frame left out under its id, answered from the recorded replies.
#[test]
fn replayed_snapshots_under_each_dialog_leave_out_its_renderer() {
    let mut seen = 0;
    let mut started = Vec::new();
    let run = harness::replay_before_close(
        "e2e/ax-dialog-renderers",
        Config::default(),
        |sup, t, events| {
            let opened: Vec<_> = events
                .iter()
                .filter_map(|(_, e)| match e {
                    Event::Diff(cdp_supervisor::Diff::DialogOpened { dialog }) => {
                        Some(dialog.clone())
                    }
                    _ => None,
                })
                .collect();
            for dialog in opened.into_iter().skip(seen) {
                seen += 1;
                started.push((dialog, sup.ax_snapshot(t, AxOptions::default())));
            }
        },
    );
    assert!(
        run.stats.input_errors.is_empty(),
        "{:?}",
        run.stats.input_errors
    );
    let labels = renderer_labels(&run.snapshot);
    let label_of_frame = |f: &str| labels.iter().find(|l| l.0 == f).map(|l| l.1).unwrap();
    assert_eq!(started.len(), 5);
    for (dialog, start) in started {
        let label = label_of_frame(&dialog.frame_id);
        match (label, start) {
            ("T" | "N", Err(e)) => {
                assert_eq!(e.code(), "blocked");
                assert_eq!(e.dialog().map(|d| d.id.as_str()), Some(dialog.id.as_str()));
            }
            (_, Ok(id)) => {
                let snap = run
                    .events
                    .iter()
                    .find_map(|(_, e)| match e {
                        Event::AxSnapshot { id: i, outcome } if *i == id => Some(outcome.clone()),
                        _ => None,
                    })
                    .unwrap_or_else(|| panic!("{label}: no outcome"))
                    .unwrap();
                let mut buttons: Vec<&str> = snap
                    .refs
                    .iter()
                    .filter(|r| r.role == "button")
                    .map(|r| r.name.trim_end_matches(" button"))
                    .collect();
                buttons.sort_unstable();
                let out: std::collections::BTreeSet<&str> = snap
                    .frames_left_out
                    .iter()
                    .map(|f| label_of_frame(&f.frame_id))
                    .collect();
                let expected_out: &[&str] = if label == "A" {
                    &["A", "M", "N"]
                } else {
                    renderer_of(label)
                };
                assert_eq!(
                    out,
                    expected_out.iter().copied().collect(),
                    "{label}: {:?}",
                    snap.frames_left_out
                );
                let own = snap
                    .frames_left_out
                    .iter()
                    .find(|f| f.frame_id == dialog.frame_id)
                    .unwrap();
                assert!(own.reason.contains(&dialog.id), "{}", own.reason);
                let shown: Vec<&str> = ["A", "M", "N", "S", "T"]
                    .into_iter()
                    .filter(|l| !out.contains(l))
                    .collect();
                assert_eq!(buttons, shown, "{label}:\n{}", snap.text);
            }
            (label, other) => panic!("{label}: {other:?}"),
        }
    }
}
