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
//! ```no_run
//! use cdp_supervisor_smol::{Client, Options};
//! use std::time::Duration;
//! smol::block_on(async {
//!     let client = Client::launch(Options::default()).await?;
//!     client.wait_for(Duration::from_secs(20), "page live", |s| s.page.is_some()).await?;
//!     client.command(None, "Page.navigate", serde_json::json!({"url": "https://example.com"}),
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
