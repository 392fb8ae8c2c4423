//! # cdp-supervisor-driver
//!
//! The layer between the sans-IO core ([`cdp_supervisor`]) and a transport, itself
//! sans-IO: no sockets, no threads, no runtime. As quinn splits quinn-proto from quinn,
//! this crate holds every decision a run loop makes, and a transport
//! (`cdp-supervisor-blocking`, `cdp-supervisor-smol`, or your own) does only the I/O it is
//! told to do.
//!
//! - [`LoopDriver`]: the run loop. Feed it what happened (a frame read, a request, the
//!   socket lost); ask [`LoopDriver::poll_action`] what to do next ([`Action`]).
//! - [`Request`]: what a client handle asks of the loop; the answers go back through the
//!   boxed callbacks it carries, so each transport uses its own channels.
//! - The types both transports share: [`Options`], [`ClientEvent`], [`CommandUpdate`],
//!   [`ClientError`].
//! - Helpers: endpoint parsing and the `/json/version` exchange ([`endpoint`]), trace
//!   recording ([`record`]), extra headers ([`headers`]), refused handshakes ([`refusal`]), the dialog bridge's secret ([`token`]), the reconnect
//!   policy ([`backoff`]), the WebSocket limits ([`limits`]) and the monotonic clock
//!   ([`Clock`]).
//!
//! A transport's loop, in full:
//!
//! ```
//! use cdp_supervisor_driver::{Action, LoopDriver, Options};
//! let mut run = LoopDriver::new(&Options::default(), 1_700_000_000.0)?;
//! run.connected(0.0, "ws://127.0.0.1:9222/devtools/browser/x");
//! loop {
//!     match run.poll_action(0.0) {
//!         Action::Write(text) => { /* send `text` as one text frame */ let _ = text; }
//!         Action::Read { timeout } => { /* read a frame, a request, or `timeout` */ let _ = timeout; break; }
//!         Action::Sleep { timeout } => { /* no socket: a request or `timeout` */ let _ = timeout; }
//!         Action::Connect => { /* open the socket; `connected` or `connect_failed` */ }
//!         Action::Close => { /* close the socket; then `closed` */ run.closed(0.0); }
//!         Action::Disconnect => { /* the connection is dead: drop the socket */ }
//!         Action::Exit => break,
//!     }
//! }
//! # Ok::<(), std::io::Error>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod backoff;
mod client_api;
mod clock;
pub mod downloads;
mod driver;
pub mod endpoint;
mod error;
pub mod headers;
mod heartbeat;
pub mod limits;
mod loop_driver;
pub mod record;
pub mod refusal;
pub mod token;
pub mod upload;

pub use cdp_supervisor;

/// What a transport's users name, re-exported by each transport's crate root: the
/// options, the events, the errors, and the core's types in its API.
pub mod prelude {
    #[doc(no_inline)]
    pub use crate::{
        ClientError, ClientEvent, ClosedTab, CommandUpdate, DialogAction, DialogPolicy, Options,
        Snapshot,
    };
    #[doc(no_inline)]
    pub use cdp_supervisor;
    pub use cdp_supervisor::act;
    #[doc(no_inline)]
    pub use cdp_supervisor::{Element, EvalError, EvalValue, Evaluation, TabInfo, TabState};
}

pub use cdp_supervisor::{DialogAction, DialogPolicy, Snapshot};
pub use clock::Clock;
pub use driver::{
    command_result, ActOutcome, ClientEvent, ClosedTab, CommandUpdate, DialogOutcome, EvalOutcome,
    Options, Reply, Request, Subscriber, Updates, CONNECT_TIMEOUT, HEARTBEAT, SETTLE_TIMEOUT,
};
pub use error::ClientError;
pub use heartbeat::PROBE_DEADLINE as HEARTBEAT_DEADLINE;
pub use loop_driver::{Action, LoopDriver};
