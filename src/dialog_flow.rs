//! The supervisor's dialog handlers (SPEC §6.1-6.4, facts 6-11, 15, 16, 20).
//!
//! A dialog is pending from `Page.javascriptDialogOpening` until Chromium says
//! `Page.javascriptDialogClosed` (or its frame, session or connection goes). An answer is
//! only a request: the close that follows says who closed it (fact 7: the close comes
//! before the answer's reply).

use serde_json::value::RawValue;

use crate::bridge;
use crate::cdp;
use crate::command::{blocked_by_dialogs, CommandId, InFlight, Purpose};
use crate::dialog::{Dialog, DialogAction, DialogPolicy, DialogSource, MAX_PENDING_DIALOGS};
use crate::error::{CommandError, DialogError};
use crate::snapshot::{ClosedBy, ClosedDialog, Diff, PendingDialog};
use crate::supervisor::{Event, Supervisor};
use crate::wire::{to_raw, CdpError};

impl Supervisor {
    /// Answers a dialog (SPEC §6.3): `dialog_id` or, without it, the single pending one.
    /// Accepting a prompt without text returns its default text. The outcome arrives as
    /// one [`Event::DialogAnswered`].
    ///
    /// ```
    /// use cdp_supervisor::{Config, DialogAction, DialogError, Supervisor};
    /// let mut sup = Supervisor::new(Config::default());
    /// assert_eq!(sup.respond_dialog(0.0, DialogAction::Accept, None, None), Err(DialogError::NoDialogPending));
    /// ```
    pub fn respond_dialog(
        &mut self,
        now: f64,
        action: DialogAction,
        prompt_text: Option<&str>,
        dialog_id: Option<&str>,
    ) -> Result<CommandId, DialogError> {
        self.advance(now);
        let index = match dialog_id {
            Some(id) => self
                .dialogs
                .index_of(id)
                .ok_or_else(|| DialogError::UnknownDialog {
                    dialog_id: id.to_owned(),
                    pending: self.dialogs.pending_ids(),
                })?,
            None => match self.dialogs.pending.len() {
                0 => return Err(DialogError::NoDialogPending),
                1 => 0,
                _ => {
                    return Err(DialogError::SeveralPending {
                        pending: self.dialogs.pending_ids(),
                    })
                }
            },
        };
        if let Some(d) = self
            .dialogs
            .pending
            .get(index)
            .filter(|d| d.answer.is_some())
        {
            return Err(DialogError::AnswerInFlight {
                dialog_id: d.info.id.clone(),
            });
        }
        self.answer_dialog(index, action, prompt_text, ClosedBy::Agent, true)
            .map(CommandId)
    }

    /// Answers every pending dialog that has no answer in flight, for a planned stop
    /// (SPEC §6.8: a dialog left open wedges the tab, fact 11). Returns the answers sent.
    pub fn settle_dialogs(&mut self, now: f64, action: DialogAction) -> Vec<CommandId> {
        self.advance(now);
        let mut sent = Vec::new();
        let mut i = 0;
        while i < self.dialogs.pending.len() {
            if self.dialogs.pending[i].answer.is_none() {
                // i < len by the loop condition.
                if let Ok(id) = self.answer_dialog(i, action, None, ClosedBy::Agent, true) {
                    sent.push(CommandId(id));
                }
            }
            i += 1;
        }
        sent
    }

    /// Whether any dialog is pending.
    pub fn has_pending_dialogs(&self) -> bool {
        !self.dialogs.pending.is_empty()
    }

    /// Answers the pending dialog at `index` and remembers who asked: a native dialog with
    /// `Page.handleJavaScriptDialog`, always on the page session (fact 6); a bridge dialog
    /// with `Fetch.fulfillRequest` on the session its request paused on (fact 12).
    fn answer_dialog(
        &mut self,
        index: usize,
        action: DialogAction,
        prompt_text: Option<&str>,
        by: ClosedBy,
        report: bool,
    ) -> Result<u64, DialogError> {
        let Some(dialog) = self.dialogs.pending.get(index) else {
            return Err(DialogError::NoDialogPending);
        };
        let accept = action == DialogAction::Accept;
        let is_prompt = dialog.info.kind == "prompt";
        let text = match (accept, is_prompt) {
            (true, true) => Some(
                prompt_text
                    .unwrap_or(&dialog.info.default_prompt)
                    .to_owned(),
            ),
            (true, false) => prompt_text.map(str::to_owned),
            (false, _) => None,
        };
        let dialog_id = dialog.info.id.clone();
        let (session, method, params, bridge_answer) = match &dialog.source {
            DialogSource::Native => {
                let session = self.page_session().ok_or(DialogError::NotAttached)?;
                let params = to_raw(&cdp::HandleDialogParams {
                    accept,
                    prompt_text: text.as_deref(),
                });
                (session, "Page.handleJavaScriptDialog", params, None)
            }
            DialogSource::Bridge {
                session_id,
                request_id,
            } => {
                let returned = text.filter(|_| is_prompt);
                let body = bridge::answer_body(accept, returned.as_deref());
                let params = bridge::fulfill_params(request_id, 200, &body);
                let session = session_id.clone();
                (
                    session,
                    "Fetch.fulfillRequest",
                    params,
                    Some((accept, returned)),
                )
            }
        };
        let timeout = self.config().setup_timeout;
        let id = self.send(
            Some(&session),
            method,
            params.as_deref(),
            Purpose::DialogAnswer {
                dialog_id,
                by,
                closed: None,
                replied_ok: false,
                report,
                bridge_answer,
            },
            timeout,
        );
        if let Some(d) = self.dialogs.pending.get_mut(index) {
            d.answer = Some((id, by));
        }
        Ok(id)
    }

