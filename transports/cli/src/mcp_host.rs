//! The browser every MCP session of this server shares: launched (or `--cdp` connected)
//! with the server on a thread of its own while the client's handshake goes on, so that the
//! first call does not pay the launch (`--lazy`: at the first call instead); reused until
//! `browser_close` closes it or its connection ends for good (a Grid session deleted under
//! it: that call is answered why; the next call starts a fresh one), and closed when the server
//! stops (the client owns the launched browser; dropping it closes the browser and removes
//! its profile).
//!
//! Calls may come from several sessions at once: the state is behind a mutex, and the
//! blocking client is shared (it is usable from any thread).

use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use cdp_supervisor_blocking::{Browser, Client, Options};

use crate::args::{config, fallback_warning, unreachable_error, Args};
use crate::mcp_ended::Ended;
use crate::mcp_warnings::WarningLog;

/// A browser being supervised, with what its start has to say.
struct Started {
    client: Client,
    /// A browser launched with a window (`--headed`); the client's own launch is headless.
    /// Dropped after the client.
    headed_browser: Option<Browser>,
    /// The Grid session (`--grid`), deleted when dropped, after the client.
    grid: Option<cdp_supervisor_grid::GridSession>,
    /// The local fallback's warning, for each session's next result.
    warning: Option<String>,
}

impl Started {
    fn client(client: Client) -> Started {
        Started {
            client,
            headed_browser: None,
            grid: None,
            warning: None,
        }
    }
}

/// Launches or connects as the flags say: `--cdp` (with `--fallback-local`, the local
/// Chromium when the endpoint cannot be reached), `--headed`, or a headless launch.
fn start_browser(args: &Args) -> Result<Started, String> {
    let options = || Options {
        config: config(args),
        ..Options::default()
    };
    let remote = match crate::remote::remote(args) {
        Err(e) if args.fallback_local => {
            let warning = format!("{e}; supervising a local headless Chromium instead");
            eprintln!("cdp-supervise: warning: {warning}");
            let client = Client::launch(options())
                .map_err(|e| format!("could not launch the local Chromium either: {e}"))?;
            return Ok(Started {
                warning: Some(warning),
                ..Started::client(client)
            });
        }
        remote => remote?,
    };
    let started = match remote {
        Some(remote) => match crate::remote::connect(args, &remote, None) {
            Ok(client) => Ok(Started {
                grid: remote.grid,
                ..Started::client(client)
            }),
            Err(e) if args.fallback_local => {
                let url = &remote.url;
                let warning = fallback_warning(url, &e);
                eprintln!("cdp-supervise: warning: {warning}");
                let client = Client::launch(options())
                    .map_err(|e| format!("could not launch the local Chromium either: {e}"))?;
                Ok(Started {
                    warning: Some(warning),
                    ..Started::client(client)
                })
            }
            Err(e) => Err(unreachable_error(&remote.url, &e)),
        },
        None if args.headed => {
            let browser = Browser::launch_headed().map_err(|e| {
                format!("cannot launch Chromium with a window: {e}; a display is needed (or leave out --headed)")
            })?;
            let client = Client::connect(browser.ws_url(), options())
                .map_err(|e| format!("cannot supervise the launched Chromium: {e}"))?;
            Ok(Started {
                headed_browser: Some(browser),
                ..Started::client(client)
            })
        }
        None => Client::launch(options())
            .map(Started::client)
            .map_err(|e| format!("cannot launch Chromium: {e}; install chromium or set $CHROME")),
    }?;
    // A browser this server launched has no secret in its URL: a test (or a person) can
    // reach it, to list its browser contexts say.
    let launched = started
        .client
        .browser()
        .or(started.headed_browser.as_ref())
        .map(|b| b.ws_url().to_owned());
    if let Some(url) = launched {
        eprintln!("cdp-supervise: browser at {url}");
    }
    Ok(started)
}

/// The shared browser, as the sessions see it.
#[derive(Clone)]
pub struct Live {
    /// The client (shared by every session).
    pub client: Arc<Client>,
    /// Bumped at every start: a session's context or tabs from an earlier browser are gone.
    pub generation: u64,
    /// The local fallback's warning, when the start fell back.
    pub warning: Option<String>,
    /// The warnings given between calls, for each session's next result.
    pub warnings: Option<Arc<WarningLog>>,
    /// Whether (and why) the connection ended for good.
    ended: Option<Arc<Ended>>,
}

