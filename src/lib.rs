//! # cdp-supervisor
//!
//! A sans-IO supervisor of one Chromium tab over the Chrome DevTools Protocol: it never
//! hangs on a native JavaScript dialog and never goes blind inside a cross-origin iframe.
//!
//! [`Supervisor`] is a pure state machine. CDP messages and the time go in; CDP commands
//! to send, events (snapshot diffs, command outcomes) and the next deadline come out. It
//! does no I/O, reads no clock, spawns nothing, and panics on no input.
//!
//! ## The run loop
//!
//! ```
//! use cdp_supervisor::{Config, Event, Output, Supervisor};
//!
//! let mut sup = Supervisor::new(Config::default());
//! let mut now = 0.0; // seconds; transports pass UNIX time
//! sup.handle_connected(now);
//! // A real loop reads the socket with the deadline as its timeout:
//! let incoming = [r#"{"id":1,"result":{"targetInfos":[{"targetId":"T","type":"page","url":"about:blank"}]}}"#];
//! for text in incoming {
//!     loop {
//!         match sup.poll_output() {
//!             Output::Transmit(cmd) => { /* socket.write(cmd.json) */ let _ = cmd; }
//!             Output::Event(Event::Diff(diff)) => println!("{}", serde_json::to_string(&diff)?),
//!             Output::Event(_other) => {}
//!             Output::Timeout(_deadline) => break, // wait for a message or the deadline
//!         }
//!     }
//!     now += 0.01;
//!     sup.handle_message(now, text)?; // or sup.handle_timeout(now) when it fired
//! }
//! // getTargets answered: the supervisor now attaches to the page.
//! assert_eq!(sup.poll_transmit().map(|c| c.method), Some("Target.attachToTarget".into()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Map
//!
//! - [`supervisor`]: the state machine, its inputs and outputs, targets, frames, console.
//! - `dialog_flow`: dialog handling on the supervisor (facts 6-11, 15).
//! - [`dialog`], [`frame`], [`session`], [`command`]: the tables and their small rules.
//! - [`snapshot`]: the snapshot and diff types, the `frame_tree` view, [`Mirror`].
//! - [`bridge`]: the dialog bridge's script and request rules (SPEC §6.5).
//! - [`wire`] and `cdp`: the CDP envelope and the payloads read.
//! - [`replay`]: recorded traces and their replay.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod bridge;
mod cdp;
pub mod command;
mod console;
pub mod dialog;
mod dialog_flow;
pub mod error;
pub mod frame;
pub mod limits;
pub mod replay;
pub mod session;
pub mod snapshot;
pub mod supervisor;
pub mod wire;

pub use command::CommandId;
pub use console::MAX_CONSOLE_TEXT;
pub use dialog::{DialogAction, DialogPolicy, MAX_PENDING_DIALOGS};
pub use error::{CommandError, DialogError, InputError};
pub use snapshot::{
    ClosedBy, ClosedDialog, ConsoleEntry, ConsoleLevel, Diff, FrameInfo, FrameTree, Mirror,
    PageInfo, PageState, PendingDialog, Snapshot,
};
pub use supervisor::{Config, Event, Output, Supervisor, TableSizes};
pub use wire::OutgoingCommand;
