//! The CDP wire envelope: one WebSocket text frame, read in one pass.
//!
//! `id`, `method` and `sessionId` are decoded; `result` and `error` stay raw JSON slices
//! ([`RawValue`]) for the reply's owner to read; `params` of the events the supervisor
//! handles are parsed into their typed struct *during the same pass* (CDP puts `method`
//! before `params`), and the params of every other event are skipped without building
//! anything. Supervising a page therefore costs about one validating read of its JSON.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

use crate::cdp::{deserialize_event, BorrowedCow, CdpEvent};
use crate::error::InputError;

#[doc(hidden)] // internal: the reader, public for the replay benchmark
/// One incoming CDP message, borrowed from the frame's text.
///
/// ```
/// use cdp_supervisor::wire::Envelope;
/// let env = Envelope::parse(r#"{"id":7,"result":{},"sessionId":"S"}"#)?;
/// assert_eq!(env.id, Some(7));
/// assert_eq!(env.session_id.as_deref(), Some("S"));
/// assert!(Envelope::parse("[1]").is_err());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug)]
pub struct Envelope<'a> {
    /// Set on replies; CDP ids are positive integers.
    pub id: Option<u64>,
    /// Set on events.
    pub method: Option<Cow<'a, str>>,
    /// The flattened session the message belongs to; absent for the browser session.
    pub session_id: Option<Cow<'a, str>>,
    /// Event parameters: parsed, skipped, or raw when they came before `method`.
    pub(crate) params: Params<'a>,
    /// A successful reply's result, unparsed.
    pub result: Option<&'a RawValue>,
    /// A failed reply's error, unparsed.
    pub error: Option<&'a RawValue>,
}

/// An event's params as the envelope read them.
#[derive(Debug)]
pub(crate) enum Params<'a> {
    /// No `params` key.
    Absent,
    /// Parsed into the handled event's struct. Not boxed: this is the hot path, and an
    /// envelope lives on the stack for one message.
    #[allow(clippy::large_enum_variant)]
    Event(CdpEvent<'a>),
    /// Not an event the supervisor handles: skipped.
    Skipped,
    /// `params` came before `method`: kept raw, parsed once the method is known.
    Raw(&'a RawValue),
}

impl<'a> Envelope<'a> {
    /// Parses one message. Fails on anything that is not a JSON object of the CDP shape,
    /// including params of a handled event that do not have that event's shape.
    pub fn parse(text: &'a str) -> Result<Self, serde_json::Error> {
        let mut env = Envelope::empty();
        env.read(text)?;
        Ok(env)
    }

    /// An envelope with nothing set, for [`Envelope::read`].
    pub(crate) fn empty() -> Self {
        Envelope {
            id: None,
            method: None,
            session_id: None,
            params: Params::Absent,
            result: None,
            error: None,
        }
    }

    /// [`Envelope::parse`] into `self` (an [`Envelope::empty`]), in place: the envelope is
    /// written field by field where it lives instead of being returned through serde's
    /// layers (each of which would copy it, a `memcpy` per layer for every message). On
    /// an error `self` may be partly written and must not be used.
    pub(crate) fn read(&mut self, text: &'a str) -> Result<(), serde_json::Error> {
        // serde would accept a JSON array for a struct; a CDP message is always an object.
        if !text.trim_start().starts_with('{') {
            return Err(de::Error::custom("a CDP message is a JSON object"));
        }
        // What `serde_json::from_str` does: the value, then only whitespace to the end.
        let mut d = serde_json::Deserializer::from_str(text);
        EnvelopeSeed(self).deserialize(&mut d)?;
        d.end()
    }
}

impl<'a> Params<'a> {
    /// The handled event of a message with `method`, parsing raw params if needed:
    /// `Ok(None)` for events the supervisor does not handle. Borrowed where the envelope
    /// holds it: the event is handled in place rather than moved out (one copy less of
    /// every console call).
    pub(crate) fn event_mut(
        &mut self,
        method: &str,
    ) -> Result<Option<&mut CdpEvent<'a>>, serde_json::Error> {
        let raw = match *self {
            Params::Event(_) | Params::Skipped => None,
            Params::Raw(raw) => Some(raw.get()),
            Params::Absent => Some("{}"),
        };
        if let Some(raw) = raw {
            let mut d = serde_json::Deserializer::from_str(raw);
            *self = match deserialize_event(method, &mut d)? {
                Some(ev) => Params::Event(ev),
                None => Params::Skipped,
            };
        }
        match self {
            Params::Event(ev) => Ok(Some(ev)),
            _ => Ok(None),
        }
    }
}

/// The keys of a CDP message.
enum Field {
    Id,
    Method,
    SessionId,
    Params,
    Result,
    Error,
    Other,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct FieldVisitor;
        impl Visitor<'_> for FieldVisitor {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a CDP message key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
                Ok(match v {
                    "id" => Field::Id,
                    "method" => Field::Method,
                    "sessionId" => Field::SessionId,
                    "params" => Field::Params,
                    "result" => Field::Result,
                    "error" => Field::Error,
                    _ => Field::Other,
                })
            }
        }
        d.deserialize_identifier(FieldVisitor)
    }
}

/// Reads `params` knowing the method.
struct ParamsSeed<'m>(&'m str);

impl<'de> DeserializeSeed<'de> for ParamsSeed<'_> {
    type Value = Params<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Params<'de>, D::Error> {
        Ok(match deserialize_event(self.0, d)? {
            Some(ev) => Params::Event(ev),
            None => Params::Skipped,
        })
    }
}

impl<'de> Deserialize<'de> for Envelope<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut env = Envelope::empty();
        EnvelopeSeed(&mut env).deserialize(d)?;
        Ok(env)
    }
}

