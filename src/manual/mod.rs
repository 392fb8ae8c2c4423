//! The manual: what the supervisor knows about Chromium, and the rules it keeps.
//!
//! Docs only, as rustls ships its `manual`. The code cites these pages instead of a
//! document the crate does not contain.
//!
//! - [`chromium_facts`]: facts about Chromium's DevTools protocol, each with the recorded
//!   trace in `tests/traces/` that shows it.
//! - [`rules`]: the supervisor's state and behaviour, the contract its tests check.

pub mod chromium_facts {
    #![doc = include_str!("chromium_facts.md")]
}

pub mod rules {
    #![doc = include_str!("rules.md")]
}
