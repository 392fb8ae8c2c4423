//! The CDP wire envelope: one WebSocket text frame, read lazily.
//!
//! Only `id`, `method` and `sessionId` are decoded up front; `params`, `result` and
//! `error` stay raw JSON slices ([`RawValue`]) until a handler asks for them, so events
//! the supervisor does not handle cost one validating scan and nothing else.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// One incoming CDP message, borrowed from the frame's text.
///
/// ```
/// use cdp_supervisor::wire::Envelope;
/// let env = Envelope::parse(r#"{"id":7,"result":{},"sessionId":"S"}"#).unwrap();
/// assert_eq!(env.id, Some(7));
/// assert_eq!(env.session_id.as_deref(), Some("S"));
/// ```
#[derive(Debug, Deserialize)]
pub struct Envelope<'a> {
    /// Set on replies; CDP ids are positive integers.
    #[serde(default)]
    pub id: Option<u64>,
    /// Set on events.
    #[serde(default, borrow)]
    pub method: Option<Cow<'a, str>>,
    /// The flattened session the message belongs to; absent for the browser session.
    #[serde(default, borrow, rename = "sessionId")]
    pub session_id: Option<Cow<'a, str>>,
    /// Event parameters, unparsed.
    #[serde(default, borrow)]
    pub params: Option<&'a RawValue>,
    /// A successful reply's result, unparsed.
    #[serde(default, borrow)]
    pub result: Option<&'a RawValue>,
    /// A failed reply's error, unparsed.
    #[serde(default, borrow)]
    pub error: Option<&'a RawValue>,
}

impl<'a> Envelope<'a> {
    /// Parses one message. Fails on anything that is not a JSON object of the right shape.
    pub fn parse(text: &'a str) -> Result<Self, serde_json::Error> {
        // serde accepts a JSON array for a struct; a CDP message is always an object.
        if !text.trim_start().starts_with('{') {
            return Err(serde::de::Error::custom("a CDP message is a JSON object"));
        }
        serde_json::from_str(text)
    }
}

/// The `error` object of a failed CDP reply.
///
/// ```
/// use cdp_supervisor::wire::CdpError;
/// let e: CdpError = serde_json::from_str(r#"{"code":-32602,"message":"No dialog is showing"}"#).unwrap();
/// assert!(e.is_no_dialog_showing());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CdpError {
    /// The JSON-RPC style error code (`-32000` server error, `-32602` invalid params, ...).
    #[serde(default)]
    pub code: i64,
    /// Chromium's message, verbatim.
    #[serde(default)]
    pub message: String,
}

impl CdpError {
    /// Fact 10: `Page.handleJavaScriptDialog` with nothing showing.
    pub fn is_no_dialog_showing(&self) -> bool {
        self.message.contains("No dialog is showing")
    }
}

/// An outgoing CDP command, built once: `json` is the exact text to write to the socket.
///
/// ```
/// use cdp_supervisor::wire::OutgoingCommand;
/// let cmd = OutgoingCommand::new(3, "Page.enable", None, Some("S1"));
/// assert_eq!(cmd.json, r#"{"id":3,"method":"Page.enable","params":{},"sessionId":"S1"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingCommand {
    /// The CDP id; unique for the supervisor's whole life, also across reconnects.
    pub id: u64,
    /// The CDP method.
    pub method: String,
    /// The session it is sent on; `None` for the browser session.
    pub session_id: Option<String>,
    /// The whole message as JSON text.
    pub json: String,
}

#[derive(Serialize)]
struct OutgoingRef<'a> {
    id: u64,
    method: &'a str,
    params: &'a RawValue,
    #[serde(rename = "sessionId", skip_serializing_if = "Option::is_none")]
    session_id: Option<&'a str>,
}

impl OutgoingCommand {
    /// Builds the JSON text of a command. `params` must be a JSON object; `None` sends `{}`.
    pub fn new(id: u64, method: &str, params: Option<&RawValue>, session_id: Option<&str>) -> Self {
        let empty = empty_object();
        let params = params.unwrap_or(empty);
        let msg = OutgoingRef {
            id,
            method,
            params,
            session_id,
        };
        // Serializing a struct of strings, an integer and an already-valid RawValue into a
        // String cannot fail (no maps with non-string keys, no I/O).
        let json = serde_json::to_string(&msg).unwrap_or_default();
        OutgoingCommand {
            id,
            method: method.to_owned(),
            session_id: session_id.map(str::to_owned),
            json,
        }
    }
}

/// `{}` as a raw value.
pub(crate) fn empty_object() -> &'static RawValue {
    // A literal that is valid JSON: from_string of it cannot fail.
    static EMPTY: std::sync::OnceLock<Box<RawValue>> = std::sync::OnceLock::new();
    EMPTY.get_or_init(|| RawValue::from_string("{}".to_owned()).unwrap_or_else(|_| unreachable!()))
}

/// Serializes `value` as raw JSON params. Only used with the supervisor's own param structs,
/// which always serialize.
pub(crate) fn to_raw<T: Serialize>(value: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).unwrap_or_else(|_| {
        RawValue::from_string("{}".to_owned()).unwrap_or_else(|_| unreachable!())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_session_and_method() {
        let cmd = OutgoingCommand::new(1, "A\"B", None, Some("x\\y"));
        let v: serde_json::Value = serde_json::from_str(&cmd.json).unwrap();
        assert_eq!(v["method"], "A\"B");
        assert_eq!(v["sessionId"], "x\\y");
    }

    #[test]
    fn envelope_rejects_non_objects() {
        assert!(Envelope::parse("[1,2]").is_err());
        assert!(Envelope::parse("{\"id\":-1}").is_err());
        assert!(Envelope::parse("{\"id\":1e400}").is_err());
        assert!(Envelope::parse("{\"id\":1").is_err());
    }

    #[test]
    fn envelope_accepts_escaped_strings() {
        let e = Envelope::parse(r#"{"method":"Page.a\u0062","sessionId":"S\n"}"#).unwrap();
        assert_eq!(e.method.as_deref(), Some("Page.ab"));
    }
}
