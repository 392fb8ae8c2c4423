//! # cdp-supervisor-grid
//!
//! Selenium Grid 4 (a hub and nodes, or a standalone server) runs browsers for WebDriver
//! sessions, and exposes each Chromium session's DevTools endpoint as its `se:cdp`
//! capability. [`GridSession::create`] asks the Grid for a session (`POST /session`, the
//! capabilities as `alwaysMatch`), waiting in its queue at most the timeout given;
//! [`GridSession::cdp_url`] is the `ws://` URL to hand to a transport's `connect`; the
//! session is deleted (`DELETE /session/ID`) by [`GridSession::delete`] or when it drops,
//! so that no path (success, error, a signal that unwinds to `main`) leaves it running.
//!
//! A Grid session deleted or timed out under an open `se:cdp` socket leaves the socket
//! open and silent (the transports' heartbeat finds it) and answers a new connect with
//! HTTP 400 (the transports report `session_gone`).
//!
//! ```
//! use cdp_supervisor_grid::{capabilities, GridSession};
//! use std::time::Duration;
//! let caps = capabilities(None)?;
//! // Nothing listens on port 9: the error says what to check, with a stable code.
//! let e = GridSession::create("http://127.0.0.1:9", &caps, Duration::from_secs(2)).unwrap_err();
//! assert_eq!(e.code(), "grid_unreachable");
//! # Ok::<(), cdp_supervisor_grid::GridError>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod capabilities;
mod error;
pub mod local;
mod session;

pub use capabilities::capabilities;
pub use error::GridError;
pub use session::{sessions, GridSession, DEFAULT_TIMEOUT};
