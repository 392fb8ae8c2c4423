//! `cdp-supervise mcp --port P [--host H]`: the MCP server over streamable HTTP at `/mcp`
//! (the official SDK's server transport, served by hyper on tokio).
//!
//! Safety: loopback by default. Binding another address needs a bearer token
//! (`--auth-token`, or `$CDP_SUPERVISE_TOKEN`), else the server refuses to start; with a
//! token, a request without `Authorization: Bearer TOKEN` is answered 401. A request whose
//! `Origin` is not a loopback origin is answered 403 (a web page a browser shows cannot
//! drive the server through DNS rebinding), and on loopback the `Host` must be a loopback
//! name too. The token is never written anywhere.

use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::args::{runtime, seconds_to_duration, Failure};
use crate::mcp_host::Host;
use crate::mcp_server::{announce, stop_signal, McpServer, Sessions};

/// The path the MCP endpoint is served at.
const PATH: &str = "/mcp";

/// The environment variable that may hold the token instead of `--auth-token`.
const TOKEN_ENV: &str = "CDP_SUPERVISE_TOKEN";

/// An idle session's end when `--idle-timeout` does not say.
const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(600);

/// The longest a call may take: its budget at most (`timeout_ms` up to 600 s) and a margin.
const MAX_CALL: Duration = Duration::from_secs(660);

/// Sessions at most when `--max-sessions` does not say.
const DEFAULT_MAX_SESSIONS: usize = 16;

/// The browser origins a request may come from: pages served on this machine.
const LOOPBACK_ORIGINS: &[&str] = &[
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// Whether `host` names this machine only.
fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Compares without stopping at the first difference (the time does not tell how much of
/// a guessed token was right).
fn same_secret(given: &[u8], token: &[u8]) -> bool {
    given.len() == token.len()
        && given
            .iter()
            .zip(token)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

/// Whether the request carries `Authorization: Bearer TOKEN`.
fn authorized(request: &Request<Incoming>, token: &str) -> bool {
    request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|given| same_secret(given.trim().as_bytes(), token.as_bytes()))
}

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(text.to_owned())).boxed());
    *response.status_mut() = status;
    response
}

