//! `groundcheck migrate`: apply the migrations.

use crate::database;
use crate::failure::Failure;

pub async fn migrate(url: &str, out: &mut Vec<u8>) -> Result<u8, Failure> {
    let store = groundcheck_store::Store::connect(url).await.map_err(database::failure)?;
    store.migrate().await.map_err(database::failure)?;
    store.close().await;
    out.extend_from_slice(format!("{}: migrated\n", store.display_url()).as_bytes());
    Ok(0)
}
