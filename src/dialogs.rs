//! The `Dialogs` component: every dialog rule, behind a small API that writes to the
//! [`Outbox`].
//!
//! A dialog is pending from `Page.javascriptDialogOpening` (or a bridge request) until
//! Chromium says `Page.javascriptDialogClosed` (or its frame, session or connection goes).
//! An answer is only a request: the close that follows says who closed it, and the close
//! comes before the answer's reply (see [`crate::manual::chromium_facts`], dialogs).
//!
//! Each answer sent has exactly one record, [`AnswerInFlight`], keyed by its command id in
//! `answers`; a pending dialog points at it with `answer`. The record outlives the dialog
//! when the close comes first, until the reply (or the deadline) ends the answer.
//!
//! What the component needs from the tab it receives as a [`TabView`]; what it changes in
//! the world it writes to the [`Outbox`] (commands, diffs, answers' outcomes, warnings).

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use serde_json::value::RawValue;

use crate::bridge::{self, BridgeRequest};
use crate::cdp;
use crate::command::{CommandId, InFlight, Purpose};
use crate::dialog::{Answer, DialogAction, DialogKind, DialogPolicy};
use crate::error::{CommandError, DialogError};
use crate::event::{Event, Warning};
use crate::frame::Frames;
use crate::limits::{MAX_PENDING_DIALOGS, MAX_RECENT_DIALOGS};
use crate::outbox::Outbox;
use crate::session::Sessions;
use crate::snapshot::{push_ring, ClosedBy, ClosedDialog, Diff, PendingDialog};
use crate::wire::{to_raw, CdpError};

/// A dialog's id: `d-1`, `d-2`, ... per supervisor, never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct DialogId(u64);

impl std::fmt::Display for DialogId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "d-{}", self.0)
    }
}

/// Where a dialog came from, which decides how it is answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DialogSource {
    /// `Page.javascriptDialogOpening`; answered with `Page.handleJavaScriptDialog` on the
    /// page session.
    Native,
    /// A paused bridge request; answered with `Fetch.fulfillRequest` on the session it
    /// paused on.
    Bridge {
        session_id: String,
        request_id: String,
    },
    /// `Page.fileChooserOpened`; accepted with `DOM.setFileInputFiles` on the session
    /// that reported it, dismissed by sending nothing (see [`crate::file_chooser`]).
    FileChooser {
        session_id: String,
        backend_node_id: Option<i64>,
    },
    /// `Fetch.authRequired`; answered with `Fetch.continueWithAuth` on the session it
    /// paused on (credentials, or `CancelAuth`).
    HttpAuth {
        session_id: String,
        request_id: String,
        /// A document's challenge: its session answers no command until it is answered
        /// (see [`crate::manual::chromium_facts`], "HTTP sign-in").
        document: bool,
    },
}

impl DialogSource {
    /// Whether it keeps a script waiting (a file chooser holds none: see
    /// [`crate::manual::chromium_facts`], "File choosers").
    fn blocks(&self) -> bool {
        match self {
            DialogSource::Native | DialogSource::Bridge { .. } => true,
            DialogSource::FileChooser { .. } => false,
            DialogSource::HttpAuth { document, .. } => *document,
        }
    }

    /// Whether Chromium never reports its close (a bridge request, a chooser): it goes
    /// when its frame navigates or its session detaches.
    fn closes_silently(&self) -> bool {
        !matches!(self, DialogSource::Native)
    }

    /// The session it lives on, when not the page's.
    fn own_session(&self) -> Option<&str> {
        match self {
            DialogSource::Native => None,
            DialogSource::Bridge { session_id, .. }
            | DialogSource::FileChooser { session_id, .. }
            | DialogSource::HttpAuth { session_id, .. } => Some(session_id),
        }
    }
}

/// A dialog that opened, as the supervisor read it.
#[derive(Debug)]
struct NewDialog {
    pub kind: DialogKind,
    pub message: String,
    pub default_prompt: String,
    pub frame_id: String,
    pub url: String,
    pub source: DialogSource,
    /// A file chooser's mode.
    pub mode: Option<String>,
    /// An `http_auth` dialog's challenge.
    pub auth: Option<crate::http_auth::AuthChallenge>,
}

/// What the dialog rules need to know about the tab (read only).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TabView<'a> {
    /// The page session, where native dialogs are answered.
    pub page_session: Option<&'a str>,
    /// The top frame: the frame of a dialog that names none.
    pub page_target: Option<&'a str>,
    /// The sessions: a bridge request is answered only while its session lives.
    pub sessions: &'a Sessions,
    /// The frames, for a bridge dialog's URL.
    pub frames: &'a Frames,
}

/// One pending dialog and what the supervisor is doing about it.
#[derive(Debug, Clone)]
struct Dialog {
    id: DialogId,
    info: PendingDialog,
    source: DialogSource,
    /// The command id of the answer in flight, a key of `Dialogs::answers`.
    answer: Option<u64>,
    /// Chromium said "No dialog is showing" while this one never closed.
    wedged: bool,
    /// When the watchdog dismisses it (`must_respond` only).
    watchdog_at: Option<f64>,
}

