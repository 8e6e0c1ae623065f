//! Connecting, and what a failure says: a server of the
//! wrong engine on the port fails within the connect timeout instead of hanging; every
//! database error is the server's message and code, nothing of the driver's internals; and
//! every store error carries a kind the binary acts on, never a message it has to sniff.

use std::time::{Duration, Instant};

use groundcheck_core::{Reason, Source, Status, Verdict};
use groundcheck_store::{ErrorKind, Store, StoreError, CONNECT_TIMEOUT};

use crate::engines::{self, block_on};
use crate::harness::{run, temp_dir, Outcome};

/// Exit 2, nothing on stdout, one stderr line, which is returned.
fn failure_line(what: &str, out: &Outcome) -> String {
    assert_eq!(out.code, 2, "{what}: exit 2 expected: {}", out.stderr);
    assert!(out.stdout.is_empty(), "{what}: nothing on stdout: {}", out.stdout);
    assert_eq!(out.stderr.lines().count(), 1, "{what}: one line: {}", out.stderr);
    out.stderr.trim_end().to_string()
}

/// `url` with its host and port replaced by those of `other`.
fn at_port_of(url: &str, other: &str) -> String {
    let host_port = |u: &str| u.split('@').nth(1).unwrap().split('/').next().unwrap().to_string();
    url.replace(&host_port(url), &host_port(other))
}

/// `mysql://` at PostgreSQL's port waited 60 s for a greeting PostgreSQL never sends; now it
/// gives up after the connect timeout with one line saying what to check. `postgres://` at
/// MariaDB's port fails at once, saying the server does not speak PostgreSQL, without the
/// driver's source locations. Nothing is read or written in either test database, so neither
/// is locked: the storage tests of both engines go on through the timeout's wait.
#[test]
fn a_server_of_another_engine_fails_within_the_connect_timeout() {
    let (Some(mysql), Some(postgres)) = (engines::server_url("mariadb"), engines::server_url("postgres"))
    else {
        return;
    };

    let wrong = at_port_of(&mysql, &postgres);
    let started = Instant::now();
    let line = failure_line("mysql at postgres", &run(["run", "--database", &wrong, "r"]));
    let took = started.elapsed();
    assert!(took >= CONNECT_TIMEOUT && took < CONNECT_TIMEOUT + Duration::from_secs(4), "took {took:?}");
    assert_eq!(
        line,
        format!(
            "{}: cannot connect: no answer within 10 s (is a MariaDB/MySQL server listening on this host and port?)",
            groundcheck_store::redact(&wrong)
        )
    );

    let wrong = at_port_of(&postgres, &mysql);
    let started = Instant::now();
    let line = failure_line("postgres at mariadb", &run(["run", "--database", &wrong, "r"]));
    assert!(started.elapsed() < Duration::from_secs(4), "took {:?}", started.elapsed());
    assert_eq!(
        line,
        format!(
            "{}: cannot connect: the server on this port does not speak the PostgreSQL protocol",
            groundcheck_store::redact(&wrong)
        )
    );
}

/// A wrong password, an unknown database and an unmigrated server each read as the server's
/// own message plus its code; no "at line N" (a line of PostgreSQL's C source), no sqlx
/// wording ("error returned from database").
#[test]
fn database_errors_are_the_servers_message_and_code() {
    for engine in engines::all().into_iter().filter(|e| e.name != "sqlite") {
        let (name, url) = (engine.name, engine.url.as_str());
        let (user_info, host_db) = url.split_once('@').unwrap();
        let (scheme_user, _) = user_info.rsplit_once(':').unwrap();
        let wrong_password = format!("{scheme_user}:not-the-password@{host_db}");
        let expected = match name {
            "postgres" => {
                "cannot connect: password authentication failed for user \"groundcheck\" (SQLSTATE 28P01)"
            }
            _ => "(using password: YES) (error 1045, SQLSTATE 28000)",
        };
        let line = failure_line(name, &run(["run", "--database", &wrong_password, "r"]));
        assert!(line.ends_with(expected), "{name}: {line}");

        let line = failure_line(name, &run(["run", "--database", url, "r"]));
        let expected = match name {
            "postgres" => {
                "reading run r: relation \"tool_invocation\" does not exist (SQLSTATE 42P01) \
                 (run `groundcheck migrate` against this database first)"
            }
            _ => &format!(
                "reading run r: Table '{}.tool_invocation' doesn't exist (error 1146, SQLSTATE 42S02) \
                 (run `groundcheck migrate` against this database first)",
                engines::database_name(url)
            ),
        };
        assert!(line.ends_with(expected), "{name}: {line}");

        let unknown = engines::with_database(url, "no_such_db");
        let line = failure_line(name, &run(["migrate", "--database", &unknown]));
        assert!(line.contains("'no_such_db'") || line.contains("\"no_such_db\""), "{name}: {line}");
        assert!(line.contains("SQLSTATE"), "{name}: {line}");
        for driver_words in [" at line ", "error returned from database", "sqlx"] {
            assert!(!line.contains(driver_words), "{name}: {line}");
        }
    }
}

