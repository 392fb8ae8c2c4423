//! Where an agent may go: the URL policy a navigation is checked against before it is
//! sent (see [rules](crate::manual::rules), "Where an agent may go").
//!
//! Pure and small: a URL is read the way a browser reads it where it matters for safety
//! (leading and trailing spaces and control characters trimmed, tabs and newlines removed
//! anywhere, the scheme case-folded, `\` taken as `/` in `http(s)` URLs, userinfo dropped
//! from the host), then judged:
//!
//! - `http:` / `https:`: `blocked_origins` first, then `allowed_origins` (when it lists
//!   anything, everything it does not match is refused), with Playwright MCP's semantics
//!   (`--blocked-origins` / `--allowed-origins`, semicolon-separated): an entry is a full
//!   origin (`https://example.com`, `http://localhost:8080`), an origin with any port
//!   (`http://localhost:*`), or a host alone (`example.com`, `localhost:8080`) for any
//!   scheme;
//! - `about:`, `data:`, `blob:`: allowed (they stay in the page's own world);
//! - `file:`: refused unless [`UrlPolicy::allow_file_access`] names a directory that holds
//!   the file (`--allow-file-access DIR`);
//! - `javascript:`, and every other scheme (`chrome:`, `devtools:`, `chrome-extension:`,
//!   `chrome-untrusted:`, `view-source:`, ...): refused unless
//!   [`UrlPolicy::allow_internal_urls`] (`--allow-internal-urls`).
//!
//! [`UrlPolicy::default`] allows everything (a library embedder's own navigations);
//! [`UrlPolicy::agent`] is the default of an agent's server (the MCP server), with every
//! door shut.
//!
//! ```
//! use cdp_supervisor::url_policy::UrlPolicy;
//! let policy = UrlPolicy::agent();
//! assert!(policy.check("https://example.com/").is_ok());
//! let refused = policy.check("file:///etc/passwd").unwrap_err();
//! assert!(refused.to_string().contains("--allow-file-access"));
//! assert!(policy.check("chrome://settings").unwrap_err().to_string().contains("--allow-internal-urls"));
//! ```

use percent_encoding::percent_decode_str;

/// The schemes whose URLs stay in the page's own world: always allowed.
const HARMLESS_SCHEMES: &[&str] = &["about", "data", "blob"];

/// Entries of an origin list, and list lengths, kept at most (a longer list is cut).
const MAX_ORIGIN_PATTERNS: usize = 256;

/// The scheme of `url` as a browser reads it (lower case, spaces, tabs and newlines
/// that a browser drops ignored); `None` without one.
///
/// ```
/// use cdp_supervisor::url_policy::scheme_of;
/// assert_eq!(scheme_of(" Java\tScript:alert(1)").as_deref(), Some("javascript"));
/// assert_eq!(scheme_of("example.com"), None);
/// ```
pub fn scheme_of(url: &str) -> Option<String> {
    split_scheme(&clean_url(url)).map(|(scheme, _)| scheme)
}

/// What an agent may open. `Default` allows everything; see [`UrlPolicy::agent`].
///
/// ```
/// use cdp_supervisor::url_policy::UrlPolicy;
/// let mut policy = UrlPolicy::agent();
/// policy.set_blocked_origins("https://ads.example.com;tracker.test");
/// policy.set_allowed_origins("https://example.com;http://localhost:*");
/// assert!(policy.check("https://example.com/a").is_ok());
/// assert!(policy.check("http://localhost:4000/").is_ok());
/// assert!(policy.check("https://other.test/").is_err()); // not on the allow list
/// assert!(policy.check("http://tracker.test/x").is_err()); // blocked first
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlPolicy {
    /// `file:` URLs under this directory (an absolute path) are allowed; `None`: none is.
    pub allow_file_access: Option<String>,
    /// `javascript:`, `chrome:`, `devtools:`, `chrome-extension:` and every other
    /// non-web scheme are allowed.
    pub allow_internal_urls: bool,
    allowed_origins: Vec<OriginPattern>,
    blocked_origins: Vec<OriginPattern>,
}

