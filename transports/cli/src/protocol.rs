//! The stdin/stdout protocol of `cdp-supervise watch` (see the crate's README): one
//! JSON command a line in ([`parse_line`], a pure function), one JSON object a line out
//! ([`typed`], [`result_line`], [`error_line`], [`diff_line`]).

use std::time::Duration;

use cdp_supervisor::{DialogAction, DialogPolicy, Diff};
use serde_json::{json, Value};

/// Default deadline of a `cdp` command from stdin.
pub const DEFAULT_CDP_TIMEOUT: Duration = Duration::from_secs(30);

/// The longest deadline a `cdp` command may ask for (`timeout_ms` is clamped to it).
pub const MAX_CDP_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// One command read from stdin: its `id` (echoed on every line about it, any JSON) and
/// what to do.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The caller's `id` (`null` when absent).
    pub id: Value,
    /// The command.
    pub command: Command,
}

/// The commands of `watch`.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `{"cmd":"snapshot"}`: the current snapshot.
    Snapshot,
    /// `{"cmd":"policy","policy":"auto_dismiss"}`.
    Policy(DialogPolicy),
    /// `{"cmd":"dialog","action":"accept","prompt_text":"x","dialog_id":"d-1"}`.
    Dialog {
        /// Accept or dismiss.
        action: DialogAction,
        /// A prompt's text.
        prompt_text: Option<String>,
        /// Which dialog; `None` for the single pending one.
        dialog_id: Option<String>,
    },
    /// `{"cmd":"settle","action":"dismiss"}` (dismiss when absent).
    Settle(DialogAction),
    /// `{"cmd":"cdp","method":"Runtime.evaluate","params":{...},"frame_id":"F","timeout_ms":5000}`.
    Cdp {
        /// The CDP method.
        method: String,
        /// Its params (`null` for none).
        params: Value,
        /// The frame whose session gets it; the top frame when `None`.
        frame_id: Option<String>,
        /// Its deadline ([`DEFAULT_CDP_TIMEOUT`] unless `timeout_ms` says otherwise).
        timeout: Duration,
    },
    /// `{"cmd":"recover"}`: release a page blocked by a dialog left open.
    Recover,
    /// `{"cmd":"stop"}`: settle dialogs (dismiss), detach, exit 0.
    Stop,
    /// `{"cmd":"act","action":"click","x":10,"y":20}`: an agent action (see the README).
    Act {
        /// The action.
        action: cdp_supervisor::act::Action,
        /// Its budget and whether to take a screenshot.
        options: cdp_supervisor::act::ActOptions,
    },
}

/// Why a line is not a command; answered with [`error_line`] for `id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// The line's `id` if it had one (`null` otherwise).
    pub id: Value,
    /// What is wrong and what to send instead.
    pub message: String,
    /// The stable error code, when the line named a command whose errors have one.
    pub code: Option<&'static str>,
}