fn verdict() -> Verdict {
    Verdict {
        id: 1,
        tool_name: "t".into(),
        status: Status::NoEvidence,
        reason: Reason::NoRefs,
        claimed_status: None,
        claim_agrees: None,
        source: Source::RawOutput,
        refs: Vec::new(),
        warnings: Vec::new(),
        malformed: None,
    }
}

fn kind_of<T: std::fmt::Debug>(result: Result<T, StoreError>) -> ErrorKind {
    result.expect_err("the operation fails").kind()
}

/// Each kind of failure, made for real, comes out of the library as its `ErrorKind`.
#[test]
fn store_errors_carry_their_kind() {
    let dir = temp_dir();
    let missing = format!("sqlite://{}", dir.path().join("missing.db").display());
    let file = format!("sqlite://{}", dir.path().join("g.db").display());
    block_on(async {
        assert_eq!(kind_of(Store::connect("oracle://h/db").await), ErrorKind::BadUrl);
        assert_eq!(kind_of(Store::connect(&format!("{file}?mode=sideways")).await), ErrorKind::BadUrl);
        assert_eq!(kind_of(Store::connect_read_only(&missing).await), ErrorKind::NoSuchDatabase);
        assert_eq!(kind_of(Store::connect("postgres://gc:pw@127.0.0.1:9/db").await), ErrorKind::Unreachable);
        assert_eq!(kind_of(Store::connect("mysql://gc:pw@127.0.0.1:9/db").await), ErrorKind::Unreachable);

        let store = Store::connect(&file).await.unwrap();
        assert_eq!(kind_of(store.read_run("r").await), ErrorKind::MissingTable);
        store.migrate().await.unwrap();
        store.close().await;
        let read_only = Store::connect(&format!("{file}?mode=ro")).await.unwrap();
        let v = verdict();
        assert_eq!(kind_of(read_only.write_verdicts("p", "0", &[(None, &v)]).await), ErrorKind::ReadOnlyFile);
        read_only.close().await;
    });

    for engine in engines::all().into_iter().filter(|e| e.name != "sqlite") {
        let (name, url) = (engine.name, engine.url.as_str());
        let wrong = url.replace("groundcheck-test-pw", "not-the-password");
        let unknown = engines::with_database(url, "no_such_db");
        let read_only_user = engine.read_only_url.clone();
        block_on(async {
            assert_eq!(kind_of(Store::connect(&wrong).await), ErrorKind::Authentication, "{name}");
            let expected = if name == "postgres" { ErrorKind::NoSuchDatabase } else { ErrorKind::Refused };
            assert_eq!(kind_of(Store::connect(&unknown).await), expected, "{name}: unknown database");
            let store = Store::connect(url).await.unwrap();
            assert_eq!(kind_of(store.read_run("r").await), ErrorKind::MissingTable, "{name}");
            store.migrate().await.unwrap();
            store.close().await;
            if let Some(ro) = read_only_user {
                let store = Store::connect(&ro).await.unwrap();
                let v = verdict();
                let kind = kind_of(store.write_verdicts("p", "0", &[(None, &v)]).await);
                assert_eq!(kind, ErrorKind::Refused, "{name}: SELECT-only user");
                store.close().await;
            }
        });
    }
}
