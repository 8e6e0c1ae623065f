//! No credential a database URL carries is ever printed or stored: not the
//! user-info password, not a `password=` (or look-alike) query parameter, through every
//! command that takes `--database`, with and without `--write`, on every engine, for URLs
//! that connect and URLs that fail to.

use std::path::Path;

use crate::engines::{self, texts, Engine};
use crate::harness::{repo, run, temp_dir, Outcome};

const RUN: &str = "run-20261130-order-5xx";

/// Every command that takes `--database`, in an order that works on an empty database.
fn commands(out: &Path) -> Vec<Vec<String>> {
    let fixture = repo("fixtures/01_order_svc_5xx_spike.json").display().to_string();
    let out = out.display().to_string();
    [
        vec!["migrate"],
        vec!["import", &fixture],
        vec!["run", RUN],
        vec!["run", "--write", RUN],
        vec!["export", "--out", &out, RUN],
        vec!["reverify"],
        vec!["reverify", "--write", "--format", "json"],
        vec!["reverify", "--write", "--resume", "--format", "jsonl"],
        // The MCP server opens the database, says which on stderr, and ends at its empty stdin.
        vec!["mcp"],
    ]
    .iter()
    .map(|args| args.iter().map(|a| a.to_string()).collect())
    .collect()
}

fn gc(url: &str, args: &[String]) -> Outcome {
    let mut all = vec![args[0].clone(), "--database".to_string(), url.to_string()];
    all.extend_from_slice(&args[1..]);
    run(&all)
}

/// The URL's pieces around its credentials: `(scheme, user, password, host/db)`.
fn parts(url: &str) -> (&str, &str, &str, &str) {
    let (scheme, rest) = url.split_once("://").unwrap();
    let (userinfo, host_db) = rest.rsplit_once('@').unwrap();
    let (user, password) = userinfo.split_once(':').unwrap();
    (scheme, user, password, host_db)
}

/// URLs that connect and URLs that do not, on one engine, with the secrets each carries.
fn urls(engine: &Engine) -> (Vec<String>, Vec<String>, Vec<String>) {
    if engine.name == "sqlite" {
        // SQLite has no credentials; sqlx rejects a parameter it does not know.
        let failing = vec![
            format!("{}?password=lite-secret-1", engine.url),
            format!("{}?mode=ro&Pass%77ord=lite-secret-2", engine.url),
        ];
        return (Vec::new(), failing, vec!["lite-secret-1".into(), "lite-secret-2".into()]);
    }
    let (scheme, user, password, host_db) = parts(&engine.url);
    let (host, db) = host_db.split_once('/').unwrap();
    let encoded = format!("%{:02X}{}", password.as_bytes()[0], &password[1..]);
    let mut connecting = vec![
        format!("{scheme}://{user}:{encoded}@{host_db}?sslpassword=extra-secret-1&PASS=extra-secret-2"),
        format!("{scheme}://{user}:{password}@{host_db}?PASSWORD=extra-secret-3&pass=extra-secret-4"),
    ];
    let failing = vec![
        format!("{scheme}://{user}:wrong-secret-1@{host_db}"),
        format!("{scheme}://{user}@{host_db}?password=wrong-secret-2"),
        format!("{scheme}://{user}:wrong-secret-3@127.0.0.1:9/{db}?password=wrong-secret-4"),
        format!("{scheme}://{user}:{password}@{host}/no_such_db?sslpassword=wrong-secret-5"),
    ];
    if scheme == "postgres" {
        // The PostgreSQL driver reads a password from the query string; MariaDB's ignores it.
        connecting.push(format!("{scheme}://{user}@{host_db}?password={password}"));
    }
    let mut secrets: Vec<String> = (1..=4).map(|i| format!("extra-secret-{i}")).collect();
    secrets.extend((1..=5).map(|i| format!("wrong-secret-{i}")));
    secrets.extend([password.to_string(), encoded]);
    (connecting, failing, secrets)
}

fn assert_no_secret(what: &str, out: &Outcome, secrets: &[String]) {
    for secret in secrets {
        assert!(
            !out.stdout.contains(secret.as_str()) && !out.stderr.contains(secret.as_str()),
            "{what}: {secret:?} was printed:\nstdout: {}\nstderr: {}",
            out.stdout,
            out.stderr
        );
    }
}

/// Every command on every engine: with URLs that connect, each command succeeds and nothing
/// it prints, nor anything it stores in the checkpoint table, holds a credential; with URLs
/// that fail (wrong password, password only in the query, closed port, unknown database,
/// an option SQLite rejects), each command fails with one line that starts with the
/// redacted URL and holds no credential either.
#[test]
fn no_credential_of_a_url_is_ever_printed_or_stored() {
    for engine in engines::all() {
        let (connecting, failing, secrets) = urls(&engine);
        let dir = temp_dir();
        for url in &connecting {
            for args in commands(&dir.path().join("export")) {
                let what = format!("{}: groundcheck {} --database {url}", engine.name, args.join(" "));
                let out = gc(url, &args);
                assert_no_secret(&what, &out, &secrets);
                assert_eq!(out.code, 0, "{what}: {}", out.stderr);
            }
            let stored = texts(&engine.url, "SELECT arguments FROM reverify_checkpoint");
            assert!(!stored.is_empty(), "{}: a checkpoint was stored", engine.name);
            for text in stored {
                assert!(!secrets.iter().any(|s| text.contains(s.as_str())), "{}: stored {text}", engine.name);
            }
        }
        for url in &failing {
            let redacted = groundcheck_store::redact(url);
            assert!(!secrets.iter().any(|s| redacted.contains(s.as_str())), "{redacted}");
            for args in commands(&dir.path().join("export")) {
                let what = format!("{}: groundcheck {} --database {url}", engine.name, args.join(" "));
                let out = gc(url, &args);
                assert_no_secret(&what, &out, &secrets);
                assert_eq!(out.code, 2, "{what}: {}", out.stderr);
                assert_eq!(out.stderr.lines().count(), 1, "{what}: {}", out.stderr);
                assert!(out.stderr.starts_with(&format!("{redacted}: ")), "{what}: {}", out.stderr);
            }
        }
    }
}
