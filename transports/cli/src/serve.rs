//! A tiny HTTP/1.1 server on loopback for the demo page and the end-to-end tests.
//!
//! One `GET` per connection (`Connection: close`), a handler maps the path and `Host`
//! to a response. Not a general web server: it exists so that pages can be served from
//! `http://127.0.0.1:P` and `http://localhost:P`, two different sites.

use std::io::{self, BufRead, BufReader, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// A request as the handler sees it (see [`Server`] for an example).
#[derive(Debug, Clone)]
pub struct Request {
    /// The path with the query, e.g. `/child?x=1`.
    pub path: String,
    /// The `Host` header, e.g. `localhost:4321`.
    pub host: String,
}

/// A response (see [`Server`] for an example).
#[derive(Debug, Clone)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: String,
    /// The `Cache-Control`: `no-store` unless [`Response::cacheable`].
    pub cache_control: &'static str,
}

impl Response {
    /// `200 OK` with an HTML body.
    pub fn html(body: impl Into<String>) -> Response {
        Response {
            status: 200,
            content_type: "text/html; charset=utf-8",
            body: body.into(),
            cache_control: "no-store",
        }
    }

    /// The same response, cacheable for an hour: a page the back/forward cache may keep
    /// (Chromium keeps no `no-store` page).
    ///
    /// ```
    /// use cdp_supervise::serve::Response;
    /// assert_eq!(Response::html("<p>hi</p>").cacheable().cache_control, "max-age=3600");
    /// assert_eq!(Response::html("<p>hi</p>").cache_control, "no-store");
    /// ```
    pub fn cacheable(self) -> Response {
        Response {
            cache_control: "max-age=3600",
            ..self
        }
    }

    /// `404 Not Found`.
    pub fn not_found() -> Response {
        Response {
            status: 404,
            content_type: "text/plain; charset=utf-8",
            body: "not found\n".into(),
            cache_control: "no-store",
        }
    }
}

type Handler = dyn Fn(&Request) -> Response + Send + Sync + 'static;

/// A running server on `127.0.0.1`. Dropping it closes the listener and every open
/// connection and joins its threads.
///
/// ```
/// use cdp_supervise::serve::{Response, Server};
/// let server = Server::start(|req| match req.path.as_str() {
///     "/" => Response::html("<title>hi</title>"),
///     _ => Response::not_found(),
/// })?;
/// assert_eq!(server.url("localhost", "/"), format!("http://localhost:{}/", server.port()));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Binds `127.0.0.1` on a free port and serves `handler` from a thread.
    pub fn start(
        handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
    ) -> io::Result<Server> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let stop_flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("cdp-supervise-http".into())
            .spawn(move || accept_loop(listener, handler, stop_flag))?;
        Ok(Server {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://HOST:PORT` + `path` for `host` `127.0.0.1` or `localhost`.
    pub fn url(&self, host: &str, path: &str) -> String {
        format!("http://{host}:{}{path}", self.port())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the blocking accept.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn accept_loop(listener: TcpListener, handler: Arc<Handler>, stop: Arc<AtomicBool>) {
    let mut conns: Vec<(TcpStream, JoinHandle<()>)> = Vec::new();
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        conns.retain(|(_, t)| !t.is_finished());
        let Ok(clone) = stream.try_clone() else {
            continue;
        };
        let handler = handler.clone();
        if let Ok(t) = std::thread::Builder::new()
            .name("cdp-supervise-http-conn".into())
            .spawn(move || {
                let _ = serve_one(stream, &*handler);
            })
        {
            conns.push((clone, t));
        }
    }
    // Idle connections (Chromium preconnects) would block their threads: cut them.
    for (s, t) in conns {
        let _ = s.shutdown(Shutdown::Both);
        let _ = t.join();
    }
}

fn serve_one(stream: TcpStream, handler: &Handler) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut host = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.trim().eq_ignore_ascii_case("host") {
                host = v.trim().to_owned();
            }
        }
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("");
    let path = parts.next().unwrap_or("/").to_owned();
    let response = if method == "GET" {
        handler(&Request { path, host })
    } else {
        Response {
            status: 405,
            content_type: "text/plain",
            body: "GET only\n".into(),
            cache_control: "no-store",
        }
    };
    let reason = match response.status {
        200 => "OK",
        404 => "Not Found",
        _ => "Error",
    };
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: {}\r\nConnection: close\r\n\r\n{}",
        response.status,
        response.content_type,
        response.body.len(),
        response.cache_control,
        response.body
    )?;
    out.flush()?;
    // The accept loop holds a clone of this socket: end it explicitly so the client
    // sees end of stream now.
    out.shutdown(Shutdown::Both)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn serves_and_stops() {
        let server = Server::start(|r| {
            if r.path == "/" {
                Response::html(format!("host={}", r.host))
            } else {
                Response::not_found()
            }
        })
        .unwrap();
        let mut s = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
        write!(s, "GET / HTTP/1.1\r\nHost: localhost:1\r\n\r\n").unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        assert!(text.starts_with("HTTP/1.1 200 OK"));
        assert!(text.ends_with("host=localhost:1"));
        // An idle connection must not keep drop from returning.
        let _idle = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
        drop(server);
    }
}