    pub(crate) fn on_dialog_opening(&mut self, ev: &cdp::DialogOpening<'_>) {
        let frame_id = ev
            .frame_id
            .as_deref()
            .or(self.page_target_id())
            .unwrap_or("")
            .to_owned();
        self.open_dialog(
            ev.kind.to_string(),
            ev.message.to_string(),
            ev.default_prompt.as_deref().unwrap_or("").to_owned(),
            frame_id,
            ev.url.to_string(),
            DialogSource::Native,
        );
    }

    /// A dialog opened (natively or through the bridge): record it, report the commands it
    /// blocks (SPEC §6.4), and apply the policy (SPEC §6.1).
    pub(crate) fn open_dialog(
        &mut self,
        kind: String,
        message: String,
        default_prompt: String,
        frame_id: String,
        url: String,
        source: DialogSource,
    ) {
        let now = self.now();
        if self.dialogs.pending.len() >= MAX_PENDING_DIALOGS {
            self.give_up_dialog(0);
        }
        let id = self.dialogs.next_id();
        let info = PendingDialog {
            id: id.clone(),
            kind,
            message,
            default_prompt,
            opened_at: now,
            frame_id,
            url,
        };
        let policy = self.policy();
        let watchdog_at = (policy == DialogPolicy::MustRespond)
            .then(|| now + self.config().dialog_timeout.as_secs_f64());
        self.dialogs.pending.push(Dialog {
            info: info.clone(),
            source,
            answer: None,
            wedged: false,
            watchdog_at,
        });
        self.emit(Event::Diff(Diff::DialogOpened { dialog: info }));
        let in_flight: Vec<u64> = self
            .commands_in_flight
            .iter()
            .filter(|(_, c)| blocked_by_dialogs(&c.method, c.session_id.as_deref()))
            .map(|(id, _)| id)
            .collect();
        for cmd in in_flight {
            self.report_blocked(cmd);
        }
        let index = self.dialogs.pending.len() - 1; // just pushed: len >= 1
        let action = match policy {
            DialogPolicy::MustRespond => return,
            DialogPolicy::AutoDismiss => DialogAction::Dismiss,
            DialogPolicy::AutoAccept => DialogAction::Accept,
        };
        if let Err(e) = self.answer_dialog(index, action, None, ClosedBy::AutoPolicy, false) {
            self.warn(format!("auto policy could not answer {id}: {e}"));
        }
    }

    pub(crate) fn on_dialog_closed(&mut self, ev: &cdp::DialogClosed<'_>) {
        // Fact 20: a close with nothing pending is tolerated.
        let Some(index) = self.dialogs.index_for_close(ev.frame_id.as_deref()) else {
            return;
        };
        let by = self.dialogs.closer(index);
        // Only an accepted prompt returns text; Chromium sends "" for the others.
        let is_prompt = self
            .dialogs
            .pending
            .get(index)
            .is_some_and(|d| d.info.kind == "prompt");
        let user_input = ev
            .user_input
            .as_deref()
            .filter(|_| ev.result && is_prompt)
            .map(str::to_owned);
        self.close_dialog(index, by, ev.result, user_input);
    }

    /// Closes the pending dialog at `index`, emits `dialog_closed`, and settles the answer
    /// in flight for it (whose reply comes after the close, fact 7).
    pub(crate) fn close_dialog(
        &mut self,
        index: usize,
        by: ClosedBy,
        accepted: bool,
        user_input: Option<String>,
    ) {
        let answer = self.dialogs.pending.get(index).and_then(|d| d.answer);
        let now = self.now();
        let Some(record) = self.dialogs.close(index, now, by, accepted, user_input) else {
            return;
        };
        self.emit(Event::Diff(Diff::DialogClosed {
            dialog: record.clone(),
        }));
        let Some((answer_id, _)) = answer else {
            return;
        };
        let Some(cmd) = self.commands_in_flight.get_mut(answer_id) else {
            return;
        };
        if let Purpose::DialogAnswer {
            closed,
            replied_ok,
            report,
            dialog_id,
            ..
        } = &mut cmd.purpose
        {
            if *replied_ok {
                let (report, dialog_id) = (*report, dialog_id.clone());
                self.commands_in_flight.remove(answer_id);
                self.finish_dialog_answer(answer_id, &dialog_id, Some(record), Ok(()), report);
            } else {
                *closed = Some(Box::new(record));
            }
        }
    }

