//! # cdp-supervisor-smol
//!
//! An async transport for [`cdp_supervisor`] on [smol](https://docs.rs/smol): one task
//! owns an async-tungstenite WebSocket and a
//! [`LoopDriver`](cdp_supervisor_driver::LoopDriver), which makes every decision of the
//! run loop; the task races a socket read, the next deadline and the request channel. A
//! [`Client`] handle talks to it over `smol::channel`s. The blocking twin, with the same
//! API, is `cdp-supervisor-blocking`.
//!
//! With the default `launch` feature, [`Client::launch`] starts a headless Chromium
//! (`cdp-supervisor-chromium`, on a helper thread) and closes it when the client drops.
//! Example (run by CI against a real Chromium): `cargo run -p cdp-supervisor-smol
//! --example smol_quickstart`.
//!
//! `connect` and `launch` return once the page is live (or blocked by a dialog an
//! earlier client left open: then [`Client::recover`] releases it), within
//! [`Options::connect_timeout`]; a command sent while the page re-attaches after a
//! reconnect waits for it within its own deadline.
//!
//! ```
//! use cdp_supervisor_smol::{act, Client, ClientError, CommandUpdate, DialogAction, DialogPolicy, Evaluation, Options};
//! use serde_json::json;
//! use std::time::Duration;
//! smol::block_on(async {
//!     let wait = Duration::from_secs(10);
//!     let client = Client::launch(Options::default()).await?;   // headless Chromium, page live
//!     let events = client.subscribe().await?;                   // a snapshot, then every event
//!     let page = json!({"url": "data:text/html,<title>Hi</title>"});
//!     client.command(None, "Page.navigate", page, wait).await?;
//!     let data_url = |s: &cdp_supervisor_smol::Snapshot| s.frame_tree.top.as_ref().is_some_and(|t| t.url.starts_with("data:"));
//!     client.wait_for(wait, "the page", data_url).await?;
//!     // An evaluate answers within its budget: a stuck script is stopped, the frame stays usable.
//!     assert_eq!(client.evaluate(Evaluation::new("6 * 7")).await?.value, 42);
//!     let stuck = Evaluation::new("while(true){}").within(Duration::from_millis(500));
//!     assert_eq!(client.evaluate(stuck).await.err().map(|e| e.code()), Some("timeout"));
//!     assert_eq!(client.evaluate(Evaluation::new("'usable'")).await?.value, "usable");
//!     // A dialog blocks an evaluate: the command learns it at once, the agent answers it.
//!     let ask = json!({"expression": "confirm('ok?')"});
//!     let pending = client.start_command(None, "Runtime.evaluate", ask, wait).await?;
//!     let blocked = pending.next_update(wait).await?;            // at once, before any answer
//!     let dialog_id = client.snapshot().await?.pending_dialogs[0].id.clone();
//!     assert_eq!(blocked, CommandUpdate::Blocked { dialog_id: dialog_id.clone() });
//!     client.respond_dialog(DialogAction::Accept, None, Some(&dialog_id)).await?;
//!     assert!(pending.wait().await?.contains("true"));
//!     // The accessibility outline with refs; a ref's node is reachable on its frame's session.
//!     let button = json!({"url": "data:text/html,<button>OK</button>"});
//!     client.command(None, "Page.navigate", button, wait).await?;
//!     let mut ok = None;
//!     for _ in 0..50 {                                       // until the document is parsed
//!         ok = client.ax_snapshot(Default::default()).await?.refs.into_iter().find(|r| r.role == "button");
//!         if ok.is_some() { break; }
//!         smol::Timer::after(Duration::from_millis(100)).await;
//!     }
//!     let ok = ok.ok_or(ClientError::Timeout { what: "the button's ref".into(), after: wait })?;
//!     let node = json!({"backendNodeId": ok.backend_node_id});
//!     client.command(Some(&ok.frame_id), "DOM.resolveNode", node, wait).await?;
//!     // An agent action: its result is the page once settled, with a screenshot.
//!     let navigate = act::Action::Navigate { url: "data:text/html,<title>Bye</title>".into() };
//!     let result = client.act(navigate, act::ActOptions::default()).await?;
//!     assert_eq!((result.title.as_str(), result.navigated, result.settled), ("Bye", true, true));
//!     assert!(result.screenshot.is_some());
//!     client.set_policy(DialogPolicy::AutoDismiss).await?;
//!     assert!(client.settle(DialogAction::Dismiss).await?.is_empty()); // nothing pending
//!     assert!(events.len() > 1);
//!     assert!(client.browser().is_some());
//!     client.stop().await                                       // settles dialogs, detaches
//! })?;
//! # Ok::<(), cdp_supervisor_smol::ClientError>(())
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod client; // the handle
mod io; // the task

#[cfg(feature = "launch")]
pub use cdp_supervisor_chromium::{Browser, LaunchError};
pub use cdp_supervisor_driver::prelude::*;
pub use client::{Client, PendingCommand};
