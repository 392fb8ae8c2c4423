//! # cdp-supervisor-blocking
//!
//! A blocking transport for [`cdp_supervisor`]: one I/O thread owns a tungstenite
//! WebSocket and a [`LoopDriver`](cdp_supervisor_driver::LoopDriver), which makes every
//! decision of the run loop; a [`Client`] handle sends it requests from any thread. The
//! async twin, with the same API, is `cdp-supervisor-smol`.
//!
//! With the default `launch` feature, [`Client::launch`] starts a headless Chromium
//! (`cdp-supervisor-chromium`) and closes it when the client drops.
//!
//! Examples (run by CI against a real Chromium): `cargo run -p cdp-supervisor-blocking
//! --example quickstart` (launch, navigate, read the frame tree, answer a dialog; the root
//! README shows it) and `--example first_command` (launch, then a command at once).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod client;
mod io;

#[cfg(feature = "launch")]
pub use cdp_supervisor_chromium::{Browser, LaunchError};
pub use cdp_supervisor_driver::prelude::*;
pub use client::{Client, PendingCommand};
