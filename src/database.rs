//! Opening the database a command names with `--database`, and turning store errors into the
//! line a person reads.

use groundcheck_store::{Engine, ErrorKind, Store, StoreError};

use crate::failure::Failure;

/// Connects to `url` for a command that writes. A SQLite file is created and migrated on
/// first use; servers are migrated only by `groundcheck migrate`, so a reader needs no DDL
/// rights.
pub async fn open(url: &str) -> Result<Store, Failure> {
    let store = Store::connect(url).await.map_err(failure)?;
    if store.engine() == Engine::Sqlite {
        store.migrate().await.map_err(failure)?;
    }
    Ok(store)
}

/// Connects to `url` for a command that only reads: nothing is created or migrated, and a
/// SQLite file is opened read-only, so it may sit in a folder this user cannot write.
pub async fn open_read_only(url: &str) -> Result<Store, Failure> {
    Store::connect_read_only(url).await.map_err(failure)
}

/// A store error as one line, with what to do next when the kind of failure tells.
pub fn failure(err: StoreError) -> Failure {
    let hint = match err.kind() {
        ErrorKind::MissingTable => " (run `groundcheck migrate` against this database first)",
        ErrorKind::NoSuchDatabase if Engine::of(err.url()) == Some(Engine::Sqlite) => {
            "; import bundles first or check the path"
        }
        _ => "",
    };
    Failure::input(format!("{err}{hint}"))
}
