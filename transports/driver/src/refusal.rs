//! A WebSocket handshake the server refused with an HTTP status, in words and with a
//! stable code, and what the run loop does about it: a key that is refused stays refused
//! and a session that is gone stays gone (no retry), a busy server is asked again once,
//! after its `Retry-After`. Hosted browsers and Selenium Grid answer this way; retrying
//! them in a loop only makes them busier (and some crash on a storm of resets).

use std::time::Duration;

/// The longest `Retry-After` honoured; a longer one is waited this long.
///
/// ```
/// assert_eq!(cdp_supervisor_driver::refusal::MAX_RETRY_AFTER.as_secs(), 60);
/// ```
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The wait before asking a busy server again when it gave no `Retry-After`.
///
/// ```
/// assert_eq!(cdp_supervisor_driver::refusal::BUSY_RETRY.as_secs(), 1);
/// ```
pub const BUSY_RETRY: Duration = Duration::from_secs(1);

/// How long a transport reads a refused handshake's reply to its end before it closes the
/// socket (closing with unread bytes resets the connection, which some servers do not
/// survive).
///
/// ```
/// assert_eq!(cdp_supervisor_driver::refusal::DRAIN_TIMEOUT.as_secs(), 2);
/// ```
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

/// The most bytes of a refused handshake's reply read (and dropped) before closing.
///
/// ```
/// assert_eq!(cdp_supervisor_driver::refusal::MAX_DRAIN, 1 << 20);
/// ```
pub const MAX_DRAIN: usize = 1 << 20;

/// What a refusal means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalKind {
    /// 401 or 403: the key or header is wrong, missing or expired.
    Unauthorized,
    /// 429 or 503: too many sessions; `retry_after` says when to ask again.
    Busy,
    /// 404: no such endpoint or browser.
    NotFound,
    /// 400 (and 410): the session behind the URL is gone (a Selenium Grid answers 400 for
    /// a deleted or timed-out session).
    Gone,
    /// Any other status.
    Other,
}

/// A refused WebSocket handshake.
///
/// ```
/// use cdp_supervisor_driver::refusal::Refusal;
/// use std::time::Duration;
/// let busy = Refusal::new(429, "Too Many Requests", Some("3"));
/// assert_eq!(busy.code(), "busy");
/// assert_eq!(busy.retry_after, Some(Duration::from_secs(3)));
/// assert!(busy.to_string().contains("HTTP 429"));
/// assert_eq!(Refusal::new(401, "", None).code(), "unauthorized");
/// assert_eq!(Refusal::new(404, "", None).code(), "not_found");
/// assert_eq!(Refusal::new(400, "", None).code(), "session_gone");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The HTTP status.
    pub status: u16,
    /// What it means.
    pub kind: RefusalKind,
    /// The server's `Retry-After` in seconds (a date is not read), capped at
    /// [`MAX_RETRY_AFTER`].
    pub retry_after: Option<Duration>,
    /// The status line's reason phrase, at most 64 characters of it.
    pub reason: String,
}

impl Refusal {
    /// The refusal of `status` with its `reason` phrase and `Retry-After` header, if any.
    pub fn new(status: u16, reason: &str, retry_after: Option<&str>) -> Refusal {
        let kind = match status {
            401 | 403 => RefusalKind::Unauthorized,
            429 | 503 => RefusalKind::Busy,
            404 => RefusalKind::NotFound,
            400 | 410 => RefusalKind::Gone,
            _ => RefusalKind::Other,
        };
        let retry_after = retry_after
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(|s| Duration::from_secs(s).min(MAX_RETRY_AFTER));
        let reason = reason
            .chars()
            .filter(|c| !c.is_control())
            .take(64)
            .collect();
        Refusal {
            status,
            kind,
            retry_after,
            reason,
        }
    }

