//! Targets and frames coming and going: the rules that span the tab, the dialogs and the
//! flows, applied with every component borrowed (see [`Cascade`]). The supervisor's
//! dispatcher hands each target or frame event here.

use crate::cascade::{Cascade, Removal};
use crate::cdp;
use crate::error::{InputError, SessionGoneReason};
use crate::flow::attach::{AttachFlow, ATTACH};
use crate::flow::{AnyFlow, FlowCtx, FlowStatus};
use crate::session::TargetKind;
use crate::snapshot::FrameInfo;
use crate::tab::{Owner, PagePhase};

impl Cascade<'_> {
    // ---- targets ---------------------------------------------------------------------

    /// A child target attached under `parent` (the browser-level event of the page itself
    /// is the attach flow's).
    pub fn on_attached_to_target(
        &mut self,
        parent: Option<&str>,
        ev: &cdp::AttachedToTarget<'_>,
    ) -> Result<(), InputError> {
        let Some(parent) = parent else {
            return Ok(()); // the page's own, at browser level: the attach flow's
        };
        let tracked = self.with_attach(|flow, ctx| flow.track_child(ctx, parent, ev));
        let tracked = tracked.unwrap_or(Ok(None))?;
        let Some(child) = tracked else {
            return Ok(());
        };
        let iframe = child.kind == TargetKind::Iframe;
        if iframe {
            let frame_id = ev.target_info.target_id.as_ref();
            let parent_frame = ev.target_info.parent_frame_id.as_deref();
            let url = ev.target_info.url.as_deref().unwrap_or("");
            let room = self.make_room(frame_id);
            let (out, session) = (&mut *self.out, ev.session_id.as_ref());
            self.tab
                .frame_became_oopif(out, frame_id, session, parent_frame, url, room);
        }
        self.with_attach(|flow, ctx| flow.start_child(ctx, &ev.session_id, iframe, child.waiting));
        Ok(())
    }

    /// `Target.detachedFromTarget` (or `Inspector.detached`) for a tracked session.
    pub fn on_detached_from_target(&mut self, session_id: &str) {
        if !self.tab.sessions.contains(session_id) {
            return;
        }
        if self.tab.page_session() == Some(session_id) {
            self.on_page_gone();
            return;
        }
        // An OOPIF whose session goes while its frame stays went back in-process: keep the
        // frame, owned by the parent's session, and drop what its old document held.
        if let Some((frame_id, parent)) = self.tab.oopif_going_in_process(session_id) {
            let old_children = self.tab.frames.descendants(&frame_id);
            self.remove(Removal::Frames(old_children));
            let owner = Some(Owner::Parent(&parent));
            self.tab.change_frame(self.out, &frame_id, |_| {}, owner);
        }
        let gone = self.tab.sessions.self_and_descendants(session_id);
        self.remove(Removal::Sessions(gone, SessionGoneReason::Detached));
    }

    /// The page session itself went away.
    pub fn on_page_gone(&mut self) {
        let all = self.tab.session_ids();
        self.fail_on_sessions(&all, SessionGoneReason::Detached);
        self.clear_tab();
        self.tab.set_phase(PagePhase::Detached);
    }

    /// Closes pending dialogs `remote`, removes every frame and session.
    pub fn clear_tab(&mut self) {
        self.dialogs.close_all(self.out);
        self.tab.clear(self.out);
    }

    /// A target crashed: its commands fail, its dialogs are given up.
    pub fn on_crashed(&mut self, session_id: &str) {
        let is_page = self.tab.mark_crashed(self.out, session_id);
        // Commands on a crashed session are never answered.
        let sessions = vec![session_id.to_owned()];
        self.fail_on_sessions(&sessions, SessionGoneReason::Crashed);
        let view = self.tab.view();
        if is_page {
            // Every dialog of the tab is over; a bridge request paused on an OOPIF session
            // whose renderer lives on still gets its one answer.
            self.dialogs.give_up_all(self.out, view);
        } else {
            let frames = self.tab.frames.owned_by(&sessions);
            self.dialogs.give_up_of_frames(self.out, view, &frames);
            // The crashed OOPIF's document went with its renderer: what was below it is
            // gone (Chromium reports the OOPIFs among it, not its in-process frames). The
            // frame itself stays, marked crashed, until it navigates again.
            if let Some(frame_id) = self.tab.crashed_oopif_of(session_id) {
                let below = self.tab.frames.descendants(&frame_id);
                self.remove(Removal::Frames(below));
            }
        }
    }

    // ---- frames ----------------------------------------------------------------------

    pub fn on_frame_attached(&mut self, session: &str, frame_id: &str, parent_id: &str) {
        if frame_id != parent_id {
            let room = self.make_room(frame_id);
            let out = &mut *self.out;
            self.tab
                .frame_attached(out, session, frame_id, parent_id, room);
        }
    }

    /// `frameNavigated` (`navigated` true) or a `getFrameTree` node: add or update the
    /// frame. A navigation drops the frame's old descendants first (Chromium reports no
    /// removal for them) and gives up its bridge dialogs (Chromium sends no close for them).
    pub fn upsert_frame(
        &mut self,
        session: &str,
        info: FrameInfo,
        own_root: bool,
        navigated: bool,
    ) {
        let id = info.frame_id.clone();
        if navigated && self.tab.frames.get(&id).is_some() {
            let old_children = self.tab.frames.descendants(&id);
            self.remove(Removal::Frames(old_children));
            let (out, view) = (&mut *self.out, self.tab.view());
            self.dialogs
                .give_up_bridge_of_frames(out, view, std::slice::from_ref(&id));
        }
        let room = self.make_room(&id);
        let out = &mut *self.out;
        self.tab
            .upsert_frame(out, session, info, own_root, navigated, room);
    }

    /// The frames a `Page.getFrameTree` reply listed, read by the attach flow.
    pub fn apply_seeded_frames(&mut self) {
        let Some(AnyFlow::Attach(flow)) = self.flows.get_mut(ATTACH) else {
            return;
        };
        for seeded in std::mem::take(&mut flow.seeded) {
            for info in seeded.frames {
                let own_root = info.is_oopif;
                self.upsert_frame(&seeded.session, info, own_root, false);
            }
        }
    }

    /// Gives up the bridge dialogs of `frame_id` and every frame below it (it is about to
    /// navigate or go away): their requests are answered while the sessions still exist.
    pub fn give_up_bridge_dialogs_in_subtree(&mut self, frame_id: &str) {
        if self.dialogs.has_bridge_dialogs() {
            let frames = self.tab.subtree(frame_id);
            self.dialogs
                .give_up_bridge_of_frames(self.out, self.tab.view(), &frames);
        }
    }

    /// Runs `f` on the attach flow (which runs for the supervisor's life).
    pub fn with_attach<R>(
        &mut self,
        f: impl FnOnce(&mut AttachFlow, &mut FlowCtx<'_>) -> R,
    ) -> Option<R> {
        let mut r = None;
        self.with_flow(ATTACH, |flow, ctx| {
            if let AnyFlow::Attach(attach) = flow {
                r = Some(f(attach, ctx));
            }
            FlowStatus::Running
        });
        r
    }
}
