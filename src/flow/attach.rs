//! The attach flow: from an open connection to a supervised tab, and every child session
//! set up on the way (see [`crate::manual::chromium_facts`], attaching).
//!
//! 1. The browser picks the page (`Target.getTargets` at connect) or its auto-attach
//!    hands one over (a popup, a new tab: its session, paused).
//! 2. `Target.attachToTarget {flatten: true}` for a page picked; the session is known from
//!    its reply or from the browser-level `Target.attachedToTarget`, whichever comes
//!    first. A page handed over is resumed last, after step 3.
//! 3. On the page session, pipelined: `Page.enable` (its own deadline: no reply within
//!    `enable_timeout` reports the page blocked), `Runtime.enable`, `Page.getFrameTree`
//!    (seeds the frames of a loaded page), `Network.enable` (small buffers; the tab's
//!    request ring), `Target.setAutoAttach`,
//!    `Page.setInterceptFileChooserDialog`, and the bridge set-up.
//! 4. Each child (OOPIF) session gets the same set-up, then
//!    `Runtime.runIfWaitingForDebugger` last; workers only the resume; service workers
//!    the resume and a detach.
//!
//! The flow runs for the tab's life: a reconnect starts again at step 1.

use serde_json::value::RawValue;

use super::{FlowCtx, FlowId, FlowStatus, FlowTag, Reply};
use crate::bridge;
use crate::cdp::{self, CdpEvent};
use crate::command::{InFlight, Purpose};
use crate::error::{CommandError, InputError};
use crate::event::Warning;
use crate::session::TargetKind;
use crate::snapshot::FrameInfo;
use crate::tab::{EnableState, PagePhase, PageTrack};
use crate::wire::parse;
use crate::wire::to_raw;

/// The attach flow's id (a singleton).
pub(crate) const ATTACH: FlowId = FlowId(1);

/// What each of the flow's commands is for.
mod step {
    pub const ATTACH_PAGE: u16 = 1;
    pub const PAGE_ENABLE: u16 = 2;
    pub const FRAME_TREE: u16 = 3;
    /// A set-up command whose failure is worth a warning.
    pub const SETUP: u16 = 4;
    /// A set-up command whose failure is expected at times (the bridge's first evaluate).
    pub const QUIET: u16 = 5;
}

/// Frames a `Page.getFrameTree` reply listed, for the supervisor to add: adding a frame may
/// evict others under the bound, which only the supervisor may apply.
#[derive(Debug)]
pub(crate) struct SeededFrames {
    pub session: String,
    pub frames: Vec<FrameInfo>,
}

/// A child session the supervisor now tracks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TrackedChild {
    pub kind: TargetKind,
    /// It waits for `Runtime.runIfWaitingForDebugger`.
    pub waiting: bool,
}

/// The attach flow's state.
#[derive(Debug, Default)]
pub(crate) struct AttachFlow {
    /// When the page session's `Page.enable` is overdue (its own deadline).
    enable_deadline: Option<f64>,
    /// Frame trees read, not yet applied by the supervisor.
    pub seeded: Vec<SeededFrames>,
}

fn tag(step: u16) -> Purpose {
    Purpose::Flow(FlowTag { flow: ATTACH, step })
}

impl AttachFlow {
    /// Attaches to the tab's target: `Target.attachToTarget {flatten: true}`; the session
    /// is known from its reply or from the browser-level `Target.attachedToTarget`,
    /// whichever comes first (the first tab at connect, the current tab after a
    /// reconnect).
    pub fn attach_target(&mut self, ctx: &mut FlowCtx<'_>, target_id: &str, url: &str) {
        ctx.tab.set_page(PageTrack::attaching(target_id, url));
        let params = to_raw(&cdp::AttachToTargetParams {
            target_id,
            flatten: true,
        });
        let t = ctx.config.setup_timeout;
        ctx.out.send(
            None,
            "Target.attachToTarget",
            params.as_deref(),
            tag(step::ATTACH_PAGE),
            t,
        );
    }

