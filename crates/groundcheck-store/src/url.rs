//! Database URLs: which engine, and a form safe to print.
//!
//! A URL can carry a credential in two places: the password of its user-info
//! (`postgres://user:PASSWORD@host/db`) and its query string (`?password=…`, which the
//! PostgreSQL driver reads, and look-alikes such as `sslpassword=` or `PASS=` that no driver
//! reads but a person may still have typed). [`redact`] masks both; [`scrub`] removes them
//! from any text a driver produced.

/// The engines groundcheck stores to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// SQLite, the embedded default.
    Sqlite,
    /// MariaDB or MySQL (`mysql:` or `mariadb:` URLs).
    MySql,
    /// PostgreSQL (`postgres:` or `postgresql:` URLs).
    Postgres,
}

impl Engine {
    /// The engine a URL names, by its scheme.
    pub fn of(url: &str) -> Option<Engine> {
        let scheme = url.split_once(':')?.0.to_ascii_lowercase();
        match scheme.as_str() {
            "sqlite" => Some(Engine::Sqlite),
            "mysql" | "mariadb" => Some(Engine::MySql),
            "postgres" | "postgresql" => Some(Engine::Postgres),
            _ => None,
        }
    }

    /// A short name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Sqlite => "SQLite",
            Engine::MySql => "MariaDB/MySQL",
            Engine::Postgres => "PostgreSQL",
        }
    }
}

/// What replaces a credential.
const MASK: &str = "***";

/// Where a URL's credentials are: byte ranges of `url`, in order.
///
/// - The user-info password: after `://`, from the first `:` up to the `@` that ends the
///   user-info. That `@` is the last one before the query (`?`) or fragment (`#`); when a
///   password holds a raw `?` or `#` (which drivers would misread), the last `@` before the
///   first `/`, `?` or `#` after the first `@` — unless that span holds a query parameter
///   (`?…=`), so an `@` inside a query value is never taken for one. SQLite URLs are file
///   paths: a `:` and `@` there are part of the name, never a password.
/// - The value of every query parameter whose name, decoded as drivers decode it (percent
///   escapes, `+` for space, tabs and line breaks dropped) and compared without case,
///   contains `pass`, `pwd`, `secret` or `token`; repeated parameters are each masked.
fn secret_spans(url: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let Some(start) = url.find("://").map(|i| i + 3) else { return query_spans(url, 0) };
    let rest = &url[start..];
    let mut query_from = start;
    if Engine::of(url) != Some(Engine::Sqlite) {
        if let Some(end) = userinfo_end(rest) {
            if let Some(colon) = rest[..end].find(':') {
                spans.push((start + colon + 1, start + end));
            }
            query_from = start + end;
        }
    }
    spans.extend(query_spans(&url[query_from..], query_from));
    spans
}

/// The byte offset of the `@` that ends the user-info of `rest` (the URL after `://`).
fn userinfo_end(rest: &str) -> Option<usize> {
    let before_query = rest.find(['?', '#']).unwrap_or(rest.len());
    let plain = rest[..before_query].rfind('@');
    let first_at = rest.find('@')?;
    let after = rest[first_at..].find(['/', '?', '#']).map_or(rest.len(), |i| first_at + i);
    let odd = rest[..after].rfind('@').filter(|&at| {
        let span = &rest[..at];
        !span.find('?').is_some_and(|q| span[q..].contains('='))
    });
    plain.max(odd)
}

/// The value spans of secret query parameters in `text` (which starts at `offset` of the URL).
fn query_spans(text: &str, offset: usize) -> Vec<(usize, usize)> {
    let Some(q) = text.find('?') else { return Vec::new() };
    let end = text[q..].find('#').map_or(text.len(), |i| q + i);
    let mut spans = Vec::new();
    let mut at = q + 1;
    for pair in text[q + 1..end].split('&') {
        if let Some((key, _)) = pair.split_once('=') {
            if is_secret_name(key) {
                spans.push((offset + at + key.len() + 1, offset + at + pair.len()));
            }
        }
        at += pair.len() + 1;
    }
    spans
}

/// Whether a query parameter name (as written) names a credential.
fn is_secret_name(key: &str) -> bool {
    let name = decode(key).to_lowercase();
    ["pass", "pwd", "secret", "token"].iter().any(|s| name.contains(s))
}

