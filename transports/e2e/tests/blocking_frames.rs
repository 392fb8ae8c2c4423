//! End-to-end: the frame tree and the connection, against a real headless Chromium.

mod support;
use support::relay;

use cdp_supervise::demo::DemoSite;
use cdp_supervisor_blocking::{Client, ClientEvent, DialogAction};
use serde_json::json;
use support::blocking::*;

/// The frame tree: a page loaded before the supervisor attached has its whole tree, in-process
/// frames seeded from `Page.getFrameTree`, OOPIFs from auto-attach.
#[test]
fn a_page_loaded_before_attach_has_its_whole_tree() {
    let Some(w) = world("loaded-before-attach", options("loaded-before-attach")) else {
        return;
    };
    let before = open_demo(&w);
    w.client.stop().unwrap();
    let second = Client::connect(w.browser.ws_url(), options("loaded-before-attach-2")).unwrap();
    let snap = second
        .wait_for(WAIT, "the demo's frames", demo_loaded)
        .unwrap();
    let after = demo_frames(&snap);
    assert_eq!(
        (after.top, after.srcdoc, after.cross, after.nested),
        (before.top, before.srcdoc, before.cross, before.nested)
    );
    assert_eq!(snap.frame_tree.children.len(), 3);
    assert!(!snap.frame_tree.truncated);
    second.stop().unwrap();
}

/// The snapshot's bounds: 35 iframes give 30 listed children and `truncated: true`.
#[test]
fn thirty_five_iframes_list_thirty_and_truncate() {
    let Some(w) = world("thirty-five-iframes", options("thirty-five-iframes")) else {
        return;
    };
    navigate(&w.client, &w.site.url("/many?n=35"), |s| {
        s.frame_tree.truncated && s.frame_tree.children.len() == 30
    });
    // The page may still be adding its last iframes when 31 are known: wait for all 35.
    let end = std::time::Instant::now() + WAIT;
    while eval(&w.client, None, "frames.length") != json!(35) {
        assert!(
            std::time::Instant::now() < end,
            "the page never had 35 frames"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let snap = w.client.snapshot().unwrap();
    assert!(snap.frame_tree.truncated);
    assert_eq!(snap.frame_tree.children.len(), 30);
    assert!(snap.frame_tree.children.iter().all(|f| !f.is_oopif));
}

/// The snapshot's bounds: an OOPIF at depth 3 is left out (with `truncated`), depths 1 and 2 are listed.
#[test]
fn a_depth_three_oopif_is_left_out() {
    let Some(w) = world("depth-three-oopif", options("depth-three-oopif")) else {
        return;
    };
    let snap = navigate(&w.client, &w.site.url("/deep?max=3"), |s| {
        s.frame_tree.truncated && find(s, "level=2").is_some_and(|f| f.is_oopif)
    });
    let listed: Vec<_> = snap
        .frame_tree
        .children
        .iter()
        .map(|f| f.url.clone())
        .collect();
    assert_eq!(snap.frame_tree.children.len(), 2, "{listed:?}");
    assert!(find(&snap, "level=3").is_none());
    // The depth-3 frame exists: its parent (depth 2) sees it.
    let depth2 = find(&snap, "level=2").unwrap().frame_id.clone();
    assert_eq!(eval(&w.client, Some(&depth2), "frames.length"), json!(1));
}

/// Facts 4 and 5: removing an iframe drops it with its nested OOPIF; navigating the top
/// drops every old subframe.
#[test]
fn removed_and_navigated_frames_go_with_their_subtree() {
    let Some(w) = world("frames-go", options("frames-go")) else {
        return;
    };
    let frames = open_demo(&w);
    eval(
        &w.client,
        Some(&frames.top),
        "document.getElementById('cross').remove()",
    );
    let snap = w
        .client
        .wait_for(WAIT, "the cross frame gone", |s| {
            find(s, "/cross").is_none() && find(s, "/nested").is_none()
        })
        .unwrap();
    assert_eq!(snap.frame_tree.children.len(), 1);
    navigate(&w.client, &w.site.url("/title?t=plain"), |s| {
        s.frame_tree.children.is_empty()
            && s.frame_tree
                .top
                .as_ref()
                .is_some_and(|t| t.url.contains("/title"))
    });
}

/// Connection loss and recovery: the socket is cut mid-session; the transport reconnects with backoff,
/// re-attaches the same tab and recovers its tree, and commands and dialogs work again.
#[test]
fn reconnects_after_the_socket_is_cut() {
    let Some(browser) = browser_or_skip("reconnect") else {
        return;
    };
    let site = DemoSite::start().unwrap();
    let relay = relay::Relay::start(([127, 0, 0, 1], browser.port()).into());
    let client = Client::connect(&relay.ws_url(browser.ws_url()), options("reconnect")).unwrap();
    wait_live(&client);
    let snap = navigate(&client, &site.top_url(false), demo_loaded);
    let before = demo_frames(&snap);
    wait_documents_loaded(&client, &before);
    let events = client.subscribe().unwrap();

    relay.cut();
    let mut lost = false;
    let mut seen = Vec::new();
    let mut sent_while_reattaching = None;
    loop {
        let event = events.recv_timeout(WAIT).expect("reconnect events");
        seen.push(format!("{event:?}"));
        match event {
            ClientEvent::ConnectionLost { .. } => {
                lost = true;
                // No page is attached now: the command waits for the re-attach.
                let expression = json!({"expression": "6 * 7", "returnByValue": true});
                let pending = client.start_command(None, "Runtime.evaluate", expression, WAIT);
                sent_while_reattaching = Some(pending.unwrap());
            }
            ClientEvent::Connected {
                reconnected: true, ..
            } => break,
            _ => {}
        }
    }
    assert!(
        lost,
        "the loss was reported before the reconnect: {seen:#?}"
    );
    let snap = client
        .wait_for(WAIT, "the tree back", |s| {
            demo_loaded(s)
                && s.page
                    .as_ref()
                    .is_some_and(|p| p.state == cdp_supervisor::PageState::Live)
        })
        .unwrap();
    let after = demo_frames(&snap);
    assert_eq!(after.top, before.top, "the same tab");
    let answer = sent_while_reattaching
        .expect("a command sent")
        .wait()
        .unwrap();
    assert!(answer.contains("42"), "{answer}");
    assert_eq!(after.nested, before.nested);
    raise(&client, &after, "nested", "confirm", "after reconnect");
    let d = wait_dialog_of(&client, "confirm");
    assert_eq!(d.frame_id, after.nested);
    client
        .respond_dialog(DialogAction::Accept, None, Some(&d.id))
        .unwrap();
    assert_eq!(last_answer(&client, &after, "nested"), json!(true));
    client.stop().unwrap();
}