    /// A page session the browser's auto-attach gave: set it up, then resume it last when
    /// it waits (a popup paused before its first script; see
    /// [`crate::manual::chromium_facts`], tabs).
    pub fn adopt_page(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        target_id: &str,
        url: &str,
        session_id: &str,
        waiting: bool,
    ) {
        ctx.tab.set_page(PageTrack::attaching(target_id, url));
        self.on_page_attached(ctx, session_id);
        self.resume_if_waiting(ctx, session_id, waiting);
    }

    /// The browser-level `Target.attachedToTarget` of the page we asked for.
    pub fn page_session_known(&mut self, ctx: &mut FlowCtx<'_>, session_id: &str) {
        self.on_page_attached(ctx, session_id);
    }

    pub fn deadline(&self) -> Option<f64> {
        self.enable_deadline
    }

    /// `Page.enable` got no reply in time: the page is reported blocked until it answers
    /// (the reply may still come after a recovery, so the command stays in flight).
    pub fn on_timeout(&mut self, ctx: &mut FlowCtx<'_>, now: f64) -> FlowStatus {
        if self.enable_deadline.is_some_and(|d| d <= now) {
            self.enable_deadline = None;
            if let Some(p) = ctx.tab.page_mut() {
                if p.enable == EnableState::Pending {
                    p.enable = EnableState::Overdue;
                }
            }
        }
        FlowStatus::Running
    }

    pub fn on_reply(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        step: u16,
        cmd: &InFlight,
        reply: Reply<'_>,
    ) -> Result<FlowStatus, InputError> {
        match (step, reply) {
            (step::ATTACH_PAGE, Ok(r)) => {
                let res: cdp::AttachToTargetResult<'_> = parse("Target.attachToTarget", r)?;
                self.on_page_attached(ctx, &res.session_id);
            }
            (step::ATTACH_PAGE, Err(e)) => {
                ctx.out.warn(Warning::SetupFailed {
                    method: cmd.method.clone(),
                    session_id: None,
                    message: e.message,
                });
                if let Some(p) = ctx.tab.page_mut() {
                    p.phase = PagePhase::Detached;
                }
            }
            (step::PAGE_ENABLE, _) => {
                let current = ctx
                    .tab
                    .page_mut()
                    .filter(|p| p.session_id == cmd.session_id);
                if let Some(p) = current {
                    p.enable = EnableState::Done;
                    self.enable_deadline = None;
                }
            }
            (step::FRAME_TREE, Ok(r)) => {
                if let Some(session) = cmd.session_id.as_deref() {
                    self.on_frame_tree(ctx, session, r)?;
                }
            }
            (step::QUIET, _) => {}
            (_, Ok(_)) => {}
            (_, Err(e)) => ctx.out.warn(Warning::SetupFailed {
                method: cmd.method.clone(),
                session_id: cmd.session_id.clone(),
                message: e.message,
            }),
        }
        Ok(FlowStatus::Running)
    }

    /// A set-up command that ended without a reply. One whose session or connection went
    /// is moot, not news.
    pub fn on_failed(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        step: u16,
        cmd: InFlight,
        error: CommandError,
    ) -> FlowStatus {
        if step == step::PAGE_ENABLE && ctx.tab.page_session() == cmd.session_id.as_deref() {
            self.enable_deadline = None;
        }
        let moot = matches!(
            error,
            CommandError::Disconnected { .. } | CommandError::SessionGone { .. }
        );
        if step != step::QUIET && !moot {
            ctx.out.warn(Warning::SetupCommand { error });
        }
        FlowStatus::Running
    }

    /// The browser-level events are the browser's (see [`crate::Supervisor`]).
    pub fn on_event(
        &mut self,
        _ctx: &mut FlowCtx<'_>,
        _session: Option<&str>,
        _event: &CdpEvent<'_>,
    ) -> FlowStatus {
        FlowStatus::Running
    }

