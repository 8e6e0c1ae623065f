//! Opening the database a command names (SPEC §5 `--database`).

use groundcheck_store::{Engine, Store, StoreError};

use crate::failure::Failure;

/// Connects to `url`. SQLite databases are created and migrated on first use; servers are
/// migrated only by `groundcheck migrate`, so a reader needs no DDL rights.
pub async fn open(url: &str) -> Result<Store, Failure> {
    let store = Store::connect(url).await.map_err(failure)?;
    if store.engine() == Engine::Sqlite {
        store.migrate().await.map_err(failure)?;
    }
    Ok(store)
}

/// A store error as one line, with a hint when a server has not been migrated yet.
pub fn failure(err: StoreError) -> Failure {
    let message = err.to_string();
    let missing_table =
        ["doesn't exist", "does not exist", "no such table"].iter().any(|m| message.contains(m));
    if missing_table {
        Failure::input(format!("{message} (run `groundcheck migrate` against this database first)"))
    } else {
        Failure::input(message)
    }
}
