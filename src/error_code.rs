//! Stable snake_case codes for the typed errors: the word a program branches on (the
//! sidecar puts it beside `message` on every `error` line). A code never changes once
//! published; new variants map to an existing code or a new word.
//!
//! The codes: `bad_request` (the request itself is wrong: fix it), `timeout`,
//! `cdp_error` (Chromium answered with an error), `session_gone`, `disconnected`,
//! `no_such_frame`, `not_attached` (no page yet: wait for page.state "live"),
//! `too_many_in_flight`, `no_dialog`, `answer_in_flight`, `wedged` (call recover),
//! `closed_by_browser`, `malformed_input` (a browser message the core ignored),
//! `crashed` (the tab's renderer, or a crashed OOPIF's: recover it), `no_such_tab`,
//! `no_such_context`, `too_many_contexts` (dispose a browser context first),
//! `url_refused` (the URL policy shut that door: the message names the flag),
//! `upload_refused` (a file chooser's files are outside the allowed upload roots, missing
//! or too many), `no_such_request` (a network request the tab no longer keeps). Other
//! layers add their own: `exception`, `blocked`, `stale_ref`.

use crate::error::{CommandError, DialogError, InputError};

impl CommandError {
    /// The stable code of this error (see [the list](crate::error_code)).
    ///
    /// ```
    /// use cdp_supervisor::CommandError;
    /// assert_eq!(CommandError::UnknownFrame { frame_id: "F".into() }.code(), "no_such_frame");
    /// assert_eq!(CommandError::Disconnected { method: "M".into() }.code(), "disconnected");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            CommandError::Cdp { .. } => "cdp_error",
            CommandError::Timeout { .. } => "timeout",
            CommandError::SessionGone { .. } => "session_gone",
            CommandError::Disconnected { .. } => "disconnected",
            CommandError::UnknownFrame { .. } => "no_such_frame",
            CommandError::NotAnOopif { .. } => "bad_request",
            CommandError::NotAttached => "not_attached",
            CommandError::TooManyInFlight { .. } => "too_many_in_flight",
            CommandError::ParamsNotObject { .. } => "bad_request",
            CommandError::Crashed { .. } | CommandError::FrameCrashed { .. } => "crashed",
            CommandError::NoSuchTab { .. } => "no_such_tab",
            CommandError::NoSuchContext { .. } => "no_such_context",
            CommandError::NoSuchRequest { .. } => "no_such_request",
            CommandError::TooManyContexts { .. } => "too_many_contexts",
            CommandError::UrlRefused(_) => "url_refused",
        }
    }
}

impl DialogError {
    /// The stable code of this error (see [the list](crate::error_code)); an answer
    /// command's failure has the command's code.
    ///
    /// ```
    /// use cdp_supervisor::DialogError;
    /// assert_eq!(DialogError::NoDialogPending.code(), "no_dialog");
    /// assert_eq!(DialogError::Wedged { dialog_id: "d-1".into() }.code(), "wedged");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            DialogError::NoDialogPending => "no_dialog",
            DialogError::UnknownDialog { .. } => "no_dialog",
            DialogError::SeveralPending { .. } => "bad_request",
            DialogError::BadAction(_) => "bad_request",
            DialogError::AnswerInFlight { .. } => "answer_in_flight",
            DialogError::Wedged { .. } => "wedged",
            DialogError::Command { error, .. } => error.code(),
            DialogError::NotAttached => "not_attached",
            DialogError::NoSuchTab { .. } => "no_such_tab",
            DialogError::ClosedByBrowser { .. } => "closed_by_browser",
            DialogError::UploadRefused { .. } => "upload_refused",
            DialogError::WrongAnswer { .. } => "bad_request",
        }
    }
}

impl InputError {
    /// The stable code of this error: `malformed_input` for every variant (the browser
    /// sent something the core ignored; nothing for the embedder to fix).
    ///
    /// ```
    /// use cdp_supervisor::InputError;
    /// assert_eq!(InputError::NeitherIdNorMethod.code(), "malformed_input");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            InputError::Malformed { .. }
            | InputError::NeitherIdNorMethod
            | InputError::UnknownReply { .. }
            | InputError::UnknownSession { .. }
            | InputError::BadParams { .. } => "malformed_input",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_snake_case_words() {
        let codes = [
            CommandError::NotAttached.code(),
            CommandError::Timeout {
                method: "M".into(),
                after_s: 1.0,
            }
            .code(),
            DialogError::NotAttached.code(),
            DialogError::Command {
                dialog_id: "d-1".into(),
                error: CommandError::Disconnected { method: "M".into() },
            }
            .code(),
        ];
        assert_eq!(
            codes,
            ["not_attached", "timeout", "not_attached", "disconnected"]
        );
        for c in codes {
            assert!(c.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
        }
    }
}