    /// Step 3: the page session is known.
    fn on_page_attached(&mut self, ctx: &mut FlowCtx<'_>, session_id: &str) {
        let Some(page) = ctx.tab.page_mut() else {
            return;
        };
        if page.session_id.as_deref() == Some(session_id) || page.phase != PagePhase::Attaching {
            return;
        }
        page.session_id = Some(session_id.to_owned());
        page.phase = PagePhase::Attached;
        page.enable = EnableState::Pending;
        let target_id = page.target_id.clone();
        ctx.tab.add_session(
            session_id,
            &target_id,
            crate::session::TargetKind::Page,
            None,
        );
        // Its own deadline, not the command's: the reply may still come, and ends the block.
        ctx.out.send_until(
            Some(session_id),
            "Page.enable",
            None,
            tag(step::PAGE_ENABLE),
            f64::INFINITY,
        );
        self.enable_deadline = Some(ctx.out.now() + ctx.config.enable_timeout.as_secs_f64());
        self.set_up_domains(ctx, session_id);
    }

    /// Step 4 for an OOPIF's session: `Page.enable` and the page's set-up, pipelined.
    fn set_up_child(&mut self, ctx: &mut FlowCtx<'_>, session_id: &str) {
        let t = ctx.config.setup_timeout;
        ctx.out
            .send(Some(session_id), "Page.enable", None, tag(step::SETUP), t);
        self.set_up_domains(ctx, session_id);
    }

    /// `Runtime.enable`, `Page.getFrameTree`, `Target.setAutoAttach`, the file chooser
    /// interception and the bridge on a page or iframe session, pipelined without waiting
    /// for replies.
    fn set_up_domains(&mut self, ctx: &mut FlowCtx<'_>, session_id: &str) {
        let s = Some(session_id);
        let t = ctx.config.setup_timeout;
        let out = &mut *ctx.out;
        out.send(s, "Runtime.enable", None, tag(step::SETUP), t);
        if ctx.config.network {
            let params = crate::network::enable_params();
            out.send(s, "Network.enable", params.as_deref(), tag(step::SETUP), t);
        }
        out.send(s, "Page.getFrameTree", None, tag(step::FRAME_TREE), t);
        let auto_attach = to_raw(&cdp::SetAutoAttachParams {
            auto_attach: true,
            wait_for_debugger_on_start: true,
            flatten: true,
        });
        out.send(
            s,
            "Target.setAutoAttach",
            auto_attach.as_deref(),
            tag(step::SETUP),
            t,
        );
        // No chooser may wait for a person: each is reported, on this session, as a
        // pending file_chooser.
        let intercept = crate::file_chooser::intercept_params();
        out.send(
            s,
            "Page.setInterceptFileChooserDialog",
            intercept.as_deref(),
            tag(step::SETUP),
            t,
        );
        if ctx.config.permissions.is_some() {
            // Chromium says nothing when a page asks for a permission it denies: the page's
            // request is said in its console.
            let watch = crate::permissions::request_watch_params();
            out.send(
                s,
                "Page.addScriptToEvaluateOnNewDocument",
                watch.as_deref(),
                tag(step::SETUP),
                t,
            );
        }
        if let Some(source) = ctx.bridge_script {
            // For new documents, for the loaded one, and Fetch for the bridge host only,
            // all before the child is resumed.
            let add = to_raw(&cdp::AddScriptParams {
                source,
                run_immediately: true,
            });
            out.send(
                s,
                "Page.addScriptToEvaluateOnNewDocument",
                add.as_deref(),
                tag(step::SETUP),
                t,
            );
            let eval = to_raw(&cdp::EvaluateParams { expression: source });
            out.send(s, "Runtime.evaluate", eval.as_deref(), tag(step::QUIET), t);
            if ctx.config.http_auth.is_none() {
                let fetch = bridge::fetch_enable_params();
                out.send(s, "Fetch.enable", fetch.as_deref(), tag(step::SETUP), t);
            }
        }
        if ctx.config.http_auth.is_some() {
            // Every request pauses (the bridge's among them) and every sign-in challenge
            // comes as Fetch.authRequired; the dialogs' rules continue the rest at once.
            let fetch = crate::http_auth::fetch_enable_params();
            out.send(s, "Fetch.enable", fetch.as_deref(), tag(step::SETUP), t);
        }
    }

