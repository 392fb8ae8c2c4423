//! The [`Outbox`]: what every component writes to instead of `&mut Supervisor`.
//!
//! It holds the clock (the latest time given), the command ids, the commands in flight and
//! the two output queues (transmits and events). A component that needs to send a command,
//! report an event or read the time receives `&mut Outbox` and nothing else of the
//! supervisor, so its rules can be read (and tested) on their own.

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::value::RawValue;

use crate::command::{blocked_by_dialogs, CommandId, CommandsInFlight, InFlight, Purpose, TabKey};
use crate::error::CommandError;
use crate::event::{Event, Warning};
use crate::limits::MAX_RECENT_DIALOGS;
use crate::snapshot::{push_ring, ClosedDialog};
use crate::wire::OutgoingCommand;

/// The clock, the commands in flight and the output queues.
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    /// The latest time given; never goes back.
    now: f64,
    last_command_id: u64,
    /// The last dialog number given (`d-N`): dialog ids are unique across tabs.
    last_dialog_number: u64,
    /// The tab the browser lent this outbox to for the current call: its commands are
    /// stamped with it, so their replies go back to it (`None`: the browser itself).
    acting_tab: Option<TabKey>,
    /// Tabs whose commands a dialog of the acting tab also blocks (tabs that share its
    /// renderer), set by the browser with the acting tab.
    sharing_renderer: Vec<TabKey>,
    /// The most recently closed dialogs of every tab, oldest first (a ring of
    /// [`MAX_RECENT_DIALOGS`]): the snapshot's `recent_dialogs`.
    pub recent_dialogs: VecDeque<ClosedDialog>,
    pub commands_in_flight: CommandsInFlight,
    pub transmits: VecDeque<OutgoingCommand>,
    pub events: VecDeque<Event>,
}

impl Outbox {
    /// Time never goes back; a NaN or earlier time counts as the latest one. Embedder
    /// calls move time too, without firing timers (that is `handle_timeout`'s job).
    pub fn advance(&mut self, now: f64) {
        if now > self.now {
            self.now = now;
        }
    }

    /// The latest time given.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Queues a command and tracks it until its reply or deadline. Ids are never reused,
    /// also not across reconnects, so a reply is matched on its id alone.
    pub fn send(
        &mut self,
        session_id: Option<&str>,
        method: &str,
        params: Option<&RawValue>,
        purpose: Purpose,
        timeout: Duration,
    ) -> u64 {
        let deadline = self.now + timeout.as_secs_f64();
        self.send_until(session_id, method, params, purpose, deadline)
    }

    /// Like [`Outbox::send`] with a deadline in time (`f64::INFINITY`: none; the sender
    /// keeps a deadline of its own).
    pub fn send_until(
        &mut self,
        session_id: Option<&str>,
        method: &str,
        params: Option<&RawValue>,
        purpose: Purpose,
        deadline: f64,
    ) -> u64 {
        self.last_command_id += 1;
        let id = self.last_command_id;
        let cmd = OutgoingCommand::new(id, method, params, session_id);
        self.commands_in_flight.insert(
            id,
            InFlight {
                session_id: session_id.map(str::to_owned),
                method: method.to_owned(),
                deadline,
                sent_at: self.now,
                purpose,
                blocked_by: None,
                tab: self.acting_tab,
            },
        );
        self.transmits.push_back(cmd);
        id
    }

    /// A fresh id from the command ids' sequence, for a call whose outcome is an event of
    /// its own (a flow's result), so it never equals a command's id.
    pub fn reserve_id(&mut self) -> u64 {
        self.last_command_id += 1;
        self.last_command_id
    }

    /// The next dialog number, unique on the connection.
    pub fn next_dialog_number(&mut self) -> u64 {
        self.last_dialog_number += 1;
        self.last_dialog_number
    }

    /// A dialog of some tab closed: into the browser-wide ring of recent dialogs.
    pub fn note_closed_dialog(&mut self, record: &ClosedDialog) {
        push_ring(&mut self.recent_dialogs, record.clone(), MAX_RECENT_DIALOGS);
    }

    /// Lends the outbox to `tab` (and its renderer's other tabs) for one call.
    pub fn act_for(&mut self, tab: Option<TabKey>, sharing_renderer: &[TabKey]) {
        self.acting_tab = tab;
        self.sharing_renderer.clear();
        self.sharing_renderer.extend_from_slice(sharing_renderer);
    }

    /// Queues an event for the embedder.
    pub fn emit(&mut self, event: Event) {
        self.events.push_back(event);
    }

    /// The embedder's command `id` answered: its CDP `result` (`{}` when absent) or the
    /// error named after its method.
    pub fn command_replied(
        &mut self,
        id: u64,
        method: &str,
        outcome: Result<Option<&RawValue>, crate::wire::CdpError>,
    ) {
        let outcome = outcome
            .map(|r| r.map_or("{}", RawValue::get).to_owned())
            .map_err(|e| e.into_command_error(method));
        self.command_finished(id, outcome);
    }

    /// The one outcome of the embedder's command `id`.
    pub fn command_finished(&mut self, id: u64, outcome: Result<String, CommandError>) {
        self.emit(Event::CommandFinished {
            id: CommandId(id),
            outcome,
        });
    }

    /// Queues a [`Warning`].
    pub fn warn(&mut self, warning: Warning) {
        self.events.push_back(Event::Warning(warning));
    }

    /// Reports the embedder's command `id` blocked by `dialog_id`, if it cannot complete
    /// while a dialog shows and was not reported for that dialog already (see
    /// [`crate::manual::rules`], commands blocked by a dialog).
    pub fn report_blocked(&mut self, id: u64, dialog_id: &str) {
        let Some(cmd) = self.commands_in_flight.get_mut(id) else {
            return;
        };
        if cmd.purpose == Purpose::User
            && blocked_by_dialogs(&cmd.method, cmd.session_id.as_deref())
            && cmd.blocked_by.as_deref() != Some(dialog_id)
        {
            cmd.blocked_by = Some(dialog_id.to_owned());
            self.events.push_back(Event::CommandBlocked {
                id: CommandId(id),
                dialog_id: dialog_id.to_owned(),
            });
        }
    }

    /// Reports every command in flight that `dialog_id` blocks: those of the acting tab
    /// and of the tabs sharing its renderer (a dialog stalls its whole renderer process).
    pub fn report_all_blocked(&mut self, dialog_id: &str) {
        let acting = self.acting_tab;
        let sharing = &self.sharing_renderer;
        let in_flight: Vec<u64> = self
            .commands_in_flight
            .iter()
            .filter(|(_, c)| c.tab == acting || c.tab.is_some_and(|t| sharing.contains(&t)))
            .filter(|(_, c)| blocked_by_dialogs(&c.method, c.session_id.as_deref()))
            .map(|(id, _)| id)
            .collect();
        for id in in_flight {
            self.report_blocked(id, dialog_id);
        }
    }
}
