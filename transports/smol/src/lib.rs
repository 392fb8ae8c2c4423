#![forbid(unsafe_code)]
//! smol transport (work in progress).