    /// Closes `remote` every pending dialog raised by `frame_id` (its frame went away).
    pub(crate) fn close_dialogs_of_frame(&mut self, frame_id: &str) {
        while let Some(i) = self
            .dialogs
            .pending
            .iter()
            .position(|d| d.info.frame_id == frame_id)
        {
            self.give_up_dialog(i);
        }
    }

    /// Gives up the bridge dialogs of `frame_id` and every frame below it (it is about to
    /// navigate or go away): their requests are answered with the dismissal while the
    /// sessions still exist.
    pub(crate) fn give_up_bridge_dialogs_in_subtree(&mut self, frame_id: &str) {
        if !self
            .dialogs
            .pending
            .iter()
            .any(|d| matches!(d.source, DialogSource::Bridge { .. }))
        {
            return;
        }
        let mut frames = vec![frame_id.to_owned()];
        frames.extend(self.frames.descendants(frame_id));
        for f in frames {
            self.give_up_bridge_dialogs_of_frame(&f);
        }
    }

    /// A navigated frame's bridge dialogs are over: Chromium sends no close for them.
    pub(crate) fn give_up_bridge_dialogs_of_frame(&mut self, frame_id: &str) {
        // One with an answer in flight is settled by that answer's reply.
        while let Some(i) = self.dialogs.pending.iter().position(|d| {
            d.info.frame_id == frame_id
                && d.answer.is_none()
                && matches!(d.source, DialogSource::Bridge { .. })
        }) {
            self.give_up_dialog(i);
        }
    }

    /// Closes the dialog at `index` as `remote`. A bridge request still paused on a live
    /// session is answered (dismiss) so it is never left hanging; if it is gone already,
    /// the "Invalid InterceptionId" reply is harmless.
    pub(crate) fn give_up_dialog(&mut self, index: usize) {
        let Some(d) = self.dialogs.pending.get(index) else {
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
            let live = self.sessions.get(session_id).is_some_and(|s| !s.crashed);
            if live {
                let body = bridge::answer_body(false, None);
                let params = bridge::fulfill_params(request_id, 200, &body);
                let session = session_id.clone();
                let t = self.config().setup_timeout;
                self.send(
                    Some(&session),
                    "Fetch.fulfillRequest",
                    params.as_deref(),
                    Purpose::Quiet,
                    t,
                );
            }
        }
        self.close_dialog(index, ClosedBy::Remote, false, None);
    }

    pub(crate) fn on_dialog_answer_reply(
        &mut self,
        id: u64,
        mut cmd: InFlight,
        outcome: Result<Option<&RawValue>, CdpError>,
    ) {
        let Purpose::DialogAnswer {
            dialog_id,
            closed,
            report,
            replied_ok,
            by,
            bridge_answer,
        } = &mut cmd.purpose
        else {
            return;
        };
        let (dialog_id, report, by) = (dialog_id.clone(), *report, *by);
        let pending_index = self.dialogs.index_of(&dialog_id);
        if let Some((accepted, text)) = bridge_answer.take() {
            // A bridge dialog closes with its response: Chromium's word is the reply.
            let Some(i) = pending_index else {
                let record = self.recent_record(&dialog_id);
                self.finish_dialog_answer(id, &dialog_id, record, Ok(()), report);
                return;
            };
            match outcome {
                Ok(_) => {
                    self.close_dialog_answered_by(i, id, by, accepted, text, report);
                }
                Err(e) if e.message.contains("Invalid InterceptionId") => {
                    // The request is gone (navigation, removal): closed by someone else.
                    self.close_dialog_answered_by(i, id, ClosedBy::Remote, false, None, report);
                }
                Err(e) => {
                    let error = CommandError::Cdp {
                        method: cmd.method.clone(),
                        code: e.code,
                        message: e.message,
                    };
                    self.finish_dialog_answer(id, &dialog_id, None, Err(error), report);
                }
            }
            return;
        }
        match outcome {
            Ok(_) => {
                if let Some(record) = closed.take() {
                    self.finish_dialog_answer(id, &dialog_id, Some(*record), Ok(()), report);
                } else if pending_index.is_some() {
                    // Accepted but not closed yet: wait for the close until the deadline.
                    *replied_ok = true;
                    self.commands_in_flight.insert(id, cmd);
                } else {
                    // It went another way (frame removed, replaced): report what it became.
                    let record = self.recent_record(&dialog_id);
                    self.finish_dialog_answer(id, &dialog_id, record, Ok(()), report);
                }
            }
            Err(e) if e.is_no_dialog_showing() => {
                if let Some(record) = closed.take() {
                    // Chromium closed it already: answering is not an error (SPEC §6.2).
                    self.finish_dialog_answer(id, &dialog_id, Some(*record), Ok(()), report);
                } else if let Some(i) = pending_index {
                    // Fact 15: still open for us, yet Chromium cannot answer it: wedged.
                    if let Some(d) = self.dialogs.pending.get_mut(i) {
                        d.wedged = true;
                        if d.answer.map(|(a, _)| a) == Some(id) {
                            d.answer = None;
                        }
                        d.watchdog_at = None;
                    }
                    let error = DialogError::Wedged {
                        dialog_id: dialog_id.clone(),
                    };
                    self.report_dialog_error(id, report, error);
                } else {
                    let record = self.recent_record(&dialog_id);
                    self.finish_dialog_answer(id, &dialog_id, record, Ok(()), report);
                }
            }
            Err(e) => {
                let error = CommandError::Cdp {
                    method: cmd.method.clone(),
                    code: e.code,
                    message: e.message,
                };
                let closed = closed.take();
                self.finish_dialog_answer(id, &dialog_id, closed.map(|c| *c), Err(error), report);
            }
        }
    }

