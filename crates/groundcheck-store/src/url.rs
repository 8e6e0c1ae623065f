//! Database URLs: which engine, and a form safe to print.

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

/// `url` with any password replaced by `***`, for messages and logs.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

/// Replaces every occurrence of the URL's password in `text` (errors may quote it).
pub(crate) fn scrub(text: &str, url: &str) -> String {
    let password = url
        .split_once("://")
        .and_then(|(_, rest)| rest.split(['/', '?', '#']).next())
        .and_then(|authority| authority.rsplit_once('@'))
        .and_then(|(userinfo, _)| userinfo.split_once(':'))
        .map(|(_, password)| password)
        .filter(|p| !p.is_empty());
    match password {
        Some(p) => text.replace(url, &redact(url)).replace(p, "***"),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_print() {
        assert_eq!(redact("mysql://gc:s3cr3t@127.0.0.1:3306/db"), "mysql://gc:***@127.0.0.1:3306/db");
        assert_eq!(
            redact("postgres://gc:p%40ss@h/db?sslmode=disable"),
            "postgres://gc:***@h/db?sslmode=disable"
        );
        assert_eq!(redact("sqlite://groundcheck.db"), "sqlite://groundcheck.db");
        assert_eq!(redact("postgres://gc@h/db"), "postgres://gc@h/db");
        assert_eq!(
            scrub("failed for s3cr3t at mysql://gc:s3cr3t@h/db", "mysql://gc:s3cr3t@h/db"),
            "failed for *** at mysql://gc:***@h/db"
        );
    }

    #[test]
    fn engines_by_scheme() {
        assert_eq!(Engine::of("mariadb://h/db"), Some(Engine::MySql));
        assert_eq!(Engine::of("postgresql://h/db"), Some(Engine::Postgres));
        assert_eq!(Engine::of("sqlite::memory:"), Some(Engine::Sqlite));
        assert_eq!(Engine::of("oracle://h"), None);
    }
}
