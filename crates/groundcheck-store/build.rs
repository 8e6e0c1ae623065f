//! Embeds the migrations of `migrations/<engine>/` as `sqlx::migrate!` would, without sqlx's
//! macros: those would build sqlx, SQLite's C sources included, a second time for the compiler.
//!
//! Writes `$OUT_DIR/migrations.rs`: one `&[(version, description, sql)]` per engine, sorted by
//! version, the SQL by `include_str!`. A file is `VERSION_DESCRIPTION.sql`, its description the
//! rest of the name with `_` as spaces, as sqlx reads it; anything else there stops the build.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut out = String::new();
    for (engine, folder) in [("SQLITE", "sqlite"), ("MYSQL", "mysql"), ("POSTGRES", "postgres")] {
        let dir = root.join(folder);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<(i64, String, String)> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_str().unwrap().to_owned();
                let stem = name.strip_suffix(".sql").unwrap_or_else(|| panic!("{name}: not a .sql file"));
                let (version, description) =
                    stem.split_once('_').unwrap_or_else(|| panic!("{name}: not VERSION_DESCRIPTION.sql"));
                let version =
                    version.parse().unwrap_or_else(|_| panic!("{name}: the version is not a number"));
                assert!(!description.contains('.'), "{name}: only simple migrations (no .up/.down)");
                let sql = std::fs::read_to_string(&path).unwrap();
                assert!(
                    !sql.starts_with("-- no-transaction"),
                    "{name}: every migration runs in a transaction"
                );
                (version, description.replace('_', " "), path.canonicalize().unwrap().display().to_string())
            })
            .collect();
        files.sort();
        writeln!(out, "const {engine}: &[(i64, &str, &str)] = &[").unwrap();
        for (version, description, path) in files {
            writeln!(out, "    ({version}, {description:?}, include_str!({path:?})),").unwrap();
        }
        writeln!(out, "];").unwrap();
    }
    let target = Path::new(&std::env::var("OUT_DIR").unwrap()).join("migrations.rs");
    std::fs::write(target, out).unwrap();
}
