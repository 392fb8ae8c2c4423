//! `find` (the sidecar's command) and `browser_find` (the MCP tool), the pure half: the
//! query read from JSON ([`parse_find`]) and the answer as text ([`found_text`]). The
//! matching itself is the core's ([`cdp_supervisor::ax::AxSnapshot::find`]), on a fresh
//! accessibility snapshot of the tab.

use cdp_supervisor::ax::{AxError, FindQuery, Found};
use serde_json::Value;

/// Reads `text`, `regex` and `role` (at least one; Playwright MCP's `pattern` is taken for
/// `regex`).
///
/// ```
/// use cdp_supervise::find::parse_find;
/// use serde_json::json;
/// assert!(parse_find(&json!({"text": "Buy"})).is_ok());
/// assert_eq!(parse_find(&json!({})).unwrap_err().code(), "bad_request");
/// assert_eq!(parse_find(&json!({"role": 3})).unwrap_err().code(), "bad_request");
/// ```
pub fn parse_find(v: &Value) -> Result<FindQuery, AxError> {
    let field = |names: &[&str]| -> Result<Option<&str>, AxError> {
        for name in names {
            match v.get(*name) {
                None | Some(Value::Null) => continue,
                Some(Value::String(s)) => return Ok(Some(s.as_str())),
                Some(_) => {
                    return Err(AxError::BadRequest {
                        what: format!("{name}: must be a string"),
                    })
                }
            }
        }
        Ok(None)
    };
    FindQuery::new(
        field(&["text"])?,
        field(&["regex", "pattern"])?,
        field(&["role"])?,
    )
}

/// The matches as an agent reads them: one outline line each, with its ref and frame.
///
/// ```
/// use cdp_supervise::find::found_text;
/// let text = found_text(&Default::default());
/// assert!(text.starts_with("No line of the snapshot matches"));
/// ```
pub fn found_text(found: &Found) -> String {
    let mut text = match found.total {
        0 => "No line of the snapshot matches (every frame was searched, cross-origin iframes included).".to_owned(),
        n => format!(
            "{n} line(s) of the snapshot match (every frame searched); act on them by ref:"
        ),
    };
    for m in &found.matches {
        text.push_str(&format!(
            "\n- {}{}",
            m.line,
            match (&m.reference, m.role.as_str()) {
                (Some(r), "text") => format!(" (in [ref={r}])"),
                _ => String::new(),
            }
        ));
        if let Some(f) = &m.frame_id {
            text.push_str(&format!(" (frame {f})"));
        }
    }
    if found.total > found.matches.len() {
        text.push_str(&format!(
            "\n({} more left out: narrow the text, regex or role)",
            found.total - found.matches.len()
        ));
    }
    if found.snapshot_truncated {
        text.push_str("\n(the snapshot was cut at its budget: nodes past it were not searched)");
    }
    for f in &found.frames_left_out {
        text.push_str(&format!(
            "\nNot searched: frame {} ({}): {}",
            f.frame_id, f.url, f.reason
        ));
    }
    text
}
