//! Raw bytes as CDP messages. The input is split on `\n`; each piece is one WebSocket text
//! frame for `handle_message` (invalid UTF-8 replaced), except control lines: `\x01` + a
//! byte advances time by byte/2 s (firing due deadlines), `\x02` disconnects, `\x03`
//! connects, and three that reach the browser layer (SPEC §16) without guessing its JSON:
//! `\x04` + a byte attaches a page at browser level (a popup of a listed tab, or a tab
//! opened by hand: paused or not, same-site or cross-site, able to reach its opener or not;
//! target `T<n>` on session `S-T<n>`), set up and navigated; `\x05` + a byte closes a
//! listed tab (browser-level `detachedFromTarget` and/or `targetDestroyed`); `\x06` + two
//! bytes makes one of the embedder's tab calls (select, new, close, a command, an evaluate,
//! a recover or a dialog answer naming a tab). The supervisor is first brought to an
//! attached state by a realistic preamble (page `PAGE` on session `S-PAGE`, top frame
//! navigated), so messages naming that session reach the handlers. At the end: tables
//! within their caps, the tab table's rules, and folding the diffs gives the snapshot
//! (SPEC §3).
#![no_main]

use std::time::Duration;

use cdp_supervisor::{
    Answer, Config, DialogAction, Evaluation, Event, Mirror, Supervisor, MAX_PENDING_DIALOGS,
};
use libfuzzer_sys::fuzz_target;

const PAGE: &str = "PAGE";
const PS: &str = "S-PAGE";
const MAX_TABS: usize = 4;

fn config() -> Config {
    let mut config = Config::default();
    config.max_frames = 20;
    config.max_sessions = 8;
    config.max_commands_in_flight = 8;
    config.max_tabs = MAX_TABS;
    config.dialog_timeout = Duration::from_secs(60);
    config
}

struct Run {
    sup: Supervisor,
    mirror: Mirror,
    now: f64,
    /// The last few commands sent, so the preamble can answer them by method.
    sent: Vec<cdp_supervisor::OutgoingCommand>,
    /// Pages attached by `\x04` so far (numbers their ids).
    pages: u32,
    /// The browser context the next attached page names, if any.
    next_context: Option<String>,
}

impl Run {
    fn drain(&mut self) {
        while let Some(cmd) = self.sup.poll_transmit() {
            if self.sent.len() >= 64 {
                self.sent.remove(0);
            }
            self.sent.push(cmd);
        }
        while let Some(ev) = self.sup.poll_event() {
            if let Event::Diff(d) = &ev {
                self.mirror.apply(d);
            }
        }
        let t = self.sup.table_sizes();
        let c = self.sup.config();
        // Frames, sessions, pending dialogs and console errors are bounded per tab.
        let tabs = self.sup.tabs();
        let n = tabs.len().max(1);
        assert!(tabs.len() <= c.max_tabs, "{} tabs", tabs.len());
        assert!(tabs.iter().filter(|t| t.current).count() <= 1, "{tabs:?}");
        assert!(t.frames <= c.max_frames * n, "{t:?}");
        assert!(t.sessions <= c.max_sessions * n, "{t:?}");
        assert!(t.pending_dialogs <= MAX_PENDING_DIALOGS * n, "{t:?}");
        assert!(
            t.recent_dialogs <= 20 && t.console_errors <= 50 * n,
            "{t:?}"
        );
    }

    fn recv(&mut self, text: &str) {
        let _ = self.sup.handle_message(self.now, text);
        self.drain();
    }

