//! `groundcheck migrate`: apply the migrations. An existing `tool_invocation` is left as it
//! is; columns an older agent schema lacks are named once (they are read as NULL).

use crate::database;
use crate::failure::Failure;

pub async fn migrate(url: &str, out: &mut Vec<u8>) -> Result<u8, Failure> {
    let store = database::connect(url).await?;
    store.migrate().await.map_err(database::failure)?;
    database::tell_missing_columns(&store, "; the table is left as the agent made it").await?;
    store.close().await;
    out.extend_from_slice(format!("{}: migrated\n", store.display_url()).as_bytes());
    Ok(0)
}
