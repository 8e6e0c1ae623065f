//! Opening the database a command names with `--database`, turning store errors into the
//! line a person reads, and telling on stderr, as they happen, what the store notices: a wait
//! for SQLite's write lock, and `tool_invocation` columns an older agent schema lacks.

use std::sync::OnceLock;
use std::time::Duration;

use groundcheck_store::{Engine, ErrorKind, Store, StoreError};

use crate::failure::{say, Failure};

/// `--statement-timeout`: how long each statement of every store this process opens may wait
/// for its answer (the store's own default until set).
static STATEMENT_TIMEOUT: OnceLock<Duration> = OnceLock::new();

/// Sets the statement timeout of the stores opened from now on (once; later calls are ignored).
pub fn set_statement_timeout(wait: Duration) {
    let _ = STATEMENT_TIMEOUT.set(wait);
}

/// Connects to `url` for a command that writes. A SQLite file is created and migrated on
/// first use; servers are migrated only by `groundcheck migrate`, so a reader needs no DDL
/// rights.
pub async fn open(url: &str) -> Result<Store, Failure> {
    let store = connect(url).await?;
    if store.engine() == Engine::Sqlite {
        store.migrate().await.map_err(failure)?;
    }
    tell_missing_columns(&store, "").await?;
    Ok(store)
}

/// Connects to `url` for a command that only reads: nothing is created or migrated, and a
/// SQLite file is opened read-only, so it may sit in a folder this user cannot write.
/// Reading works before anyone has migrated: groundcheck's own tables may be missing.
pub async fn open_read_only(url: &str) -> Result<Store, Failure> {
    let mut store = Store::connect_read_only(url).await.map_err(failure)?;
    configure(&mut store);
    tell_missing_columns(&store, "").await?;
    Ok(store)
}

/// Connects to `url` to write, with the store's notices told on stderr; nothing migrated.
pub async fn connect(url: &str) -> Result<Store, Failure> {
    let mut store = Store::connect(url).await.map_err(failure)?;
    configure(&mut store);
    Ok(store)
}

/// The store's notices told on stderr, and its statement timeout set.
fn configure(store: &mut Store) {
    if let Some(wait) = STATEMENT_TIMEOUT.get() {
        store.set_statement_timeout(*wait);
    }
    let url = store.display_url();
    store.on_notice(move |notice| say(&format!("{url}: {notice}")));
}

/// Says once, on stderr, which `tool_invocation` columns this database lacks (an agent
/// schema older than the seed's V010): they are read as NULL. `also` ends the sentence.
pub async fn tell_missing_columns(store: &Store, also: &str) -> Result<(), Failure> {
    let missing = store.missing_columns().await.map_err(failure)?;
    if !missing.is_empty() {
        let (noun, pronoun) = if missing.len() == 1 { ("column", "it is") } else { ("columns", "they are") };
        say(&format!(
            "{}: tool_invocation has no {} {noun} (an agent schema older than the seed's V010): {pronoun} read as NULL{also}",
            store.display_url(),
            missing.join(", "),
        ));
    }
    Ok(())
}

/// A store error as one line, with what to do next when the kind of failure tells.
pub fn failure(err: StoreError) -> Failure {
    let hint = match err.kind() {
        ErrorKind::MissingTable => " (run `groundcheck migrate` against this database first)",
        ErrorKind::NoSuchDatabase if Engine::of(err.url()) == Some(Engine::Sqlite) => {
            "; import bundles first or check the path"
        }
        ErrorKind::NoAnswer => " (--statement-timeout; raise it if the server is only slow)",
        _ => "",
    };
    Failure::input(format!("{err}{hint}"))
}
