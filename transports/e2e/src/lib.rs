//! Real-Chromium end-to-end tests of both transports (`tests/`), with their helpers
//! written once in `tests/support/`. Nothing to use here: run
//! `cargo test -p cdp-supervisor-e2e`.
#![forbid(unsafe_code)]
