//! Launch a headless Chromium, open a page, read its frame tree, answer a dialog.
//!
//!     cargo run -p cdp-supervisor-blocking --example quickstart

use std::time::Duration;

use cdp_supervisor_blocking::{Client, CommandUpdate, DialogAction, Options};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let wait = Duration::from_secs(10);
    let client = Client::launch(Options::default())?; // returns once the page is attached

    let page = "data:text/html,<title>Hi</title><iframe srcdoc='<p>child</p>'></iframe>";
    client.command(None, "Page.navigate", json!({ "url": page }), wait)?;
    let snapshot = client.wait_for(wait, "the iframe", |s| s.frame_tree.children.len() == 1)?;
    let tree = &snapshot.frame_tree;
    println!(
        "{} child frame(s) under {:?}",
        tree.children.len(),
        tree.top.as_ref().map(|t| &t.url)
    );

    // A script raises a confirm: the command is reported blocked at once; answer it.
    let ask = json!({ "expression": "confirm('ok?')", "returnByValue": true });
    let pending = client.start_command(None, "Runtime.evaluate", ask, wait)?;
    let CommandUpdate::Blocked { dialog_id } = pending.next_update(wait)? else {
        return Err("the confirm should block the script at once".into());
    };
    let closed = client.respond_dialog(DialogAction::Accept, None, Some(&dialog_id))?;
    println!(
        "dialog {} {:?} accepted: {}",
        closed.id, closed.message, closed.accepted
    );
    let result = pending.wait()?;
    println!("confirm returned {result}"); // {"result":{"type":"boolean","value":true}}
    assert!(result.contains("true"));

    client.stop()?; // settles dialogs, detaches; the browser closes when `client` drops
    Ok(())
}