/// Reads a CDP message into an envelope in place (see [`Envelope::read`]).
struct EnvelopeSeed<'e, 'de>(&'e mut Envelope<'de>);

impl<'de> DeserializeSeed<'de> for EnvelopeSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EnvelopeSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a CDP message object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let env = self.0;
        while let Some(key) = map.next_key::<Field>()? {
            match key {
                Field::Id => env.id = map.next_value()?,
                Field::Method => {
                    env.method = map.next_value::<Option<BorrowedCow<'de>>>()?.map(|c| c.0)
                }
                Field::SessionId => {
                    env.session_id = map.next_value::<Option<BorrowedCow<'de>>>()?.map(|c| c.0)
                }
                Field::Params => {
                    env.params = match env.method.as_deref() {
                        Some(m) => map.next_value_seed(ParamsSeed(m))?,
                        None => Params::Raw(map.next_value()?),
                    }
                }
                Field::Result => env.result = Some(map.next_value()?),
                Field::Error => env.error = Some(map.next_value()?),
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// The `error` object of a failed CDP reply.
///
/// ```
/// use cdp_supervisor::wire::CdpError;
/// let e: CdpError = serde_json::from_str(r#"{"code":-32602,"message":"No dialog is showing"}"#)?;
/// assert!(e.is_no_dialog_showing());
/// # Ok::<(), serde_json::Error>(())
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
    /// This error as the outcome of a command with `method`.
    pub(crate) fn into_command_error(self, method: &str) -> crate::error::CommandError {
        crate::error::CommandError::Cdp {
            method: method.to_owned(),
            code: self.code,
            message: self.message,
        }
    }

    /// `Page.handleJavaScriptDialog` with nothing showing (see
    /// [chromium_facts](crate::manual::chromium_facts), no dialog is showing).
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
    params: ParamsOrEmpty<'a>,
    #[serde(rename = "sessionId", skip_serializing_if = "Option::is_none")]
    session_id: Option<&'a str>,
}

/// Params as given, or `{}`.
struct ParamsOrEmpty<'a>(Option<&'a RawValue>);

impl Serialize for ParamsOrEmpty<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self.0 {
            Some(raw) => raw.serialize(s),
            None => s.serialize_map(Some(0))?.end(),
        }
    }
}

impl OutgoingCommand {
    /// Builds the JSON text of a command. `params` must be a JSON object; `None` sends `{}`.
    pub fn new(id: u64, method: &str, params: Option<&RawValue>, session_id: Option<&str>) -> Self {
        let msg = OutgoingRef {
            id,
            method,
            params: ParamsOrEmpty(params),
            session_id,
        };
        // Serializing strings, an integer and an already-valid RawValue into a String
        // cannot fail (no maps with non-string keys, no I/O); the empty fallback is moot.
        let json = serde_json::to_string(&msg).unwrap_or_default();
        OutgoingCommand {
            id,
            method: method.to_owned(),
            session_id: session_id.map(str::to_owned),
            json,
        }
    }
}

/// Serializes one of the supervisor's own param structs as raw JSON. They are plain
/// structs of strings, numbers and booleans, which always serialize; `None` (never seen)
/// would send `{}`.
pub(crate) fn to_raw<T: Serialize>(value: &T) -> Option<Box<RawValue>> {
    serde_json::value::to_raw_value(value).ok()
}

/// Parses params (or a result) into `T`; absent params count as `{}`.
pub(crate) fn parse<'a, T: Deserialize<'a>>(
    method: &str,
    params: Option<&'a RawValue>,
) -> Result<T, InputError> {
    let text = params.map(RawValue::get).unwrap_or("{}");
    serde_json::from_str(text).map_err(|e| InputError::BadParams {
        method: method.to_owned(),
        error: e.to_string(),
    })
}

/// A message that did not parse: if its envelope is fine, blame the params of its method.
pub(crate) fn classify_parse_error(text: &str, error: serde_json::Error) -> InputError {
    #[derive(Deserialize)]
    struct Lazy<'a> {
        #[serde(default, borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
        #[serde(default, borrow)]
        #[allow(dead_code)] // only its validity matters
        params: Option<&'a RawValue>,
    }
    match serde_json::from_str::<Lazy<'_>>(text) {
        Ok(Lazy {
            method: Some(method),
            ..
        }) if text.trim_start().starts_with('{') => InputError::BadParams {
            method: method.into_owned(),
            error: error.to_string(),
        },
        _ => InputError::Malformed {
            error: error.to_string(),
        },
    }
}

impl CdpError {
    /// A reply's outcome: its `result` (`None`: a reply with neither, read as an empty
    /// result) or its `error`.
    pub(crate) fn reply_outcome<'a>(
        result: Option<&'a RawValue>,
        error: Option<&'a RawValue>,
    ) -> Result<Option<&'a RawValue>, CdpError> {
        match (result, error) {
            (_, Some(e)) => Err(serde_json::from_str(e.get()).unwrap_or(CdpError {
                code: 0,
                message: e.get().to_owned(),
            })),
            (r, None) => Ok(r),
        }
    }
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

    #[test]
    fn params_before_method_are_parsed_later() {
        let mut e = Envelope::parse(
            r#"{"params":{"frameId":"F","parentFrameId":"P"},"method":"Page.frameAttached"}"#,
        )
        .unwrap();
        assert!(matches!(
            e.params.event_mut("Page.frameAttached"),
            Ok(Some(CdpEvent::FrameAttached(_)))
        ));
        let mut e =
            Envelope::parse(r#"{"method":"Network.dataReceived","params":{"x":[1]}}"#).unwrap();
        assert!(matches!(e.params.event_mut("Page.frameAttached"), Ok(None)));
    }
}
