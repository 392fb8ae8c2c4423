//! The transports' error type.

use std::time::Duration;

use cdp_supervisor::ax::AxError;
use cdp_supervisor::{CommandError, DialogError, EvalError};

use crate::endpoint::{redact_url, EndpointError};
use crate::refusal::Refusal;

/// Why a client call failed.
///
/// ```
/// use cdp_supervisor_driver::ClientError;
/// let e = ClientError::Closed;
/// assert!(e.to_string().contains("connect again"));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The endpoint could not be resolved to a WebSocket URL.
    #[error(transparent)]
    Endpoint(#[from] EndpointError),
    /// The server refused the WebSocket handshake with an HTTP status (`code()`:
    /// `unauthorized`, `busy`, `not_found`, `session_gone`, `refused`).
    #[error("cannot open the WebSocket to {}: {refusal}", redact_url(.url))]
    Refused {
        /// The WebSocket URL, its credentials redacted.
        url: String,
        /// The status and what it means.
        refusal: Refusal,
    },
    /// The WebSocket could not be opened.
    #[error("cannot open the WebSocket to {}: {error}; check that the browser runs with --remote-debugging-port and the URL is current", redact_url(.url))]
    Connect {
        /// The WebSocket URL, its credentials redacted ([`redact_url`]; the transports
        /// store it redacted, so that `Debug` shows no secret either).
        url: String,
        /// Why.
        error: String,
    },
    /// No browser could be launched (the launcher's error, `cdp-supervisor-chromium`).
    #[error(transparent)]
    Launch(Box<dyn std::error::Error + Send + Sync + 'static>),
    /// The trace file could not be created.
    #[error("cannot record the trace: {0}")]
    Record(#[source] std::io::Error),
    /// The dialog bridge's random secret could not be made.
    #[error("cannot make the dialog bridge's secret token: {0}; make /dev/urandom readable or set Config::bridge_token yourself")]
    BridgeToken(#[source] std::io::Error),
    /// The command failed (the core's error, with what to do).
    #[error(transparent)]
    Command(#[from] CommandError),
    /// The evaluate gave no value (the core's typed error; `code()` is its stable word).
    #[error(transparent)]
    Evaluate(#[from] EvalError),
    /// The accessibility snapshot or its ref failed (the core's error, with its code).
    #[error(transparent)]
    Ax(#[from] AxError),
    /// The action could not run (the core's error, with what to do; `code()` is stable).
    #[error(transparent)]
    Act(#[from] cdp_supervisor::act::ActError),
    /// The dialog could not be answered.
    #[error(transparent)]
    Dialog(#[from] DialogError),
    /// The run loop has ended: stopped, or the browser could not be reached again.
    #[error("the supervisor's connection is closed (stopped, or the browser was unreachable after repeated reconnects); connect again")]
    Closed,
    /// `connect` or `launch`: the page was not attached within
    /// [`Options::connect_timeout`](crate::Options::connect_timeout).
    #[error("the page did not become live within {after:?}: {why}")]
    NotLive {
        /// How long it waited.
        after: Duration,
        /// What did not happen, and what to do.
        why: String,
    },
    /// A wait ran out.
    #[error("timed out after {after:?} waiting for {what}")]
    Timeout {
        /// What was waited for.
        what: String,
        /// How long.
        after: Duration,
    },
}

impl ClientError {
    /// [`ClientError::Connect`] for the WebSocket `url`, stored redacted
    /// ([`redact_url`]).
    ///
    /// ```
    /// use cdp_supervisor_driver::ClientError;
    /// let e = ClientError::connect("ws://h:1/x?apiKey=SECRET", "refused".into());
    /// assert!(matches!(&e, ClientError::Connect { url, .. } if !url.contains("SECRET")));
    /// ```
    pub fn connect(url: &str, error: String) -> ClientError {
        let url = redact_url(url);
        ClientError::Connect { url, error }
    }

    /// [`ClientError::Refused`] for the WebSocket `url`, stored redacted.
    ///
    /// ```
    /// use cdp_supervisor_driver::{refusal::Refusal, ClientError};
    /// let e = ClientError::refused("ws://h/x?token=SECRET", Refusal::new(401, "Unauthorized", None));
    /// assert_eq!(e.code(), "unauthorized");
    /// assert!(!e.to_string().contains("SECRET"));
    /// ```
    pub fn refused(url: &str, refusal: Refusal) -> ClientError {
        let url = redact_url(url);
        ClientError::Refused { url, refusal }
    }

    /// The refusal behind this error, if the server refused the handshake or the
    /// `/json/version` lookup with a status of meaning.
    pub fn refusal(&self) -> Option<&Refusal> {
        match self {
            ClientError::Refused { refusal, .. } => Some(refusal),
            ClientError::Endpoint(e) => e.refusal.as_ref(),
            _ => None,
        }
    }

    /// [`ClientError::Timeout`]: the wait for `what` ran out `after` this long.
    ///
    /// ```
    /// use cdp_supervisor_driver::ClientError;
    /// let e = ClientError::timeout("the page", std::time::Duration::from_secs(1));
    /// assert_eq!(e.to_string(), "timed out after 1s waiting for the page");
    /// ```
    pub fn timeout(what: &str, after: Duration) -> ClientError {
        let what = what.to_owned();
        ClientError::Timeout { what, after }
    }

    /// The stable snake_case code of this error, the word a program branches on (the
    /// sidecar's `code`); the core's errors keep theirs ([`CommandError::code`],
    /// [`DialogError::code`]).
    ///
    /// ```
    /// use cdp_supervisor_driver::ClientError;
    /// assert_eq!(ClientError::Closed.code(), "disconnected");
    /// let e = ClientError::Command(cdp_supervisor::CommandError::NotAttached);
    /// assert_eq!(e.code(), "not_attached");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            ClientError::Endpoint(e) => e.refusal.as_ref().map_or("unreachable", Refusal::code),
            ClientError::Refused { refusal, .. } => refusal.code(),
            ClientError::Connect { .. } => "unreachable",
            ClientError::Launch(_) => "launch_failed",
            ClientError::Record(_) => "io_error",
            ClientError::BridgeToken(_) => "io_error",
            ClientError::Command(e) => e.code(),
            ClientError::Dialog(e) => e.code(),
            ClientError::Ax(e) => e.code(),
            ClientError::Act(e) => e.code(),
            ClientError::Evaluate(e) => e.code(),
            ClientError::Closed => "disconnected",
            ClientError::NotLive { .. } => "not_live",
            ClientError::Timeout { .. } => "timeout",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_errors_print_no_credentials() {
        let e = ClientError::Connect {
            url: "ws://u:pw@127.0.0.1:1/x?apiKey=SECRET".into(),
            error: "refused".into(),
        };
        let text = e.to_string();
        assert!(!text.contains("SECRET") && !text.contains("u:pw"), "{text}");
        assert_eq!(e.code(), "unreachable");
    }
}