    /// The stable code: `unauthorized`, `busy`, `not_found`, `session_gone` or `refused`.
    pub fn code(&self) -> &'static str {
        match self.kind {
            RefusalKind::Unauthorized => "unauthorized",
            RefusalKind::Busy => "busy",
            RefusalKind::NotFound => "not_found",
            RefusalKind::Gone => "session_gone",
            RefusalKind::Other => "refused",
        }
    }

    /// How long to wait before the one retry a busy server gets ([`BUSY_RETRY`] when it
    /// named no time); `None` for every other refusal: asking again would get the same
    /// answer.
    ///
    /// ```
    /// use cdp_supervisor_driver::refusal::Refusal;
    /// use std::time::Duration;
    /// assert_eq!(Refusal::new(429, "", Some("2")).retry_delay(), Some(Duration::from_secs(2)));
    /// assert_eq!(Refusal::new(503, "", None).retry_delay(), Some(Duration::from_secs(1)));
    /// assert_eq!(Refusal::new(401, "", Some("2")).retry_delay(), None);
    /// ```
    pub fn retry_delay(&self) -> Option<Duration> {
        (self.kind == RefusalKind::Busy).then(|| self.retry_after.unwrap_or(BUSY_RETRY))
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let status = if self.reason.is_empty() {
            format!("HTTP {}", self.status)
        } else {
            format!("HTTP {} {}", self.status, self.reason)
        };
        match self.kind {
            RefusalKind::Unauthorized => write!(
                f,
                "the server refused the WebSocket with {status}: the key is wrong, missing or expired; check the URL's key or the --cdp-header"
            ),
            RefusalKind::Busy => match self.retry_after {
                Some(after) => write!(
                    f,
                    "the server refused the WebSocket with {status}: it is busy (Retry-After {}s); try again later or raise its limit",
                    after.as_secs()
                ),
                None => write!(
                    f,
                    "the server refused the WebSocket with {status}: it is busy; try again later or raise its limit"
                ),
            },
            RefusalKind::NotFound => write!(
                f,
                "the server refused the WebSocket with {status}: no browser at that path; check the URL"
            ),
            RefusalKind::Gone => write!(
                f,
                "the server refused the WebSocket with {status}: the session behind the URL is gone (deleted or timed out, as a Selenium Grid answers); start a new one"
            ),
            RefusalKind::Other => write!(f, "the server refused the WebSocket with {status}"),
        }
    }
}

impl std::error::Error for Refusal {}

/// The words for a WebSocket that broke the protocol after the upgrade (`detail`: the
/// WebSocket library's error). Some servers end a session by writing an HTTP status into
/// the upgraded stream (a hosted browser's `TIMEOUT` writes `HTTP/1.1 408`), which a
/// client reads as garbage frames: it is a disconnect, and is said plainly.
///
/// ```
/// let words = cdp_supervisor_driver::refusal::broken_stream("reserved bits are non-zero");
/// assert!(words.starts_with("the server broke the WebSocket protocol"));
/// ```
pub fn broken_stream(detail: &str) -> String {
    format!(
        "the server broke the WebSocket protocol ({detail}): it ended the connection (some hosted browsers write an HTTP status such as 408 into the stream when a session's time is up); disconnected"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_capped_and_dates_are_not_read() {
        let r = Refusal::new(429, "", Some("86400"));
        assert_eq!(r.retry_after, Some(MAX_RETRY_AFTER));
        let r = Refusal::new(429, "", Some("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert_eq!((r.retry_after, r.retry_delay()), (None, Some(BUSY_RETRY)));
        let r = Refusal::new(429, "", Some("-1"));
        assert_eq!(r.retry_after, None);
    }

    #[test]
    fn reasons_are_short_and_plain() {
        let r = Refusal::new(500, &format!("a\r\nb{}", "x".repeat(100)), None);
        assert_eq!(r.reason.chars().count(), 64);
        assert!(!r.reason.contains('\n'));
        assert_eq!(r.code(), "refused");
    }
}