/// Serves until SIGTERM, SIGINT or SIGHUP; then every session ends and the browser closes.
pub async fn serve(host: Arc<Host>) -> Result<(), Failure> {
    let args = host.args().clone();
    let bind = args.host.clone().unwrap_or_else(|| "127.0.0.1".into());
    let token = args
        .auth_token
        .clone()
        .or_else(|| std::env::var(TOKEN_ENV).ok())
        .filter(|t| !t.is_empty());
    let loopback = is_loopback(&bind);
    if !loopback && token.is_none() {
        return Err(runtime(format!(
            "refusing to serve MCP on {bind}, which is not loopback, without a token: anyone who reaches it would drive the browser. Give --auth-token TOKEN (or set ${TOKEN_ENV}); clients then send Authorization: Bearer TOKEN. Or bind loopback (--host 127.0.0.1, the default)."
        )));
    }
    let port = args.port.unwrap_or(0);
    let listener =
        tokio::net::TcpListener::bind((bind.trim_start_matches('[').trim_end_matches(']'), port))
            .await
            .map_err(|e| runtime(format!("cannot listen on {bind} port {port}: {e}")))?;
    let address = listener
        .local_addr()
        .map_err(|e| runtime(format!("cannot read the address listened on: {e}")))?;

    let cancel = CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_origins(LOOPBACK_ORIGINS.iter().copied());
    config.cancellation_token = cancel.clone();
    if !loopback {
        // Clients name this machine as they reach it; the token is what keeps others out.
        config = config.disable_allowed_hosts();
    }
    let idle = args
        .idle_timeout
        .and_then(seconds_to_duration)
        .unwrap_or(DEFAULT_IDLE_TIMEOUT);
    // The SDK ends a session that sent nothing for its keep-alive, a call in flight or
    // not: past the longest call's budget, so that it only ends clients gone silently.
    // A session's context goes after `idle` without a call (the sweep below).
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(idle + MAX_CALL);
    let sessions = Arc::new(Sessions {
        host: host.clone(),
        own_context: !args.shared_context,
        live: Arc::new(AtomicUsize::new(0)),
        max: args.max_sessions.unwrap_or(DEFAULT_MAX_SESSIONS),
        made: std::sync::Mutex::new(Vec::new()),
    });
    if sessions.own_context {
        let swept = Arc::clone(&sessions);
        tokio::spawn(async move {
            let mut every = tokio::time::interval(
                (idle / 4).clamp(Duration::from_millis(250), Duration::from_secs(30)),
            );
            loop {
                every.tick().await;
                for session in swept.live_sessions() {
                    let _ = tokio::task::spawn_blocking(move || session.idle_out(idle)).await;
                }
            }
        });
    }
    let factory_sessions = Arc::clone(&sessions);
    let service = StreamableHttpService::new(
        move || Ok(McpServer::http(factory_sessions.clone())),
        Arc::new(manager),
        config,
    );
    announce(&host, &format!("http://{address}{PATH}"));

    let token: Option<Arc<str>> = token.map(Arc::from);
    let stop = stop_signal();
    tokio::pin!(stop);
    let why = loop {
        let (stream, _) = tokio::select! {
            name = &mut stop => break name,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    eprintln!("cdp-supervise: accept failed: {e}");
                    continue;
                }
            },
        };
        let service = service.clone();
        let token = token.clone();
        tokio::spawn(async move {
            let handle = hyper::service::service_fn(move |request: Request<Incoming>| {
                let mut service = service.clone();
                let token = token.clone();
                async move {
                    if request.uri().path() != PATH {
                        return Ok::<_, Infallible>(plain(
                            StatusCode::NOT_FOUND,
                            "The MCP endpoint is /mcp.",
                        ));
                    }
                    if let Some(token) = token.as_deref() {
                        if !authorized(&request, token) {
                            let mut refused = plain(
                                StatusCode::UNAUTHORIZED,
                                "Unauthorized: send Authorization: Bearer <the server's token>.",
                            );
                            refused.headers_mut().insert(
                                hyper::header::WWW_AUTHENTICATE,
                                hyper::header::HeaderValue::from_static("Bearer"),
                            );
                            return Ok(refused);
                        }
                    }
                    let ending = request.method() == hyper::Method::DELETE;
                    let mut response = tower_service::Service::call(&mut service, request).await?;
                    // The SDK accepts a session's end with 202; clients (the official
                    // Python SDK) expect 200 or 204, and warn otherwise.
                    if ending && response.status() == StatusCode::ACCEPTED {
                        *response.status_mut() = StatusCode::NO_CONTENT;
                    }
                    Ok(response)
                }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handle);
            if let Err(e) = connection.await {
                // A client that goes away mid-stream is not the server's failure.
                if !e.is_incomplete_message() && !e.is_canceled() {
                    eprintln!("cdp-supervise: an HTTP connection failed: {e}");
                }
            }
        });
    };
    cancel.cancel();
    let note = tokio::task::spawn_blocking(move || host.close())
        .await
        .ok()
        .flatten();
    eprintln!(
        "cdp-supervise: {why}: {}",
        note.unwrap_or_else(|| "no browser was open.".into())
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_and_addresses_are_told_apart() {
        for h in ["127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3"] {
            assert!(is_loopback(h), "{h}");
        }
        for h in ["0.0.0.0", "::", "192.168.1.2", "example.com", ""] {
            assert!(!is_loopback(h), "{h}");
        }
    }

    #[test]
    fn a_secret_matches_only_itself() {
        assert!(same_secret(b"s3cret", b"s3cret"));
        assert!(!same_secret(b"s3cre", b"s3cret"));
        assert!(!same_secret(b"s3creT", b"s3cret"));
        assert!(!same_secret(b"", b"s3cret"));
    }
}
