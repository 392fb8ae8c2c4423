//! Console errors (see [rules](crate::manual::rules), the supervisor's state): the text of an uncaught exception or a `console.error` /
//! `console.assert` call, bounded in length.

use crate::cdp::{ConsoleApiCalled, ExceptionDetails};
#[cfg(test)]
use crate::remote_object::append_arg;
#[cfg(test)]
use crate::remote_object::RemoteObject;
use crate::remote_object::{remote_object_text, truncate};
use crate::snapshot::ConsoleLevel;

#[cfg(test)]
use crate::limits::MAX_CONSOLE_TEXT;

/// The level of a console call worth recording, or `None` for info, log, warnings, ...
pub(crate) fn console_level(call: &ConsoleApiCalled<'_>) -> Option<ConsoleLevel> {
    match call.kind.as_ref() {
        "error" => Some(ConsoleLevel::Error),
        "assert" => Some(ConsoleLevel::Assert),
        _ => None,
    }
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
