//! The browser contexts the supervisor created, and its context commands in flight: which
//! ids a call may name, the bound, and what a `createBrowserContext` or
//! `disposeBrowserContext` reply changes (see [rules](crate::manual::rules), browser
//! contexts). The browser layer owns the one table of them and removes the tabs.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::value::RawValue;

use crate::cdp;
use crate::error::CommandError;
use crate::limits::MAX_BROWSER_CONTEXTS;
use crate::wire::{parse, CdpError};

/// A browser-context command in flight, for what its reply changes.
#[derive(Debug, Clone)]
enum ContextCommand {
    /// `Target.createBrowserContext`: its id joins the contexts.
    Create,
    /// `Target.disposeBrowserContext` of this context: it and its tabs go.
    Dispose(String),
}

/// The contexts created and not disposed (bounded by [`MAX_BROWSER_CONTEXTS`], creations
/// in flight included), and the context commands in flight (bounded by the commands in
/// flight: an entry goes with its command's reply or failure).
#[derive(Debug, Default)]
pub(crate) struct Contexts {
    created: BTreeSet<String>,
    commands: BTreeMap<u64, ContextCommand>,
}

impl Contexts {
    /// Whether one more may be created.
    pub fn check_room(&self) -> Result<(), CommandError> {
        let creating = self
            .commands
            .values()
            .filter(|c| matches!(c, ContextCommand::Create))
            .count();
        if self.created.len() + creating >= MAX_BROWSER_CONTEXTS {
            return Err(CommandError::TooManyContexts {
                limit: MAX_BROWSER_CONTEXTS,
            });
        }
        Ok(())
    }

    /// `Target.createBrowserContext` went out as command `id`.
    pub fn creating(&mut self, id: u64) {
        self.commands.insert(id, ContextCommand::Create);
    }

    /// `Target.disposeBrowserContext` of `context` went out as command `id`.
    pub fn disposing(&mut self, id: u64, context: &str) {
        self.commands
            .insert(id, ContextCommand::Dispose(context.to_owned()));
    }

    /// Whether this supervisor created `context` (and has not seen it go).
    pub fn created(&self, context: &str) -> bool {
        self.created.contains(context)
    }

    /// The contexts created, in id order.
    pub fn list(&self) -> Vec<&str> {
        self.created.iter().map(String::as_str).collect()
    }

    /// The connection closed: Chromium disposes every context created with
    /// `disposeOnDetach` (see [chromium_facts](crate::manual::chromium_facts), browser
    /// contexts). Commands in flight are failed one by one ([`Contexts::failed`]).
    pub fn connection_closed(&mut self) {
        self.created.clear();
    }

    /// Command `id` ended without a reply (timeout, disconnect): nothing is known to have
    /// changed.
    pub fn failed(&mut self, id: u64) {
        self.commands.remove(&id);
    }

    /// Command `id` was answered. A created context joins the contexts; a disposed one
    /// leaves, and so does one Chromium no longer knows (disposed by another client:
    /// "Failed to find context", see [chromium_facts](crate::manual::chromium_facts),
    /// browser contexts). Returns the context whose tabs must go, if any; any other
    /// refusal (the default context) changes nothing.
    pub fn on_reply(
        &mut self,
        id: u64,
        outcome: &Result<Option<&RawValue>, CdpError>,
    ) -> Option<String> {
        match (self.commands.remove(&id)?, outcome) {
            (ContextCommand::Create, Ok(result)) => {
                // A reply without the id leaves nothing to track; the caller reads it.
                let created: Result<cdp::CreateBrowserContextResult<'_>, _> =
                    parse("Target.createBrowserContext", *result);
                // The bound was checked when it was sent, with the creations in flight.
                if let Ok(created) = created {
                    if self.created.len() < MAX_BROWSER_CONTEXTS {
                        self.created.insert(created.browser_context_id.into_owned());
                    }
                }
                None
            }
            (ContextCommand::Create, Err(_)) => None,
            (ContextCommand::Dispose(context), outcome) => {
                let unknown = outcome
                    .as_ref()
                    .err()
                    .is_some_and(|e| e.message.starts_with("Failed to find context"));
                if outcome.is_err() && !unknown {
                    return None;
                }
                self.created.remove(&context);
                Some(context)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Result<Option<&RawValue>, CdpError> {
        Ok(Some(serde_json::from_str::<&RawValue>(text).unwrap()))
    }

    #[test]
    fn a_created_context_is_listed_until_disposed_and_the_bound_counts_creations() {
        let mut c = Contexts::default();
        c.creating(1);
        assert_eq!(c.on_reply(1, &ok(r#"{"browserContextId":"A"}"#)), None);
        assert_eq!(c.list(), ["A"]);
        c.disposing(2, "A");
        assert_eq!(c.on_reply(2, &ok("{}")).as_deref(), Some("A"));
        assert!(c.list().is_empty());
        for id in 0..MAX_BROWSER_CONTEXTS as u64 {
            assert!(c.check_room().is_ok());
            c.creating(10 + id);
        }
        assert_eq!(c.check_room().unwrap_err().code(), "too_many_contexts");
        c.failed(10);
        assert!(c.check_room().is_ok());
    }

    #[test]
    fn a_refused_dispose_keeps_the_context_unless_chromium_does_not_know_it() {
        let mut c = Contexts::default();
        c.creating(1);
        c.on_reply(1, &ok(r#"{"browserContextId":"A"}"#));
        c.disposing(2, "A");
        let refused = CdpError {
            code: -32000,
            message: "Cannot dispose default browser context.".into(),
        };
        assert_eq!(c.on_reply(2, &Err(refused)), None);
        assert!(c.created("A"));
        c.disposing(3, "A");
        let unknown = CdpError {
            code: -32000,
            message: "Failed to find context with id A".into(),
        };
        assert_eq!(c.on_reply(3, &Err(unknown)).as_deref(), Some("A"));
        assert!(!c.created("A"));
        // A reply to no context command changes nothing.
        assert_eq!(c.on_reply(4, &ok("{}")), None);
    }
}
