//! End-to-end: evaluate under one budget through the smol transport, against a real
//! headless Chromium (the twin of `blocking_evaluate.rs`, in one scenario).

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor_smol::{Client, ClientError, DialogAction, Element, Evaluation};
use serde_json::{json, Value};
use support::smol::*;

const MARGIN: Duration = Duration::from_millis(300);

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

async fn value(client: &Client, e: Evaluation) -> Value {
    client.evaluate(e).await.unwrap().value
}

/// The error's code and message, checking it came within the budget plus [`MARGIN`].
async fn fails_within(client: &Client, e: Evaluation) -> (String, String) {
    let budget = e.timeout;
    let start = Instant::now();
    let outcome = client.evaluate(e).await;
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

#[test]
fn evaluate_never_wedges_the_tab_and_reaches_every_frame() {
    smol::block_on(async {
        let Some(w) = world("evaluate", options("evaluate")).await else {
            return;
        };
        let frames = open_demo(&w.client, &w.site).await;
        let c = &w.client;

        // Stuck script, never-settling promise, stuck script in an OOPIF: timeout within
        // the budget, and the same frame evaluates again at once.
        let (code, _) = fails_within(c, Evaluation::new("while(true){}").within(ms(500))).await;
        assert_eq!(code, "timeout");
        let start = Instant::now();
        assert_eq!(value(c, Evaluation::new("window.frameLabel")).await, "top");
        assert!(start.elapsed() < ms(500));
        let (code, message) =
            fails_within(c, Evaluation::new("new Promise(() => {})").within(ms(500))).await;
        assert_eq!(code, "timeout", "{message}");
        assert_eq!(value(c, Evaluation::new("1 + 1")).await, 2);
        let stuck = Evaluation::new("while(true){}").in_frame(&frames.cross);
        let (code, _) = fails_within(c, stuck.within(ms(500))).await;
        assert_eq!(code, "timeout");
        let next = Evaluation::new("window.frameLabel").in_frame(&frames.cross);
        assert_eq!(value(c, next).await, "cross");

        // Each frame's own values.
        for (frame, label) in [
            (&frames.srcdoc, "srcdoc"),
            (&frames.cross, "cross"),
            (&frames.nested, "nested"),
        ] {
            let e = Evaluation::new("window.frameLabel").in_frame(frame);
            assert_eq!(value(c, e).await, label);
        }
        let add = "var f = document.createElement('iframe'); f.src = '/title?t=same-site'; document.body.appendChild(f); 'added'";
        assert_eq!(value(c, Evaluation::new(add)).await, "added");
        let snap = c
            .wait_for(WAIT, "the same-site iframe", |s| {
                find(s, "/title?t=same-site").is_some()
            })
            .await
            .unwrap();
        let same = find(&snap, "/title?t=same-site").unwrap().frame_id.clone();
        let end = Instant::now() + WAIT;
        loop {
            let title = c
                .evaluate(Evaluation::new("document.title").in_frame(&same))
                .await;
            match title {
                Ok(v) if v.value == "same-site" => break,
                Ok(_) | Err(ClientError::Evaluate(_)) if Instant::now() < end => {
                    smol::Timer::after(ms(20)).await;
                }
                other => panic!("same-site iframe: {other:?}"),
            }
        }

        // An element inside an OOPIF, by backend node id.
        let h1 = c
            .command(
                Some(&frames.cross),
                "Runtime.evaluate",
                json!({"expression": "document.querySelector('h1')"}),
                WAIT,
            )
            .await
            .unwrap();
        let object = h1["result"]["objectId"].as_str().unwrap().to_owned();
        let node = c
            .command(
                Some(&frames.cross),
                "DOM.describeNode",
                json!({"objectId": object}),
                WAIT,
            )
            .await
            .unwrap();
        let backend = node["node"]["backendNodeId"].as_i64().unwrap();
        let text = Evaluation::new("el => el.textContent")
            .in_frame(&frames.cross)
            .on_element(Element::BackendNodeId(backend));
        assert_eq!(value(c, text).await, "cross frame");

        // An alert: blocked at once, with the dialog.
        let start = Instant::now();
        let outcome = c.evaluate(Evaluation::new("alert('hi'); 5")).await;
        assert!(start.elapsed() < ms(2000));
        let Err(ClientError::Evaluate(e)) = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(e.code(), "blocked");
        let dialog = e.dialog().unwrap().id.clone();
        c.respond_dialog(DialogAction::Accept, None, Some(&dialog))
            .await
            .unwrap();
        assert_eq!(value(c, Evaluation::new("'after'")).await, "after");
        w.client.stop().await.unwrap();
    });
}