#[derive(Default)]
struct State {
    live: Option<Live>,
    /// A browser launched with a window (`--headed`). Dropped after the client.
    headed_browser: Option<Browser>,
    /// The Grid session (`--grid`), deleted when dropped, after the client.
    grid: Option<cdp_supervisor_grid::GridSession>,
    /// The start begun with the server (not with `--lazy`), until a call needs it.
    starting: Option<JoinHandle<Result<Started, String>>>,
    generation: u64,
}

/// The browser of this server.
pub struct Host {
    args: Args,
    state: Mutex<State>,
}

impl Host {
    /// A host with no browser yet.
    pub fn new(args: Args) -> Arc<Host> {
        Arc::new(Host {
            args,
            state: Mutex::new(State::default()),
        })
    }

    /// The flags the server was started with.
    pub fn args(&self) -> &Args {
        &self.args
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A call that panicked mid-way leaves nothing half-done worth refusing for.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts the browser on a thread of its own; the first call that needs it waits for
    /// it. A thread that cannot be spawned leaves the start to that call.
    pub fn start_early(&self) {
        let args = self.args.clone();
        self.lock().starting = std::thread::Builder::new()
            .name("cdp-supervise-start".into())
            .spawn(move || start_browser(&args))
            .ok();
    }

    fn take_started(state: &mut State) -> Option<Result<Started, String>> {
        let start = state.starting.take()?;
        Some(
            start
                .join()
                .unwrap_or_else(|_| Err("the browser's start failed; try again".into())),
        )
    }

    /// The browser: the early start's, or launched or connected now (other sessions wait
    /// for it meanwhile). A failed start is this call's answer; the next call tries again.
    pub fn live(&self) -> Result<Live, String> {
        let mut state = self.lock();
        if let Some(live) = &state.live {
            match live.ended.as_deref().and_then(Ended::why) {
                None => return Ok(live.clone()),
                Some(why) => return Err(Host::let_go(&mut state, &why)),
            }
        }
        let started = match Host::take_started(&mut state) {
            Some(started) => started?,
            None => start_browser(&self.args)?,
        };
        state.generation += 1;
        let warnings = WarningLog::watch(&started.client);
        let ended = Ended::watch(&started.client);
        let live = Live {
            client: Arc::new(started.client),
            generation: state.generation,
            warning: started.warning,
            warnings,
            ended,
        };
        state.live = Some(live.clone());
        state.headed_browser = started.headed_browser;
        state.grid = started.grid;
        Ok(live)
    }

    /// Lets go of a browser whose connection ended for good (`why`): its Grid session is
    /// deleted (a Grid that deleted it already answers 404), a browser launched with a
    /// window is closed. What the call is answered.
    fn let_go(state: &mut State, why: &str) -> String {
        if let Some(live) = state.live.take() {
            let _ = live.client.stop();
        }
        drop(state.headed_browser.take());
        let grid = match state.grid.take() {
            Some(session) => {
                drop(session);
                " (its Selenium Grid session is deleted)"
            }
            None => "",
        };
        format!("the connection to the browser ended for good: {why}; this server let that browser go{grid}, and the next call starts a new one")
    }

    /// The browser if it runs, without starting one.
    pub fn running(&self) -> Option<Live> {
        self.lock().live.clone()
    }

    /// Settles dialogs, detaches and closes the browser when this server launched it. What
    /// happened, or `None` when no browser was open.
    pub fn close(&self) -> Option<String> {
        let mut state = self.lock();
        // An early start still under way is waited for, so that its browser is closed too.
        if let Some(Ok(started)) = Host::take_started(&mut state) {
            state.generation += 1;
            state.live = Some(Live {
                client: Arc::new(started.client),
                generation: state.generation,
                warning: None,
                warnings: None,
                ended: None,
            });
            state.headed_browser = started.headed_browser;
            state.grid = started.grid;
        }
        let live = state.live.take()?;
        let launched = live.client.browser().is_some() || state.headed_browser.is_some();
        let _ = live.client.stop();
        // The browser goes with the last handle: a call of another session still running
        // ends first (it fails: the client stopped).
        drop(live);
        drop(state.headed_browser.take());
        // A Grid session is deleted (the Grid closes its browser).
        let grid = state.grid.take().map(drop).is_some();
        Some(if grid {
            "Deleted the Selenium Grid session (the Grid closes its browser).".into()
        } else if launched {
            "Closed the browser this server launched.".into()
        } else {
            "Detached from the browser (it was not launched by this server, so it stays running)."
                .into()
        })
    }
}
