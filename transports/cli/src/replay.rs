//! `cdp-supervise replay`: a recorded trace through a fresh supervisor.

use cdp_supervise::protocol::{diff_line, typed};
use cdp_supervisor::replay::{Replayer, Trace};
use cdp_supervisor::{Event, Supervisor};
use serde_json::{json, Value};

use crate::args::{config, runtime, Args, Failure};
use crate::emit;

pub fn replay(args: Args) -> Result<(), Failure> {
    let path = args.trace.clone().unwrap_or_default();
    let text = std::fs::read_to_string(&path)
        .map_err(|e| runtime(format!("cannot read trace {}: {e}", path.display())))?;
    let trace = Trace::parse(&text)
        .map_err(|e| runtime(format!("{} is not a trace: {e}", path.display())))?;
    let mut config = config(&args);
    if let Some(bridge) = config.bridge.as_mut() {
        // The recorded bridge requests carry the recording supervisor's secret: replay
        // with it, or they would all be refused as forged.
        match trace.recorded_bridge_token() {
            Some(token) => bridge.token = token,
            None => eprintln!(
                "cdp-supervise: warning: --bridge: {} holds no recorded bridge script, so bridge requests in it replay as forged",
                path.display()
            ),
        }
    }
    let mut sup = Supervisor::new(config);
    let mut replayer = Replayer::new(&trace);
    while replayer.step(&mut sup) {
        while let Some(event) = sup.poll_event() {
            match event {
                Event::Diff(diff) => emit(&diff_line(&diff)),
                Event::Warning(warning) => eprintln!("cdp-supervise: warning: {warning}"),
                _ => {}
            }
        }
    }
    let snapshot = serde_json::to_value(sup.snapshot()).unwrap_or(Value::Null);
    emit(&typed("snapshot", &json!({ "snapshot": snapshot })));
    Ok(())
}