/// The one record of an answer sent, from the send to its outcome.
#[derive(Debug, Clone)]
struct AnswerInFlight {
    dialog: DialogId,
    /// On whose behalf: the agent, the policy or the watchdog.
    by: ClosedBy,
    accept: bool,
    /// The text actually sent: for an accepted prompt, the answer's or the default.
    text: Option<String>,
    is_prompt: bool,
    /// Whether the embedder awaits an [`Event::DialogAnswered`] for it.
    report: bool,
    /// A bridge or file chooser answer: the reply itself closes the dialog.
    bridge: bool,
    /// The reply came (success) before the close: the answer waits for the close.
    replied_ok: bool,
    /// The close, once it came; with whether it contradicted this answer.
    closed: Option<(ClosedDialog, bool)>,
}

impl AnswerInFlight {
    /// An answer whose reply itself closes the entry (bridge, file chooser, sign-in);
    /// a native dialog's answer overrides what differs.
    fn closing(dialog: DialogId, by: ClosedBy, accept: bool, report: bool) -> AnswerInFlight {
        AnswerInFlight {
            dialog,
            by,
            accept,
            text: None,
            is_prompt: false,
            report,
            bridge: true,
            replied_ok: false,
            closed: None,
        }
    }

    /// Whether a close with `result` and `user_input` is this answer's doing: an accept
    /// closes with `result: true` (a prompt with the text sent), a dismiss with `false`.
    fn agrees(&self, result: bool, user_input: Option<&str>) -> bool {
        if result != self.accept {
            return false;
        }
        !(self.accept && self.is_prompt)
            || user_input.unwrap_or("") == self.text.as_deref().unwrap_or("")
    }

    /// The outcome of an answer whose dialog closed with `record`.
    fn outcome_of_close(&self, record: ClosedDialog, contradicted: bool) -> AnswerOutcome {
        if contradicted {
            Err(DialogError::ClosedByBrowser {
                dialog_id: record.id,
                result: record.accepted,
                action: if self.accept {
                    DialogAction::Accept
                } else {
                    DialogAction::Dismiss
                },
            })
        } else {
            Ok(record)
        }
    }
}

type AnswerOutcome = Result<ClosedDialog, DialogError>;

/// Pending and recent dialogs, the answers in flight, the policy.
#[derive(Debug)]
pub(crate) struct Dialogs {
    /// Oldest first; at most [`MAX_PENDING_DIALOGS`] (the oldest is given up for a new one).
    pending: Vec<Dialog>,
    /// A ring of [`MAX_RECENT_DIALOGS`].
    recent: VecDeque<ClosedDialog>,
    /// One per dialog-answer command in flight, so bounded as the commands are (each ends
    /// by its reply, its deadline, its session's end or a disconnect).
    answers: BTreeMap<u64, AnswerInFlight>,
    policy: DialogPolicy,
    dialog_timeout: Duration,
    answer_timeout: Duration,
    /// The tab on every dialog it records; set by the browser when the tab gets its page.
    pub tab_id: Option<Arc<str>>,
    /// The folders a file chooser may be answered from (the configuration's).
    pub upload_roots: Vec<String>,
    /// Sign-in challenges: the configuration's credentials, and whether others are
    /// pending dialogs.
    pub http_auth: Option<crate::http_auth::HttpAuthConfig>,
    /// The requests answered with configured credentials (session, request id), the last
    /// [`MAX_PENDING_DIALOGS`]: a second challenge for one means they were wrong.
    auth_tried: VecDeque<(String, String)>,
}

impl Dialogs {
    pub fn new(policy: DialogPolicy, dialog_timeout: Duration, answer_timeout: Duration) -> Self {
        Dialogs {
            pending: Vec::new(),
            recent: VecDeque::new(),
            answers: BTreeMap::new(),
            policy,
            dialog_timeout,
            answer_timeout,
            tab_id: None,
            upload_roots: Vec::new(),
            http_auth: None,
            auth_tried: VecDeque::new(),
        }
    }

    // ---- queries ---------------------------------------------------------------------

    pub fn policy(&self) -> DialogPolicy {
        self.policy
    }

