//! The [`Outbox`]: what every component writes to instead of `&mut Supervisor`.
//!
//! It holds the clock (the latest time given), the command ids, the commands in flight and
//! the two output queues (transmits and events). A component that needs to send a command,
//! report an event or read the time receives `&mut Outbox` and nothing else of the
//! supervisor, so its rules can be read (and tested) on their own.

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::value::RawValue;

use crate::command::{blocked_by_dialogs, CommandId, CommandsInFlight, InFlight, Purpose};
use crate::error::CommandError;
use crate::event::{Event, Warning};
use crate::wire::OutgoingCommand;

/// The clock, the commands in flight and the output queues.
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    /// The latest time given; never goes back.
    now: f64,
    last_command_id: u64,
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
            },
        );
        self.transmits.push_back(cmd);
        id
    }

    /// A fresh id that no command will use: the answer's id of a flow that reports to the
    /// embedder by an event of its own.
    pub fn reserve_id(&mut self) -> u64 {
        self.last_command_id += 1;
        self.last_command_id
    }

    /// Queues an event for the embedder.
    pub fn emit(&mut self, event: Event) {
        self.events.push_back(event);
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

    /// Reports every command in flight that `dialog_id` blocks.
    pub fn report_all_blocked(&mut self, dialog_id: &str) {
        let in_flight: Vec<u64> = self
            .commands_in_flight
            .iter()
            .filter(|(_, c)| blocked_by_dialogs(&c.method, c.session_id.as_deref()))
            .map(|(id, _)| id)
            .collect();
        for id in in_flight {
            self.report_blocked(id, dialog_id);
        }
    }
}
