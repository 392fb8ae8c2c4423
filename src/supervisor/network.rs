//! The network calls of [`Supervisor`]: each tab's request ring, listed and read.

use std::time::Duration;

use super::Supervisor;
use crate::command::{CommandId, Purpose};
use crate::error::{CommandError, SessionGoneReason};
use crate::network::{BodyPart, NetworkRequest, NetworkRequestDetail, MAX_NETWORK_REQUESTS};
use crate::wire::to_raw;

#[derive(serde::Serialize)]
struct RequestIdParams<'a> {
    #[serde(rename = "requestId")]
    request_id: &'a str,
}

fn no_such_request(index: u64) -> CommandError {
    CommandError::NoSuchRequest {
        index,
        kept: MAX_NETWORK_REQUESTS,
    }
}

impl Supervisor {
    /// The network requests of tab `tab_id` (`None`: the current tab) with an index above
    /// `after`, oldest first: pass 0 for every request the tab keeps (its last
    /// [`MAX_NETWORK_REQUESTS`]), and the last index seen to list only what came since.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// let sup = Supervisor::new(Config::default());
    /// assert_eq!(sup.network_requests(None, 0).unwrap_err().code(), "not_attached");
    /// ```
    pub fn network_requests(
        &self,
        tab_id: Option<&str>,
        after: u64,
    ) -> Result<Vec<NetworkRequest>, CommandError> {
        let key = self.key_of(tab_id)?;
        let tab = self.tabs.get(&key).ok_or(CommandError::NotAttached)?;
        Ok(tab.network.since(after))
    }

    /// One request of tab `tab_id` (`None`: the current tab) with its headers, by the
    /// index it was listed with; `no_such_request` once the ring let it go.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// let sup = Supervisor::new(Config::default());
    /// assert_eq!(sup.network_request(None, 1).unwrap_err().code(), "not_attached");
    /// ```
    pub fn network_request(
        &self,
        tab_id: Option<&str>,
        index: u64,
    ) -> Result<NetworkRequestDetail, CommandError> {
        let key = self.key_of(tab_id)?;
        let tab = self.tabs.get(&key).ok_or(CommandError::NotAttached)?;
        tab.network
            .detail(index)
            .ok_or_else(|| no_such_request(index))
    }

    /// Reads a request's body (`Network.getResponseBody`, or `Network.getRequestPostData`
    /// for the request's own) on the session that saw it. The outcome arrives as
    /// [`Event::CommandFinished`](crate::Event::CommandFinished); read it with
    /// [`crate::network::read_body`] (bounded). Chromium keeps bodies for a while only
    /// (the buffer sizes `Network.enable` was given): an old one fails with a `cdp_error`.
    ///
    /// ```
    /// use cdp_supervisor::{Config, Supervisor};
    /// use cdp_supervisor::network::BodyPart;
    /// use std::time::Duration;
    /// let mut sup = Supervisor::new(Config::default());
    /// let e = sup.network_body(0.0, None, 1, BodyPart::Response, Duration::from_secs(5));
    /// assert_eq!(e.unwrap_err().code(), "not_attached");
    /// ```
    pub fn network_body(
        &mut self,
        now: f64,
        tab_id: Option<&str>,
        index: u64,
        part: BodyPart,
        timeout: Duration,
    ) -> Result<CommandId, CommandError> {
        self.out.advance(now);
        let key = self.key_of(tab_id)?;
        self.check_command_bound()?;
        let method = part.method();
        let sent = self.with_tab(key, |tab, out, _| {
            tab.check_not_crashed()?;
            let (session, request_id) = tab
                .network
                .body_source(index)
                .ok_or_else(|| no_such_request(index))?;
            if !tab.owns_session(session) {
                return Err(CommandError::SessionGone {
                    method: method.to_owned(),
                    session_id: session.to_owned(),
                    reason: SessionGoneReason::Detached,
                });
            }
            let params = to_raw(&RequestIdParams { request_id });
            let session = session.to_owned();
            let id = out.send(
                Some(&session),
                method,
                params.as_deref(),
                Purpose::User,
                timeout,
            );
            Ok(CommandId(id))
        });
        let id = sent.unwrap_or(Err(CommandError::NotAttached));
        self.after_input();
        id
    }
}
