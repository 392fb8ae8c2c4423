//! The dialog types of the public API: the policy, the answer, and the action words.
//!
//! The rules (open, answer, close attribution, watchdog, the bridge's answers) live in the
//! crate's `Dialogs` component; see [`crate::manual::rules`] for them in words.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What happens when a dialog opens.
///
/// ```
/// use cdp_supervisor::DialogPolicy;
/// assert_eq!("auto_accept".parse::<DialogPolicy>(), Ok(DialogPolicy::AutoAccept));
/// assert!("sometimes".parse::<DialogPolicy>().is_err());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DialogPolicy {
    /// Stays pending until the embedder answers; the watchdog dismisses it after
    /// `dialog_timeout`.
    #[default]
    MustRespond,
    /// Recorded, then dismissed at once.
    AutoDismiss,
    /// Recorded, then accepted at once (a prompt gets its default text).
    AutoAccept,
}

impl FromStr for DialogPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "must_respond" => Ok(DialogPolicy::MustRespond),
            "auto_dismiss" => Ok(DialogPolicy::AutoDismiss),
            "auto_accept" => Ok(DialogPolicy::AutoAccept),
            other => Err(format!(
                "unknown dialog policy {other:?}: use must_respond, auto_dismiss or auto_accept"
            )),
        }
    }
}

/// How to answer a dialog.
///
/// ```
/// use cdp_supervisor::DialogAction;
/// assert_eq!("dismiss".parse::<DialogAction>(), Ok(DialogAction::Dismiss));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DialogAction {
    /// OK: `confirm` returns true, `prompt` its text.
    Accept,
    /// Cancel: `confirm` returns false, `prompt` null.
    Dismiss,
}

/// An answer to a dialog, for [`Supervisor::respond_dialog`](crate::Supervisor::respond_dialog).
///
/// Accepting a prompt without text returns its default text; the text is ignored by other
/// dialog types (Chromium takes it but the page never sees it).
///
/// ```
/// use cdp_supervisor::{Answer, DialogAction};
/// assert_eq!(Answer::accept_with("Bob"), Answer::Accept { prompt_text: Some("Bob".into()) });
/// assert_eq!(Answer::new(DialogAction::Dismiss, Some("ignored")), Answer::Dismiss);
/// assert_eq!(Answer::accept().action(), DialogAction::Accept);
/// assert_eq!(Answer::upload(["/srv/up/a.txt"]).files(), Some(&["/srv/up/a.txt".to_owned()][..]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// OK: `confirm` returns true, `prompt` the text (its default text when `None`).
    Accept {
        /// The text a prompt returns.
        prompt_text: Option<String>,
    },
    /// Cancel: `confirm` returns false, `prompt` null.
    Dismiss,
    /// Accept a file chooser with these files (absolute paths under the allowed upload
    /// roots, see [`crate::Config::upload_roots`]); only a file chooser takes it.
    Files {
        /// The files, as absolute paths.
        files: Vec<String>,
    },
    /// Sign in to an `http_auth` challenge with these.
    Credentials {
        /// The user name.
        username: String,
        /// The password (never shown).
        password: Password,
    },
}

impl Answer {
    /// Accept, with a prompt's default text.
    pub fn accept() -> Self {
        Answer::Accept { prompt_text: None }
    }

    /// Accept, a prompt returning `text`.
    pub fn accept_with(text: impl Into<String>) -> Self {
        Answer::Accept {
            prompt_text: Some(text.into()),
        }
    }

    /// Dismiss.
    pub fn dismiss() -> Self {
        Answer::Dismiss
    }

    /// From the wire's words (an action and an optional text); a dismissal drops the text.
    pub fn new(action: DialogAction, prompt_text: Option<&str>) -> Self {
        match action {
            DialogAction::Accept => Answer::Accept {
                prompt_text: prompt_text.map(str::to_owned),
            },
            DialogAction::Dismiss => Answer::Dismiss,
        }
    }

    /// Accept a file chooser with `files` (absolute paths).
    pub fn upload<S: Into<String>>(files: impl IntoIterator<Item = S>) -> Self {
        Answer::Files {
            files: files.into_iter().map(Into::into).collect(),
        }
    }

