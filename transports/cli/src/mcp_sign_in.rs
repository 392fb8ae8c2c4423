//! `browser_handle_dialog` with a username and password: the answer says whether they
//! were taken. Chromium answers the credentials with the page, or with the same challenge
//! again (they were wrong: the supervisor cancels the request and warns, never retrying),
//! a moment after the answer; the call waits for one or the other, briefly.

use std::time::{Duration, Instant};

use cdp_supervisor::{Diff, Event, Warning};
use cdp_supervisor_blocking::{Client, ClientEvent};

/// How long the answer waits to hear whether the credentials were taken (a refusal comes
/// within milliseconds on a live server; the page's first update ends the wait earlier).
const VERDICT_WITHIN: Duration = Duration::from_secs(1);

/// Signs in to `dialog_id` (`None`: the single pending dialog) and says what came of it.
pub fn sign_in(
    client: &Client,
    username: &str,
    password: &str,
    dialog_id: Option<&str>,
) -> Result<String, String> {
    let challenge = client.snapshot().ok().and_then(|s| {
        s.pending_dialogs
            .into_iter()
            .find(|d| dialog_id.map_or(d.auth.is_some(), |id| d.id == id))
    });
    let origin = challenge
        .as_ref()
        .and_then(|d| d.auth.as_ref())
        .map(|a| a.origin.clone());
    // Subscribed before the answer: the verdict cannot slip past.
    let events = client.subscribe().ok();
    let d = client
        .sign_in(username, password, dialog_id)
        .map_err(|e| e.to_string())?;
    let answered = format!("Sign-in {} answered as {username}", d.id);
    let Some(events) = events else {
        return Ok(format!("{answered}."));
    };
    let tab = d.tab_id.as_deref();
    let end = Instant::now() + VERDICT_WITHIN;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        let Ok(event) = events.recv_timeout(left) else {
            return Ok(format!(
                "{answered}; no refusal came within {} ms.",
                VERDICT_WITHIN.as_millis()
            ));
        };
        match event {
            ClientEvent::Event(Event::Warning(w @ Warning::HttpAuthRejected { .. })) if matches!(&w, Warning::HttpAuthRejected { origin: o, .. } if Some(o) == origin.as_ref()) =>
            {
                return Err(format!(
                    "{answered}, and they were refused: {w}. The request is not retried; to try other credentials, load the page again and answer its new sign-in."
                ));
            }
            ClientEvent::Event(Event::Diff(Diff::TabUpdated { tab: t }))
                if tab == Some(t.tab_id.as_str()) =>
            {
                return Ok(format!("{answered}; the page now shows {}.", t.url));
            }
            _ => {}
        }
    }
}
