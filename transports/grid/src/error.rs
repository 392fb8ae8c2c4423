//! Why a Grid session could not be had or ended.

use std::time::Duration;

/// Why a Grid session could not be created, or deleted.
///
/// ```
/// use cdp_supervisor_grid::GridError;
/// let e = GridError::QueueTimeout { grid: "http://127.0.0.1:4444".into(), after: std::time::Duration::from_secs(60) };
/// assert_eq!(e.code(), "grid_timeout");
/// assert!(e.to_string().contains("--grid-timeout"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GridError {
    /// The Grid's URL is not `http://HOST:PORT[/PATH]`.
    #[error("--grid {grid}: expected http://HOST:PORT (the Grid's router or standalone server)")]
    BadUrl {
        /// The URL given, its credentials redacted.
        grid: String,
    },
    /// The Grid's URL is `https://`: the Grid is spoken to in plain HTTP only.
    #[error("--grid {grid}: https:// is not supported (the Grid is spoken to in plain HTTP, as its router serves by default); give its http:// address, or reach a TLS-only Grid through a tunnel (ssh -L 4444:GRID-HOST:4444 ..., then --grid http://127.0.0.1:4444)")]
    Https {
        /// The URL given, its credentials redacted.
        grid: String,
    },
    /// `--grid-capabilities` is not a JSON object.
    #[error("--grid-capabilities: {why}; give a W3C capabilities object such as {{\"browserName\": \"chrome\", \"goog:chromeOptions\": {{\"args\": [\"--headless\"]}}}}")]
    BadCapabilities {
        /// What is wrong with it.
        why: String,
    },
    /// The Grid could not be reached.
    #[error("cannot reach the Selenium Grid at {grid}: {why}; is it running (java -jar selenium-server.jar standalone) on that address?")]
    Unreachable {
        /// The Grid, redacted.
        grid: String,
        /// Why.
        why: String,
    },
    /// The session waited in the Grid's queue (every slot taken) longer than allowed.
    #[error("the Selenium Grid at {grid} gave no session within {after:?} (every slot is taken, or no node has that browser); raise --grid-timeout, free a slot or add a node")]
    QueueTimeout {
        /// The Grid, redacted.
        grid: String,
        /// How long it waited.
        after: Duration,
    },
    /// The Grid answered with an error (no node matches, the driver failed to start, ...).
    #[error("the Selenium Grid at {grid} refused the session (HTTP {status}, {error}): {message}")]
    Refused {
        /// The Grid, redacted.
        grid: String,
        /// The HTTP status.
        status: u16,
        /// The WebDriver error code (`session not created`, ...).
        error: String,
        /// The Grid's message, its first line.
        message: String,
    },
    /// The Grid's answer is not what WebDriver says it is.
    #[error("the Selenium Grid at {grid} answered something unexpected: {why}")]
    BadReply {
        /// The Grid, redacted.
        grid: String,
        /// What was wrong.
        why: String,
    },
}

impl GridError {
    /// The stable snake_case code of this error.
    ///
    /// ```
    /// let e = cdp_supervisor_grid::GridError::BadUrl { grid: "x".into() };
    /// assert_eq!(e.code(), "bad_grid_url");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            GridError::BadUrl { .. } => "bad_grid_url",
            GridError::Https { .. } => "grid_https_unsupported",
            GridError::BadCapabilities { .. } => "bad_capabilities",
            GridError::Unreachable { .. } => "grid_unreachable",
            GridError::QueueTimeout { .. } => "grid_timeout",
            GridError::Refused { .. } => "grid_refused",
            GridError::BadReply { .. } => "grid_bad_reply",
        }
    }
}
