//! One WebDriver session on a Selenium Grid: created, its `se:cdp` endpoint, deleted.

use std::time::Duration;

use cdp_supervisor_driver::endpoint::{redact_url, split_ws_url};
use serde_json::Value;

use crate::GridError;

/// How long a session may wait in the Grid's queue by default (`--grid-timeout`).
///
/// ```
/// assert_eq!(cdp_supervisor_grid::DEFAULT_TIMEOUT.as_secs(), 60);
/// ```
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How long connecting to the Grid, and deleting a session, may take.
const HTTP_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest Grid reply read.
const MAX_REPLY: u64 = 4 << 20;

/// A WebDriver session on a Selenium Grid, deleted when dropped (or by
/// [`GridSession::delete`]). Its `Debug` shows the Grid redacted.
///
/// ```
/// use cdp_supervisor_grid::{capabilities, GridSession};
/// use std::time::Duration;
/// let e = GridSession::create("ftp://grid", &capabilities(None)?, Duration::from_secs(1)).unwrap_err();
/// assert_eq!(e.code(), "bad_grid_url");
/// # Ok::<(), cdp_supervisor_grid::GridError>(())
/// ```
#[derive(Debug)]
pub struct GridSession {
    /// The Grid's base URL (no trailing slash), as given: it may hold credentials.
    grid: Secret,
    id: String,
    cdp_url: String,
    deleted: bool,
}

/// A string that `Debug` prints redacted.
struct Secret(String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&redact_url(&self.0))
    }
}

impl GridSession {
    /// Asks the Grid at `grid` (`http://HOST:PORT`, its router or standalone server) for
    /// a session with `body` ([`crate::capabilities`]), waiting at most `timeout` in its
    /// queue (the Grid holds `POST /session` while every slot is taken).
    pub fn create(grid: &str, body: &Value, timeout: Duration) -> Result<GridSession, GridError> {
        let base = base_url(grid)?;
        let shown = redact_url(&base);
        let agent = agent(timeout);
        // On the timeout ureq drops the connection, and a Grid 4 drops a queued request
        // whose client hung up (its queue answers it 500 at once and never matches it to a
        // slot): nothing is left to create a browser later. `tests/grid.rs` in the CLI
        // checks the queue is empty after a give-up.
        let sent = agent
            .post(format!("{base}/session"))
            .header("Content-Type", "application/json; charset=utf-8")
            .send(body.to_string());
        let mut response = sent.map_err(|e| match e {
            ureq::Error::Timeout(_) => GridError::QueueTimeout {
                grid: shown.clone(),
                after: timeout,
            },
            e => GridError::Unreachable {
                grid: shown.clone(),
                why: e.to_string(),
            },
        })?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_REPLY)
            .read_to_string()
            .map_err(|e| GridError::BadReply {
                grid: shown.clone(),
                why: format!("cannot read the reply: {e}"),
            })?;
        let reply: Value = serde_json::from_str(&text).map_err(|e| GridError::BadReply {
            grid: shown.clone(),
            why: format!("not JSON ({e})"),
        })?;
        let value = &reply["value"];
        if status != 200 {
            let first_line = |v: &Value| -> String {
                let text = v.as_str().unwrap_or("");
                text.lines()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(300)
                    .collect()
            };
            return Err(GridError::Refused {
                grid: shown,
                status,
                error: first_line(&value["error"]),
                message: first_line(&value["message"]),
            });
        }
        let bad = |why: &str| GridError::BadReply {
            grid: shown.clone(),
            why: why.to_owned(),
        };
        let id = value["sessionId"]
            .as_str()
            .ok_or_else(|| bad("no sessionId"))?
            .to_owned();
        let mut session = GridSession {
            grid: Secret(base.clone()),
            id,
            cdp_url: String::new(),
            deleted: false,
        };
        // From here on the session exists: every error deletes it (the drop).
        let advertised = value["capabilities"]["se:cdp"].as_str().ok_or_else(|| {
            bad("the session has no se:cdp capability (a Chromium browser on a Selenium 4 node has one)")
        })?;
        session.cdp_url =
            carried_over(&base, advertised).ok_or_else(|| bad("its se:cdp is not a ws:// URL"))?;
        Ok(session)
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The session's CDP endpoint (`ws://GRID/session/ID/se/cdp`, browser-level), on the
    /// host the Grid was reached at: hand it to a transport's `connect`.
    pub fn cdp_url(&self) -> &str {
        &self.cdp_url
    }