impl Default for UrlPolicy {
    /// Everything allowed: the library's own behaviour, for an embedder that navigates
    /// where it chooses.
    fn default() -> Self {
        UrlPolicy {
            allow_file_access: Some("/".to_owned()),
            allow_internal_urls: true,
            allowed_origins: Vec::new(),
            blocked_origins: Vec::new(),
        }
    }
}

impl UrlPolicy {
    /// The policy of an agent's server: the web is open, every door (`file:`, `chrome:`,
    /// `devtools:`, `chrome-extension:`, `javascript:`, ...) shut.
    pub fn agent() -> Self {
        UrlPolicy {
            allow_file_access: None,
            allow_internal_urls: false,
            allowed_origins: Vec::new(),
            blocked_origins: Vec::new(),
        }
    }

    /// Sets `--allowed-origins`: a semicolon-separated list (empty: every origin that is
    /// not blocked). Entries that cannot be an origin or a host are ignored.
    pub fn set_allowed_origins(&mut self, list: &str) {
        self.allowed_origins = parse_list(list);
    }

    /// Sets `--blocked-origins`: a semicolon-separated list, checked before the allowed.
    pub fn set_blocked_origins(&mut self, list: &str) {
        self.blocked_origins = parse_list(list);
    }

    /// Whether the policy allows everything ([`UrlPolicy::default`]).
    pub fn allows_everything(&self) -> bool {
        *self == UrlPolicy::default()
    }

    /// Whether a navigation to `url` is allowed; the refusal says why and which flag
    /// would allow it.
    ///
    /// ```
    /// use cdp_supervisor::url_policy::UrlPolicy;
    /// let mut policy = UrlPolicy::agent();
    /// policy.allow_file_access = Some("/srv/site".into());
    /// assert!(policy.check("file:///srv/site/index.html").is_ok());
    /// assert!(policy.check("file:///srv/site/../../etc/passwd").is_err());
    /// assert!(policy.check(" JavaScript:alert(1)").is_err());
    /// ```
    pub fn check(&self, url: &str) -> Result<(), UrlRefused> {
        let clean = clean_url(url);
        let Some((scheme, rest)) = split_scheme(&clean) else {
            // No scheme: not a URL a browser navigates to as is; nothing to shut.
            return Ok(());
        };
        let refuse = |reason: RefusedBecause| {
            Err(UrlRefused {
                url: shown_url(&clean),
                reason,
            })
        };
        match scheme.as_str() {
            "http" | "https" => {
                let Some(origin) = Origin::of_web_url(&scheme, rest) else {
                    return Ok(()); // not a valid web URL: Chromium refuses it itself
                };
                if let Some(p) = self.blocked_origins.iter().find(|p| p.matches(&origin)) {
                    return refuse(RefusedBecause::BlockedOrigin {
                        entry: p.entry.clone(),
                    });
                }
                if !self.allowed_origins.is_empty()
                    && !self.allowed_origins.iter().any(|p| p.matches(&origin))
                {
                    return refuse(RefusedBecause::NotAllowedOrigin);
                }
                Ok(())
            }
            s if HARMLESS_SCHEMES.contains(&s) => Ok(()),
            "file" => match &self.allow_file_access {
                Some(dir) if file_under(rest, dir) => Ok(()),
                Some(dir) => refuse(RefusedBecause::FileOutside { dir: dir.clone() }),
                None => refuse(RefusedBecause::File),
            },
            "javascript" if !self.allow_internal_urls => refuse(RefusedBecause::Javascript),
            _ if !self.allow_internal_urls => refuse(RefusedBecause::Internal { scheme }),
            _ => Ok(()),
        }
    }
}

