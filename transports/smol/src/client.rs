//! The client handle: it talks to the client's task ([`crate::io`]) over
//! `smol::channel`s. The methods both transports share are written once
//! (`cdp_supervisor_driver::client_api!`); what is left here is this transport's own:
//! the channels, the task, `connect_local`, `stop`.

use std::sync::Mutex;
use std::time::Duration;

use cdp_supervisor_driver::{Clock, LoopDriver, Request};
use smol::channel::{self, Receiver, Sender};
use smol::future::FutureExt;
use smol::{LocalExecutor, Task, Timer};

#[cfg(feature = "launch")]
use crate::Browser;
use crate::{ClientError, ClientEvent, CommandUpdate, Options};

/// A handle to a supervised tab over an async WebSocket, driven by a task on smol's
/// global executor (or on a `LocalExecutor`: [`Client::connect_local`]). Call
/// [`Client::stop`] before dropping it; a dropped client stops its task in the background.
/// The crate's example (it runs against a real Chromium) shows the methods below.
#[derive(Debug)]
pub struct Client {
    task: Mutex<Option<Task<()>>>,
    requests: Sender<Request>,
    #[cfg(feature = "launch")]
    browser: Option<Browser>, // last: dropped after the task was told to stop
}

/// The updates of a command sent with [`Client::start_command`], as the blocking
/// transport's `PendingCommand` gives them: any number of `Blocked`, then one `Finished`
/// (see the crate's example).
#[derive(Debug)]
pub struct PendingCommand {
    updates: Receiver<CommandUpdate>,
}

cdp_supervisor_driver::client_api! {
    async: [async], await: [.await], channel: channel::unbounded, try_send: try_send,
    example: "the crate's example", launch: smol::unblock(Browser::launch).await,
}

impl Client {
    /// Like [`Client::connect_with_events`] (the subscriber is optional), but the client's
    /// task is spawned on `executor` instead of smol's global executor (which runs on
    /// threads of its own). With a `ws://` URL no helper thread is used either, so many
    /// clients can share the one thread that runs `executor` (`benches/many_tabs.rs`
    /// runs 1 000 that way). The client makes progress only while `executor` is run.
    pub async fn connect_local(
        executor: &LocalExecutor<'_>,
        endpoint: &str,
        options: Options,
        events: Option<Sender<ClientEvent>>,
    ) -> Result<Client, ClientError> {
        Client::start_on(endpoint, options, events, Some(executor)).await
    }

    async fn start(
        endpoint: &str,
        options: Options,
        events: Option<Sender<ClientEvent>>,
    ) -> Result<Client, ClientError> {
        Client::start_on(endpoint, options, events, None).await
    }

    async fn start_on(
        endpoint: &str,
        options: Options,
        events: Option<Sender<ClientEvent>>,
        executor: Option<&LocalExecutor<'_>>,
    ) -> Result<Client, ClientError> {
        let clock = Clock::start();
        let timeout = options.connect_timeout;
        let subscriber = events.map(Client::subscriber);
        let mut run = LoopDriver::for_client(options, clock.wall_at_start(), subscriber)?;
        let (url, ws) = crate::io::open_first(endpoint, run.headers()).await?;
        run.connected(clock.now(), &url);
        let (requests, rx) = channel::unbounded();
        let task = crate::io::run(run, clock, rx, endpoint.to_owned(), ws);
        let task = match executor {
            Some(executor) => executor.spawn(task),
            None => smol::spawn(task),
        };
        let client = Client {
            requests,
            task: Mutex::new(Some(task)),
            #[cfg(feature = "launch")]
            browser: None,
        };
        client
            .ask(|reply| Request::WaitAttached { timeout, reply })
            .await??;
        Ok(client)
    }

    /// A planned stop: dismisses pending dialogs, waits up to 2 s for them to close (a
    /// dialog left open wedges the tab) and for commands in flight to finish,
    /// closes the socket (which detaches) and waits for the task. Calling it again does
    /// nothing.
    pub async fn stop(&self) -> Result<(), ClientError> {
        let _ = self.ask(Request::Stop).await;
        let task = self.task.lock().ok().and_then(|mut t| t.take());
        if let Some(t) = task {
            t.await;
        }
        Ok(())
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // Cannot await here: the task sees its request channel close, stops as planned
        // and ends on its own.
        if let Some(t) = self.task.lock().ok().and_then(|mut t| t.take()) {
            t.detach();
        }
    }
}

/// The next item of `rx` within `wait`, `None` if none came.
async fn recv_within<T>(rx: &Receiver<T>, wait: Duration) -> Result<Option<T>, ClientError> {
    let next = async { rx.recv().await.map(Some).map_err(|_| ClientError::Closed) };
    let late = async {
        Timer::after(wait).await;
        Ok(None)
    };
    next.or(late).await
}
