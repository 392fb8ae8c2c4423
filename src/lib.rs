//! # cdp-supervisor
//!
//! A sans-IO supervisor of a Chromium browser and every tab in it over the Chrome DevTools
//! Protocol: it never hangs on a native JavaScript dialog and never goes blind inside a
//! cross-origin iframe or the popup a click just opened.
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
//! Two layers, as quinn-proto's `Endpoint` over its `Connection`s:
//!
//! - [`Supervisor`] (`supervisor.rs`): **the browser**. It owns what is browser-wide (the
//!   connection's clock, command ids and commands in flight, the targets, which tab is
//!   current, the browser contexts it created) and routes each message to the tab that
//!   owns its session; browser-level events (a page attached, a target changed or gone)
//!   are its own. See [`manual::rules`], the browser and its tabs.
//! - `TabSupervisor` (`tab_supervisor.rs`): **one tab**, a complete machine (frames,
//!   sessions, dialogs, console, refs, flows, its own deadlines), lent the connection's
//!   `Outbox` for each call; a dispatcher over the components below.
//!
//! Below them, bottom-up (no module imports one above it):
//!
//! - The wire and CDP types: `wire.rs` (the envelope), `cdp.rs` (the payloads read),
//!   `remote_object.rs`, [`command`] (commands in flight), [`error`], [`limits`].
//! - `Outbox` (`outbox.rs`): the clock, command ids, commands in flight, output queues.
//! - `Dialogs` (`dialogs.rs`): every dialog rule, one record per answer in flight.
//! - `Contexts` (`contexts.rs`): the browser contexts created, which ids a call may name,
//!   what a context command's reply changes.
//! - `Tab` (`tab.rs`): one tab's page, sessions, frames, routing, the console ring;
//!   `renderer.rs`: which of its sessions a pending dialog blocks.
//! - `lifecycle.rs`: targets and frames coming and going, applied across the components
//!   with the removal cascade of `cascade.rs`.
//! - Flows (`flow/`): multi-step jobs as small state machines: the attach flow first, the
//!   act flow of [`act`] (agent actions), the evaluate flow, the accessibility snapshot and
//!   ref flows; `flow/begin.rs` checks an agent call and starts its flow.
//! - [`ax`]: the accessibility outline of the whole tab and its refs; [`keys`]: key names
//!   and typed text as `Input.dispatchKeyEvent` parameters.
//! - [`evaluate`]: evaluate under one budget ([`Supervisor::evaluate`], answered by
//!   [`Event::Evaluated`]): any frame, element targets, a stuck script terminated at the
//!   deadline; the rules in [`manual::rules`], "Evaluate under one budget".
//! - [`Config`], [`Event`], [`Output`], [`Warning`]: the public inputs and outputs.
//! - [`dialog`], [`frame`], [`session`], [`command`]: the tables' types.
//! - [`snapshot`]: the snapshot and diff types, the `frame_tree` view, [`Mirror`].
//! - [`bridge`]: the dialog bridge's script and request rules.
//! - [`url_policy`]: where an agent may go (`file:`, `chrome:`, `javascript:`, origins).
//! - [`limits`]: every bound in one place.
//! - [`replay`]: recorded traces and their replay.
//! - [`manual`]: the Chromium facts the code relies on, and the rules it keeps.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod act;
pub mod ax;
pub mod bridge;
mod cascade;
mod cdp;
pub mod command;
mod config;
mod console;
mod console_history;
mod contexts;
pub mod dialog;
mod dialogs;
pub mod downloads;
pub mod error;
pub mod error_code;
pub mod evaluate;
mod event;
mod file_chooser;
mod flow;
pub mod frame;
pub mod http_auth;
pub mod keys;
mod lifecycle;
pub mod limits;
pub mod manual;
pub mod network;
mod outbox;
pub mod permissions;
pub mod redact;
mod remote_object;
mod renderer;
pub mod replay;
pub mod session;
pub mod snapshot;
pub mod supervisor;
mod tab;
mod tab_supervisor;
pub mod url_policy;
pub mod wire;

pub use command::CommandId;
pub use config::{BridgeConfig, Config};
pub use console_history::{ConsoleLine, ConsoleSeverity, ConsoleSince};
pub use dialog::{Answer, DialogAction, DialogKind, DialogPolicy};
pub use error::{CommandError, DialogError, InputError, SessionGoneReason};
pub use evaluate::{Element, EvalError, EvalValue, Evaluation};
pub use event::{Event, Output, Warning};
#[doc(hidden)]
pub use limits::TableSizes;
pub use limits::{MAX_CONSOLE_TEXT, MAX_PENDING_DIALOGS};
pub use snapshot::{
    ClosedBy, ClosedDialog, ConsoleEntry, ConsoleLevel, Diff, FrameInfo, FrameTree, Mirror,
    PageInfo, PageState, PendingDialog, Snapshot, TabInfo, TabState,
};
pub use supervisor::Supervisor;
pub use wire::OutgoingCommand;

/// The README's Rust snippets that use only the core, compiled and run as doc tests so
/// they cannot drift. The one `ignore`d snippet, the quickstart, needs a transport: it is
/// `transports/blocking/examples/quickstart.rs` verbatim, run by CI and checked equal by
/// that crate's `readme` test. (`transports/README.md`'s snippets compile as doc tests of
/// `cdp-supervisor-e2e`.)
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
