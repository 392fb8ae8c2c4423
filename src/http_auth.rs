//! HTTP sign-in challenges (`401` with `WWW-Authenticate`, a proxy's `407`): answered with
//! the credentials the embedder gave for that origin once, or pending as an `http_auth`
//! dialog, never a silent wait (see [`crate::manual::chromium_facts`], "HTTP sign-in").
//!
//! With [`Config::http_auth`](crate::Config::http_auth) every page and OOPIF session gets
//! `Fetch.enable {handleAuthRequests: true, patterns: [{urlPattern: "*"}]}`: every request
//! pauses and is continued at once (the cost is measured in the manual), and a challenge
//! comes as `Fetch.authRequired`. Credentials never reach a log, an error, a diff or a
//! trace: [`Password`] prints as `<redacted>`, and the transports' recorder redacts
//! `Fetch.continueWithAuth`.

use serde::Serialize;
use serde_json::value::RawValue;

use crate::wire::to_raw;

pub use crate::dialog::Password;

/// Credentials for the challenges of one origin (`scheme://host[:port]`, as Chromium's
/// `authChallenge.origin` names it).
///
/// ```
/// use cdp_supervisor::http_auth::Credentials;
/// let c = Credentials::parse("http://127.0.0.1:8080/=alice:s3:cr3t")?;
/// assert_eq!((c.origin.as_str(), c.username.as_str(), c.password.expose()),
///            ("http://127.0.0.1:8080", "alice", "s3:cr3t"));
/// assert!(!format!("{c:?}").contains("s3"));
/// assert!(Credentials::parse("no-equals-sign").is_err());
/// # Ok::<(), String>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    /// The origin they are for.
    pub origin: String,
    /// The user name.
    pub username: String,
    /// The password.
    pub password: Password,
}

impl Credentials {
    /// Reads `ORIGIN=USER:PASS` (the password may hold `:`; the origin is lower-cased,
    /// without a trailing `/`). The error never repeats the password.
    pub fn parse(spec: &str) -> Result<Credentials, String> {
        let (origin, rest) = spec
            .split_once('=')
            .ok_or("expected ORIGIN=USER:PASS (e.g. https://example.com=alice:secret)")?;
        let (username, password) = rest
            .split_once(':')
            .ok_or("expected ORIGIN=USER:PASS: no ':' between the user and the password")?;
        let origin = normalise_origin(origin);
        if !origin.contains("://") {
            return Err(format!(
                "{origin:?} is not an origin (scheme://host[:port])"
            ));
        }
        Ok(Credentials {
            origin,
            username: username.to_owned(),
            password: Password::new(password),
        })
    }
}

/// An origin as compared: lower-case, no trailing `/`.
pub(crate) fn normalise_origin(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// A sign-in challenge, as a pending `http_auth` dialog shows it.
///
/// ```
/// use cdp_supervisor::http_auth::AuthChallenge;
/// let c = AuthChallenge { origin: "http://a.test".into(), realm: "r".into(), scheme: "basic".into() };
/// assert_eq!(serde_json::to_value(&c)?["scheme"], "basic");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct AuthChallenge {
    /// Who asks: `scheme://host[:port]`.
    pub origin: String,
    /// The realm it names.
    pub realm: String,
    /// `basic`, `digest`, ...
    pub scheme: String,
}

/// What to do with sign-in challenges.
///
/// ```
/// use cdp_supervisor::{http_auth::{Credentials, HttpAuthConfig}, Config};
/// let mut config = Config::default();
/// let mut auth = HttpAuthConfig::default();
/// auth.credentials.push(Credentials::parse("http://a.test=u:p")?);
/// auth.prompt = true; // other challenges become pending http_auth dialogs
/// config.http_auth = Some(auth);
/// # Ok::<(), String>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpAuthConfig {
    /// Answered with these, once per request (a second challenge means they were wrong:
    /// canceled and reported).
    pub credentials: Vec<Credentials>,
    /// Other challenges become pending `http_auth` dialogs (otherwise Chromium's default:
    /// headless cancels them).
    pub prompt: bool,
}

impl HttpAuthConfig {
    /// The credentials for `origin`, if any.
    pub(crate) fn for_origin(&self, origin: &str) -> Option<&Credentials> {
        let origin = normalise_origin(origin);
        self.credentials.iter().find(|c| c.origin == origin)
    }
}

/// `Fetch.enable` pausing every request and every challenge.
pub(crate) fn fetch_enable_params() -> Option<Box<RawValue>> {
    #[derive(Serialize)]
    struct Pattern {
        #[serde(rename = "urlPattern")]
        url_pattern: &'static str,
    }
    #[derive(Serialize)]
    struct Params {
        #[serde(rename = "handleAuthRequests")]
        handle_auth_requests: bool,
        patterns: [Pattern; 1],
    }
    to_raw(&Params {
        handle_auth_requests: true,
        patterns: [Pattern { url_pattern: "*" }],
    })
}

/// How a challenge is answered.
pub(crate) enum Response<'a> {
    Provide(&'a str, &'a Password),
    Cancel,
    Default,
}

/// `Fetch.continueWithAuth` for `request_id`.
pub(crate) fn continue_params(request_id: &str, response: Response<'_>) -> Option<Box<RawValue>> {
    #[derive(Serialize)]
    struct Challenge<'a> {
        response: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        username: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        password: Option<&'a str>,
    }
    #[derive(Serialize)]
    struct Params<'a> {
        #[serde(rename = "requestId")]
        request_id: &'a str,
        #[serde(rename = "authChallengeResponse")]
        response: Challenge<'a>,
    }
    let response = match response {
        Response::Provide(user, password) => Challenge {
            response: "ProvideCredentials",
            username: Some(user),
            password: Some(password.expose()),
        },
        Response::Cancel => Challenge {
            response: "CancelAuth",
            username: None,
            password: None,
        },
        Response::Default => Challenge {
            response: "Default",
            username: None,
            password: None,
        },
    };
    to_raw(&Params {
        request_id,
        response,
    })
}
