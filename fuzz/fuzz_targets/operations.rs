//! Structured fuzzing, quinn-proto style: a sequence of [`model::Op`]s (browser events,
//! replies in any order, time steps, disconnects, the embedder's calls; several tabs:
//! popups attaching at browser level, tabs closing, navigating away and crashing, the
//! embedder selecting, opening and closing tabs and naming one in its calls) is played
//! against a supervisor by the same model and driver as `tests/properties.rs`, with every
//! invariant checked after every input (the tab rules of SPEC §16 included). A violated
//! invariant panics, which libFuzzer reports as a crash.
#![no_main]
// The model derives `arbitrary::Arbitrary` under `cfg(fuzzing)`, which cargo-fuzz sets.
#![allow(unexpected_cfgs)]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/model/mod.rs"]
mod model;

/// Longer sequences add little: the model's state is small and the caps are reached early.
const MAX_OPS: usize = 256;

fuzz_target!(|input: (bool, Vec<model::Op>)| {
    let (bridge, ops) = input;
    if ops.len() > MAX_OPS {
        return;
    }
    let checks = model::Checks {
        log: false,
        ..model::Checks::ALL
    };
    model::Driver::run(&ops, checks, bridge);
});
