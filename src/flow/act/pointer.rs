//! `hover` and `drag`: the mouse as a person moves it, on the page session in top-level
//! CSS pixels (Chromium routes it into OOPIFs by hit testing); an element is turned into
//! its point the way `click` does it.
//!
//! - `hover`: one `mouseMoved` at the point.
//! - `drag`: the end is located after the start (when both are elements); then
//!   `mouseMoved` to the start, `mousePressed` there, [`DRAG_STEPS`] `mouseMoved` along the
//!   line with the left button held (`buttons: 1`), `mouseReleased` at the end, each sent
//!   when the one before answered (a burst would be coalesced by the renderer into fewer
//!   moves than a sortable list needs). Chromium runs HTML5 drag and drop from these
//!   events by itself (`dragstart`, `dragenter`, `dragover`, `drop`, `dragend`), so no
//!   drag interception is needed (manual: Chromium facts, "HTML5 drag and drop from mouse
//!   events"); without `buttons: 1` on the moves, no drag starts at all.

use serde_json::{json, Value};

use super::{step, ActFlow, Phase};
use crate::act::{Action, Point, Target};
use crate::flow::{FlowCtx, FlowStatus};

/// Moves between a drag's press and its release.
pub(crate) const DRAG_STEPS: usize = 8;

/// A drag's progress: its start point once the end is being located, and the moves not
/// sent yet.
#[derive(Debug, Default)]
pub(crate) struct Drag {
    /// Where it starts (known once the end is being located).
    from: Option<Point>,
    /// Input commands still to send, each after the one before answered.
    queued: std::collections::VecDeque<Value>,
}

/// The point of `target` when it is one.
fn point_of(target: &Target) -> Option<Point> {
    match target {
        Target::Point { x, y } => Some(Point { x: *x, y: *y }),
        _ => None,
    }
}

impl ActFlow {
    /// Whether the action needs its first target located before the input.
    pub(super) fn needs_point(&self) -> bool {
        self.node.is_some()
            && matches!(
                self.action,
                Action::Click { .. } | Action::Hover { .. } | Action::Drag { .. }
            )
    }

    /// `hover`: the mouse moved to the point.
    pub(super) fn hover_input(&mut self) -> Vec<Value> {
        let at = self.located(match &self.action {
            Action::Hover { target } => point_of(target),
            _ => None,
        });
        self.result.mouse = Some(at);
        vec![json!({"type": "mouseMoved", "x": at.x, "y": at.y})]
    }

    /// The point of the node just located, or `given` for a point target.
    fn located(&self, given: Option<Point>) -> Point {
        given.or(self.point).unwrap_or(Point { x: 0.0, y: 0.0 })
    }

    /// `drag`: locates its end when it is an element and not located yet (`Some`: the
    /// flow is locating), else queues the mouse events and sends the first.
    pub(super) fn drag_input(&mut self, ctx: &mut FlowCtx<'_>) -> Option<FlowStatus> {
        let (from, to) = match &self.action {
            Action::Drag { from, to } => (point_of(from), point_of(to)),
            _ => return None,
        };
        if self.drag.from.is_none() {
            self.drag.from = Some(self.located(from));
            if to.is_none() {
                // The end is an element: located like the start, then back here.
                self.node = self.extra.first().cloned();
                self.phase = Phase::Locate;
                return Some(self.locate(ctx));
            }
        }
        let start = self.drag.from.unwrap_or(Point { x: 0.0, y: 0.0 });
        let end = self.located(to);
        self.result.mouse = Some(end);
        let held = |kind: &str, at: Point| json!({"type": kind, "x": at.x, "y": at.y, "button": "left", "buttons": 1, "clickCount": 1});
        let mut events = vec![
            json!({"type": "mouseMoved", "x": start.x, "y": start.y}),
            held("mousePressed", start),
        ];
        for i in 1..=DRAG_STEPS {
            let f = i as f64 / DRAG_STEPS as f64;
            let at = Point {
                x: start.x + (end.x - start.x) * f,
                y: start.y + (end.y - start.y) * f,
            };
            events.push(held("mouseMoved", at));
        }
        events.push(json!({"type": "mouseReleased", "x": end.x, "y": end.y, "button": "left", "buttons": 0, "clickCount": 1}));
        self.inputs_pending = events.len();
        self.drag.queued = events.into();
        self.send_queued(ctx);
        Some(FlowStatus::Running)
    }

    /// Sends the next queued mouse event, if any; whether one was sent.
    pub(super) fn send_queued(&mut self, ctx: &mut FlowCtx<'_>) -> bool {
        let Some(event) = self.drag.queued.pop_front() else {
            return false;
        };
        let page = self.page_session.clone();
        self.send(ctx, &page, "Input.dispatchMouseEvent", event, step::INPUT);
        true
    }
}

impl ActFlow {
    /// Step 3 for the form and pointer actions (`None`: another action).
    pub(super) fn form_or_pointer_input(&mut self, ctx: &mut FlowCtx<'_>) -> Option<FlowStatus> {
        match self.action {
            Action::Select { .. } | Action::Fill { .. } => Some(self.fields_next(ctx)),
            Action::Drag { .. } => self.drag_input(ctx),
            Action::Hover { .. } => {
                let events = self.hover_input();
                self.inputs_pending = events.len();
                let page = self.page_session.clone();
                for e in events {
                    self.send(ctx, &page, "Input.dispatchMouseEvent", e, step::INPUT);
                }
                Some(FlowStatus::Running)
            }
            _ => None,
        }
    }
}