/// A navigation the policy refused, with the words an agent needs: what, why, and the
/// flag that would allow it. The URL is shown without its query, fragment or userinfo
/// (they may hold keys).
///
/// ```
/// use cdp_supervisor::url_policy::UrlPolicy;
/// let e = UrlPolicy::agent().check("chrome://settings/?token=SECRET").unwrap_err();
/// assert!(!e.to_string().contains("SECRET"));
/// assert_eq!(e.flag(), Some("--allow-internal-urls"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("navigation to {url} refused: {reason}; the page stays where it was")]
pub struct UrlRefused {
    /// The URL, redacted.
    pub url: String,
    /// Why.
    pub reason: RefusedBecause,
}

impl UrlRefused {
    /// The command-line flag that would allow it, if one would.
    pub fn flag(&self) -> Option<&'static str> {
        match self.reason {
            RefusedBecause::File | RefusedBecause::FileOutside { .. } => {
                Some("--allow-file-access")
            }
            RefusedBecause::Javascript | RefusedBecause::Internal { .. } => {
                Some("--allow-internal-urls")
            }
            RefusedBecause::BlockedOrigin { .. } => Some("--blocked-origins"),
            RefusedBecause::NotAllowedOrigin => Some("--allowed-origins"),
        }
    }
}

/// Why a URL was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RefusedBecause {
    /// A `file:` URL with no file access allowed.
    #[error("local files are shut by default; start the server with --allow-file-access DIR to open the files under DIR")]
    File,
    /// A `file:` URL outside the allowed directory.
    #[error("only files under {dir} may be opened (--allow-file-access)")]
    FileOutside {
        /// The allowed directory.
        dir: String,
    },
    /// A `javascript:` URL.
    #[error("javascript: URLs run script in the page; use browser_evaluate (the evaluate call) instead, or start the server with --allow-internal-urls")]
    Javascript,
    /// A browser-internal scheme.
    #[error("{scheme}: pages are the browser's own (settings, extensions, developer tools) and shut by default; start the server with --allow-internal-urls to open them")]
    Internal {
        /// The scheme, without its colon.
        scheme: String,
    },
    /// An origin on the blocked list.
    #[error("the origin is blocked (--blocked-origins entry {entry:?})")]
    BlockedOrigin {
        /// The entry that matched.
        entry: String,
    },
    /// An origin the allowed list does not name.
    #[error("the origin is not on the allowed list (--allowed-origins); add it there to open it")]
    NotAllowedOrigin,
}

/// One `--allowed-origins` / `--blocked-origins` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OriginPattern {
    /// The entry as given (trimmed), for messages.
    entry: String,
    /// `None`: any scheme (a host-only entry).
    scheme: Option<String>,
    host: String,
    /// `None`: any port (`:*`); else the port, the scheme's default filled in for a full
    /// origin; for a host-only entry without a port, the scheme's default.
    port: Option<u16>,
    /// A host-only entry without a port matches the default port of whatever scheme.
    default_port: bool,
}

impl OriginPattern {
    fn parse(entry: &str) -> Option<OriginPattern> {
        let entry = entry.trim();
        if entry.is_empty() {
            return None;
        }
        let lower = entry.to_ascii_lowercase();
        if let Some((scheme, rest)) = lower.split_once("://") {
            if scheme != "http" && scheme != "https" {
                return None;
            }
            let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
            let (host, port) = split_host_port(authority)?;
            let port = match port {
                PortSpec::Any => None,
                PortSpec::Given(p) => Some(p),
                PortSpec::Default => Some(default_port(scheme)),
            };
            return Some(OriginPattern {
                entry: entry.to_owned(),
                scheme: Some(scheme.to_owned()),
                host,
                port,
                default_port: false,
            });
        }
        // A host alone, with or without a port: any scheme.
        let (host, port) = split_host_port(&lower)?;
        let (port, default_port) = match port {
            PortSpec::Any => (None, false),
            PortSpec::Given(p) => (Some(p), false),
            PortSpec::Default => (None, true),
        };
        Some(OriginPattern {
            entry: entry.to_owned(),
            scheme: None,
            host,
            port,
            default_port,
        })
    }

