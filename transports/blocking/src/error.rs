//! The transports' error type.

use std::time::Duration;

use cdp_supervisor::{CommandError, DialogError};

use crate::endpoint::EndpointError;
use crate::launch::LaunchError;

/// Why a client call failed.
#[derive(Debug)]
pub enum ClientError {
    /// The endpoint could not be resolved to a WebSocket URL.
    Endpoint(EndpointError),
    /// The WebSocket could not be opened.
    Connect {
        /// The WebSocket URL.
        url: String,
        /// Why.
        error: String,
    },
    /// No browser could be launched.
    Launch(LaunchError),
    /// The trace file could not be created.
    Record(std::io::Error),
    /// The dialog bridge's random secret could not be made (SPEC §6.5).
    BridgeToken(std::io::Error),
    /// The command failed (the core's error, with what to do).
    Command(CommandError),
    /// The dialog could not be answered.
    Dialog(DialogError),
    /// The run loop has ended: stopped, or the browser could not be reached again.
    Closed,
    /// A wait ran out.
    Timeout {
        /// What was waited for.
        what: String,
        /// How long.
        after: Duration,
    },
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Endpoint(e) => e.fmt(f),
            ClientError::Connect { url, error } => write!(
                f,
                "cannot open the WebSocket to {url}: {error}; check that the browser runs with --remote-debugging-port and the URL is current"
            ),
            ClientError::Launch(e) => e.fmt(f),
            ClientError::Record(e) => write!(f, "cannot record the trace: {e}"),
            ClientError::BridgeToken(e) => write!(
                f,
                "cannot make the dialog bridge's secret token: {e}; make /dev/urandom readable or set the bridge's token (BridgeConfig::token) yourself"
            ),
            ClientError::Command(e) => e.fmt(f),
            ClientError::Dialog(e) => e.fmt(f),
            ClientError::Closed => f.write_str(
                "the supervisor's connection is closed (stopped, or the browser was unreachable after repeated reconnects); connect again",
            ),
            ClientError::Timeout { what, after } => {
                write!(f, "timed out after {after:?} waiting for {what}")
            }
        }
    }
}

impl std::error::Error for ClientError {}

impl From<CommandError> for ClientError {
    fn from(e: CommandError) -> Self {
        ClientError::Command(e)
    }
}

impl From<DialogError> for ClientError {
    fn from(e: DialogError) -> Self {
        ClientError::Dialog(e)
    }
}

impl From<LaunchError> for ClientError {
    fn from(e: LaunchError) -> Self {
        ClientError::Launch(e)
    }
}

impl From<EndpointError> for ClientError {
    fn from(e: EndpointError) -> Self {
        ClientError::Endpoint(e)
    }
}
