//! A site of test pages served on loopback from a handler: reached as `127.0.0.1` and as
//! `localhost` (two sites, so an iframe from one to the other is an OOPIF). Stops when
//! dropped. Also used by the sidecar's tests (`transports/cli/tests`, by path).

use cdp_supervise::serve::{Request, Response, Server};

/// The site; stops when dropped.
pub struct Site {
    server: Server,
}

impl Site {
    /// Serves `handler` on a free port of `127.0.0.1`.
    pub fn serve(handler: impl Fn(&Request) -> Response + Send + Sync + 'static) -> Site {
        Site {
            server: Server::start(handler).unwrap(),
        }
    }

    /// `http://127.0.0.1:P{path}`.
    pub fn url(&self, path: &str) -> String {
        self.server.url("127.0.0.1", path)
    }
}
