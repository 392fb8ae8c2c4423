//! Test harness: replay a recorded trace, or script CDP messages at stepped times.
#![allow(dead_code)]

use cdp_supervisor::replay::{ReplayStats, Replayer, Trace};
use cdp_supervisor::{
    Config, Diff, Event, Mirror, OutgoingCommand, PageState, Snapshot, Supervisor,
};

/// Reads a trace from `tests/traces/`.
pub fn trace_text(name: &str) -> String {
    let path = format!("{}/tests/traces/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

/// What a replay produced.
pub struct ReplayRun {
    pub stats: ReplayStats,
    pub snapshot: Snapshot,
    pub events: Vec<(f64, Event)>,
    pub mirror: Mirror,
}

impl ReplayRun {
    pub fn diffs(&self) -> impl Iterator<Item = &Diff> {
        self.events.iter().filter_map(|(_, e)| match e {
            Event::Diff(d) => Some(d),
            _ => None,
        })
    }

    /// The page states the diffs went through, repeats folded.
    pub fn page_states(&self) -> Vec<PageState> {
        let mut states: Vec<PageState> = Vec::new();
        for d in self.diffs() {
            if let Diff::Page { page: Some(p), .. } = d {
                if states.last() != Some(&p.state) {
                    states.push(p.state);
                }
            }
        }
        states
    }
}

/// Replays a trace with the default config; `act` runs after each step with the time of
/// the entry just applied, so a test can call the supervisor between steps.
pub fn replay_trace(
    name: &str,
    act: impl FnMut(&mut Supervisor, f64, &[(f64, Event)]),
) -> ReplayRun {
    replay_trace_with(name, Config::default(), act)
}

pub fn replay_trace_with(
    name: &str,
    config: Config,
    act: impl FnMut(&mut Supervisor, f64, &[(f64, Event)]),
) -> ReplayRun {
    replay_inner(name, config, false, act)
}

/// Replays a trace recorded by our transports up to (not including) its final
/// `disconnect`: the client closing the socket at the end of the scenario.
pub fn replay_before_close(
    name: &str,
    config: Config,
    act: impl FnMut(&mut Supervisor, f64, &[(f64, Event)]),
) -> ReplayRun {
    replay_inner(name, config, true, act)
}

fn replay_inner(
    name: &str,
    config: Config,
    before_close: bool,
    mut act: impl FnMut(&mut Supervisor, f64, &[(f64, Event)]),
) -> ReplayRun {
    let text = trace_text(name);
    let mut trace = Trace::parse(&text).expect("trace parses");
    if before_close {
        use cdp_supervisor::replay::Direction;
        if let Some(last) = trace
            .entries
            .iter()
            .rposition(|e| e.dir == Direction::Disconnect)
        {
            trace.entries.truncate(last);
        }
    }
    let mut sup = Supervisor::new(config);
    let mut replayer = Replayer::new(&trace);
    let mut events = Vec::new();
    let mut mirror = Mirror::default();
    loop {
        let t = replayer.next_time();
        if !replayer.step(&mut sup) {
            break;
        }
        let t = t.unwrap_or(0.0);
        while let Some(e) = sup.poll_event() {
            if let Event::Diff(d) = &e {
                mirror.apply(d);
            }
            events.push((t, e));
        }
        act(&mut sup, t, &events);
        while let Some(e) = sup.poll_event() {
            if let Event::Diff(d) = &e {
                mirror.apply(d);
            }
            events.push((t, e));
        }
    }
    let snapshot = sup.snapshot();
    assert_eq!(
        mirror.snapshot(),
        snapshot,
        "folding the diffs gives the snapshot"
    );
    ReplayRun {
        stats: replayer.stats().clone(),
        snapshot,
        events,
        mirror,
    }
}

/// A supervisor fed scripted messages at stepped, simulated times.
pub struct Harness {
    pub sup: Supervisor,
    pub now: f64,
    pub sent: Vec<OutgoingCommand>,
    pub events: Vec<Event>,
    pub mirror: Mirror,
}

pub const PAGE: &str = "PAGE";
pub const PS: &str = "S-PAGE";

impl Harness {
    pub fn new(config: Config) -> Self {
        Harness {
            sup: Supervisor::new(config),
            now: 1000.0,
            sent: Vec::new(),
            events: Vec::new(),
            mirror: Mirror::default(),
        }
    }

    /// Connected and attached to page `PAGE` on session `S-PAGE`, `Page.enable` answered,
    /// top frame navigated to `http://a.test/`.
    pub fn attached(config: Config) -> Self {
        let mut h = Harness::new(config);
        h.sup.handle_connected(h.now);
        h.drain();
        let get_targets = h.last_sent("Target.getTargets").id;
        h.recv(&format!(
            r#"{{"id":{get_targets},"result":{{"targetInfos":[{{"targetId":"UI","type":"browser_ui","url":"chrome://x"}},{{"targetId":"{PAGE}","type":"page","url":"about:blank"}}]}}}}"#
        ));
        let attach = h.last_sent("Target.attachToTarget");
        assert!(attach.json.contains(PAGE));
        h.recv(&format!(
            r#"{{"id":{},"result":{{"sessionId":"{PS}"}}}}"#,
            attach.id
        ));
        let enable = h.last_sent("Page.enable").id;
        h.recv(&format!(
            r#"{{"id":{enable},"result":{{}},"sessionId":"{PS}"}}"#
        ));
        h.event(PS, "Page.frameNavigated", &format!(
            r#"{{"frame":{{"id":"{PAGE}","url":"http://a.test/","securityOrigin":"http://a.test"}},"type":"Navigation"}}"#
        ));
        h
    }

    pub fn drain(&mut self) {
        while let Some(t) = self.sup.poll_transmit() {
            self.sent.push(t);
        }
        while let Some(e) = self.sup.poll_event() {
            if let Event::Diff(d) = &e {
                self.mirror.apply(d);
            }
            self.events.push(e);
        }
    }

    pub fn recv(&mut self, text: &str) {
        self.sup
            .handle_message(self.now, text)
            .unwrap_or_else(|e| panic!("message refused: {e}\n{text}"));
        self.drain();
    }

    pub fn recv_any(&mut self, text: &str) -> Result<(), cdp_supervisor::InputError> {
        let r = self.sup.handle_message(self.now, text);
        self.drain();
        r
    }

    pub fn event(&mut self, session: &str, method: &str, params: &str) {
        self.recv(&format!(
            r#"{{"method":"{method}","params":{params},"sessionId":"{session}"}}"#
        ));
    }

    pub fn reply(&mut self, id: u64, result: &str) {
        self.recv(&format!(r#"{{"id":{id},"result":{result}}}"#));
    }

    pub fn reply_error(&mut self, id: u64, code: i64, message: &str) {
        self.recv(&format!(
            r#"{{"id":{id},"error":{{"code":{code},"message":"{message}"}}}}"#
        ));
    }

    /// Advances simulated time and fires what is due.
    pub fn advance(&mut self, secs: f64) {
        let target = self.now + secs;
        while let Some(due) = self.sup.poll_timeout() {
            if due > target {
                break;
            }
            self.now = due.max(self.now);
            self.sup.handle_timeout(self.now);
            self.drain();
        }
        self.now = target;
        self.sup.handle_timeout(self.now);
        self.drain();
    }

    pub fn last_sent(&self, method: &str) -> &OutgoingCommand {
        self.sent
            .iter()
            .rev()
            .find(|c| c.method == method)
            .unwrap_or_else(|| {
                panic!(
                    "{method} was never sent; sent: {:?}",
                    self.sent.iter().map(|c| &c.method).collect::<Vec<_>>()
                )
            })
    }

    pub fn sent_on(&self, session: &str) -> Vec<&str> {
        self.sent
            .iter()
            .filter(|c| c.session_id.as_deref() == Some(session))
            .map(|c| c.method.as_str())
            .collect()
    }

    /// The commands sent with `method`, in order.
    pub fn sent_with(&self, method: &str) -> Vec<&OutgoingCommand> {
        self.sent.iter().filter(|c| c.method == method).collect()
    }

    /// The outcomes reported for command `id` (exactly one when it ended).
    pub fn finished(
        &self,
        id: cdp_supervisor::CommandId,
    ) -> Vec<Result<String, cdp_supervisor::CommandError>> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::CommandFinished { id: i, outcome } if *i == id => Some(outcome.clone()),
                _ => None,
            })
            .collect()
    }

    /// The outcomes reported for dialog answer `id` (exactly one when it ended).
    pub fn answered(
        &self,
        id: cdp_supervisor::CommandId,
    ) -> Vec<Result<cdp_supervisor::ClosedDialog, cdp_supervisor::DialogError>> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::DialogAnswered { id: i, outcome } if *i == id => Some(outcome.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    pub fn snapshot(&self) -> Snapshot {
        let s = self.sup.snapshot();
        assert_eq!(
            self.mirror.snapshot(),
            s,
            "folding the diffs gives the snapshot"
        );
        s
    }

    /// Attaches an OOPIF child session `session` for frame `frame` under `parent_frame`,
    /// announced on `parent_session`.
    pub fn attach_oopif(
        &mut self,
        parent_session: &str,
        session: &str,
        frame: &str,
        parent_frame: &str,
    ) {
        self.event(parent_session, "Target.attachedToTarget", &format!(
            r#"{{"sessionId":"{session}","targetInfo":{{"targetId":"{frame}","type":"iframe","url":"","parentFrameId":"{parent_frame}"}},"waitingForDebugger":true}}"#
        ));
    }

    pub fn frame_attached(&mut self, session: &str, frame: &str, parent: &str) {
        self.event(
            session,
            "Page.frameAttached",
            &format!(r#"{{"frameId":"{frame}","parentFrameId":"{parent}"}}"#),
        );
    }

    pub fn frame_navigated(&mut self, session: &str, frame: &str, parent: Option<&str>, url: &str) {
        let parent = parent
            .map(|p| format!(r#","parentId":"{p}""#))
            .unwrap_or_default();
        self.event(session, "Page.frameNavigated", &format!(
            r#"{{"frame":{{"id":"{frame}"{parent},"url":"{url}","securityOrigin":"{url}"}},"type":"Navigation"}}"#
        ));
    }

    pub fn dialog_opening(&mut self, frame: &str, kind: &str, message: &str) {
        self.event(PS, "Page.javascriptDialogOpening", &format!(
            r#"{{"url":"http://a.test/","frameId":"{frame}","message":"{message}","type":"{kind}","hasBrowserHandler":false,"defaultPrompt":"def"}}"#
        ));
    }

    pub fn dialog_closed(&mut self, frame: &str, result: bool) {
        self.event(
            PS,
            "Page.javascriptDialogClosed",
            &format!(r#"{{"frameId":"{frame}","result":{result},"userInput":""}}"#),
        );
    }
}
