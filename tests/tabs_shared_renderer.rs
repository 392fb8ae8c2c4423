//! A dialog stalls every tab of its renderer (fact 25b): a same-site popup that can
//! reach its opener shares the opener's renderer, so its dialog ends the opener's running
//! evaluate and action at once as blocked, as a dialog of the opener's own would; a
//! cross-site popup's dialog ends nothing of the opener's.

mod harness;

use cdp_supervisor::act::{ActOptions, Action, Target};
use cdp_supervisor::evaluate::{EvalError, Evaluation};
use cdp_supervisor::{CommandId, Config, Event};
use harness::{Harness, PS};

const POP: &str = "POPUP";
const POPS: &str = "S-POPUP";

/// A popup of the page, at `url`, attached at browser level (paused, then resumed by the
/// supervisor) and navigated.
fn popup(h: &mut Harness, url: &str, can_access_opener: bool) {
    h.recv(&format!(
        r#"{{"method":"Target.attachedToTarget","params":{{"sessionId":"{POPS}","targetInfo":{{"targetId":"{POP}","type":"page","title":"","url":"","attached":true,"openerId":"PAGE","canAccessOpener":{can_access_opener}}},"waitingForDebugger":true}}}}"#
    ));
    h.event(POPS, "Page.frameNavigated", &format!(
        r#"{{"frame":{{"id":"{POP}","url":"{url}","securityOrigin":"{url}"}},"type":"Navigation"}}"#
    ));
}

fn popup_alert(h: &mut Harness) {
    h.event(POPS, "Page.javascriptDialogOpening", &format!(
        r#"{{"url":"http://a.test/p","message":"first","type":"alert","hasBrowserHandler":false,"defaultPrompt":"","frameId":"{POP}"}}"#
    ));
}

fn evaluated(h: &Harness, id: CommandId) -> Vec<&Result<cdp_supervisor::EvalValue, EvalError>> {
    h.events
        .iter()
        .filter_map(|e| match e {
            Event::Evaluated { id: i, outcome } if *i == id => Some(outcome),
            _ => None,
        })
        .collect()
}

fn acted(h: &Harness, id: CommandId) -> Vec<&Event> {
    h.events
        .iter()
        .filter(|e| matches!(e, Event::ActFinished { id: i, .. } if *i == id))
        .collect()
}

#[test]
fn a_same_site_popups_dialog_ends_the_openers_evaluate_and_action_at_once() {
    let mut h = Harness::attached(Config::default());
    let opener = h.sup.current_tab().unwrap().to_owned();
    popup(&mut h, "http://a.test/p", true);
    // Opened by the current tab, the popup is current; the calls below name the opener.
    assert_eq!(h.sup.current_tab(), Some(POP));
    let eval = h
        .sup
        .evaluate_in(h.now, Some(&opener), &Evaluation::new("1"))
        .unwrap();
    let click = Action::Click {
        target: Target::Point { x: 1.0, y: 1.0 },
    };
    let act = h
        .sup
        .act_in(h.now, Some(&opener), click, ActOptions::default())
        .unwrap();
    h.drain();
    popup_alert(&mut h);
    let out = evaluated(&h, eval);
    assert_eq!(out.len(), 1, "ended at once");
    let Err(e) = out[0] else { panic!("{out:?}") };
    assert_eq!(
        (e.code(), e.dialog().map(|d| d.id.as_str())),
        ("blocked", Some("d-1"))
    );
    let done = acted(&h, act);
    let [Event::ActFinished { outcome: Ok(r), .. }] = done.as_slice() else {
        panic!("{done:?}")
    };
    assert_eq!(r.ended_by_dialog.as_deref(), Some("d-1"));
    assert!(r.screenshot.is_none() && !r.settled);
    // The page session is the opener's own; its dialog would have done the same.
    assert!(h.sent_on(PS).contains(&"Input.dispatchMouseEvent"));
}

#[test]
fn a_cross_site_popups_dialog_ends_nothing_of_the_opener() {
    let mut h = Harness::attached(Config::default());
    let opener = h.sup.current_tab().unwrap().to_owned();
    popup(&mut h, "http://b.test/p", true);
    let eval = h
        .sup
        .evaluate_in(h.now, Some(&opener), &Evaluation::new("1"))
        .unwrap();
    h.drain();
    popup_alert(&mut h);
    assert!(evaluated(&h, eval).is_empty(), "still running");
    let pending = h.snapshot().pending_dialogs;
    assert_eq!(pending[0].tab_id.as_deref(), Some(POP));
}