    /// Applies to dialogs opened afterwards.
    pub fn set_policy(&mut self, policy: DialogPolicy) {
        self.policy = policy;
    }

    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    pub fn pending(&self) -> impl Iterator<Item = &PendingDialog> + '_ {
        self.pending.iter().map(|d| &d.info)
    }

    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    pub fn recent_len(&self) -> usize {
        self.recent.len()
    }

    /// The newest pending dialog that holds its renderer: the one in the way of a command
    /// sent now (a file chooser holds nothing).
    pub fn newest_pending(&self) -> Option<&str> {
        self.pending
            .iter()
            .rev()
            .find(|d| d.source.blocks())
            .map(|d| d.info.id.as_str())
    }

    /// The newest pending dialog with no answer in flight: one that keeps a script from
    /// going on (a dialog the policy is answering does not).
    pub fn newest_unanswered(&self) -> Option<&PendingDialog> {
        self.pending
            .iter()
            .rev()
            .find(|d| d.answer.is_none() && d.source.blocks())
            .map(|d| &d.info)
    }

    /// The pending dialogs with no answer in flight, oldest first: those that hold their
    /// renderer (a dialog the policy is answering will close by itself).
    pub fn unanswered(&self) -> impl Iterator<Item = &PendingDialog> + '_ {
        self.pending
            .iter()
            .filter(|d| d.answer.is_none() && d.source.blocks())
            .map(|d| &d.info)
    }

    /// A dialog Chromium can no longer answer, if any.
    pub fn wedged(&self) -> Option<&str> {
        self.pending
            .iter()
            .find(|d| d.wedged)
            .map(|d| d.info.id.as_str())
    }

    /// Whether a bridge dialog or a file chooser is pending (Chromium reports no close
    /// for them when their frame goes).
    pub fn has_bridge_dialogs(&self) -> bool {
        self.pending.iter().any(|d| d.source.closes_silently())
    }

    /// The earliest watchdog of a dialog with no answer in flight.
    pub fn next_watchdog(&self) -> Option<f64> {
        self.pending
            .iter()
            .filter(|d| d.answer.is_none())
            .filter_map(|d| d.watchdog_at)
            .reduce(f64::min)
    }

    fn pending_ids(&self) -> Vec<String> {
        self.pending.iter().map(|d| d.info.id.clone()).collect()
    }

    fn get(&self, id: DialogId) -> Option<&Dialog> {
        self.pending.iter().find(|d| d.id == id)
    }

    fn get_mut(&mut self, id: DialogId) -> Option<&mut Dialog> {
        self.pending.iter_mut().find(|d| d.id == id)
    }

    fn recent_record(&self, id: DialogId) -> Option<ClosedDialog> {
        let name = id.to_string();
        self.recent.iter().rev().find(|d| d.id == name).cloned()
    }

    /// The native dialog a close is for: by frame first, the oldest second.
    fn for_close(&self, frame_id: Option<&str>) -> Option<DialogId> {
        let native = |d: &&Dialog| d.source == DialogSource::Native;
        let by_frame = frame_id.and_then(|f| {
            self.pending
                .iter()
                .filter(native)
                .find(|d| d.info.frame_id == f)
        });
        by_frame
            .or_else(|| self.pending.iter().find(native))
            .map(|d| d.id)
    }

    // ---- the embedder's answers ------------------------------------------------------

    /// Answers `dialog_id` or, without it, the single pending dialog.
    pub fn respond(
        &mut self,
        out: &mut Outbox,
        tab: TabView<'_>,
        answer: &Answer,
        dialog_id: Option<&str>,
    ) -> Result<CommandId, DialogError> {
        let dialog = match dialog_id {
            Some(name) => self
                .pending
                .iter()
                .find(|d| d.info.id == name)
                .ok_or_else(|| DialogError::UnknownDialog {
                    dialog_id: name.to_owned(),
                    pending: self.pending_ids(),
                })?,
            None => match self.pending.as_slice() {
                [] => return Err(DialogError::NoDialogPending),
                [one] => one,
                _ => {
                    return Err(DialogError::SeveralPending {
                        pending: self.pending_ids(),
                    })
                }
            },
        };
        if dialog.answer.is_some() {
            return Err(DialogError::AnswerInFlight {
                dialog_id: dialog.info.id.clone(),
            });
        }
        let id = dialog.id;
        let is_chooser = matches!(dialog.source, DialogSource::FileChooser { .. });
        let is_auth = matches!(dialog.source, DialogSource::HttpAuth { .. });
        let wrong = |hint| DialogError::WrongAnswer {
            dialog_id: id.to_string(),
            kind: dialog.info.kind.to_string(),
            hint,
        };
        let credentials = match (is_auth, answer) {
            (true, Answer::Credentials { username, password }) => Some((username, password)),
            (true, Answer::Accept { .. } | Answer::Files { .. }) => {
                return Err(wrong("sign in with a username and password, or dismiss it"))
            }
            (false, Answer::Credentials { .. }) => {
                return Err(wrong(
                    "only an http_auth dialog takes credentials; accept or dismiss it",
                ))
            }
            _ => None,
        };
        if let (
            Some((user, password)),
            DialogSource::HttpAuth {
                session_id,
                request_id,
                ..
            },
        ) = (credentials, &dialog.source)
        {
            let params = crate::http_auth::continue_params(
                request_id,
                crate::http_auth::Response::Provide(user, password),
            );
            let session = session_id.clone();
            // A second challenge for the request means these were wrong (reported, the
            // request canceled): an answer is never retried.
            let key = (session.clone(), request_id.clone());
            push_ring(&mut self.auth_tried, key, MAX_PENDING_DIALOGS);
            return Ok(CommandId(self.send_closing_answer(
                out,
                id,
                &session,
                "Fetch.continueWithAuth",
                params,
                ClosedBy::Agent,
                true,
            )));
        }
        let files = match (is_chooser, answer) {
            (true, Answer::Files { files }) => {
                crate::file_chooser::check_upload(
                    &self.upload_roots,
                    files,
                    dialog.info.mode.as_deref(),
                )
                .map_err(|reason| DialogError::UploadRefused {
                    dialog_id: id.to_string(),
                    reason,
                })?;
                Some(files.as_slice())
            }
            (true, Answer::Accept { .. }) => {
                return Err(wrong("accept it with files (absolute paths) or dismiss it"))
            }
            (false, Answer::Files { .. }) if !is_auth => {
                return Err(wrong(
                    "only a file_chooser takes files; accept or dismiss it",
                ))
            }
            _ => None,
        };
        let accept = answer.action() == DialogAction::Accept;
        let text = answer.prompt_text();
        self.send_answer(out, tab, id, accept, text, files, ClosedBy::Agent, true)
            .map(CommandId)
    }

    /// Answers every pending dialog with no answer in flight (for a planned stop).
    pub fn settle(
        &mut self,
        out: &mut Outbox,
        tab: TabView<'_>,
        action: DialogAction,
    ) -> Vec<CommandId> {
        let unanswered: Vec<DialogId> = self
            .pending
            .iter()
            .filter(|d| d.answer.is_none())
            .map(|d| d.id)
            .collect();
        let accept = action == DialogAction::Accept;
        unanswered
            .into_iter()
            .filter_map(|id| {
                self.send_answer(out, tab, id, accept, None, None, ClosedBy::Agent, true)
                    .ok()
            })
            .map(CommandId)
            .collect()
    }

    /// Sends the answer and records it: a native dialog with `Page.handleJavaScriptDialog`,
    /// always on the page session; a bridge dialog with `Fetch.fulfillRequest` on the
    /// session its request paused on; a file chooser with `DOM.setFileInputFiles` on the
    /// session that reported it, or, without files (a dismissal, a policy, the watchdog),
    /// by closing it at once with nothing sent (its answer's id is reserved, its outcome
    /// emitted now).
    #[allow(clippy::too_many_arguments)] // each is one fact of the answer
    fn send_answer(
        &mut self,
        out: &mut Outbox,
        tab: TabView<'_>,
        id: DialogId,
        accept: bool,
        prompt_text: Option<&str>,
        files: Option<&[String]>,
        by: ClosedBy,
        report: bool,
    ) -> Result<u64, DialogError> {
        let Some(dialog) = self.get(id) else {
            return Err(DialogError::NoDialogPending);
        };
        if let DialogSource::HttpAuth {
            session_id,
            request_id,
            ..
        } = &dialog.source
        {
            // Without credentials (a dismissal, a policy, the watchdog): canceled.
            let params =
                crate::http_auth::continue_params(request_id, crate::http_auth::Response::Cancel);
            let session = session_id.clone();
            let method = "Fetch.continueWithAuth";
            return Ok(self.send_closing_answer(out, id, &session, method, params, by, report));
        }
        if let DialogSource::FileChooser {
            session_id,
            backend_node_id,
        } = &dialog.source
        {
            let upload = files.zip(*backend_node_id).filter(|_| accept);
            let Some((files, node)) = upload else {
                let command = out.reserve_id();
                let outcome = self.close_and_record(out, id, by, false, None);
                finish(out, command, report, outcome);
                return Ok(command);
            };
            let session = session_id.clone();
            let params = crate::file_chooser::set_files_params(files, node);
            let answer = AnswerInFlight::closing(id, by, true, report);
            let method = "DOM.setFileInputFiles";
            return Ok(self.send_in_flight(out, &session, method, params, answer));
        }
        let is_prompt = dialog.info.kind == DialogKind::Prompt;
        let text = match (accept, is_prompt) {
            (true, true) => Some(
                prompt_text
                    .unwrap_or(&dialog.info.default_prompt)
                    .to_owned(),
            ),
            (true, false) => prompt_text.map(str::to_owned),
            (false, _) => None,
        };
        let (session, method, params, bridge) = match &dialog.source {
            DialogSource::Native => {
                let session = tab.page_session.ok_or(DialogError::NotAttached)?;
                let params = to_raw(&cdp::HandleDialogParams {
                    accept,
                    prompt_text: text.as_deref(),
                });
                (session, "Page.handleJavaScriptDialog", params, false)
            }
            DialogSource::Bridge {
                session_id,
                request_id,
            } => {
                let returned = text.as_deref().filter(|_| is_prompt);
                let body = bridge::answer_body(accept, returned);
                let params = bridge::fulfill_params(request_id, 200, &body);
                (session_id.as_str(), "Fetch.fulfillRequest", params, true)
            }
            // Answered above.
            DialogSource::FileChooser { .. } | DialogSource::HttpAuth { .. } => {
                return Err(DialogError::NoDialogPending)
            }
        };
        let answer = AnswerInFlight {
            accept,
            text: text.filter(|_| is_prompt),
            is_prompt,
            bridge,
            ..AnswerInFlight::closing(id, by, accept, report)
        };
        let session = session.to_owned();
        Ok(self.send_in_flight(out, &session, method, params, answer))
    }

    // ---- dialogs opening and closing -------------------------------------------------

    /// A dialog opened (natively or through the bridge): record it, report the commands it
    /// blocks, and apply the policy.
    fn open(&mut self, out: &mut Outbox, tab: TabView<'_>, new: NewDialog) {
        let now = out.now();
        if self.pending.len() >= MAX_PENDING_DIALOGS {
            if let Some(oldest) = self.pending.first().map(|d| d.id) {
                self.give_up(out, tab, oldest);
            }
        }
        let id = DialogId(out.next_dialog_number());
        let info = PendingDialog {
            id: id.to_string(),
            kind: new.kind,
            message: new.message,
            default_prompt: new.default_prompt,
            opened_at: now,
            frame_id: new.frame_id,
            url: new.url,
            tab_id: self.tab_id.clone(),
            mode: new.mode,
            auth: new.auth,
            backend_node_id: match &new.source {
                DialogSource::FileChooser {
                    backend_node_id, ..
                } => *backend_node_id,
                _ => None,
            },
        };
        let blocks = new.source.blocks();
        let watchdog_at = (self.policy == DialogPolicy::MustRespond)
            .then_some(now + self.dialog_timeout.as_secs_f64());
        self.pending.push(Dialog {
            id,
            info: info.clone(),
            source: new.source,
            answer: None,
            wedged: false,
            watchdog_at,
        });
        out.emit(Event::Diff(Diff::DialogOpened { dialog: info }));
        if blocks {
            out.report_all_blocked(&id.to_string());
        }
        // A policy has no files to accept a chooser with: both policies dismiss it.
        let accept = match self.policy {
            DialogPolicy::MustRespond => return,
            DialogPolicy::AutoDismiss => false,
            DialogPolicy::AutoAccept => blocks,
        };
        if let Err(error) = self.send_answer(
            out,
            tab,
            id,
            accept,
            None,
            None,
            ClosedBy::AutoPolicy,
            false,
        ) {
            out.warn(Warning::DialogAnswerFailed {
                by: "auto policy",
                dialog_id: id.to_string(),
                error,
            });
        }
    }

    /// `Page.javascriptDialogClosed`. The close is the answer's doing only when it agrees
    /// with the answer in flight; otherwise someone else closed it (`remote`), and the
    /// answer will end with [`DialogError::ClosedByBrowser`].
    fn on_closed(
        &mut self,
        out: &mut Outbox,
        frame_id: Option<&str>,
        result: bool,
        user_input: Option<&str>,
    ) {
        // A close with nothing pending is tolerated.
        let Some(id) = self.for_close(frame_id) else {
            return;
        };
        let Some(dialog) = self.get(id) else {
            return;
        };
        let is_prompt = dialog.info.kind == DialogKind::Prompt;
        let answer = dialog.answer.and_then(|a| self.answers.get(&a));
        let (by, contradicted) = match answer {
            Some(a) if a.agrees(result, user_input) => (a.by, false),
            Some(_) => (ClosedBy::Remote, true),
            None => (ClosedBy::Remote, false),
        };
        // Only an accepted prompt returns text; Chromium sends "" for the others.
        let user_input = user_input
            .filter(|_| result && is_prompt)
            .map(str::to_owned);
        self.close(out, id, by, result, user_input, contradicted);
    }

    /// Closes a pending dialog, emits `dialog_closed`, and settles the answer in flight
    /// for it (whose reply usually comes after the close).
    fn close(
        &mut self,
        out: &mut Outbox,
        id: DialogId,
        by: ClosedBy,
        accepted: bool,
        user_input: Option<String>,
        contradicted: bool,
    ) -> Option<ClosedDialog> {
        let index = self.pending.iter().position(|d| d.id == id)?;
        let d = self.pending.remove(index);
        let record = ClosedDialog {
            id: d.info.id,
            kind: d.info.kind,
            message: d.info.message,
            opened_at: d.info.opened_at,
            closed_at: out.now(),
            closed_by: by,
            frame_id: d.info.frame_id,
            accepted,
            user_input,
            tab_id: d.info.tab_id,
        };
        push_ring(&mut self.recent, record.clone(), MAX_RECENT_DIALOGS);
        out.note_closed_dialog(&record);
        out.emit(Event::Diff(Diff::DialogClosed {
            dialog: record.clone(),
        }));
        let command = d.answer?;
        let answer = self.answers.get_mut(&command)?;
        if answer.replied_ok {
            // The reply came first; the answer was only waiting for this close.
            let answer = self.answers.remove(&command)?;
            out.commands_in_flight.remove(command);
            let outcome = answer.outcome_of_close(record.clone(), contradicted);
            finish(out, command, answer.report, outcome);
        } else {
            answer.closed = Some((record.clone(), contradicted));
        }
        Some(record)
    }

    /// Gives up a dialog as `remote` (its frame, session or tab went, or the pending bound
    /// was reached). A bridge request still paused on a live session is answered (dismiss)
    /// so it is never left hanging; if it is gone already, the "Invalid InterceptionId"
    /// reply is harmless.
    fn give_up(&mut self, out: &mut Outbox, tab: TabView<'_>, id: DialogId) {
        let Some(d) = self.get(id) else {
            return;
        };
        if let (
            DialogSource::Bridge {
                session_id,
                request_id,
            },
            None,
        ) = (&d.source, d.answer)
        {
            if tab.sessions.get(session_id).is_some_and(|s| !s.crashed) {
                let body = bridge::answer_body(false, None);
                let params = bridge::fulfill_params(request_id, 200, &body);
                out.send(
                    Some(session_id),
                    "Fetch.fulfillRequest",
                    params.as_deref(),
                    Purpose::Quiet,
                    self.answer_timeout,
                );
            }
        }
        if let (
            DialogSource::HttpAuth {
                session_id,
                request_id,
                ..
            },
            None,
        ) = (&d.source, d.answer)
        {
            if tab.sessions.get(session_id).is_some_and(|s| !s.crashed) {
                let params = crate::http_auth::continue_params(
                    request_id,
                    crate::http_auth::Response::Cancel,
                );
                out.send(
                    Some(session_id),
                    "Fetch.continueWithAuth",
                    params.as_deref(),
                    Purpose::Quiet,
                    self.answer_timeout,
                );
            }
        }
        self.close_remote(out, id);
    }

    /// Closes a dialog `remote` because it went away with its frame, session or tab: no
    /// contradiction of an answer in flight, which reports the record.
    fn close_remote(&mut self, out: &mut Outbox, id: DialogId) {
        self.close(out, id, ClosedBy::Remote, false, None, false);
    }

    /// Gives up every dialog raised by one of `frames` (they went away).
    pub fn give_up_of_frames(&mut self, out: &mut Outbox, tab: TabView<'_>, frames: &[String]) {
        let gone: Vec<DialogId> = self
            .pending
            .iter()
            .filter(|d| frames.contains(&d.info.frame_id))
            .map(|d| d.id)
            .collect();
        for id in gone {
            self.give_up(out, tab, id);
        }
    }

    /// Gives up the bridge dialogs of `frames` with no answer in flight (they navigate or
    /// go away; Chromium sends no close for them). One with an answer in flight is settled
    /// by that answer's reply.
    pub fn give_up_bridge_of_frames(
        &mut self,
        out: &mut Outbox,
        tab: TabView<'_>,
        frames: &[String],
    ) {
        let gone: Vec<DialogId> = self
            .pending
            .iter()
            .filter(|d| {
                frames.contains(&d.info.frame_id)
                    && d.answer.is_none()
                    && d.source.closes_silently()
            })
            .map(|d| d.id)
            .collect();
        for id in gone {
            self.give_up(out, tab, id);
        }
    }

    /// Closes `remote` the bridge dialogs whose session went (they can never be answered).
    pub fn close_bridge_of_sessions(&mut self, out: &mut Outbox, sessions: &[String]) {
        let gone: Vec<DialogId> = self
            .pending
            .iter()
            .filter(|d| {
                d.source
                    .own_session()
                    .is_some_and(|s| sessions.iter().any(|gone| gone == s))
            })
            .map(|d| d.id)
            .collect();
        for id in gone {
            self.close_remote(out, id);
        }
    }

    /// Gives up every pending dialog (the page crashed).
    pub fn give_up_all(&mut self, out: &mut Outbox, tab: TabView<'_>) {
        let all: Vec<DialogId> = self.pending.iter().map(|d| d.id).collect();
        for id in all {
            self.give_up(out, tab, id);
        }
    }

    /// Closes every pending dialog `remote` (the tab's state is cleared).
    pub fn close_all(&mut self, out: &mut Outbox) {
        let all: Vec<DialogId> = self.pending.iter().map(|d| d.id).collect();
        for id in all {
            self.close_remote(out, id);
        }
    }

    /// The watchdog: dismisses `must_respond` dialogs left unanswered too long.
    pub fn fire_watchdogs(&mut self, out: &mut Outbox, tab: TabView<'_>, now: f64) {
        let due: Vec<DialogId> = self
            .pending
            .iter()
            .filter(|d| d.answer.is_none() && d.watchdog_at.is_some_and(|t| t <= now))
            .map(|d| d.id)
            .collect();
        for id in due {
            if let Some(d) = self.get_mut(id) {
                d.watchdog_at = None;
            }
            if let Err(error) =
                self.send_answer(out, tab, id, false, None, None, ClosedBy::Watchdog, false)
            {
                out.warn(Warning::DialogAnswerFailed {
                    by: "watchdog",
                    dialog_id: id.to_string(),
                    error,
                });
            }
        }
    }

    /// The events that are the dialogs' alone: a dialog opening or closing, a bridge
    /// request paused. Returns whether `event` was one.
    pub fn on_event(
        &mut self,
        out: &mut Outbox,
        tab: TabView<'_>,
        bridge_token: Option<&str>,
        session: &str,
        event: &cdp::CdpEvent<'_>,
    ) -> bool {
        use cdp::CdpEvent as E;
        match event {
            E::DialogOpening(ev) => {
                let frame_id = ev.frame_id.as_deref().or(tab.page_target).unwrap_or("");
                let new = NewDialog {
                    kind: DialogKind::from(ev.kind.as_ref()),
                    message: ev.message.to_string(),
                    default_prompt: ev.default_prompt.as_deref().unwrap_or("").to_owned(),
                    frame_id: frame_id.to_owned(),
                    url: ev.url.to_string(),
                    source: DialogSource::Native,
                    mode: None,
                    auth: None,
                };
                self.open(out, tab, new);
            }
            E::AuthRequired(ev) => self.on_auth_required(out, tab, session, ev),
            E::FileChooserOpened(ev) => {
                let frame_id = ev.frame_id.to_string();
                let url = tab
                    .frames
                    .get(&frame_id)
                    .map(|f| f.info.url.clone())
                    .unwrap_or_default();
                let new = NewDialog {
                    kind: DialogKind::FileChooser,
                    message: String::new(),
                    default_prompt: String::new(),
                    frame_id,
                    url,
                    source: DialogSource::FileChooser {
                        session_id: session.to_owned(),
                        backend_node_id: ev.backend_node_id,
                    },
                    mode: ev.mode.as_deref().map(str::to_owned),
                    auth: None,
                };
                self.open(out, tab, new);
            }
            E::DialogClosed(ev) => {
                let (frame, input) = (ev.frame_id.as_deref(), ev.user_input.as_deref());
                self.on_closed(out, frame, ev.result, input);
            }
            E::RequestPaused(ev) => self.on_request_paused(out, tab, bridge_token, session, ev),
            _ => return false,
        }
        true
    }

    // ---- HTTP sign-in ----------------------------------------------------------------

    /// `Fetch.authRequired`: the configured credentials of its origin, once per request (a
    /// second challenge means they were wrong: canceled and warned about); else, with
    /// prompting on, a pending `http_auth` dialog; else Chromium's default.
    fn on_auth_required(
        &mut self,
        out: &mut Outbox,
        tab: TabView<'_>,
        session: &str,
        ev: &cdp::AuthRequired<'_>,
    ) {
        use crate::http_auth::{continue_params, Response};
        let request_id = ev.request_id.as_ref();
        let origin = ev.challenge.origin.as_ref();
        let t = self.answer_timeout;
        let Some(config) = &self.http_auth else {
            let params = continue_params(request_id, Response::Default);
            continue_auth(out, session, params, t);
            return;
        };
        let key = (session.to_owned(), request_id.to_owned());
        if self.auth_tried.contains(&key) {
            // Credentials were given for this request (configured, or an answer to its
            // dialog) and it is challenged again: they were wrong. Never try again.
            out.warn(Warning::HttpAuthRejected {
                origin: origin.to_owned(),
                realm: ev.challenge.realm.to_string(),
            });
            let params = continue_params(request_id, Response::Cancel);
            continue_auth(out, session, params, t);
            return;
        }
        if let Some(creds) = config.for_origin(origin) {
            push_ring(&mut self.auth_tried, key, MAX_PENDING_DIALOGS);
            let params = continue_params(
                request_id,
                Response::Provide(&creds.username, &creds.password),
            );
            continue_auth(out, session, params, t);
            return;
        }
        if !config.prompt {
            let params = continue_params(request_id, Response::Default);
            continue_auth(out, session, params, t);
            return;
        }
        let frame_id = ev
            .frame_id
            .as_deref()
            .or(tab.page_target)
            .unwrap_or("")
            .to_owned();
        let url = ev
            .request
            .as_ref()
            .map(|r| r.url.to_string())
            .unwrap_or_default();
        let auth = crate::http_auth::AuthChallenge {
            origin: origin.to_owned(),
            realm: ev.challenge.realm.to_string(),
            scheme: ev.challenge.scheme.to_string(),
        };
        let new = NewDialog {
            kind: DialogKind::HttpAuth,
            message: format!("sign in to {origin} (realm {:?})", auth.realm),
            default_prompt: String::new(),
            frame_id,
            url,
            source: DialogSource::HttpAuth {
                session_id: session.to_owned(),
                request_id: request_id.to_owned(),
                document: ev.resource_type.as_deref() == Some("Document"),
            },
            mode: None,
            auth: Some(auth),
        };
        self.open(out, tab, new);
    }

    /// Sends an answer whose reply closes its dialog (a sign-in's), and records it.
    #[allow(clippy::too_many_arguments)] // each is one fact of the answer
    fn send_closing_answer(
        &mut self,
        out: &mut Outbox,
        id: DialogId,
        session: &str,
        method: &str,
        params: Option<Box<RawValue>>,
        by: ClosedBy,
        report: bool,
    ) -> u64 {
        let accept = method == "Fetch.continueWithAuth"
            && params
                .as_deref()
                .is_some_and(|p| p.get().contains("ProvideCredentials"));
        let answer = AnswerInFlight::closing(id, by, accept, report);
        self.send_in_flight(out, session, method, params, answer)
    }

    /// Sends an answer, keeps it in flight and links it to its dialog.
    fn send_in_flight(
        &mut self,
        out: &mut Outbox,
        session: &str,
        method: &str,
        params: Option<Box<RawValue>>,
        answer: AnswerInFlight,
    ) -> u64 {
        let command = out.send(
            Some(session),
            method,
            params.as_deref(),
            Purpose::DialogAnswer,
            self.answer_timeout,
        );
        let dialog = answer.dialog;
        self.answers.insert(command, answer);
        if let Some(d) = self.get_mut(dialog) {
            d.answer = Some(command);
        }
        command
    }

    // ---- the bridge ------------------------------------------------------------------

    /// `Fetch.requestPaused` (only the bridge enables Fetch): a bridge request with the
    /// right token becomes a dialog; a forged one gets an error status and a warning;
    /// anything else continues. Each paused request gets exactly one answer, on its own
    /// session.
    fn on_request_paused(
        &mut self,
        out: &mut Outbox,
        tab: TabView<'_>,
        token: Option<&str>,
        session: &str,
        ev: &cdp::RequestPaused<'_>,
    ) {
        let request_id = ev.request_id.as_ref();
        let classified = match token {
            Some(token) => {
                let entries: Vec<Option<std::borrow::Cow<'_, str>>> = ev
                    .request
                    .post_data_entries
                    .iter()
                    .map(|e| e.bytes.clone())
                    .collect();
                let body = bridge::request_body(ev.request.post_data.as_deref(), &entries);
                bridge::classify(&ev.request.url, body.as_deref(), token)
            }
            None => BridgeRequest::NotBridge,
        };
        let t = self.answer_timeout;
        match classified {
            BridgeRequest::NotBridge => {
                let params = bridge::continue_params(request_id);
                out.send(
                    Some(session),
                    "Fetch.continueRequest",
                    params.as_deref(),
                    Purpose::Quiet,
                    t,
                );
            }
            BridgeRequest::Forged => {
                let params = bridge::fulfill_params(request_id, 403, r#"{"error":"forbidden"}"#);
                out.send(
                    Some(session),
                    "Fetch.fulfillRequest",
                    params.as_deref(),
                    Purpose::Quiet,
                    t,
                );
                out.warn(Warning::ForgedBridgeRequest {
                    frame_id: ev.frame_id.as_deref().map(str::to_owned),
                });
            }
            BridgeRequest::Dialog {
                kind,
                message,
                default_prompt,
            } => {
                let frame_id = ev
                    .frame_id
                    .as_deref()
                    .or(tab.page_target)
                    .unwrap_or("")
                    .to_owned();
                let url = tab
                    .frames
                    .get(&frame_id)
                    .map(|f| f.info.url.clone())
                    .unwrap_or_default();
                let source = DialogSource::Bridge {
                    session_id: session.to_owned(),
                    request_id: request_id.to_owned(),
                };
                self.open(
                    out,
                    tab,
                    NewDialog {
                        kind: DialogKind::from(kind),
                        message,
                        default_prompt,
                        frame_id,
                        url,
                        source,
                        mode: None,
                        auth: None,
                    },
                );
            }
        }
    }

    // ---- the answers' replies ----------------------------------------------------------

    /// The reply to an answer.
    pub fn on_answer_reply(
        &mut self,
        out: &mut Outbox,
        command: u64,
        cmd: InFlight,
        outcome: Result<Option<&RawValue>, CdpError>,
    ) {
        let Some(mut answer) = self.answers.remove(&command) else {
            return;
        };
        let id = answer.dialog;
        let pending = self.get(id).is_some();
        if pending {
            // The answer is no longer in flight for its dialog, whatever the reply says.
            if let Some(d) = self.get_mut(id) {
                d.answer = None;
            }
        }
        let report = answer.report;
        if answer.bridge {
            // A bridge dialog closes with its response: Chromium's word is the reply.
            let outcome = match (pending, outcome) {
                (false, _) => self.recent_outcome(id),
                (true, Ok(_)) => {
                    let text = answer.text.take();
                    self.close_and_record(out, id, answer.by, answer.accept, text)
                }
                (true, Err(e)) if e.message.contains("Invalid InterceptionId") => {
                    // The request is gone (navigation, removal): closed by someone else.
                    self.close_and_record(out, id, ClosedBy::Remote, false, None)
                }
                (true, Err(e)) => Err(answer_failed(id, cdp_error(&cmd, e))),
            };
            finish(out, command, report, outcome);
            return;
        }
        if let Some((record, contradicted)) = answer.closed.take() {
            // Closed already (the usual order): any reply, even "No dialog is showing",
            // ends the answer with what the close said. Answering a dialog Chromium
            // already closed is not an error.
            let outcome = answer.outcome_of_close(record, contradicted);
            finish(out, command, report, outcome);
            return;
        }
        let outcome = match outcome {
            Ok(_) if pending => {
                // Accepted but not closed yet: wait for the close until the deadline.
                answer.replied_ok = true;
                if let Some(d) = self.get_mut(id) {
                    d.answer = Some(command);
                }
                self.answers.insert(command, answer);
                out.commands_in_flight.insert(command, cmd);
                return;
            }
            Err(e) if e.is_no_dialog_showing() && pending => {
                // Still open for us, yet Chromium cannot answer it: wedged.
                if let Some(d) = self.get_mut(id) {
                    d.wedged = true;
                    d.watchdog_at = None;
                }
                Err(DialogError::Wedged {
                    dialog_id: id.to_string(),
                })
            }
            Err(e) if !e.is_no_dialog_showing() => Err(answer_failed(id, cdp_error(&cmd, e))),
            // It went another way (frame removed, replaced): report what it became.
            _ => self.recent_outcome(id),
        };
        finish(out, command, report, outcome);
    }

    /// An answer that got no reply (deadline, session gone, disconnect). A dialog still
    /// pending stays pending with no answer in flight.
    pub fn on_answer_failed(&mut self, out: &mut Outbox, command: u64, error: CommandError) {
        let Some(answer) = self.answers.remove(&command) else {
            return;
        };
        let id = answer.dialog;
        if let Some(d) = self.get_mut(id).filter(|d| d.answer == Some(command)) {
            d.answer = None;
        }
        let outcome = match answer.closed.clone() {
            Some((record, contradicted)) => answer.outcome_of_close(record, contradicted),
            None => Err(answer_failed(id, error)),
        };
        finish(out, command, answer.report, outcome);
    }

    fn close_and_record(
        &mut self,
        out: &mut Outbox,
        id: DialogId,
        by: ClosedBy,
        accepted: bool,
        text: Option<String>,
    ) -> AnswerOutcome {
        match self.close(out, id, by, accepted, text, false) {
            Some(record) => Ok(record),
            None => self.recent_outcome(id),
        }
    }

    fn recent_outcome(&self, id: DialogId) -> AnswerOutcome {
        self.recent_record(id)
            .ok_or_else(|| DialogError::UnknownDialog {
                dialog_id: id.to_string(),
                pending: self.pending_ids(),
            })
    }
}

