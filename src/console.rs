//! Console errors (see [rules](crate::manual::rules), the supervisor's state): the text of an uncaught exception or a `console.error` /
//! `console.assert` call, bounded in length.

use std::borrow::Cow;

use crate::cdp::{ConsoleApiCalled, ExceptionDetails, RemoteObject, ValueText};
use crate::snapshot::ConsoleLevel;

pub use crate::limits::MAX_CONSOLE_TEXT;

/// The level of a console call worth recording, or `None` for info, log, warnings, ...
pub(crate) fn console_level(call: &ConsoleApiCalled<'_>) -> Option<ConsoleLevel> {
    match call.kind.as_ref() {
        "error" => Some(ConsoleLevel::Error),
        "assert" => Some(ConsoleLevel::Assert),
        _ => None,
    }
}

/// Whether console calls of this type are recorded (their arguments are worth reading).
pub(crate) fn is_recorded_level(kind: &str) -> bool {
    matches!(kind, "error" | "assert")
}

/// Appends one console argument the way DevTools prints it: strings verbatim, other
/// values by their description; stops growing past the text bound.
pub(crate) fn append_arg(text: &mut String, object: &RemoteObject<'_>) {
    if text.len() > MAX_CONSOLE_TEXT {
        return;
    }
    if !text.is_empty() {
        text.push(' ');
    }
    text.push_str(&remote_object_text(object));
}

/// Joins console arguments (see [`append_arg`]).
#[cfg(test)]
pub(crate) fn console_text(objects: &[RemoteObject<'_>]) -> String {
    let mut text = String::new();
    for o in objects {
        append_arg(&mut text, o);
    }
    truncate(text)
}

/// The text of an uncaught exception: its description (message and stack), else CDP's
/// `text` ("Uncaught").
pub(crate) fn exception_text(details: &ExceptionDetails<'_>) -> String {
    let text = match &details.exception {
        Some(o) => {
            let t = remote_object_text(o);
            if t.is_empty() {
                details.text.to_string()
            } else {
                t.into_owned()
            }
        }
        None => details.text.to_string(),
    };
    truncate(text)
}

fn remote_object_text<'a>(o: &'a RemoteObject<'_>) -> Cow<'a, str> {
    if let (true, Some(ValueText::Str(v))) = (o.kind == "string", &o.value) {
        return Cow::Borrowed(v.as_ref());
    }
    if let Some(d) = &o.description {
        return Cow::Borrowed(d.as_ref());
    }
    if let Some(u) = &o.unserializable_value {
        return Cow::Borrowed(u.as_ref());
    }
    match &o.value {
        Some(ValueText::Str(v)) => Cow::Borrowed(v.as_ref()),
        Some(ValueText::Scalar(v)) => Cow::Borrowed(v.as_str()),
        Some(ValueText::Compound) | None => Cow::Borrowed(o.kind.as_ref()),
    }
}

pub(crate) fn truncate(mut text: String) -> String {
    if text.len() > MAX_CONSOLE_TEXT {
        let mut cut = MAX_CONSOLE_TEXT;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_strings_and_descriptions() {
        let args: Vec<RemoteObject<'_>> = serde_json::from_str(
            r#"[{"type":"string","value":"a\"b"},{"type":"number","value":3,"description":"3"},{"type":"object","description":"Object"}]"#,
        )
        .unwrap();
        assert_eq!(console_text(&args), "a\"b 3 Object");
    }

    #[test]
    fn truncates_on_char_boundary() {
        let long = "é".repeat(MAX_CONSOLE_TEXT);
        let t = truncate(long);
        assert!(t.ends_with('…'));
        assert!(t.len() <= MAX_CONSOLE_TEXT + '…'.len_utf8());
    }
}
