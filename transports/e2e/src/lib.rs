//! Real-Chromium end-to-end tests of both transports (`tests/`), with their helpers
//! written once in `tests/support/`. Nothing to use here: run
//! `cargo test -p cdp-supervisor-e2e`.
#![forbid(unsafe_code)]

/// The Rust snippets of `transports/README.md`, run as doc tests (against a real
/// Chromium) so they cannot drift from the clients' API.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct TransportsReadmeDoctests;
