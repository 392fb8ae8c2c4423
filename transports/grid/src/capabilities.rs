//! The capabilities a session is asked with.

use serde_json::{json, Value};

use crate::GridError;

/// The `POST /session` body for the W3C capabilities object `given` (the
/// `--grid-capabilities` JSON; `None`: a Chrome of the Grid's choosing), sent as
/// `alwaysMatch`. Without a `browserName`, `chrome` is asked for (the supervisor speaks
/// CDP to Chromium only); without an `unhandledPromptBehavior`, `ignore` (the supervisor
/// answers dialogs: chromedriver's default, dismiss, would close them behind its back).
/// Refused: anything that is not a JSON object.
///
/// ```
/// use cdp_supervisor_grid::capabilities;
/// let body = capabilities(Some(r#"{"goog:chromeOptions": {"binary": "/usr/bin/chromium"}}"#))?;
/// assert_eq!(body["capabilities"]["alwaysMatch"]["browserName"], "chrome");
/// assert_eq!(body["capabilities"]["alwaysMatch"]["unhandledPromptBehavior"], "ignore");
/// assert_eq!(body["capabilities"]["alwaysMatch"]["goog:chromeOptions"]["binary"], "/usr/bin/chromium");
/// assert!(capabilities(Some("[1]")).is_err());
/// # Ok::<(), cdp_supervisor_grid::GridError>(())
/// ```
pub fn capabilities(given: Option<&str>) -> Result<Value, GridError> {
    let mut always = match given {
        None => json!({}),
        Some(text) => {
            serde_json::from_str::<Value>(text).map_err(|e| GridError::BadCapabilities {
                why: format!("not JSON ({e})"),
            })?
        }
    };
    let Some(object) = always.as_object_mut() else {
        return Err(GridError::BadCapabilities {
            why: "not a JSON object".into(),
        });
    };
    // A W3C body pasted whole: take its alwaysMatch.
    if let Some(inner) = object
        .get("capabilities")
        .and_then(|c| c.get("alwaysMatch"))
        .and_then(Value::as_object)
    {
        *object = inner.clone();
    }
    object
        .entry("browserName")
        .or_insert_with(|| Value::from("chrome"));
    object
        .entry("unhandledPromptBehavior")
        .or_insert_with(|| Value::from("ignore"));
    Ok(json!({ "capabilities": { "alwaysMatch": always } }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_w3c_body_is_taken_as_is() {
        let body = r#"{"capabilities":{"alwaysMatch":{"browserName":"chrome","x":1}}}"#;
        let got = capabilities(Some(body)).unwrap();
        assert_eq!(got["capabilities"]["alwaysMatch"]["x"], 1);
        assert_eq!(
            capabilities(None).unwrap()["capabilities"]["alwaysMatch"]["browserName"],
            "chrome"
        );
        let e = capabilities(Some("{")).unwrap_err();
        assert_eq!(e.code(), "bad_capabilities");
    }
}
