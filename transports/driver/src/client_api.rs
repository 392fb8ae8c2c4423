//! The client API both transports share, written once: [`client_api!`](crate::client_api)
//! expands to the methods of a transport's `Client` and `PendingCommand`, sync or async.

/// Writes the shared methods of a transport's `Client` and `PendingCommand` (hidden from
/// the docs: an embedder calls the methods, never the macro). Every method only asks the
/// loop ([`Request`](crate::Request)); the driver decides.
///
/// The parameters: `async` and `.await` for an async transport, nothing for a blocking
/// one; `channel`, the path of a function that makes an unbounded `(Sender, Receiver)`;
/// `try_send`, the sender's method that sends without waiting (a reply is sent from a
/// callback); `example`, where the transport's runnable example is (for the docs);
/// `launch`, an expression that launches a `Browser` (with `.await` if async).
///
/// It expects at the call site: `Client` (fields `requests: Sender<Request>` and, with
/// the `launch` feature, `browser: Option<Browser>`), `PendingCommand` (field
/// `updates: Receiver<CommandUpdate>`); `Sender`, `Receiver`, `Browser`, `ClientError`
/// and `ClientEvent` in scope (the docs link the last two); `serde_json` as a dependency;
/// `Client::start(endpoint, options, events)` (connects, spawns the loop and waits until
/// the page is attached); and `recv_within(&rx, wait) -> Result<Option<T>, ClientError>`
/// (`None` after `wait`, [`ClientError::Closed`](crate::ClientError::Closed) when
/// disconnected).
///
/// A blocking client on a loop with no browser (it answers from the supervisor's state;
/// a transport's `start` opens the socket and runs the loop of the crate docs):
///
/// ```
/// use cdp_supervisor_driver::{ClientError, ClientEvent, CommandUpdate, LoopDriver, Options, Request};
/// use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
/// use std::time::Duration;
///
/// pub struct Client { requests: Sender<Request> }
/// pub struct PendingCommand { updates: Receiver<CommandUpdate> }
/// cdp_supervisor_driver::client_api! {
///     async: [], await: [], channel: mpsc::channel, try_send: send,
///     // No `launch` feature in this crate: the launch methods are left out unwritten.
///     example: "this example", launch: (),
/// }
///
/// impl Client {
///     fn start(_: &str, options: Options, _: Option<Sender<ClientEvent>>) -> Result<Client, ClientError> {
///         let (requests, rx) = mpsc::channel();
///         let mut run = LoopDriver::new(&options, 0.0).map_err(ClientError::Record)?;
///         std::thread::spawn(move || rx.into_iter().for_each(|r| run.request(0.0, r)));
///         Ok(Client { requests })
///     }
/// }
///
/// fn recv_within<T>(rx: &Receiver<T>, wait: Duration) -> Result<Option<T>, ClientError> {
///     match rx.recv_timeout(wait) {
///         Ok(item) => Ok(Some(item)),
///         Err(RecvTimeoutError::Timeout) => Ok(None),
///         Err(RecvTimeoutError::Disconnected) => Err(ClientError::Closed),
///     }
/// }
///
/// let client = Client::connect("ws://127.0.0.1:1/devtools/browser/b", Options::default())?;
/// assert!(client.snapshot()?.pending_dialogs.is_empty());
/// let never = client.wait_for(Duration::from_millis(50), "a page", |s| s.page.is_some());
/// assert_eq!(never.err().map(|e| e.code()), Some("timeout"));
/// # Ok::<(), ClientError>(())
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! client_api {
    (
        async: [$($async:tt)?],
        await: [$($await:tt)*],
        channel: $channel:path,
        try_send: $try_send:ident,
        example: $example:literal,
        launch: $launch:expr $(,)?
    ) => {
        impl PendingCommand {
            /// The next update, waiting at most `timeout`.
            pub $($async)? fn next_update(
                &self,
                timeout: ::std::time::Duration,
            ) -> Result<$crate::CommandUpdate, $crate::ClientError> {
                let update = recv_within(&self.updates, timeout) $($await)*?;
                update.ok_or_else(|| $crate::ClientError::timeout("a command update", timeout))
            }

            /// Waits for the outcome: CDP's `result` object as JSON text. The core's
            /// deadline bounds the wait.
            pub $($async)? fn wait(self) -> Result<String, $crate::ClientError> {
                while let Ok(update) = self.updates.recv() $($await)* {
                    if let $crate::CommandUpdate::Finished(outcome) = update {
                        return Ok(outcome?);
                    }
                }
                Err($crate::ClientError::Closed)
            }
        }

        impl Client {
            /// Connects to a browser endpoint (`ws://...`, `wss://...` with the `tls`
            /// feature, or a DevTools address `http(s)://host:port`) and returns once its
            /// first page (or `options.config.target_id`) is attached.
            pub $($async)? fn connect(
                endpoint: &str,
                options: $crate::Options,
            ) -> Result<Client, $crate::ClientError> {
                Client::start(endpoint, options, None) $($await)*
            }

            /// [`Client::connect`] with a subscriber registered before the first
            /// message, so that it sees every event from the start (no initial snapshot
            /// is sent).
            pub $($async)? fn connect_with_events(
                endpoint: &str,
                options: $crate::Options,
                events: Sender<$crate::ClientEvent>,
            ) -> Result<Client, $crate::ClientError> {
                Client::start(endpoint, options, Some(events)) $($await)*
            }

            /// Launches a headless Chromium ([`Browser::launch`]) and connects to it; the
            /// browser is closed when the client drops.
            #[cfg(feature = "launch")]
            pub $($async)? fn launch(
                options: $crate::Options,
            ) -> Result<Client, $crate::ClientError> {
                Client::launch_with(options, None) $($await)*
            }

            /// [`Client::launch`] with an initial subscriber as in
            /// [`Client::connect_with_events`].
            #[cfg(feature = "launch")]
            pub $($async)? fn launch_with_events(
                options: $crate::Options,
                events: Sender<$crate::ClientEvent>,
            ) -> Result<Client, $crate::ClientError> {
                Client::launch_with(options, Some(events)) $($await)*
            }

            #[cfg(feature = "launch")]
            $($async)? fn launch_with(
                options: $crate::Options,
                events: Option<Sender<$crate::ClientEvent>>,
            ) -> Result<Client, $crate::ClientError> {
                let browser = $launch.map_err(|e| $crate::ClientError::Launch(Box::new(e)))?;
                let mut client = Client::start(browser.ws_url(), options, events) $($await)*?;
                client.browser = Some(browser);
                Ok(client)
            }

            /// The browser this client launched, if it did.
            #[cfg(feature = "launch")]
            pub fn browser(&self) -> Option<&Browser> {
                self.browser.as_ref()
            }

            /// The current snapshot.
            pub $($async)? fn snapshot(
                &self,
            ) -> Result<$crate::Snapshot, $crate::ClientError> {
                self.ask($crate::Request::Snapshot) $($await)*
            }

            /// Sends `method` into the session of `frame_id` (the top frame when `None`)
            /// and returns at once; see [`PendingCommand`]. `params` must be a JSON
            /// object (or null for none).
            pub $($async)? fn start_command(
                &self,
                frame_id: Option<&str>,
                method: &str,
                params: ::serde_json::Value,
                timeout: ::std::time::Duration,
            ) -> Result<PendingCommand, $crate::ClientError> {
                self.start_command_in(None, frame_id, method, params, timeout) $($await)*
            }

            /// [`Client::start_command`] in tab `tab_id` (`None`: the current tab).
            pub $($async)? fn start_command_in(
                &self,
                tab_id: Option<&str>,
                frame_id: Option<&str>,
                method: &str,
                params: ::serde_json::Value,
                timeout: ::std::time::Duration,
            ) -> Result<PendingCommand, $crate::ClientError> {
                let request = |updates| {
                    $crate::Request::command(frame_id, method, params, timeout, updates).in_tab(tab_id)
                };
                self.pending(request) $($await)*
            }

            /// Sends a command and waits for CDP's `result` object. A dialog that blocks
            /// it does not end the wait (use [`Client::start_command`] to learn of that
            /// at once).
            pub $($async)? fn command(
                &self,
                frame_id: Option<&str>,
                method: &str,
                params: ::serde_json::Value,
                timeout: ::std::time::Duration,
            ) -> Result<::serde_json::Value, $crate::ClientError> {
                self.command_in(None, frame_id, method, params, timeout) $($await)*
            }

            /// [`Client::command`] in tab `tab_id` (`None`: the current tab).
            pub $($async)? fn command_in(
                &self,
                tab_id: Option<&str>,
                frame_id: Option<&str>,
                method: &str,
                params: ::serde_json::Value,
                timeout: ::std::time::Duration,
            ) -> Result<::serde_json::Value, $crate::ClientError> {
                let pending = self.start_command_in(tab_id, frame_id, method, params, timeout) $($await)*?;
                Ok($crate::command_result(&pending.wait() $($await)*?))
            }

            /// Evaluates a script, or a function on an element, in any frame under one
            /// budget (`evaluation.timeout`): the value as JSON, or [`ClientError::Evaluate`]
            /// whose `code()` says why (`timeout`, `exception`, `blocked`, `stale_ref`,
            /// ...). It always answers within the budget: a stuck script is terminated and
            /// the frame stays usable.
            pub $($async)? fn evaluate(
                &self,
                evaluation: $crate::cdp_supervisor::Evaluation,
            ) -> Result<$crate::cdp_supervisor::EvalValue, $crate::ClientError> {
                self.evaluate_in(None, evaluation) $($await)*
            }

            /// [`Client::evaluate`] in tab `tab_id` (`None`: the current tab).
            pub $($async)? fn evaluate_in(
                &self,
                tab_id: Option<&str>,
                evaluation: $crate::cdp_supervisor::Evaluation,
            ) -> Result<$crate::cdp_supervisor::EvalValue, $crate::ClientError> {
                use $crate::cdp_supervisor::evaluate::{MAX_EVAL_TIMEOUT, TRANSPORT_MARGIN};
                let wait = evaluation.timeout.min(MAX_EVAL_TIMEOUT) + TRANSPORT_MARGIN;
                let (tx, rx) = $channel();
                let reply = Box::new(move |v| drop(tx.$try_send(v)));
                self.send($crate::Request::Evaluate { evaluation, reply }.in_tab(tab_id)) $($await)*?;
                let outcome = recv_within(&rx, wait) $($await)*?;
                Ok(outcome.ok_or_else(|| $crate::ClientError::timeout("the evaluate's outcome", wait))??)
            }

            /// Answers a dialog (`None`: the single pending one) and waits until Chromium
            /// closed it.
            pub $($async)? fn respond_dialog(
                &self,
                action: $crate::DialogAction,
                prompt_text: Option<&str>,
                dialog_id: Option<&str>,
            ) -> Result<$crate::cdp_supervisor::ClosedDialog, $crate::ClientError> {
                self.respond_dialog_in(None, action, prompt_text, dialog_id) $($await)*
            }

            /// [`Client::respond_dialog`] among the dialogs of tab `tab_id` (`None`: every
            /// tab's).
            pub $($async)? fn respond_dialog_in(
                &self,
                tab_id: Option<&str>,
                action: $crate::DialogAction,
                prompt_text: Option<&str>,
                dialog_id: Option<&str>,
            ) -> Result<$crate::cdp_supervisor::ClosedDialog, $crate::ClientError> {
                let request = |reply| {
                    $crate::Request::dialog(action, prompt_text, dialog_id, reply).in_tab(tab_id)
                };
                Ok(self.ask(request) $($await)*??)
            }

            /// Accepts a file chooser (`dialog_id`, or the single pending dialog) with
            /// `files`: absolute paths of readable files under an allowed upload root
            /// (`Config::upload_roots`, the CLI's `--upload-root`). A path outside the
            /// roots, missing or unreadable is refused (`upload_refused`) before anything
            /// is sent.
            pub $($async)? fn upload_files(
                &self,
                files: &[&str],
                dialog_id: Option<&str>,
            ) -> Result<$crate::cdp_supervisor::ClosedDialog, $crate::ClientError> {
                self.upload_files_in(None, files, dialog_id) $($await)*
            }

            /// [`Client::upload_files`] among the dialogs of tab `tab_id` (`None`: every
            /// tab's).
            pub $($async)? fn upload_files_in(
                &self,
                tab_id: Option<&str>,
                files: &[&str],
                dialog_id: Option<&str>,
            ) -> Result<$crate::cdp_supervisor::ClosedDialog, $crate::ClientError> {
                let files: Vec<String> = files.iter().map(|f| f.to_string()).collect();
                let request = |reply| {
                    $crate::Request::upload(files, dialog_id, reply).in_tab(tab_id)
                };
                Ok(self.ask(request) $($await)*??)
            }

            /// Signs in to an `http_auth` dialog (`dialog_id`, or the single pending
            /// dialog) with a user name and password (never logged nor recorded).
            pub $($async)? fn sign_in(
                &self,
                username: &str,
                password: &str,
                dialog_id: Option<&str>,
            ) -> Result<$crate::cdp_supervisor::ClosedDialog, $crate::ClientError> {
                let request = |reply| {
                    $crate::Request::sign_in(username, password, dialog_id, reply)
                };
                Ok(self.ask(request) $($await)*??)
            }

            /// Runs an agent action (any `Action`: navigate, back, forward, reload, click,
            /// type, press, scroll, hover, select, fill, drag, wait, resize) and waits for
            /// its result: the page after it settled, the console lines it caused, a
            /// screenshot. A dialog it opens ends it at once (answer it, then act again).
            pub $($async)? fn act(
                &self,
                action: $crate::cdp_supervisor::act::Action,
                options: $crate::cdp_supervisor::act::ActOptions,
            ) -> Result<$crate::cdp_supervisor::act::ActResult, $crate::ClientError> {
                self.act_in(None, action, options) $($await)*
            }

            /// [`Client::act`] in tab `tab_id` (`None`: the current tab). The result's
            /// `opened_tabs` names the tabs the action opened; the first is current now.
            pub $($async)? fn act_in(
                &self,
                tab_id: Option<&str>,
                action: $crate::cdp_supervisor::act::Action,
                options: $crate::cdp_supervisor::act::ActOptions,
            ) -> Result<$crate::cdp_supervisor::act::ActResult, $crate::ClientError> {
                self.ask(|reply| $crate::Request::Act { action, options, reply }.in_tab(tab_id)) $($await)*?
            }

            /// Answers every pending dialog; one outcome per dialog.
            pub $($async)? fn settle(
                &self,
                action: $crate::DialogAction,
            ) -> Result<
                Vec<Result<$crate::cdp_supervisor::ClosedDialog, $crate::cdp_supervisor::DialogError>>,
                $crate::ClientError,
            > {
                self.ask(|reply| $crate::Request::Settle { action, reply }) $($await)*
            }

            /// Releases a page blocked by a dialog left open (a navigation to its URL) and
            /// waits for the navigation's result.
            pub $($async)? fn recover(
                &self,
            ) -> Result<::serde_json::Value, $crate::ClientError> {
                self.recover_in(None) $($await)*
            }

            /// [`Client::recover`] of tab `tab_id` (`None`: the current tab); a crashed tab
            /// is reloaded.
            pub $($async)? fn recover_in(
                &self,
                tab_id: Option<&str>,
            ) -> Result<::serde_json::Value, $crate::ClientError> {
                let pending = self.pending(|u| $crate::Request::Recover(u).in_tab(tab_id)) $($await)*?;
                Ok($crate::command_result(&pending.wait() $($await)*?))
            }

            /// An accessibility snapshot of the whole tab, OOPIFs included: the outline
            /// with a ref on each node an agent acts on, and the frames left out with why.
            /// Refs stay the same across snapshots for unchanged nodes; resolve one with
            /// `DOM.resolveNode {backendNodeId}` on its frame (`ref.frame_id`), as
            #[doc = concat!($example, " does.")]
            pub $($async)? fn ax_snapshot(
                &self,
                options: $crate::cdp_supervisor::ax::AxOptions,
            ) -> Result<$crate::cdp_supervisor::ax::AxSnapshot, $crate::ClientError> {
                self.ax_snapshot_in(None, options) $($await)*
            }

            /// [`Client::ax_snapshot`] of tab `tab_id` (`None`: the current tab). Refs are
            /// per tab: another tab's ref is `stale_ref` here.
            pub $($async)? fn ax_snapshot_in(
                &self,
                tab_id: Option<&str>,
                options: $crate::cdp_supervisor::ax::AxOptions,
            ) -> Result<$crate::cdp_supervisor::ax::AxSnapshot, $crate::ClientError> {
                Ok(self.ask(|reply| $crate::Request::AxSnapshot { options, reply }.in_tab(tab_id)) $($await)*??)
            }

            /// The network requests of tab `tab_id` (`None`: the current tab) listed after
            /// index `after` (0: all the tab keeps, its last 200), oldest first; pass the
            /// last index seen to get only what came since. URLs are redacted.
            pub $($async)? fn network_requests_in(
                &self,
                tab_id: Option<&str>,
                after: u64,
            ) -> Result<Vec<$crate::cdp_supervisor::network::NetworkRequest>, $crate::ClientError> {
                Ok(self.ask(|reply| $crate::Request::NetworkRequests { after, reply }.in_tab(tab_id)) $($await)*??)
            }

            /// One network request of tab `tab_id` (`None`: the current tab) by its
            /// index, with its headers (credentials redacted).
            pub $($async)? fn network_request_in(
                &self,
                tab_id: Option<&str>,
                index: u64,
            ) -> Result<$crate::cdp_supervisor::network::NetworkRequestDetail, $crate::ClientError> {
                Ok(self.ask(|reply| $crate::Request::NetworkRequest { index, reply }.in_tab(tab_id)) $($await)*??)
            }

            /// A network request's body (the response's, or the request's own with
            /// `BodyPart::Request`), read on the session that saw it and cut at 64 KiB
            /// (`truncated` says so); `None` when Chromium's reply holds none.
            pub $($async)? fn network_body_in(
                &self,
                tab_id: Option<&str>,
                index: u64,
                part: $crate::cdp_supervisor::network::BodyPart,
            ) -> Result<Option<$crate::cdp_supervisor::network::NetworkBody>, $crate::ClientError> {
                let pending = self.pending(|updates| $crate::Request::NetworkBody { index, part, updates }.in_tab(tab_id)) $($await)*?;
                let text = pending.wait() $($await)*?;
                Ok($crate::cdp_supervisor::network::read_body(&text))
            }

            /// Every tab of the browser, in the order they became known; `current` marks
            /// the one that gets calls naming no tab.
            pub $($async)? fn tabs(
                &self,
            ) -> Result<Vec<$crate::cdp_supervisor::TabInfo>, $crate::ClientError> {
                self.ask($crate::Request::Tabs) $($await)*
            }

            /// The console lines of every level of tab `tab_id` (`None`: the current tab)
            /// from index `since` on, oldest first: each tab keeps its last 200, numbered
            /// from 0, whether an action was running or not. Ask again from the answer's
            /// `next`; `dropped` counts the lines from `since` on that were forgotten.
            /// An unknown tab is `no_such_tab`.
            pub $($async)? fn console_since(
                &self,
                tab_id: Option<&str>,
                since: u64,
            ) -> Result<$crate::cdp_supervisor::ConsoleSince, $crate::ClientError> {
                self.ask(|reply| $crate::Request::Console { since, reply }.in_tab(tab_id)) $($await)*?
            }

            /// Opens a tab at `url` (`Target.createTarget`) and returns it once it is
            /// listed and attached; it is the current tab then.
            pub $($async)? fn new_tab(
                &self,
                url: &str,
            ) -> Result<$crate::cdp_supervisor::TabInfo, $crate::ClientError> {
                self.new_tab_in_context(url, None) $($await)*
            }

            /// [`Client::new_tab`] in browser context `context_id` (from
            /// [`Client::create_context`]; `None`: the default context). The tab's
            /// `browser_context_id` names it; popups it opens are in it too. An unknown
            /// context is `no_such_context`.
            pub $($async)? fn new_tab_in_context(
                &self,
                url: &str,
                context_id: Option<&str>,
            ) -> Result<$crate::cdp_supervisor::TabInfo, $crate::ClientError> {
                let url = url.to_owned();
                let context_id = context_id.map(str::to_owned);
                self.ask(|reply| $crate::Request::NewTab { url, context_id, reply }) $($await)*?
            }

            /// Creates a browser context (`Target.createBrowserContext`): its own cookies,
            /// storage, tabs and dialogs, as an incognito profile; returns its id. It has
            /// no tab until [`Client::new_tab_in_context`] opens one, and it ends with
            /// [`Client::dispose_context`] or with the connection (a reconnect finds it
            /// gone: `no_such_context`).
            pub $($async)? fn create_context(
                &self,
            ) -> Result<String, $crate::ClientError> {
                let pending = self.pending($crate::Request::CreateContext) $($await)*?;
                let result = $crate::command_result(&pending.wait() $($await)*?);
                match result.get("browserContextId").and_then(::serde_json::Value::as_str) {
                    Some(id) => Ok(id.to_owned()),
                    None => Err($crate::ClientError::Command($crate::cdp_supervisor::CommandError::Cdp {
                        method: "Target.createBrowserContext".into(),
                        code: 0,
                        message: "the reply names no browserContextId".into(),
                    })),
                }
            }

            /// Disposes browser context `context_id` (`Target.disposeBrowserContext`) and
            /// returns once it is gone with its tabs: Chromium closes them without their
            /// `beforeunload` handlers, and their pending dialogs close. An unknown context
            /// is `no_such_context`.
            pub $($async)? fn dispose_context(
                &self,
                context_id: &str,
            ) -> Result<(), $crate::ClientError> {
                let context_id = context_id.to_owned();
                let pending = self.pending(|updates| $crate::Request::DisposeContext { context_id, updates }) $($await)*?;
                pending.wait() $($await)*?;
                Ok(())
            }

            /// The browser contexts Chromium has besides the default one
            /// (`Target.getBrowserContexts`), every client's: contexts this client did not
            /// create are listed too.
            pub $($async)? fn browser_contexts(
                &self,
            ) -> Result<Vec<String>, $crate::ClientError> {
                let method = "Target.getBrowserContexts";
                let wait = $crate::limits::BROWSER_QUERY_TIMEOUT;
                let result = self.browser_command(method, ::serde_json::json!({}), wait) $($await)*?;
                let ids = result.get("browserContextIds").and_then(::serde_json::Value::as_array);
                Ok(ids.into_iter().flatten().filter_map(|v| v.as_str().map(str::to_owned)).collect())
            }

            /// Sends `method` to the browser itself, on no session (`Browser.getVersion`,
            /// `Target.getBrowserContexts`, ...), and waits for CDP's `result` object.
            /// `params` must be a JSON object (or null for none).
            pub $($async)? fn browser_command(
                &self,
                method: &str,
                params: ::serde_json::Value,
                timeout: ::std::time::Duration,
            ) -> Result<::serde_json::Value, $crate::ClientError> {
                let pending = self.pending(|updates| $crate::Request::browser_command(method, params, timeout, updates)) $($await)*?;
                Ok($crate::command_result(&pending.wait() $($await)*?))
            }

            /// Makes `tab_id` the current tab (and brings it to the front); returns it.
            /// An unknown id is `no_such_tab`.
            pub $($async)? fn select_tab(
                &self,
                tab_id: &str,
            ) -> Result<$crate::cdp_supervisor::TabInfo, $crate::ClientError> {
                let tab_id = tab_id.to_owned();
                self.ask(|reply| $crate::Request::SelectTab { tab_id, reply }) $($await)*?
            }

            /// Closes tab `tab_id` (`None`: the current one) and waits until it is gone,
            /// or its page asks to stay: `Page.close` runs its `beforeunload` handler
            /// under the dialog policy (the pending dialog is in the answer); `force`
            /// closes it without asking (`Target.closeTarget`). When the current tab
            /// closes, its opener (else the most recently current tab) becomes current.
            pub $($async)? fn close_tab(
                &self,
                tab_id: Option<&str>,
                force: bool,
            ) -> Result<$crate::ClosedTab, $crate::ClientError> {
                let tab_id = tab_id.map(str::to_owned);
                self.ask(|reply| $crate::Request::CloseTab { tab_id, force, reply }) $($await)*?
            }

            /// Changes the dialog policy for dialogs opened from now on.
            pub $($async)? fn set_policy(
                &self,
                policy: $crate::DialogPolicy,
            ) -> Result<(), $crate::ClientError> {
                self.send($crate::Request::SetPolicy(policy)) $($await)*
            }

            /// A stream of events: first the current [`ClientEvent::Snapshot`], then every
            /// event after this call (it returns once registered). The channel is
            /// unbounded: read it, or drop it.
            pub $($async)? fn subscribe(
                &self,
            ) -> Result<Receiver<$crate::ClientEvent>, $crate::ClientError> {
                let (tx, rx) = $channel();
                let subscriber = Client::subscriber(tx);
                self.ask(|registered| $crate::Request::Subscribe { subscriber, registered }) $($await)*?;
                Ok(rx)
            }

            /// Waits until `done` holds for the snapshot, checking again after every
            /// event, at most `timeout`; the error names `what`.
            pub $($async)? fn wait_for(
                &self,
                timeout: ::std::time::Duration,
                what: &str,
                mut done: impl FnMut(&$crate::Snapshot) -> bool,
            ) -> Result<$crate::Snapshot, $crate::ClientError> {
                let events = self.subscribe() $($await)*?;
                let end = ::std::time::Instant::now() + timeout;
                loop {
                    let snapshot = self.snapshot() $($await)*?;
                    if done(&snapshot) {
                        return Ok(snapshot);
                    }
                    let left = end.saturating_duration_since(::std::time::Instant::now());
                    if recv_within(&events, left) $($await)*?.is_none() {
                        return Err($crate::ClientError::timeout(what, timeout));
                    }
                    while events.try_recv().is_ok() {}
                }
            }

            /// The subscriber that feeds `events`.
            fn subscriber(events: Sender<$crate::ClientEvent>) -> $crate::Subscriber {
                Box::new(move |e| events.$try_send(e).is_ok())
            }

            $($async)? fn send(
                &self,
                request: $crate::Request,
            ) -> Result<(), $crate::ClientError> {
                let sent = self.requests.send(request) $($await)*;
                sent.map_err(|_| $crate::ClientError::Closed)
            }

            /// Sends the request `make` builds and waits for its reply.
            $($async)? fn ask<T: Send + 'static>(
                &self,
                make: impl FnOnce($crate::Reply<T>) -> $crate::Request,
            ) -> Result<T, $crate::ClientError> {
                let (tx, rx) = $channel();
                self.send(make(Box::new(move |v| drop(tx.$try_send(v))))) $($await)*?;
                rx.recv() $($await)*.map_err(|_| $crate::ClientError::Closed)
            }

            /// Sends the command `make` builds; its updates come to the [`PendingCommand`].
            $($async)? fn pending(
                &self,
                make: impl FnOnce($crate::Updates) -> $crate::Request,
            ) -> Result<PendingCommand, $crate::ClientError> {
                let (tx, updates) = $channel();
                self.send(make(Box::new(move |u| drop(tx.$try_send(u))))) $($await)*?;
                Ok(PendingCommand { updates })
            }
        }
    };
}