/// Parses one line of stdin. Never panics, whatever the bytes.
///
/// ```
/// use cdp_supervise::protocol::{parse_line, Command};
/// let r = parse_line(br#"{"id":1,"cmd":"snapshot"}"#)?;
/// assert_eq!((r.id, r.command), (serde_json::json!(1), Command::Snapshot));
/// let e = parse_line(b"hello").unwrap_err();
/// assert!(e.message.starts_with("not a JSON object"));
/// # Ok::<(), cdp_supervise::protocol::LineError>(())
/// ```
pub fn parse_line(line: &[u8]) -> Result<Request, LineError> {
    let request: Value = match serde_json::from_slice(line) {
        Ok(v @ Value::Object(_)) => v,
        _ => return Err(LineError {
            code: None,
            id: Value::Null,
            message:
                "not a JSON object: send one command a line, e.g. {\"id\":1,\"cmd\":\"snapshot\"}"
                    .into(),
        }),
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let fail = |message: String| LineError {
        code: None,
        id: id.clone(),
        message,
    };
    let str_field = |k: &str| request.get(k).and_then(Value::as_str).map(str::to_owned);
    let action = |default: &str| {
        str_field("action")
            .unwrap_or_else(|| default.to_owned())
            .parse::<DialogAction>()
            .map_err(|e| fail(e.to_string()))
    };
    let Some(cmd) = str_field("cmd") else {
        return Err(fail(
            "missing \"cmd\": one of snapshot, dialog, cdp, act, policy, recover, settle, stop"
                .into(),
        ));
    };
    let command = match cmd.as_str() {
        "snapshot" => Command::Snapshot,
        "policy" => Command::Policy(
            str_field("policy")
                .ok_or_else(|| {
                    "missing \"policy\": must_respond, auto_dismiss or auto_accept".to_owned()
                })
                .and_then(|p| p.parse::<DialogPolicy>())
                .map_err(fail)?,
        ),
        "dialog" => Command::Dialog {
            action: action("")?,
            prompt_text: str_field("prompt_text"),
            dialog_id: str_field("dialog_id"),
        },
        "settle" => Command::Settle(action("dismiss")?),
        "cdp" => Command::Cdp {
            method: str_field("method")
                .ok_or_else(|| fail("missing \"method\", e.g. \"Runtime.evaluate\"".into()))?,
            params: request.get("params").cloned().unwrap_or(Value::Null),
            frame_id: str_field("frame_id"),
            timeout: request
                .get("timeout_ms")
                .and_then(Value::as_f64)
                .filter(|t| t.is_finite() && *t > 0.0)
                // A float-to-integer `as` saturates: no input can make this panic.
                .map_or(DEFAULT_CDP_TIMEOUT, |ms| {
                    Duration::from_micros((ms * 1000.0) as u64).min(MAX_CDP_TIMEOUT)
                }),
        },
        "act" => {
            let coded = |e: cdp_supervisor::act::ActError| LineError {
                code: Some(e.code()),
                id: id.clone(),
                message: e.to_string(),
            };
            Command::Act {
                action: cdp_supervisor::act::Action::from_json(&request).map_err(coded)?,
                options: cdp_supervisor::act::ActOptions::from_json(&request).map_err(coded)?,
            }
        }
        "recover" => Command::Recover,
        "stop" => Command::Stop,
        "evaluate" => return Err(fail(
            "evaluate is not implemented yet; use {\"cmd\":\"cdp\",\"method\":\"Runtime.evaluate\",...} meanwhile".into(),
        )),
        other => return Err(fail(format!(
            "unknown cmd {other:?}: use snapshot, dialog, cdp, act, policy, recover, settle or stop"
        ))),
    };
    Ok(Request { id, command })
}

/// `{"type":TYPE, ...fields of object}`, with `type` first for readers' eyes.
///
/// ```
/// let line = cdp_supervise::protocol::typed("result", &serde_json::json!({"id": 1}));
/// assert_eq!(line, r#"{"type":"result","id":1}"#);
/// ```
pub fn typed(kind: &str, object: &Value) -> String {
    let body = object.to_string();
    match body.strip_prefix('{') {
        Some("}") | None => format!("{{\"type\":\"{kind}\"}}"),
        Some(rest) => format!("{{\"type\":\"{kind}\",{rest}"),
    }
}

/// A snapshot diff as a `diff` line.
///
/// ```
/// use cdp_supervisor::Diff;
/// let line = cdp_supervise::protocol::diff_line(&Diff::FrameRemoved { frame_id: "F".into() });
/// assert_eq!(line, r#"{"type":"diff","frame_id":"F","op":"frame_removed"}"#);
/// ```
pub fn diff_line(diff: &Diff) -> String {
    typed("diff", &serde_json::to_value(diff).unwrap_or(Value::Null))
}

/// `{"type":"result","id":ID,KEY:VALUE}`.
///
/// ```
/// let line = cdp_supervise::protocol::result_line(&1.into(), "stopped", true.into());
/// assert_eq!(line, r#"{"type":"result","id":1,"stopped":true}"#);
/// ```
pub fn result_line(id: &Value, key: &str, value: Value) -> String {
    let mut obj = serde_json::Map::new();
    obj.insert("id".into(), id.clone());
    obj.insert(key.into(), value);
    typed("result", &Value::Object(obj))
}

/// `{"type":"error","id":ID,"message":MESSAGE}`.
///
/// ```
/// let line = cdp_supervise::protocol::error_line(&2.into(), "no");
/// assert_eq!(line, r#"{"type":"error","id":2,"message":"no"}"#);
/// ```
pub fn error_line(id: &Value, message: &str) -> String {
    typed("error", &json!({ "id": id, "message": message }))
}

/// An error line with a stable `code` (`bad_request`, `blocked`, `timeout`, ...).
///
/// ```
/// use cdp_supervise::protocol::coded_error_line;
/// let line = coded_error_line(&serde_json::json!(1), "blocked", "m");
/// assert!(line.starts_with(r#"{"type":"error","#) && line.contains(r#""code":"blocked""#));
/// ```
pub fn coded_error_line(id: &Value, code: &str, message: &str) -> String {
    typed(
        "error",
        &json!({ "id": id, "code": code, "message": message }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn act_lines_parse_and_bad_ones_carry_a_code() {
        let p = |s: &str| parse_line(s.as_bytes());
        let r =
            p(r#"{"id":8,"cmd":"act","action":"click","x":10,"y":20,"timeout_ms":2000}"#).unwrap();
        match r.command {
            Command::Act { action, options } => {
                assert_eq!(action.name(), "click");
                assert_eq!(options.timeout, Duration::from_secs(2));
            }
            other => panic!("{other:?}"),
        }
        let e = p(r#"{"id":9,"cmd":"act","action":"navigate"}"#).unwrap_err();
        assert_eq!((e.code, e.id), (Some("bad_request"), json!(9)));
        assert!(e.message.contains("url"));
        let e = p(r#"{"id":9,"cmd":"act","action":"press","key":"Nope"}"#).unwrap_err();
        assert_eq!(e.code, Some("bad_request"));
    }

    #[test]
    fn every_command_parses() {
        let p = |s: &str| parse_line(s.as_bytes()).map(|r| r.command);
        assert_eq!(p(r#"{"cmd":"recover"}"#), Ok(Command::Recover));
        assert_eq!(p(r#"{"cmd":"stop"}"#), Ok(Command::Stop));
        assert_eq!(
            p(r#"{"cmd":"settle"}"#),
            Ok(Command::Settle(DialogAction::Dismiss))
        );
        assert_eq!(
            p(r#"{"cmd":"policy","policy":"auto_accept"}"#),
            Ok(Command::Policy(DialogPolicy::AutoAccept))
        );
        assert_eq!(
            p(r#"{"cmd":"dialog","action":"accept","prompt_text":"x"}"#),
            Ok(Command::Dialog {
                action: DialogAction::Accept,
                prompt_text: Some("x".into()),
                dialog_id: None
            })
        );
        let Ok(Command::Cdp { timeout, .. }) = p(r#"{"cmd":"cdp","method":"M","timeout_ms":1500}"#)
        else {
            panic!("cdp")
        };
        assert_eq!(timeout, Duration::from_millis(1500));
    }

    #[test]
    fn bad_lines_are_errors_with_their_id_and_never_panic() {
        let e = parse_line(br#"{"id":"x","cmd":"dialog","action":"maybe"}"#).unwrap_err();
        assert_eq!(e.id, "x");
        assert!(parse_line(br#"{"id":3}"#)
            .unwrap_err()
            .message
            .contains("missing \"cmd\""));
        assert!(parse_line(br#"{"cmd":"cdp"}"#)
            .unwrap_err()
            .message
            .contains("method"));
        assert!(parse_line(br#"{"cmd":"nope"}"#)
            .unwrap_err()
            .message
            .contains("unknown cmd"));
        assert!(parse_line(b"\xff\xfe").is_err());
        assert!(parse_line(b"[1]").is_err());
        for ms in ["1e300", "1e308", "0.0000001"] {
            let line = format!(r#"{{"cmd":"cdp","method":"M","timeout_ms":{ms}}}"#);
            let Ok(Request {
                command: Command::Cdp { timeout, .. },
                ..
            }) = parse_line(line.as_bytes())
            else {
                panic!("{ms}")
            };
            assert!(timeout <= MAX_CDP_TIMEOUT);
        }
    }
}
