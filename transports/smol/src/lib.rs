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
//! (`cdp-supervisor-chromium`) and closes it when the client drops.
//!
//! `connect` and `launch` return once the page is live (or blocked by a dialog an
//! earlier client left open: then [`Client::recover`] releases it), within
//! [`Options::connect_timeout`]; a command sent while the page re-attaches after a
//! reconnect waits for it within its own deadline.
//!
//! ```
//! use cdp_supervisor_smol::{Client, Options};
//! use std::time::Duration;
//! smol::block_on(async {
//!     let client = Client::launch(Options::default()).await?;   // headless Chromium, page live
//!     client.command(None, "Page.navigate", serde_json::json!({"url": "data:text/html,<title>Hi</title>"}),
//!         Duration::from_secs(10)).await?;
//!     let snapshot = client.snapshot().await?;
//!     println!("{} frames, {} dialogs pending", snapshot.frame_tree.children.len(),
//!         snapshot.pending_dialogs.len());
//!     client.stop().await                               // settles dialogs, detaches
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