    fn matches(&self, origin: &Origin) -> bool {
        if self.scheme.as_deref().is_some_and(|s| s != origin.scheme) || self.host != origin.host {
            return false;
        }
        if self.default_port {
            return origin.port == default_port(&origin.scheme);
        }
        self.port.is_none_or(|p| p == origin.port)
    }
}

fn parse_list(list: &str) -> Vec<OriginPattern> {
    list.split(';')
        .filter_map(OriginPattern::parse)
        .take(MAX_ORIGIN_PATTERNS)
        .collect()
}

/// A web URL's origin: scheme, host (lower case), port (the default filled in).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl Origin {
    /// `rest` is what follows `scheme:` in a cleaned URL.
    fn of_web_url(scheme: &str, rest: &str) -> Option<Origin> {
        // Browsers read `\` as `/` in web URLs, and any number of slashes after the scheme.
        let rest = rest.replace('\\', "/");
        let rest = rest.trim_start_matches('/');
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        // Userinfo goes: `https://good.com@evil.com/` is evil.com.
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let (host, port) = split_host_port(&host_port.to_ascii_lowercase())?;
        let port = match port {
            PortSpec::Given(p) => p,
            PortSpec::Default => default_port(scheme),
            PortSpec::Any => return None,
        };
        // A trailing dot names the same host.
        let host = host.strip_suffix('.').unwrap_or(&host).to_owned();
        Some(Origin {
            scheme: scheme.to_owned(),
            host,
            port,
        })
    }
}

enum PortSpec {
    Default,
    Any,
    Given(u16),
}

/// `host[:port]`, `[v6]` or `[v6]:port`; `*` as the port is any port.
fn split_host_port(authority: &str) -> Option<(String, PortSpec)> {
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (inside, after) = v6.split_once(']')?;
        (format!("[{inside}]"), after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_owned(), Some(p)),
            None => (authority.to_owned(), None),
        }
    };
    if host.is_empty() || host.contains(['/', '@', ' ']) {
        return None;
    }
    let port = match port {
        None | Some("") => PortSpec::Default,
        Some("*") => PortSpec::Any,
        Some(p) => PortSpec::Given(p.parse().ok()?),
    };
    Some((host, port))
}

fn default_port(scheme: &str) -> u16 {
    if scheme == "https" {
        443
    } else {
        80
    }
}

/// The URL as a browser reads it before parsing: leading and trailing C0 controls and
/// spaces trimmed, tabs and newlines removed everywhere.
fn clean_url(url: &str) -> String {
    url.trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect()
}

/// The scheme (lower case) and what follows its colon; `None` when there is no scheme.
fn split_scheme(url: &str) -> Option<(String, &str)> {
    let (scheme, rest) = url.split_once(':')?;
    let mut chars = scheme.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let ok = first_ok && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    ok.then(|| (scheme.to_ascii_lowercase(), rest))
}

/// Whether the `file:` URL (what follows `file:`) names a file under `dir`: its path
/// percent-decoded, `.` and `..` resolved, compared component by component. A host other
/// than `localhost` (a network share) is never under it.
fn file_under(rest: &str, dir: &str) -> bool {
    let rest = rest.replace('\\', "/");
    let path = match rest.strip_prefix("//") {
        Some(after) => {
            let (host, path) = after.split_at(after.find('/').unwrap_or(after.len()));
            if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
                return false;
            }
            path.to_owned()
        }
        None => rest,
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    let Ok(decoded) = percent_decode_str(path).decode_utf8() else {
        return false;
    };
    let (Some(file), Some(dir)) = (normalize(&decoded), normalize(dir)) else {
        return false;
    };
    file.len() >= dir.len() && file[..dir.len()] == dir[..]
}

