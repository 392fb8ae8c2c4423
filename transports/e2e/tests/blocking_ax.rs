//! End-to-end: the accessibility snapshot across every frame, OOPIFs included, against a
//! real headless Chromium (blocking transport).

mod support;

use std::time::{Duration, Instant};

use cdp_supervisor::ax::{AxOptions, AxSnapshot};
use cdp_supervisor_blocking::{Client, ClientError};
use support::ax_checks::*;
use support::ax_site::AxSite;
use support::blocking::*;

/// Takes snapshots until `done` holds (documents load after their frames are known).
fn ax_until(
    client: &Client,
    options: &AxOptions,
    done: impl Fn(&AxSnapshot) -> bool,
) -> AxSnapshot {
    let end = Instant::now() + WAIT;
    loop {
        let snap = client.ax_snapshot(options.clone()).unwrap();
        if done(&snap) {
            return snap;
        }
        assert!(
            Instant::now() < end,
            "never got there; last:\n{}",
            snap.text
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn four_frames_each_with_refs_in_place_stable_and_resolvable() {
    let Some(w) = world("ax-four-frames", options("ax-four-frames")) else {
        return;
    };
    let site = AxSite::start();
    let snap = navigate(&w.client, &site.url("/"), demo_loaded);
    let frames = demo_frames(&snap);
    let a = ax_until(&w.client, &AxOptions::default(), all_four);
    assert_four_in_place(&a, &frames);
    let heading = by_name(&a, "heading", "Welcome").unwrap();
    let link = by_name(&a, "link", "Deep link").unwrap();

    // The nested OOPIF's ref resolves to its element.
    let node = w
        .client
        .command(
            Some(&link.frame_id),
            "DOM.resolveNode",
            resolve_params(link),
            WAIT,
        )
        .unwrap();
    let text = w
        .client
        .command(
            Some(&link.frame_id),
            "Runtime.callFunctionOn",
            text_content_params(&node),
            WAIT,
        )
        .unwrap();
    assert_eq!(text["result"]["value"], "Deep link");

    // One element's text changes: every ref stays, the heading's name follows.
    eval(
        &w.client,
        None,
        "document.getElementById('title').textContent = 'Changed'",
    );
    let b2 = ax_until(&w.client, &AxOptions::default(), |s| {
        by_name(s, "heading", "Changed").is_some()
    });
    assert_eq!(ids(&a), ids(&b2), "{}\n{}", a.text, b2.text);
    assert_eq!(by_name(&b2, "heading", "Changed").unwrap().id, heading.id);

    // Scoped to the nested frame: only its nodes, same refs.
    let mut scoped = AxOptions::default();
    scoped.frame_id = Some(frames.nested.clone());
    let n = w.client.ax_snapshot(scoped).unwrap();
    assert_eq!(by_name(&n, "link", "Deep link").unwrap().id, link.id);
    assert!(by_name(&n, "button", "Go").is_none());

    // The top navigates: the old refs are stale.
    navigate(&w.client, &site.url("/many?n=1"), |s| {
        s.frame_tree
            .top
            .as_ref()
            .is_some_and(|t| t.url.contains("many"))
    });
    let mut by_ref = AxOptions::default();
    by_ref.reference = Some(heading.id.clone());
    match w.client.ax_snapshot(by_ref) {
        Err(ClientError::Ax(e)) => assert_eq!(e.code(), "stale_ref", "{e}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn thirty_five_iframes_all_have_refs_and_the_budget_names_the_rest() {
    let Some(w) = world("ax-thirty-five", options("ax-thirty-five")) else {
        return;
    };
    let site = AxSite::start();
    navigate(&w.client, &site.url("/many?n=35"), |s| {
        s.frame_tree.truncated && s.frame_tree.children.len() == 30
    });
    let buttons = |s: &AxSnapshot| s.refs.iter().filter(|r| r.role == "button").count();
    let all = ax_until(&w.client, &AxOptions::default(), |s| buttons(s) == 35);
    let frames: std::collections::HashSet<_> = all
        .refs
        .iter()
        .filter(|r| r.role == "button")
        .map(|r| r.frame_id.clone())
        .collect();
    assert_eq!(frames.len(), 35, "each button in its own frame");
    assert!(all.frames_left_out.is_empty());

    let mut ten = AxOptions::default();
    ten.max_frames = 10;
    let some = w.client.ax_snapshot(ten).unwrap();
    assert_eq!(buttons(&some), 9, "the top and nine iframes");
    let over: Vec<_> = some
        .frames_left_out
        .iter()
        .filter(|f| f.reason.contains("frame budget of 10"))
        .collect();
    assert_eq!(over.len(), 26, "{:?}", some.frames_left_out);
}

/// A dialog holds the renderer that shows it, and only it (the manual's Chromium facts, "A
/// dialog blocks its renderer, and only it"; recorded as `ax-dialog-renderers.jsonl`). On a
/// page of five frames in four renderers, an alert in each frame in turn: the tree and a
/// script asked of every frame's session answer at once except in the dialog's renderer,
/// whose answers come once the dialog is answered; and the snapshot answers at once, either
/// `blocked` naming the dialog (the top's renderer) or the outline of the other renderers'
/// frames with the blocked ones left out, the dialog's id in the reason.
#[test]
fn a_dialog_blocks_its_renderer_and_the_snapshot_answers_at_once() {
    use cdp_supervisor_blocking::{CommandUpdate, DialogAction, Evaluation};
    use serde_json::json;
    use support::renderer_site::{blocked_with, RendererSite, LABELS};

    let Some(w) = world("ax-dialog-renderers", options("ax-dialog-renderers")) else {
        return;
    };
    let c = &w.client;
    let site = RendererSite::start();
    let paths = ["/frame-a", "/frame-s", "/frame-n", "/frame-m"];
    let snap = navigate(c, &site.top_url(), |s| {
        paths.iter().all(|p| find(s, p).is_some_and(|f| f.is_oopif))
    });
    let frame_of = |label: &str| match label {
        "T" => snap.frame_tree.top.as_ref().unwrap().frame_id.clone(),
        l => find(&snap, &format!("/frame-{}", l.to_lowercase()))
            .unwrap()
            .frame_id
            .clone(),
    };
    let buttons = |s: &AxSnapshot| {
        let mut b: Vec<String> = s
            .refs
            .iter()
            .filter(|r| r.role == "button")
            .map(|r| r.name.trim_end_matches(" button").to_owned())
            .collect();
        b.sort();
        b
    };
    ax_until(c, &AxOptions::default(), |s| buttons(s).len() == 5);

    for label in LABELS {
        let frame = frame_of(label);
        let raise = format!("setTimeout(() => alert('in {label}'), 0); 1");
        c.evaluate(Evaluation::new(&raise).in_frame(&frame))
            .unwrap();
        let dialog = wait_dialog(c);
        assert_eq!(dialog.frame_id, frame, "{label}");
        let blocked = blocked_with(label);

        // Every frame's session asked at once; what answers within a second.
        let mut probes = Vec::new();
        for other in LABELS {
            for (method, params) in [
                ("Accessibility.getFullAXTree", json!({})),
                ("Runtime.evaluate", json!({"expression": "1 + 1"})),
            ] {
                let p = c
                    .start_command(Some(&frame_of(other)), method, params, WAIT)
                    .unwrap();
                probes.push((other, method, p));
            }
        }
        let end = Instant::now() + Duration::from_secs(1);
        let mut answered = Vec::new();
        let mut waiting = Vec::new();
        for (other, method, p) in probes {
            let done = loop {
                let left = end.saturating_duration_since(Instant::now());
                match p.next_update(left) {
                    Ok(CommandUpdate::Blocked { .. }) => continue,
                    Ok(CommandUpdate::Finished(r)) => {
                        r.unwrap_or_else(|e| panic!("{other} {method}: {e}"));
                        break true;
                    }
                    Err(_) => break false,
                }
            };
            if done {
                answered.push(other);
            } else {
                assert!(
                    blocked.contains(&other),
                    "{other} {method} under {label}'s dialog"
                );
                waiting.push(p);
            }
        }
        for other in LABELS {
            let expect = if blocked.contains(&other) { 0 } else { 2 };
            let got = answered.iter().filter(|a| **a == other).count();
            assert_eq!(got, expect, "{other} under {label}'s dialog: {answered:?}");
        }

        // The snapshot answers at once.
        let start = Instant::now();
        let outcome = c.ax_snapshot(AxOptions::default());
        let took = start.elapsed();
        match label {
            "T" | "N" => {
                assert!(took < Duration::from_millis(100), "{label}: took {took:?}");
                let Err(ClientError::Ax(e)) = outcome else {
                    panic!("{label}: {outcome:?}")
                };
                assert_eq!(e.code(), "blocked", "{e}");
                assert_eq!(e.dialog().map(|d| d.id.as_str()), Some(dialog.id.as_str()));
            }
            _ => {
                // Fetched from the other renderers, never waiting for this one.
                assert!(took < Duration::from_secs(1), "{label}: took {took:?}");
                let s = outcome.unwrap();
                let shown: Vec<&str> = match label {
                    "A" => vec!["S", "T"],
                    "M" => vec!["A", "N", "S", "T"],
                    _ => vec!["A", "M", "N", "T"],
                };
                assert_eq!(buttons(&s), shown, "{label}:\n{}", s.text);
                let left = s
                    .frames_left_out
                    .iter()
                    .find(|f| f.frame_id == frame)
                    .unwrap_or_else(|| panic!("{label}: {:?}", s.frames_left_out));
                assert!(left.reason.contains(&dialog.id), "{}", left.reason);
            }
        }

        // Answered, the blocked renderer answers what it was asked.
        c.respond_dialog(DialogAction::Accept, None, Some(&dialog.id))
            .unwrap();
        for p in waiting {
            p.wait().unwrap();
        }
    }
    let all = c.ax_snapshot(AxOptions::default()).unwrap();
    assert_eq!(buttons(&all), ["A", "M", "N", "S", "T"]);
    w.client.stop().unwrap();
}
