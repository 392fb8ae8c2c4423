//! Whether the shared browser's connection ended for good, and why: the client gave up
//! reconnecting (a Grid session deleted under its socket, whose reconnect is refused as
//! the session gone; an endpoint that stayed dead through the backoff). The host answers
//! the next call with the reason and lets that browser go; the call after starts a new one.

use std::sync::{Arc, Mutex};

use cdp_supervisor_blocking::{Client, ClientEvent};

/// The reason the connection ended, once it has (one string: nothing to bound).
#[derive(Default)]
pub struct Ended {
    why: Mutex<Option<String>>,
}

impl Ended {
    /// Starts watching `client` for the end, on a thread that ends with the client.
    /// `None` when it cannot subscribe or spawn (a dead client still fails each call).
    pub fn watch(client: &Client) -> Option<Arc<Ended>> {
        let events = client.subscribe().ok()?;
        let ended = Arc::new(Ended::default());
        let filled = Arc::clone(&ended);
        std::thread::Builder::new()
            .name("cdp-supervise-ended".into())
            .spawn(move || {
                for event in events {
                    if let ClientEvent::GaveUp { error } = event {
                        *filled.why.lock().unwrap_or_else(|p| p.into_inner()) = Some(error);
                    }
                }
            })
            .ok()?;
        Some(ended)
    }

    /// Why the connection ended, or `None` while it lives (or reconnects).
    pub fn why(&self) -> Option<String> {
        self.why.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}
