//! `select` and `fill`: form fields set in the page, one after the other, each by
//! `DOM.resolveNode {backendNodeId}` on the session that holds its frame (an OOPIF's own,
//! an in-process frame's parent's) and one `Runtime.callFunctionOn` of [`SET_FIELD`] on the
//! object, with `userGesture`.
//!
//! Why in the page and not as mouse and keys: a `<select>`'s list is drawn by the browser
//! outside the page (and not at all headless), so no click reaches an option; what a
//! person's pick does is set the selection, then fire `input` and `change`, which is what
//! the function does. A text field is set through the value setter of its own prototype
//! (frameworks that watch the property see it), then `input` and `change` fire. A
//! checkbox or radio is clicked (`click()`: the browser's activation behaviour, events and
//! all) only when its state differs, so it is set, not toggled; a page that cancels the
//! click is reported. No hit testing is involved, so a field under a styled label or in a
//! scrolled-away frame is set all the same.
//!
//! Fields are set in order; the first that refuses its value ends the action with
//! [`ActError::Field`] naming it, the fields before it set, the ones after untouched. The
//! object group is released on every session used, best effort.

use serde_json::{json, Value};

use super::{step, ActFlow, NodeAt};
use crate::act::{ActError, Action, FieldKind, Target, MAX_LISTED_OPTIONS};
use crate::error::CommandError;
use crate::flow::resolve_ref::node_gone;
use crate::flow::{FlowCtx, FlowStatus};

/// The object group the fields' objects are resolved in.
const GROUP: &str = "cdp-supervisor-fill";

/// Sets one field. `this` is the element; `kind` the declared kind or null; `values` the
/// value(s); `most` how many options an error lists. Answers `{ok: "what was done"}` or
/// `{error: "what is wrong"}`, or `{gone: true}` for a node out of its document.
const SET_FIELD: &str = r#"function (kind, values, most) {
  const el = this;
  if (!el.isConnected) return { gone: true };
  const tag = (el.localName || '').toLowerCase();
  const type = tag === 'input' ? (el.type || 'text').toLowerCase() : '';
  const actual = tag === 'select' ? 'combobox'
    : tag === 'textarea' ? 'textbox'
    : type === 'checkbox' || type === 'radio' ? type
    : type === 'range' ? 'slider'
    : ['button', 'submit', 'reset', 'image', 'file', 'hidden'].includes(type) ? null
    : tag === 'input' || el.isContentEditable ? 'textbox' : null;
  if (!actual) return { error: `<${tag}${type ? ' type=' + type : ''}> is not a field that takes a value` };
  // A declared kind only matters where the value means something else: a checkbox or
  // radio takes "true"/"false". A text input with role combobox (an autocomplete) is set
  // as the textbox it is.
  const boolean = k => k === 'checkbox' || k === 'radio';
  if (kind && boolean(kind) !== boolean(actual)) return { error: `it is a ${actual}, not a ${kind}` };
  if (el.disabled) return { error: 'it is disabled' };
  const fire = () => {
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  };
  if (actual === 'combobox') {
    const options = Array.from(el.options);
    const picked = [];
    for (const v of values) {
      const o = options.find(o => o.value === v)
        || options.find(o => o.label === v || o.text.trim() === v.trim());
      if (!o) {
        const listed = options.slice(0, most).map(o => JSON.stringify(o.label) + (o.value !== o.label ? ` (value ${JSON.stringify(o.value)})` : ''));
        const more = options.length > most ? ` and ${options.length - most} more` : '';
        return { error: `no option has the value or label ${JSON.stringify(v)}; its ${options.length} options: ${listed.join(', ')}${more}` };
      }
      if (o.disabled) return { error: `the option ${JSON.stringify(o.label)} is disabled` };
      picked.push(o);
    }
    if (picked.length > 1 && !el.multiple) return { error: `it takes one option, ${picked.length} were given` };
    el.focus();
    for (const o of options) o.selected = picked.includes(o);
    fire();
    return { ok: `selected ${picked.map(o => JSON.stringify(o.label)).join(', ')}` };
  }
  if (actual === 'checkbox' || actual === 'radio') {
    const v = values[0];
    if (v !== 'true' && v !== 'false') return { error: `a ${actual} takes "true" or "false", not ${JSON.stringify(v)}` };
    const want = v === 'true';
    if (el.checked === want) return { ok: `${actual} already ${want ? 'checked' : 'unchecked'}` };
    if (actual === 'radio' && !want) return { error: 'a checked radio cannot be unchecked; check another radio of its group' };
    el.click();
    if (el.checked !== want) return { error: `clicking it left it ${el.checked ? 'checked' : 'unchecked'} (the page cancels the click)` };
    return { ok: `${actual} ${want ? 'checked' : 'unchecked'}` };
  }
  const value = values[0];
  el.focus();
  if (tag === 'input' || tag === 'textarea') {
    const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value');
    if (setter && setter.set) setter.set.call(el, value); else el.value = value;
  } else {
    el.textContent = value;
  }
  fire();
  return { ok: `${actual} set to ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '...' : value)}` };
}"#;

/// Where `select` or `fill` stands: the field being set, the sessions used.
#[derive(Debug, Default)]
pub(crate) struct Fields {
    /// The field being set (0-based).
    current: usize,
    /// Sessions whose object group holds objects (released at the end).
    sessions: Vec<String>,
}