    /// Deletes the session (the Grid closes its browser). Once: later calls, and the drop,
    /// do nothing. A session already gone (deleted, timed out) is not an error.
    pub fn delete(&mut self) -> Result<(), GridError> {
        if std::mem::replace(&mut self.deleted, true) {
            return Ok(());
        }
        let url = format!("{}/session/{}", self.grid.0, self.id);
        match agent(HTTP_TIMEOUT).delete(&url).call() {
            Ok(r) if r.status().is_success() || r.status().as_u16() == 404 => Ok(()),
            Ok(r) => Err(GridError::BadReply {
                grid: redact_url(&self.grid.0),
                why: format!("DELETE /session/{} answered HTTP {}", self.id, r.status()),
            }),
            Err(e) => Err(GridError::Unreachable {
                grid: redact_url(&self.grid.0),
                why: format!("cannot delete session {}: {e}", self.id),
            }),
        }
    }
}

impl Drop for GridSession {
    fn drop(&mut self) {
        if let Err(e) = self.delete() {
            eprintln!("cdp-supervisor-grid: warning: {e}; the Grid ends the session after its own timeout");
        }
    }
}

/// The ids of the sessions the Grid at `grid` holds now (`GET /status`): what a test or
/// a load run checks is empty afterwards.
///
/// ```
/// let e = cdp_supervisor_grid::sessions("http://127.0.0.1:9").unwrap_err();
/// assert_eq!(e.code(), "grid_unreachable");
/// ```
pub fn sessions(grid: &str) -> Result<Vec<String>, GridError> {
    let base = base_url(grid)?;
    let shown = redact_url(&base);
    let mut response = agent(HTTP_TIMEOUT)
        .get(format!("{base}/status"))
        .call()
        .map_err(|e| GridError::Unreachable {
            grid: shown.clone(),
            why: e.to_string(),
        })?;
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_REPLY)
        .read_to_string()
        .unwrap_or_default();
    let status: Value = serde_json::from_str(&text).map_err(|e| GridError::BadReply {
        grid: shown,
        why: format!("GET /status is not JSON ({e})"),
    })?;
    let nodes = status["value"]["nodes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    Ok(nodes
        .iter()
        .flat_map(|n| n["slots"].as_array().cloned().unwrap_or_default())
        .filter_map(|slot| slot["session"]["sessionId"].as_str().map(str::to_owned))
        .collect())
}

/// An HTTP agent whose calls end after `timeout`, 4xx/5xx answers read like any other.
fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .timeout_connect(Some(timeout.min(HTTP_TIMEOUT)))
        .http_status_as_error(false)
        .build()
        .into()
}

/// `grid` without a trailing slash, checked to be `http://HOST[:PORT][/PATH]`; an
/// `https://` one is refused by name.
fn base_url(grid: &str) -> Result<String, GridError> {
    if grid
        .get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case("https://"))
    {
        return Err(GridError::Https {
            grid: redact_url(grid),
        });
    }
    let rest = grid.strip_prefix("http://").filter(|r| {
        let host = r.split(['/', '?', '#']).next().unwrap_or("");
        !host.is_empty() && !r.contains(['?', '#'])
    });
    match rest {
        Some(_) => Ok(grid.trim_end_matches('/').to_owned()),
        None => Err(GridError::BadUrl {
            grid: redact_url(grid),
        }),
    }
}

/// The `se:cdp` URL on the host the Grid was reached at: a Grid advertises the address it
/// was started with, which need not be the one the user reaches it by.
fn carried_over(base: &str, advertised: &str) -> Option<String> {
    let (_, path) = split_ws_url(advertised)?;
    let authority = base.strip_prefix("http://")?.split('/').next()?;
    // A Grid under a path prefix (a router at /grid) advertises its path in se:cdp too.
    Some(format!("ws://{authority}{path}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(base_url("http://h:4444/").unwrap(), "http://h:4444");
        assert_eq!(
            base_url("https://u:SECRET@h:4444").unwrap_err(),
            GridError::Https {
                grid: redact_url("https://u:SECRET@h:4444")
            }
        );
        assert!(base_url("HTTPS://h").is_err());
        assert!(base_url("http://").is_err());
        assert!(base_url("http://h?x").is_err());
        assert_eq!(
            carried_over(
                "http://grid.local:4444",
                "ws://127.0.0.1:4444/session/a/se/cdp"
            ),
            Some("ws://grid.local:4444/session/a/se/cdp".into())
        );
        assert_eq!(carried_over("http://h", "http://x/y"), None);
    }
}
