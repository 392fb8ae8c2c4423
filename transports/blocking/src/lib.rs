//! # cdp-supervisor-blocking
//!
//! A blocking transport for [`cdp_supervisor`]: one I/O thread owns a tungstenite
//! WebSocket and the [`Supervisor`](cdp_supervisor::Supervisor); a [`Client`] handle
//! sends it requests from any thread. Also the I/O helpers both transports share:
//! launching Chromium ([`launch`]), resolving endpoints ([`endpoint`]), recording traces
//! ([`record`]), the reconnect policy ([`backoff`]), the request plumbing ([`driver`]),
//! a loopback HTTP server for demos and tests ([`serve`]) and the dialog bridge's secret
//! ([`token`]).
//!
//! The `cdp-supervise` command-line tool (SPEC §8) lives in this crate.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod backoff;
pub mod client;
pub mod demo;
pub mod driver;
pub mod endpoint;
pub mod error;
pub mod launch;
pub mod record;
pub mod serve;
pub mod token;

pub use cdp_supervisor;
pub use cdp_supervisor::{DialogAction, DialogPolicy, Snapshot};
pub use client::{Client, PendingCommand};
pub use driver::{ClientEvent, CommandUpdate, Options};
pub use error::ClientError;
pub use launch::Browser;