/// The elements a form or pointer action names besides its first target, in order: a
/// `select`'s `<select>`, a `fill`'s fields (each an element, so that field `i` is the
/// `i`-th), a `drag`'s end; the action checked first.
pub(crate) fn extra_targets(action: &Action) -> Result<Vec<&Target>, ActError> {
    crate::act::check(action)?;
    Ok(match action {
        Action::Select { target, .. } => vec![target],
        Action::Fill { fields } => fields.iter().map(|f| &f.target).collect(),
        Action::Drag { to, .. } => vec![to],
        _ => Vec::new(),
    })
}

impl ActFlow {
    /// How messages name field `i`.
    fn field_label(&self, i: usize) -> String {
        match &self.action {
            Action::Fill { fields } => fields
                .get(i)
                .map(|f| f.label(i + 1))
                .unwrap_or_else(|| format!("field {}", i + 1)),
            _ => match self.extra.first().and_then(|n| n.reference.as_deref()) {
                Some(r) => format!("the <select> ({r})"),
                None => "the <select>".into(),
            },
        }
    }

    /// Field `i`'s node, declared kind and values.
    fn field(&self, i: usize) -> Option<(NodeAt, Option<FieldKind>, Vec<String>)> {
        let node = self.extra.get(i)?.clone();
        match &self.action {
            Action::Fill { fields } => {
                let f = fields.get(i)?;
                Some((node, f.kind, vec![f.value.clone()]))
            }
            Action::Select { values, .. } if i == 0 => {
                Some((node, Some(FieldKind::Combobox), values.clone()))
            }
            _ => None,
        }
    }

    /// Step 3 for `select` and `fill`: the next field's node resolved, or, when every
    /// field is set, the object groups released and the input done.
    pub(super) fn fields_next(&mut self, ctx: &mut FlowCtx<'_>) -> FlowStatus {
        let Some((node, _, _)) = self.field(self.fields.current) else {
            for s in std::mem::take(&mut self.fields.sessions) {
                let p = json!({ "objectGroup": GROUP });
                self.send(
                    ctx,
                    &s,
                    "Runtime.releaseObjectGroup",
                    p,
                    step::FIELD_RELEASE,
                );
            }
            self.inputs_pending = 0;
            return self.input_done(ctx);
        };
        if !self.fields.sessions.contains(&node.session) {
            self.fields.sessions.push(node.session.clone());
        }
        let p = json!({ "backendNodeId": node.backend_node_id, "objectGroup": GROUP });
        self.send(
            ctx,
            &node.session,
            "DOM.resolveNode",
            p,
            step::FIELD_RESOLVE,
        );
        FlowStatus::Running
    }

    /// A field's command answered: the object is called, or the field is done.
    pub(super) fn on_field_reply(
        &mut self,
        ctx: &mut FlowCtx<'_>,
        step: u16,
        reply: Result<Value, CommandError>,
    ) -> FlowStatus {
        if self.phase != super::Phase::Input {
            return FlowStatus::Running;
        }
        let i = self.fields.current;
        let Some((node, kind, values)) = self.field(i) else {
            return FlowStatus::Running;
        };
        let v = match reply {
            Ok(v) => v,
            Err(CommandError::Cdp { message, .. }) if node_gone(&message) => {
                return self.field_gone(ctx, &node, i)
            }
            Err(e) => return self.fail(ctx, e.into()),
        };
        if step == step::FIELD_RESOLVE {
            let Some(object) = v.pointer("/object/objectId").and_then(Value::as_str) else {
                return self.field_gone(ctx, &node, i);
            };
            let p = json!({
                "objectId": object,
                "functionDeclaration": SET_FIELD,
                "arguments": [
                    {"value": kind.map(FieldKind::as_str)},
                    {"value": values},
                    {"value": MAX_LISTED_OPTIONS},
                ],
                "returnByValue": true,
                "userGesture": true,
            });
            self.send(
                ctx,
                &node.session,
                "Runtime.callFunctionOn",
                p,
                step::FIELD_CALL,
            );
            return FlowStatus::Running;
        }
        let result = v.pointer("/result/value");
        let text = |k: &str| result.and_then(|r| r.get(k)).and_then(Value::as_str);
        if let Some(what) = text("ok") {
            let line = format!("{}: {what}", self.field_label(i));
            self.result.fields.push(line);
            self.fields.current += 1;
            return self.fields_next(ctx);
        }
        if result.and_then(|r| r.get("gone")).is_some() {
            return self.field_gone(ctx, &node, i);
        }
        let what = match (text("error"), v.pointer("/exceptionDetails")) {
            (Some(e), _) => e.to_owned(),
            (None, Some(ex)) => format!(
                "the page threw while it was set: {}",
                ex.pointer("/exception/description")
                    .or_else(|| ex.get("text"))
                    .and_then(Value::as_str)
                    .unwrap_or("an exception")
            ),
            (None, None) => "the page gave no answer about it".into(),
        };
        let done = self.fields.current;
        let what = match done {
            0 => what,
            n => format!("{what} (the {n} field(s) before it were set)"),
        };
        self.fail(
            ctx,
            ActError::Field {
                field: self.field_label(i),
                what,
            },
        )
    }

    /// Field `i`'s node is gone: `stale_ref` for a ref, else an error naming the node.
    fn field_gone(&mut self, ctx: &mut FlowCtx<'_>, node: &NodeAt, i: usize) -> FlowStatus {
        let error = match &node.reference {
            Some(r) => ActError::StaleRef { r: r.clone() },
            None => ActError::Field {
                field: self.field_label(i),
                what: format!(
                    "node {} of frame {} is gone; take a fresh snapshot",
                    node.backend_node_id, node.frame_id
                ),
            },
        };
        self.fail(ctx, error)
    }
}
