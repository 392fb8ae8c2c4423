#![forbid(unsafe_code)]
//! Blocking transport (work in progress).