fn cdp_error(cmd: &InFlight, e: CdpError) -> CommandError {
    e.into_command_error(&cmd.method)
}

fn answer_failed(id: DialogId, error: CommandError) -> DialogError {
    DialogError::Command {
        dialog_id: id.to_string(),
        error,
    }
}

/// Ends an answer: an event for the embedder's answers; for the policy's and the
/// watchdog's, a warning when it failed (a browser's close is no failure of theirs: the
/// close record says `remote`).
fn finish(out: &mut Outbox, command: u64, report: bool, outcome: AnswerOutcome) {
    if report {
        out.emit(Event::DialogAnswered {
            id: CommandId(command),
            outcome,
        });
    } else if let Err(error) = outcome {
        if !matches!(error, DialogError::ClosedByBrowser { .. }) {
            out.warn(Warning::DialogAnswerFailed {
                by: "answer",
                dialog_id: error.dialog_id().unwrap_or_default().to_owned(),
                error,
            });
        }
    }
}

/// Continues a paused sign-in request (`Fetch.continueWithAuth`) with `params`; its reply
/// matters to nobody.
fn continue_auth(out: &mut Outbox, session: &str, params: Option<Box<RawValue>>, t: Duration) {
    out.send(
        Some(session),
        "Fetch.continueWithAuth",
        params.as_deref(),
        Purpose::Quiet,
        t,
    );
}
