//! Secrets out of what the supervisor shows: a URL's credentials and query values, and
//! the values of the headers that carry credentials. Pure string work; never panics.

/// What stands for a redacted part of a URL or a header value.
pub const REDACTED: &str = "<redacted>";

/// `url` with its credentials removed, for every log line, error message, trace and
/// network listing: the userinfo (`ws://user:password@host`) becomes `<redacted>@`, each
/// query value (`?apiKey=...`, `?token=...`, any) and the fragment become `<redacted>`
/// (the names stay, to tell which URL it was). Hosted browsers and web APIs put their
/// keys there. A string with nothing to redact comes back unchanged.
///
/// ```
/// use cdp_supervisor::redact::redact_url;
/// assert_eq!(redact_url("ws://u:p@h:1/x?apiKey=SECRET&b"), "ws://<redacted>@h:1/x?apiKey=<redacted>&b");
/// assert_eq!(redact_url("ws://h:1/devtools/browser/abc"), "ws://h:1/devtools/browser/abc");
/// assert_eq!(redact_url("h:1/x#tok"), "h:1/x#<redacted>");
/// ```
pub fn redact_url(url: &str) -> String {
    let (before_fragment, fragment) = match url.split_once('#') {
        Some((b, _)) => (b, Some(REDACTED)),
        None => (url, None),
    };
    let (before_query, query) = match before_fragment.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (before_fragment, None),
    };
    let (scheme, rest) = match before_query.split_once("://") {
        Some((s, r)) => (Some(s), r),
        None => (None, before_query),
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let mut out = String::with_capacity(url.len());
    if let Some(s) = scheme {
        out.push_str(s);
        out.push_str("://");
    }
    match authority.rsplit_once('@') {
        Some((_, host)) => {
            out.push_str(REDACTED);
            out.push('@');
            out.push_str(host);
        }
        None => out.push_str(authority),
    }
    out.push_str(path);
    if let Some(q) = query {
        out.push('?');
        for (i, pair) in q.split('&').enumerate() {
            if i > 0 {
                out.push('&');
            }
            match pair.split_once('=') {
                Some((name, _)) => {
                    out.push_str(name);
                    out.push('=');
                    out.push_str(REDACTED);
                }
                None => out.push_str(pair),
            }
        }
    }
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// Whether a header's value is a credential, never shown: `Authorization`,
/// `Proxy-Authorization`, `Cookie`, `Set-Cookie`, and the common API-key and token
/// headers (`X-Api-Key`, `X-Auth-Token`, `X-CSRF-Token`, ...). Names compare
/// case-insensitively.
///
/// ```
/// use cdp_supervisor::redact::is_secret_header;
/// assert!(is_secret_header("authorization") && is_secret_header("Set-Cookie"));
/// assert!(is_secret_header("X-Api-Key") && !is_secret_header("Content-Type"));
/// ```
pub fn is_secret_header(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "x-api-key",
        "api-key",
    ];
    let lower = name.to_ascii_lowercase();
    NAMES.contains(&lower.as_str()) || (lower.starts_with("x-") && lower.contains("token"))
}

/// A header's value as it may be shown: [`REDACTED`] for a credential
/// ([`is_secret_header`]), else the value.
///
/// ```
/// use cdp_supervisor::redact::header_value;
/// assert_eq!(header_value("Authorization", "Bearer s3cret"), "<redacted>");
/// assert_eq!(header_value("Accept", "text/html"), "text/html");
/// ```
pub fn header_value<'a>(name: &str, value: &'a str) -> &'a str {
    if is_secret_header(name) {
        REDACTED
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hides_userinfo_query_values_and_fragment() {
        let r = redact_url("ws://u:p@127.0.0.1:1/x?apiKey=SECRET&token=T2#frag");
        assert_eq!(
            r,
            "ws://<redacted>@127.0.0.1:1/x?apiKey=<redacted>&token=<redacted>#<redacted>"
        );
        assert_eq!(redact_url(""), "");
        assert_eq!(
            redact_url("ws://@?=&#"),
            "ws://<redacted>@?=<redacted>&#<redacted>"
        );
        assert_eq!(redact_url("é?é=é"), "é?é=<redacted>");
    }

    #[test]
    fn credential_headers_are_hidden() {
        for name in [
            "Authorization",
            "COOKIE",
            "set-cookie",
            "Proxy-Authorization",
            "X-Auth-Token",
        ] {
            assert_eq!(header_value(name, "v"), REDACTED, "{name}");
        }
        assert_eq!(header_value("Referer", "v"), "v");
    }
}