    /// A child target attached under a tracked `parent`: track it, or resume and let go of
    /// it (service workers: staying attached keeps them alive; children over the session
    /// cap). An unknown parent is an error, but the child is resumed first: never leave a
    /// frame frozen.
    pub fn track_child(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        parent: &str,
        ev: &cdp::AttachedToTarget<'_>,
    ) -> Result<Option<TrackedChild>, InputError> {
        let child = ev.session_id.as_ref();
        let waiting = ev.waiting_for_debugger;
        if ctx.tab.sessions.contains(child) {
            return Ok(None); // a repeated event: already set up
        }
        if !ctx.tab.sessions.contains(parent) {
            self.resume_if_waiting(ctx, child, waiting);
            return Err(InputError::UnknownSession {
                method: "Target.attachedToTarget".into(),
                session_id: parent.to_owned(),
            });
        }
        let kind_name = ev.target_info.kind.as_ref();
        let over_cap = ctx.tab.sessions.len() >= ctx.config.max_sessions;
        if kind_name == "service_worker" || over_cap {
            self.resume_if_waiting(ctx, child, waiting);
            self.detach_child(ctx, parent, child);
            if kind_name != "service_worker" {
                ctx.out.warn(Warning::SessionCapReached {
                    limit: ctx.config.max_sessions,
                    kind: kind_name.to_owned(),
                    target_id: ev.target_info.target_id.to_string(),
                });
            }
            return Ok(None);
        }
        let kind = TargetKind::from_cdp(kind_name);
        let target_id = ev.target_info.target_id.as_ref();
        ctx.tab.add_session(child, target_id, kind, Some(parent));
        Ok(Some(TrackedChild { kind, waiting }))
    }

    /// A tracked child's set-up (for an OOPIF), then its resume, last.
    pub fn start_child(&mut self, ctx: &mut FlowCtx<'_>, child: &str, iframe: bool, waiting: bool) {
        if iframe {
            self.set_up_child(ctx, child);
        }
        self.resume_if_waiting(ctx, child, waiting);
    }

    /// `Runtime.runIfWaitingForDebugger` on a child that waits: never leave a frame
    /// frozen, even one the supervisor cannot place.
    fn resume_if_waiting(&mut self, ctx: &mut FlowCtx<'_>, session_id: &str, waiting: bool) {
        if waiting {
            let t = ctx.config.setup_timeout;
            ctx.out.send(
                Some(session_id),
                "Runtime.runIfWaitingForDebugger",
                None,
                tag(step::SETUP),
                t,
            );
        }
    }

    /// Detaches a child the supervisor does not keep (service workers, over the cap).
    fn detach_child(&mut self, ctx: &mut FlowCtx<'_>, parent: &str, child: &str) {
        let params = to_raw(&cdp::DetachFromTargetParams { session_id: child });
        let t = ctx.config.setup_timeout;
        ctx.out.send(
            Some(parent),
            "Target.detachFromTarget",
            params.as_deref(),
            tag(step::SETUP),
            t,
        );
    }

    /// Reads a frame tree into frames for the supervisor to add. Iterative: a hostile
    /// deep tree cannot overflow the stack (serde_json already caps nesting at 128).
    fn on_frame_tree(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        session: &str,
        result: Option<&RawValue>,
    ) -> Result<(), InputError> {
        if !ctx.tab.sessions.contains(session) {
            return Ok(());
        }
        let tree: cdp::GetFrameTreeResult<'_> = parse("Page.getFrameTree", result)?;
        let mut frames = Vec::new();
        let mut stack = vec![&tree.frame_tree];
        while let Some(node) = stack.pop() {
            frames.push(ctx.tab.frame_info(session, &node.frame).0);
            for child in node.child_frames.iter().rev() {
                stack.push(child);
            }
        }
        self.seeded.push(SeededFrames {
            session: session.to_owned(),
            frames,
        });
        Ok(())
    }
}