    /// Closes a bridge dialog whose answer `answer_id` just replied, and reports it.
    fn close_dialog_answered_by(
        &mut self,
        index: usize,
        answer_id: u64,
        by: ClosedBy,
        accepted: bool,
        text: Option<String>,
        report: bool,
    ) {
        let dialog_id = self.dialogs.pending.get(index).map(|d| d.info.id.clone());
        // The answer is no longer in flight: close_dialog must not look for it.
        if let Some(d) = self.dialogs.pending.get_mut(index) {
            d.answer = None;
        }
        self.close_dialog(index, by, accepted, text);
        let record = dialog_id.and_then(|id| self.recent_record(&id));
        self.finish_dialog_answer(answer_id, "", record, Ok(()), report);
    }

    /// Ends a dialog answer: `Ok` with the closed record when there is one, else the error;
    /// an answer that failed leaves the dialog pending with no answer in flight.
    pub(crate) fn finish_dialog_answer(
        &mut self,
        id: u64,
        dialog_id: &str,
        closed: Option<ClosedDialog>,
        result: Result<(), CommandError>,
        report: bool,
    ) {
        if let Some(record) = closed {
            if report {
                self.emit(Event::DialogAnswered {
                    id: CommandId(id),
                    outcome: Ok(record),
                });
            }
            return;
        }
        if let Some(i) = self.dialogs.index_of(dialog_id) {
            if let Some(d) = self.dialogs.pending.get_mut(i) {
                if d.answer.map(|(a, _)| a) == Some(id) {
                    d.answer = None;
                }
            }
        }
        let error = match result {
            Err(error) => DialogError::Command {
                dialog_id: dialog_id.to_owned(),
                error,
            },
            Ok(()) => DialogError::UnknownDialog {
                dialog_id: dialog_id.to_owned(),
                pending: self.dialogs.pending_ids(),
            },
        };
        self.report_dialog_error(id, report, error);
    }

    fn report_dialog_error(&mut self, id: u64, report: bool, error: DialogError) {
        if report {
            self.emit(Event::DialogAnswered {
                id: CommandId(id),
                outcome: Err(error),
            });
        } else {
            self.warn(error.to_string());
        }
    }

    fn recent_record(&self, dialog_id: &str) -> Option<ClosedDialog> {
        self.dialogs
            .recent
            .iter()
            .rev()
            .find(|d| d.id == dialog_id)
            .cloned()
    }

    /// The watchdog (SPEC §6.1): dismiss `must_respond` dialogs left unanswered too long.
    pub(crate) fn fire_watchdogs(&mut self, now: f64) {
        let mut i = 0;
        while i < self.dialogs.pending.len() {
            let d = &mut self.dialogs.pending[i]; // i < len by the loop condition
            if d.answer.is_none() && d.watchdog_at.is_some_and(|t| t <= now) {
                d.watchdog_at = None;
                let id = d.info.id.clone();
                if let Err(e) =
                    self.answer_dialog(i, DialogAction::Dismiss, None, ClosedBy::Watchdog, false)
                {
                    self.warn(format!("watchdog could not dismiss {id}: {e}"));
                }
            }
            i += 1;
        }
    }
}