/// A URL component as drivers read it: tabs and line breaks dropped (the URL parser strips
/// them), `+` as space, percent escapes decoded (invalid ones kept as written).
fn decode(text: &str) -> String {
    let bytes: Vec<u8> = text
        .bytes()
        .filter(|b| !matches!(b, b'\t' | b'\n' | b'\r'))
        .map(|b| if b == b'+' { b' ' } else { b })
        .collect();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The server a URL names, as `host:port` (the engine's default port when none is given),
/// for a message about a server that did not answer; never a credential. `None` for SQLite.
pub(crate) fn server(url: &str) -> Option<String> {
    let engine = Engine::of(url).filter(|e| *e != Engine::Sqlite)?;
    let start = url.find("://")? + 3;
    let rest = &url[start..];
    let host_from = userinfo_end(rest).map_or(0, |at| at + 1);
    let host = &rest[host_from..];
    let host = &host[..host.find(['/', '?', '#']).unwrap_or(host.len())];
    let has_port = host.rsplit_once(':').is_some_and(|(_, port)| !port.contains(']'));
    let default = if engine == Engine::MySql { 3306 } else { 5432 };
    match (host.is_empty(), has_port) {
        (true, _) => Some(format!("localhost:{default}")),
        (false, true) => Some(host.to_string()),
        (false, false) => Some(format!("{host}:{default}")),
    }
}

/// The first character of a server URL's password that a URL cannot hold as it is: `/`, `?`
/// or `#` end the host part, so a driver reads the rest of the password as a port ("invalid
/// port number") or a path. Such a password must be percent-encoded.
pub(crate) fn unencoded_in_password(url: &str) -> Option<char> {
    if Engine::of(url) == Some(Engine::Sqlite) {
        return None;
    }
    let start = url.find("://")? + 3;
    let rest = &url[start..];
    let end = userinfo_end(rest)?;
    let colon = rest[..end].find(':')?;
    rest[colon + 1..end].chars().find(|c| matches!(c, '/' | '?' | '#'))
}

/// How a character is written percent-encoded in a URL, e.g. `%2F` for `/`.
pub(crate) fn percent_encoded(c: char) -> String {
    let mut buf = [0u8; 4];
    c.encode_utf8(&mut buf).bytes().map(|b| format!("%{b:02X}")).collect()
}

/// `url` with every credential replaced by `***`: the form every message, report and log
/// line shows. The rest of the URL is kept as written, so a person can still tell which
/// database it is.
pub fn redact(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    let mut at = 0;
    for (from, to) in secret_spans(url) {
        out.push_str(&url[at..from]);
        out.push_str(MASK);
        at = to;
    }
    out.push_str(&url[at..]);
    out
}

/// `text` (a driver's message about `url`) with the URL redacted and every credential of the
/// URL removed, as written and as decoded, wherever it stands as a word of its own (not
/// between letters or digits: a password `b` must not turn `database` into `data***ase`).
pub(crate) fn scrub(text: &str, url: &str) -> String {
    let mut text = text.replace(url, &redact(url));
    for (from, to) in secret_spans(url) {
        let raw = &url[from..to];
        for secret in [raw.to_string(), decode(raw)] {
            text = mask_words(&text, &secret);
        }
    }
    text
}

/// `text` with each occurrence of `word` that no letter or digit touches replaced by `***`.
fn mask_words(text: &str, word: &str) -> String {
    if word.is_empty() {
        return text.to_string();
    }
    let touches = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(word) {
        let (before, after) = (rest[..i].chars().next_back(), rest[i + word.len()..].chars().next());
        out.push_str(&rest[..i]);
        if (touches(before) && touches(word.chars().next()))
            || (touches(after) && touches(word.chars().next_back()))
        {
            out.push_str(&rest[i..i + word.len()]);
        } else {
            out.push_str(MASK);
        }
        rest = &rest[i + word.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_is_host_and_port_without_credentials() {
        assert_eq!(server("mysql://gc:s3cr3t@127.0.0.1:3306/db").as_deref(), Some("127.0.0.1:3306"));
        assert_eq!(server("mariadb://gc:a/b@db.internal/agent").as_deref(), Some("db.internal:3306"));
        assert_eq!(server("postgres://gc@[::1]:5433/db?x=1").as_deref(), Some("[::1]:5433"));
        assert_eq!(server("postgresql://h").as_deref(), Some("h:5432"));
        assert_eq!(server("sqlite://groundcheck.db"), None);
    }

    #[test]
    fn a_password_with_a_raw_slash_question_mark_or_hash_is_found() {
        assert_eq!(unencoded_in_password("mysql://gc:pa/ss@h:3306/db"), Some('/'));
        assert_eq!(unencoded_in_password("postgres://gc:pa#ss@h/db"), Some('#'));
        assert_eq!(unencoded_in_password("postgres://gc:pa%2Fss@h/db"), None);
        assert_eq!(unencoded_in_password("postgres://gc@h/db?password=a/b"), None, "a query value may");
        assert_eq!(unencoded_in_password("sqlite://a:b/c@d"), None);
        assert_eq!(percent_encoded('/'), "%2F");
    }

    #[test]
    fn user_info_passwords_are_masked() {
        assert_eq!(redact("mysql://gc:s3cr3t@127.0.0.1:3306/db"), "mysql://gc:***@127.0.0.1:3306/db");
        assert_eq!(
            redact("postgres://gc:p%40ss@h/db?sslmode=disable"),
            "postgres://gc:***@h/db?sslmode=disable"
        );
        assert_eq!(redact("postgres://gc:@h/db"), "postgres://gc:***@h/db");
        assert_eq!(redact("postgres://gc@h/db"), "postgres://gc@h/db");
        assert_eq!(redact("sqlite://groundcheck.db"), "sqlite://groundcheck.db");
        assert_eq!(redact("not a url"), "not a url");
    }

    #[test]
    fn raw_at_signs_and_delimiters_in_passwords_are_masked_whole() {
        // `@` in the password, and in the user name (Azure's user@server).
        assert_eq!(redact("postgres://gc:p@ss@h:5432/db"), "postgres://gc:***@h:5432/db");
        assert_eq!(redact("postgres://gc@srv:pw@h/db"), "postgres://gc@srv:***@h/db");
        assert_eq!(redact("postgres://gc:p@s/s@h/db?a=1"), "postgres://gc:***@h/db?a=1");
        // `/`, `?` and `#` in the password.
        assert_eq!(redact("mysql://gc:a/b@h/db"), "mysql://gc:***@h/db");
        assert_eq!(redact("mysql://gc:12?34@h/db"), "mysql://gc:***@h/db");
        assert_eq!(redact("mysql://gc:x#y@h/db"), "mysql://gc:***@h/db");
        // An `@` in a query value or the path is no user-info.
        assert_eq!(redact("postgres://h:5432/db?user=a@b"), "postgres://h:5432/db?user=a@b");
        assert_eq!(redact("postgres://gc:pw@h/db?user=a@b"), "postgres://gc:***@h/db?user=a@b");
        // SQLite URLs are paths.
        assert_eq!(redact("sqlite:///tmp/a:b@c.db"), "sqlite:///tmp/a:b@c.db");
    }

    #[test]
    fn query_parameters_that_carry_credentials_are_masked() {
        assert_eq!(
            redact("postgres://gc@127.0.0.1:55432/t?password=secret"),
            "postgres://gc@127.0.0.1:55432/t?password=***"
        );
        assert_eq!(
            redact("postgres://h/t?sslmode=require&sslpassword=k&pass=p&application_name=x"),
            "postgres://h/t?sslmode=require&sslpassword=***&pass=***&application_name=x"
        );
        // Repeated, differing in case, percent-encoded or split by a tab in their name.
        assert_eq!(
            redact("postgres://h/t?password=a&password=b"),
            "postgres://h/t?password=***&password=***"
        );
        assert_eq!(redact("mysql://h/t?PASSWORD=a&PassWord=b"), "mysql://h/t?PASSWORD=***&PassWord=***");
        assert_eq!(redact("postgres://h/t?pass%77ord=a&x=1"), "postgres://h/t?pass%77ord=***&x=1");
        assert_eq!(redact("postgres://h/t?pass\tword=a"), "postgres://h/t?pass\tword=***");
        assert_eq!(
            redact("postgres://h/t?pwd=a&api_token=b&secret=c"),
            "postgres://h/t?pwd=***&api_token=***&secret=***"
        );
        // Both places at once; the fragment is not the query; sqlite too.
        assert_eq!(
            redact("postgres://u:a@h/t?password=b#password=c"),
            "postgres://u:***@h/t?password=***#password=c"
        );
        assert_eq!(redact("sqlite://g.db?password=x&mode=ro"), "sqlite://g.db?password=***&mode=ro");
        // A name without a value, or a value that is not a credential, stays.
        assert_eq!(redact("postgres://h/t?password&user=pass"), "postgres://h/t?password&user=pass");
    }

    #[test]
    fn scrub_removes_credentials_as_written_and_decoded() {
        assert_eq!(
            scrub("failed for s3cr3t at mysql://gc:s3cr3t@h/db", "mysql://gc:s3cr3t@h/db"),
            "failed for *** at mysql://gc:***@h/db"
        );
        assert_eq!(scrub("bad password p@ss", "postgres://gc:p%40ss@h/db"), "bad password ***");
        assert_eq!(scrub("bad password hunter2", "postgres://gc@h/db?password=hunter2"), "bad password ***");
        assert_eq!(scrub("no secret here", "postgres://gc@h/db"), "no secret here");
        // A short password is masked where it stands alone, never inside a word.
        assert_eq!(
            scrub("unsupported database b, 'b' b:b", "oracle://a:b@c"),
            "unsupported database ***, '***' ***:***"
        );
        assert_eq!(scrub("p@ss!p@ss", "postgres://gc:p%40ss@h/db"), "***!***");
    }

    #[test]
    fn engines_by_scheme() {
        assert_eq!(Engine::of("mariadb://h/db"), Some(Engine::MySql));
        assert_eq!(Engine::of("postgresql://h/db"), Some(Engine::Postgres));
        assert_eq!(Engine::of("sqlite::memory:"), Some(Engine::Sqlite));
        assert_eq!(Engine::of("oracle://h"), None);
    }
}
