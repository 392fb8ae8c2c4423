//! A remote browser as the flags say: a Selenium Grid session (`--grid`) or a `--cdp`
//! endpoint, connected with `--cdp-header` and `--heartbeat`. What `watch` and `mcp` both
//! call, so that a Grid session is created, and deleted, the same way in each.

use cdp_supervisor_blocking::{Client, ClientEvent};
use cdp_supervisor_grid::{capabilities, GridSession};

use crate::args::{client_options, Args};

/// A remote browser's endpoint, and the Grid session behind it (deleted when this drops:
/// keep it until the client is stopped and dropped).
pub struct Remote {
    /// The WebSocket (or DevTools HTTP) URL to connect to; may hold a key, never printed
    /// as is.
    pub url: String,
    /// The Grid session, with `--grid`.
    pub grid: Option<GridSession>,
}

/// The remote browser the flags name: `--grid` creates a session (waiting at most
/// `--grid-timeout` in its queue), `--cdp` is taken as given; `None` when neither is given
/// (launch a local browser).
pub fn remote(args: &Args) -> Result<Option<Remote>, String> {
    if let Some(grid) = &args.remote.grid {
        let body =
            capabilities(args.remote.grid_capabilities.as_deref()).map_err(|e| e.to_string())?;
        eprintln!(
            "cdp-supervise: asking the Selenium Grid at {} for a session (waiting up to {:?})",
            cdp_supervisor_driver::endpoint::redact_url(grid),
            args.remote.grid_timeout
        );
        let session = GridSession::create(grid, &body, args.remote.grid_timeout)
            .map_err(|e| e.to_string())?;
        eprintln!(
            "cdp-supervise: Grid session {} (deleted at exit)",
            session.id()
        );
        let url = session.cdp_url().to_owned();
        return Ok(Some(Remote {
            url,
            grid: Some(session),
        }));
    }
    Ok(args.cdp.clone().map(|url| Remote { url, grid: None }))
}

/// Connects to `remote` with the flags' options, events to `events` if given. On an
/// error the caller drops `remote` (deleting a Grid session).
pub fn connect(
    args: &Args,
    remote: &Remote,
    events: Option<std::sync::mpsc::Sender<ClientEvent>>,
) -> Result<Client, cdp_supervisor_blocking::ClientError> {
    match events {
        Some(tx) => Client::connect_with_events(&remote.url, client_options(args), tx),
        None => Client::connect(&remote.url, client_options(args)),
    }
}

/// Calls `stop` on the first SIGTERM, SIGINT or SIGHUP (on a thread of its own), so that
/// a process told to end cleans up as at the end of input: a launched browser closed, a
/// Grid session deleted.
pub fn on_signal(stop: impl FnOnce() + Send + 'static) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = match signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cdp-supervise: warning: cannot watch for SIGTERM ({e}); a browser may outlive a killed process");
            return;
        }
    };
    let spawned = std::thread::Builder::new()
        .name("cdp-supervise-signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                eprintln!("cdp-supervise: signal {sig}: stopping");
                stop();
            }
        });
    if let Err(e) = spawned {
        eprintln!("cdp-supervise: warning: cannot watch for SIGTERM ({e})");
    }
}
