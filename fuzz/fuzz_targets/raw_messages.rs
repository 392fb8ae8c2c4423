//! Raw bytes as CDP messages. The input is split on `\n`; each piece is one WebSocket text
//! frame for `handle_message` (invalid UTF-8 replaced), except control lines: `\x01` + a
//! byte advances time by byte/2 s (firing due deadlines), `\x02` disconnects, `\x03`
//! connects. The supervisor is first brought to an attached state by a realistic preamble
//! (page `PAGE` on session `S-PAGE`, top frame navigated), so messages naming that session
//! reach the handlers. At the end: tables within their caps and folding the diffs gives
//! the snapshot (SPEC §3).
#![no_main]

use std::time::Duration;

use cdp_supervisor::{Config, Event, Mirror, Supervisor, MAX_PENDING_DIALOGS};
use libfuzzer_sys::fuzz_target;

const PAGE: &str = "PAGE";
const PS: &str = "S-PAGE";

fn config() -> Config {
    let mut config = Config::default();
    config.max_frames = 20;
    config.max_sessions = 8;
    config.max_commands_in_flight = 8;
    config.dialog_timeout = Duration::from_secs(60);
    config
}

struct Run {
    sup: Supervisor,
    mirror: Mirror,
    now: f64,
    /// The last few commands sent, so the preamble can answer them by method.
    sent: Vec<cdp_supervisor::OutgoingCommand>,
}

impl Run {
    fn drain(&mut self) {
        while let Some(cmd) = self.sup.poll_transmit() {
            if self.sent.len() < 64 {
                self.sent.push(cmd);
            }
        }
        while let Some(ev) = self.sup.poll_event() {
            if let Event::Diff(d) = &ev {
                self.mirror.apply(d);
            }
        }
        let t = self.sup.table_sizes();
        let c = self.sup.config();
        assert!(t.frames <= c.max_frames, "{t:?}");
        assert!(t.sessions <= c.max_sessions, "{t:?}");
        assert!(t.pending_dialogs <= MAX_PENDING_DIALOGS, "{t:?}");
        assert!(t.recent_dialogs <= 20 && t.console_errors <= 50, "{t:?}");
    }

    fn recv(&mut self, text: &str) {
        let _ = self.sup.handle_message(self.now, text);
        self.drain();
    }

    fn reply_to(&mut self, method: &str, result: &str) {
        if let Some(cmd) = self.sent.iter().rev().find(|c| c.method == method) {
            let text = format!(r#"{{"id":{},"result":{result}}}"#, cmd.id);
            self.recv(&text);
        }
    }

    fn advance(&mut self, secs: f64) {
        let target = self.now + secs;
        for _ in 0..1000 {
            match self.sup.poll_timeout() {
                Some(due) if due <= target => {
                    self.now = self.now.max(due);
                    self.sup.handle_timeout(self.now);
                    self.drain();
                }
                _ => break,
            }
        }
        self.now = target;
        self.sup.handle_timeout(self.now);
        self.drain();
    }
}

fuzz_target!(|data: &[u8]| {
    let mut run = Run {
        sup: Supervisor::new(config()),
        mirror: Mirror::default(),
        now: 1000.0,
        sent: Vec::new(),
    };
    // Preamble (fact 1): targets listed, page attached, Page.enable answered, top navigated.
    run.sup.handle_connected(run.now);
    run.drain();
    run.reply_to(
        "Target.getTargets",
        &format!(
            r#"{{"targetInfos":[{{"targetId":"{PAGE}","type":"page","url":"about:blank"}}]}}"#
        ),
    );
    run.reply_to(
        "Target.attachToTarget",
        &format!(r#"{{"sessionId":"{PS}"}}"#),
    );
    run.reply_to("Page.enable", "{}");
    run.recv(&format!(
        r#"{{"method":"Page.frameNavigated","params":{{"frame":{{"id":"{PAGE}","url":"http://a.test/","securityOrigin":"http://a.test"}}}},"sessionId":"{PS}"}}"#
    ));
    for line in data.split(|b| *b == b'\n') {
        match line {
            [1, rest @ ..] => run.advance(f64::from(rest.first().copied().unwrap_or(1)) / 2.0),
            [2] => {
                run.sup.handle_disconnected(run.now);
                run.drain();
            }
            [3] => {
                run.sup.handle_connected(run.now);
                run.drain();
            }
            _ => {
                let text = String::from_utf8_lossy(line);
                run.recv(&text);
            }
        }
        run.now += 0.001;
    }
    run.advance(1000.0);
    assert_eq!(
        run.mirror.snapshot(),
        run.sup.snapshot(),
        "folding the diffs gives the snapshot"
    );
});
