//! End-to-end: file choosers against a real headless Chromium, over the blocking
//! transport. A click on a file input, in the top frame and in an OOPIF, gives a pending
//! `file_chooser`; accepting it with files under the upload root makes the page's `change`
//! handler see their names and sizes; a path outside the root, or missing, is refused
//! naming `--upload-root`; the watchdog dismisses an unanswered one.

mod support;

use std::path::PathBuf;
use std::time::Duration;

use cdp_supervisor::act::{ActOptions, Action, Target};
use cdp_supervisor::{ClosedBy, PendingDialog, Snapshot};
use cdp_supervisor_blocking::{Client, Options};
use serde_json::json;
use support::blocking::*;
use support::upload_site::UploadSite;

/// A fresh folder with `a.txt` (5 bytes) and `b.bin` (2048 bytes).
fn upload_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.txt"), "hello").unwrap();
    std::fs::write(dir.join("b.bin"), vec![b'x'; 2048]).unwrap();
    dir
}

fn click(client: &Client, x: f64, y: f64) {
    let r = client
        .act(
            Action::Click {
                target: Target::Point { x, y },
            },
            ActOptions::default(),
        )
        .unwrap();
    assert!(
        r.ended_by_dialog.is_none(),
        "a chooser ends no action: {r:?}"
    );
}

/// Waits for a pending chooser not in `seen`, and adds it.
fn new_chooser(client: &Client, seen: &mut Vec<String>) -> PendingDialog {
    let fresh = |s: &Snapshot| {
        s.pending_dialogs
            .iter()
            .find(|d| d.kind == "file_chooser" && !seen.contains(&d.id))
            .cloned()
    };
    let snap = client
        .wait_for(WAIT, "a new file chooser", |s| fresh(s).is_some())
        .unwrap();
    let d = fresh(&snap).unwrap();
    seen.push(d.id.clone());
    d
}

fn path(dir: &std::path::Path, name: &str) -> String {
    dir.join(name).to_string_lossy().into_owned()
}

#[test]
fn choosers_in_the_top_frame_and_an_oopif_are_pending_and_answered_with_files() {
    let test = "file-chooser";
    let Some(browser) = browser_or_skip(test) else {
        return;
    };
    let root = upload_dir("h25-upload-root");
    let outside = upload_dir("h25-upload-outside");
    let mut options: Options = options(test);
    options.config.upload_roots = vec![root.to_string_lossy().into_owned()];
    options.config.dialog_timeout = Duration::from_secs(4);
    let site = UploadSite::start();
    let client = Client::connect(browser.ws_url(), options).unwrap();
    wait_live(&client);
    client
        .act(
            Action::Navigate { url: site.url("/") },
            ActOptions::default(),
        )
        .unwrap();
    let snap = client
        .wait_for(WAIT, "the OOPIF", |s| {
            find(s, "/cross").is_some_and(|f| f.is_oopif)
        })
        .unwrap();
    let cross = find(&snap, "/cross").unwrap().frame_id.clone();
    let top = snap.page.as_ref().unwrap().target_id.clone();
    let end = std::time::Instant::now() + WAIT;
    while eval(&client, Some(&cross), "document.readyState") != json!("complete") {
        assert!(std::time::Instant::now() < end, "the OOPIF never loaded");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut seen = Vec::new();

    // The top frame's single input: refused outside the root and for a missing file,
    // then accepted.
    click(&client, 20.0, 20.0);
    let d = new_chooser(&client, &mut seen);
    assert_eq!(
        (d.frame_id.as_str(), d.mode.as_deref()),
        (top.as_str(), Some("selectSingle"))
    );
    assert!(d.backend_node_id.is_some());
    // It holds no script: the page answers while it is pending.
    assert_eq!(eval(&client, None, "1 + 1"), json!(2));
    for bad in [path(&outside, "a.txt"), path(&root, "missing.txt")] {
        let e = client.upload_files(&[&bad], Some(&d.id)).unwrap_err();
        assert_eq!(e.code(), "upload_refused", "{bad}: {e}");
        if bad.contains("outside") {
            assert!(e.to_string().contains("--upload-root"), "{e}");
        }
    }
    let closed = client
        .upload_files(&[&path(&root, "a.txt")], Some(&d.id))
        .unwrap();
    assert!(
        closed.accepted && closed.closed_by == ClosedBy::Agent,
        "{closed:?}"
    );
    let seen_by_page = |frame: Option<&str>| eval(&client, frame, "JSON.stringify(seen)");
    assert_eq!(seen_by_page(None), json!(r#"["single:a.txt:5"]"#));

    // The multiple input takes two files.
    click(&client, 20.0, 70.0);
    let d = new_chooser(&client, &mut seen);
    assert_eq!(d.mode.as_deref(), Some("selectMultiple"));
    let files = [path(&root, "a.txt"), path(&root, "b.bin")];
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    client.upload_files(&files, Some(&d.id)).unwrap();
    assert_eq!(
        seen_by_page(None),
        json!(r#"["single:a.txt:5","multi:a.txt:5","multi:b.bin:2048"]"#)
    );

    // The OOPIF's input: reported for its frame, answered on its own session.
    click(&client, 20.0, 140.0);
    let d = new_chooser(&client, &mut seen);
    assert_eq!(d.frame_id, cross);
    client
        .upload_files(&[&path(&root, "b.bin")], Some(&d.id))
        .unwrap();
    assert_eq!(seen_by_page(Some(&cross)), json!(r#"["inner:b.bin:2048"]"#));

    // Unanswered, the watchdog dismisses it.
    click(&client, 20.0, 20.0);
    let d = new_chooser(&client, &mut seen);
    let closed = wait_closed(&client, &d.id);
    assert_eq!(closed.closed_by, ClosedBy::Watchdog);
    assert!(!closed.accepted);
    client.stop().unwrap();
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&outside);
}