    fn reply_to(&mut self, method: &str, session: Option<&str>, result: &str) {
        let cmd = self.sent.iter().rev().find(|c| {
            c.method == method && c.session_id.as_deref() == session.or(c.session_id.as_deref())
        });
        if let Some(cmd) = cmd {
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

    /// A listed tab's id by `pick` (one pick in eight: an id nobody listed).
    fn tab_id(&self, pick: u8) -> Option<String> {
        let tabs = self.sup.tabs();
        if pick % 8 == 7 || tabs.is_empty() {
            return Some("T-unknown".into());
        }
        if pick % 8 == 6 {
            return None; // the current tab
        }
        Some(tabs[pick as usize % tabs.len()].tab_id.clone())
    }

    /// Fact 23, 24: a page attached at browser level, paused (bit 0) or not, opened by a
    /// listed tab (bit 1; else by hand), able to reach it (bit 2), cross-site (bit 3);
    /// then its `Page.enable` answered (bit 4) and its first navigation.
    fn attach_page(&mut self, b: u8) {
        self.pages += 1;
        let n = self.pages;
        let (target, session) = (format!("T{n}"), format!("S-T{n}"));
        let opener = (b & 2 != 0)
            .then(|| self.tab_id(b >> 5))
            .flatten()
            .map(|o| format!(r#","openerId":"{o}""#))
            .unwrap_or_default();
        let (waiting, access) = (b & 1 != 0, b & 4 != 0);
        let context = self
            .next_context
            .take()
            .map(|c| format!(r#","browserContextId":"{c}""#))
            .unwrap_or_default();
        self.recv(&format!(
            r#"{{"method":"Target.attachedToTarget","params":{{"sessionId":"{session}","targetInfo":{{"targetId":"{target}","type":"page","title":"","url":"","attached":true,"canAccessOpener":{access}{opener}{context}}},"waitingForDebugger":{waiting}}}}}"#
        ));
        if b & 16 != 0 {
            self.reply_to("Page.enable", Some(&session), "{}");
        }
        let host = if b & 8 != 0 { "b.test" } else { "a.test" };
        self.recv(&format!(
            r#"{{"method":"Page.frameNavigated","params":{{"frame":{{"id":"{target}","url":"http://{host}/{n}","securityOrigin":"http://{host}"}},"type":"Navigation"}},"sessionId":"{session}"}}"#
        ));
        self.recv(&format!(
            r#"{{"method":"Target.targetInfoChanged","params":{{"targetInfo":{{"targetId":"{target}","type":"page","title":"{host}/{n}","url":"http://{host}/{n}","attached":true,"canAccessOpener":{access}{opener}}}}}}}"#
        ));
    }

    /// A listed tab closes (trace `tabs-d-closing`): `detachedFromTarget` of its page
    /// session (bit 0 clear), `targetDestroyed` (bit 1 clear).
    fn close_tab(&mut self, b: u8) {
        let tabs = self.sup.tabs();
        if tabs.is_empty() {
            return;
        }
        let target = tabs[(b >> 2) as usize % tabs.len()].tab_id.clone();
        let session = if target == PAGE {
            PS.to_owned()
        } else {
            format!("S-{target}")
        };
        if b & 1 == 0 {
            self.recv(&format!(
                r#"{{"method":"Target.detachedFromTarget","params":{{"sessionId":"{session}","targetId":"{target}"}}}}"#
            ));
        }
        if b & 2 == 0 {
            self.recv(&format!(
                r#"{{"method":"Target.targetDestroyed","params":{{"targetId":"{target}"}}}}"#
            ));
        }
    }

    /// A browser-context call, `which` by `a`: a tab opened in the default context; a
    /// context created; a tab opened in a context (a known one, else an unknown id) and
    /// attached in it; a context disposed (its answer `{}`, or Chromium's refusal by `b`).
    fn context_call(&mut self, a: u8, b: u8) {
        let now = self.now;
        let known = |run: &Run| {
            let tabs = run.sup.tabs();
            let of_tab = tabs.iter().find_map(|t| t.browser_context_id.clone());
            run.sup.contexts().first().map(|c| c.to_string()).or(of_tab)
        };
        match a & 3 {
            0 => {
                let _ = self.sup.new_tab(now, "http://c.test/");
            }
            1 => {
                let _ = self.sup.create_context(now);
                self.drain();
                let n = self.pages;
                let result = format!(r#"{{"browserContextId":"C{n}-{b}"}}"#);
                self.reply_to("Target.createBrowserContext", None, &result);
            }
            2 => {
                let context = known(self).unwrap_or_else(|| "C-unknown".into());
                if self.sup.new_tab_in_context(now, "about:blank", Some(&context)).is_ok() {
                    self.drain();
                    let n = self.pages + 1;
                    let result = format!(r#"{{"targetId":"T{n}"}}"#);
                    self.next_context = Some(context);
                    self.attach_page(b);
                    self.reply_to("Target.createTarget", None, &result);
                }
            }
            _ => {
                let context = known(self).unwrap_or_else(|| "C-unknown".into());
                if self.sup.dispose_context(now, &context).is_ok() {
                    self.drain();
                    let cmd = self
                        .sent
                        .iter()
                        .rev()
                        .find(|c| c.method == "Target.disposeBrowserContext");
                    let id = cmd.map(|c| c.id).unwrap_or_default();
                    let text = if b & 1 == 0 {
                        format!(r#"{{"id":{id},"result":{{}}}}"#)
                    } else {
                        format!(
                            r#"{{"id":{id},"error":{{"code":-32000,"message":"Failed to find context with id {context}"}}}}"#
                        )
                    };
                    self.recv(&text);
                    // Either way nothing of the context is left.
                    let left = self.sup.tabs();
                    let left = left.iter().filter(|t| t.browser_context_id.as_deref() == Some(&context));
                    assert_eq!(left.count(), 0, "a tab of disposed context {context} is left");
                    assert!(!self.sup.contexts().contains(&context.as_str()));
                }
            }
        }
    }

    /// One of the embedder's tab calls (SPEC §16), `which` by `a`, its tab by `b`.
    fn tab_call(&mut self, a: u8, b: u8) {
        let now = self.now;
        let tab = self.tab_id(b);
        let tab = tab.as_deref();
        match a % 8 {
            0 => {
                if let Some(t) = tab {
                    let _ = self.sup.select_tab(now, t);
                }
            }
            1 => self.context_call(a >> 3, b),
            2 => {
                let _ = self.sup.close_tab(now, tab, a & 8 != 0);
            }
            3 => {
                let _ = self.sup.command_in(
                    now,
                    tab,
                    None,
                    "Runtime.evaluate",
                    None,
                    Duration::from_secs(5),
                );
            }
            4 => {
                let _ = self.sup.evaluate_in(now, tab, &Evaluation::new("1"));
            }
            5 => {
                let _ = self.sup.recover_in(now, tab);
            }
            6 => {
                let action = if a & 8 != 0 {
                    DialogAction::Accept
                } else {
                    DialogAction::Dismiss
                };
                let _ = self
                    .sup
                    .respond_dialog_in(now, tab, Answer::new(action, None), None);
            }
            _ => {
                // A `Target.createTarget` answered: the new tab is selected once it attaches.
                let _ = self.sup.new_tab(now, "about:blank");
                self.drain();
                let n = self.pages + 1;
                self.reply_to(
                    "Target.createTarget",
                    None,
                    &format!(r#"{{"targetId":"T{n}"}}"#),
                );
                self.attach_page(1);
            }
        }
        self.drain();
    }
}

fuzz_target!(|data: &[u8]| {
    let mut run = Run {
        sup: Supervisor::new(config()),
        mirror: Mirror::default(),
        now: 1000.0,
        sent: Vec::new(),
        pages: 0,
        next_context: None,
    };
    // Preamble (fact 1): targets listed, page attached, Page.enable answered, top navigated.
    run.sup.handle_connected(run.now);
    run.drain();
    run.reply_to(
        "Target.getTargets",
        None,
        &format!(
            r#"{{"targetInfos":[{{"targetId":"{PAGE}","type":"page","url":"about:blank"}}]}}"#
        ),
    );
    run.reply_to(
        "Target.attachToTarget",
        None,
        &format!(r#"{{"sessionId":"{PS}"}}"#),
    );
    run.reply_to("Page.enable", Some(PS), "{}");
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
            [4, b, ..] => run.attach_page(*b),
            [5, b, ..] => run.close_tab(*b),
            [6, a, b, ..] => run.tab_call(*a, *b),
            _ => {
                let text = String::from_utf8_lossy(line);
                run.recv(&text);
            }
        }
        run.now += 0.001;
    }
    run.advance(1000.0);
    let snapshot = run.sup.snapshot();
    let listed: Vec<&str> = snapshot.tabs.iter().map(|t| t.tab_id.as_str()).collect();
    for d in &snapshot.pending_dialogs {
        assert!(
            d.tab_id.as_deref().is_some_and(|t| listed.contains(&t)),
            "pending dialog {} of a tab not listed: {listed:?}",
            d.id
        );
    }
    if !snapshot.tabs.is_empty() {
        assert_eq!(
            snapshot.tabs.iter().filter(|t| t.current).count(),
            1,
            "one current tab"
        );
    }
    assert_eq!(
        run.mirror.snapshot(),
        snapshot,
        "folding the diffs gives the snapshot"
    );
});