    /// Sign in to an `http_auth` challenge.
    pub fn sign_in(username: impl Into<String>, password: impl Into<String>) -> Self {
        Answer::Credentials {
            username: username.into(),
            password: Password::new(password),
        }
    }

    /// Accept or dismiss (files and credentials accept).
    pub fn action(&self) -> DialogAction {
        match self {
            Answer::Accept { .. } | Answer::Files { .. } | Answer::Credentials { .. } => {
                DialogAction::Accept
            }
            Answer::Dismiss => DialogAction::Dismiss,
        }
    }

    /// The text given for a prompt, if any.
    pub fn prompt_text(&self) -> Option<&str> {
        match self {
            Answer::Accept { prompt_text } => prompt_text.as_deref(),
            Answer::Dismiss | Answer::Files { .. } | Answer::Credentials { .. } => None,
        }
    }

    /// The files given for a file chooser, if any.
    pub fn files(&self) -> Option<&[String]> {
        match self {
            Answer::Files { files } => Some(files),
            _ => None,
        }
    }
}

impl From<DialogAction> for Answer {
    fn from(action: DialogAction) -> Self {
        Answer::new(action, None)
    }
}

/// A dialog's type, as Chromium names it (`alert`, `confirm`, `prompt`, `beforeunload`),
/// or `file_chooser` for a file input's chooser; a type this crate does not know survives
/// as [`DialogKind::Other`]. Serialized as that name.
///
/// ```
/// use cdp_supervisor::DialogKind;
/// assert_eq!(DialogKind::from("prompt"), DialogKind::Prompt);
/// assert_eq!(serde_json::to_string(&DialogKind::BeforeUnload)?, r#""beforeunload""#);
/// let odd: DialogKind = serde_json::from_str(r#""print""#)?;
/// assert_eq!(odd, DialogKind::Other("print".into()));
/// assert!(odd == "print");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DialogKind {
    /// `alert(message)`.
    Alert,
    /// `confirm(message)`: true or false.
    Confirm,
    /// `prompt(message, default)`: a text or null.
    Prompt,
    /// The page asks whether to leave (type `beforeunload`, empty message).
    BeforeUnload,
    /// A file input's chooser (`Page.fileChooserOpened`): accepted with files, or
    /// dismissed.
    FileChooser,
    /// An HTTP sign-in challenge (`Fetch.authRequired`): answered with credentials, or
    /// dismissed (canceled).
    HttpAuth,
    /// A type this crate does not know, kept as Chromium named it.
    Other(String),
}

impl DialogKind {
    /// Chromium's name for it.
    pub fn as_str(&self) -> &str {
        match self {
            DialogKind::Alert => "alert",
            DialogKind::Confirm => "confirm",
            DialogKind::Prompt => "prompt",
            DialogKind::BeforeUnload => "beforeunload",
            DialogKind::FileChooser => "file_chooser",
            DialogKind::HttpAuth => "http_auth",
            DialogKind::Other(name) => name,
        }
    }
}

impl From<&str> for DialogKind {
    fn from(name: &str) -> Self {
        match name {
            "alert" => DialogKind::Alert,
            "confirm" => DialogKind::Confirm,
            "prompt" => DialogKind::Prompt,
            "beforeunload" => DialogKind::BeforeUnload,
            "file_chooser" => DialogKind::FileChooser,
            "http_auth" => DialogKind::HttpAuth,
            other => DialogKind::Other(other.to_owned()),
        }
    }
}

impl From<String> for DialogKind {
    fn from(name: String) -> Self {
        DialogKind::from(name.as_str())
    }
}

impl std::fmt::Display for DialogKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for DialogKind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for DialogKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for DialogKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for DialogKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(DialogKind::from(name.as_ref()))
    }
}

/// A password: shown nowhere (`Debug` and `Display` print `<redacted>`).
///
/// ```
/// use cdp_supervisor::http_auth::Password;
/// let p = Password::new("hunter2");
/// assert_eq!(format!("{p:?} {p}"), "<redacted> <redacted>");
/// assert_eq!(p.expose(), "hunter2");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    /// Wraps a password.
    pub fn new(password: impl Into<String>) -> Self {
        Password(password.into())
    }

    /// The password itself, for the one command that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

impl std::fmt::Display for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}