/// The components of an absolute path with `.` and `..` resolved; `None` for a relative
/// path or one with a NUL.
fn normalize(path: &str) -> Option<Vec<&str>> {
    if !path.starts_with('/') || path.contains('\0') {
        return None;
    }
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    Some(parts)
}

/// The URL for a message: scheme, host and path, without userinfo, query or fragment.
fn shown_url(url: &str) -> String {
    let no_query = url.split(['?', '#']).next().unwrap_or("");
    match no_query.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            format!("{scheme}://{host}{path}")
        }
        None => no_query.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(p: &UrlPolicy, url: &str) -> bool {
        p.check(url).is_err()
    }

    #[test]
    fn the_agent_default_shuts_every_door_and_opens_the_web() {
        let p = UrlPolicy::agent();
        for url in [
            "file:///etc/passwd",
            "FILE:///etc/passwd",
            "  file:///etc/passwd",
            "fi\nle:///etc/passwd",
            "chrome://settings",
            "chrome://version/",
            "devtools://devtools/bundled/inspector.html",
            "chrome-extension://abcdef/popup.html",
            "chrome-untrusted://x/",
            "view-source:https://example.com/",
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "java\tscript:alert(1)",
            "\u{0}javascript:alert(1)",
            "filesystem:http://x/temporary/a",
        ] {
            assert!(refused(&p, url), "{url:?} should be refused");
        }
        for url in [
            "https://example.com/",
            "http://127.0.0.1:8080/x?y#z",
            "about:blank",
            "data:text/html,<p>hi",
            "blob:https://example.com/uuid",
            "example.com", // no scheme: Chromium refuses it itself
        ] {
            assert!(!refused(&p, url), "{url:?} should be allowed");
        }
    }

    #[test]
    fn default_allows_everything() {
        let p = UrlPolicy::default();
        assert!(p.allows_everything());
        assert!(!UrlPolicy::agent().allows_everything());
        for url in ["file:///etc/passwd", "chrome://settings", "javascript:1"] {
            assert!(!refused(&p, url), "{url}");
        }
    }

    #[test]
    fn refusals_name_the_flag_and_keep_secrets_out() {
        let p = UrlPolicy::agent();
        let e = p.check("file:///etc/passwd").unwrap_err();
        assert_eq!(e.flag(), Some("--allow-file-access"));
        assert!(e.to_string().contains("--allow-file-access DIR"), "{e}");
        let e = p.check("javascript:alert(1)").unwrap_err();
        assert_eq!(e.flag(), Some("--allow-internal-urls"));
        let e = p
            .check("chrome-extension://u:pw@ext/x?key=SECRET#frag")
            .unwrap_err();
        let text = e.to_string();
        assert!(
            !text.contains("SECRET") && !text.contains("pw") && !text.contains("frag"),
            "{text}"
        );
        assert!(text.contains("chrome-extension://ext/x"), "{text}");
    }

    #[test]
    fn file_access_is_confined_to_its_directory() {
        let mut p = UrlPolicy::agent();
        p.allow_file_access = Some("/srv/site/".into());
        assert!(!refused(&p, "file:///srv/site/index.html"));
        assert!(!refused(&p, "file://localhost/srv/site/a/b.html"));
        assert!(!refused(&p, "file:///srv/site/a/../b.html"));
        assert!(refused(&p, "file:///srv/site/../../etc/passwd"));
        assert!(refused(&p, "file:///srv/site/%2e%2e/%2e%2e/etc/passwd"));
        assert!(
            refused(&p, "file:///srv/sitex/index.html"),
            "a sibling with the same prefix"
        );
        assert!(refused(&p, "file://evil-share/srv/site/a"));
        assert!(refused(&p, "file:///etc/passwd"));
        let e = p.check("file:///etc/passwd").unwrap_err();
        assert!(e.to_string().contains("/srv/site"), "{e}");
    }

    #[test]
    fn origins_match_as_playwright_mcp_matches_them() {
        let mut p = UrlPolicy::agent();
        p.set_allowed_origins("https://example.com; http://localhost:* ;api.test:8443;plain.test");
        // A full origin: that scheme, host and (default) port only.
        assert!(!refused(&p, "https://example.com/a"));
        assert!(!refused(&p, "https://EXAMPLE.com:443/a"));
        assert!(refused(&p, "http://example.com/a"));
        assert!(refused(&p, "https://example.com:8443/a"));
        assert!(refused(&p, "https://sub.example.com/"));
        // Any port.
        assert!(!refused(&p, "http://localhost:4000/"));
        assert!(!refused(&p, "http://localhost/"));
        assert!(refused(&p, "https://localhost:4000/"));
        // A host with a port, any scheme.
        assert!(!refused(&p, "https://api.test:8443/"));
        assert!(!refused(&p, "http://api.test:8443/"));
        assert!(refused(&p, "https://api.test/"));
        // A host alone: any scheme, its default port.
        assert!(!refused(&p, "http://plain.test/"));
        assert!(!refused(&p, "https://plain.test/"));
        assert!(refused(&p, "http://plain.test:81/"));
        // Not on the list.
        let e = p.check("https://other.test/").unwrap_err();
        assert_eq!(e.flag(), Some("--allowed-origins"));
        // Other schemes keep their own rules, whatever the list.
        assert!(!refused(&p, "about:blank"));
    }

    #[test]
    fn blocked_comes_before_allowed_and_alone_blocks_only_its_own() {
        let mut p = UrlPolicy::agent();
        p.set_blocked_origins("https://ads.test;tracker.test");
        assert!(refused(&p, "https://ads.test/x"));
        assert!(refused(&p, "http://tracker.test/"));
        assert!(!refused(&p, "https://news.test/"));
        p.set_allowed_origins("https://ads.test;https://news.test");
        let e = p.check("https://ads.test/").unwrap_err();
        assert_eq!(e.flag(), Some("--blocked-origins"));
        assert!(e.to_string().contains("https://ads.test"), "{e}");
        assert!(!refused(&p, "https://news.test/"));
    }

    #[test]
    fn tricky_web_urls_are_read_as_a_browser_reads_them() {
        let mut p = UrlPolicy::agent();
        p.set_allowed_origins("https://good.test");
        // Userinfo is not the host.
        assert!(refused(&p, "https://good.test@evil.test/"));
        assert!(refused(&p, "https://good.test:pw@evil.test/"));
        // A backslash ends the host in a web URL.
        assert!(refused(&p, "https://evil.test\\@good.test/"));
        assert!(!refused(&p, "https:\\\\good.test\\a"));
        assert!(!refused(&p, "https:///good.test/"));
        assert!(!refused(&p, "https://good.test./"));
        assert!(refused(&p, "https://good.test.evil.test/"));
        // IPv6.
        p.set_allowed_origins("http://[::1]:*");
        assert!(!refused(&p, "http://[::1]:8080/"));
        assert!(refused(&p, "http://127.0.0.1:8080/"));
    }

    #[test]
    fn nothing_panics_on_odd_input() {
        let mut p = UrlPolicy::agent();
        p.set_allowed_origins(";;  ;http://;https://[::1;ftp://x;*:*;:80;a:99999");
        p.allow_file_access = Some("relative/dir".into());
        for url in [
            "",
            ":",
            "http:",
            "https://",
            "http://[",
            "http://[::1",
            "http://a:99999/",
            "file:",
            "file://",
            "file:relative",
            "\u{7f}",
            "é:x",
            "http://:80/",
            "💥://x",
        ] {
            let _ = p.check(url);
        }
        // A relative directory allows nothing.
        assert!(refused(&p, "file:///relative/dir/a"));
    }
}
