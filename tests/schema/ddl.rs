//! What the SQL files in `migrations/<engine>/` declare about one table, read from the text.
//!
//! A reader of exactly the DDL groundcheck's migrations use, not of SQL in general:
//! `CREATE TABLE [IF NOT EXISTS] t (column TYPE constraints, PRIMARY KEY (..), INDEX i (..))`,
//! `ALTER TABLE t ADD COLUMN [IF NOT EXISTS] column TYPE constraints [AFTER other], ...` and
//! `CREATE INDEX [IF NOT EXISTS] i ON t (..)`. `--` comments are ignored. Anything else is
//! skipped, so a statement written some other way shows up as a missing column or index in the
//! comparison, never as a silent pass.

use std::collections::BTreeMap;
use std::path::Path;

/// One column as a migration declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub name: String,
    /// The type as written, upper case (`VARCHAR(64)`, `DATETIME(6)`).
    pub ty: String,
    /// Declared `NOT NULL` or `PRIMARY KEY`.
    pub required: bool,
    /// `AUTO_INCREMENT`, `AUTOINCREMENT` or `GENERATED ... AS IDENTITY`.
    pub auto: bool,
}

/// A table as the migrations, applied in file-name order, leave it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeclaredTable {
    /// Columns in the order the migrations give them (`AFTER` honoured).
    pub columns: Vec<Declared>,
    pub primary_key: Vec<String>,
    /// Every index except the primary key: name → columns in order.
    pub indexes: BTreeMap<String, Vec<String>>,
}

/// Reads every `*.sql` file of `dir`, in name order (the order sqlx applies them), and returns
/// what they declare about `table`.
pub fn read(dir: &Path, table: &str) -> DeclaredTable {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .collect();
    files.sort();
    let mut out = DeclaredTable::default();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for statement in statements(&text) {
            apply(&mut out, table, &statement);
        }
    }
    out
}

/// The file's statements, comments removed, white space folded to single spaces.
fn statements(text: &str) -> Vec<String> {
    let code: String =
        text.lines().map(|l| l.split("--").next().unwrap_or_default()).collect::<Vec<_>>().join(" ");
    code.split(';')
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty())
        .collect()
}

fn apply(out: &mut DeclaredTable, table: &str, statement: &str) {
    let upper = statement.to_ascii_uppercase();
    let words: Vec<&str> = statement.split(' ').collect();
    let named = |rest: &[&str]| -> Option<usize> {
        // The position of the table name after `CREATE TABLE` / `ALTER TABLE`, past IF NOT EXISTS.
        let skip = if upper_words(rest, 3) == ["IF", "NOT", "EXISTS"] { 3 } else { 0 };
        rest.get(skip).is_some_and(|w| w.eq_ignore_ascii_case(table)).then_some(skip)
    };
    if upper.starts_with("CREATE TABLE ") && named(&words[2..]).is_some() {
        let (Some(open), Some(close)) = (statement.find('('), statement.rfind(')')) else { return };
        for item in top_level_items(&statement[open + 1..close]) {
            create_item(out, &item);
        }
    } else if upper.starts_with("ALTER TABLE ") {
        let Some(skip) = named(&words[2..]) else { return };
        let rest = words[2 + skip + 1..].join(" ");
        for item in top_level_items(&rest) {
            let item_words: Vec<&str> = item.split(' ').collect();
            if upper_words(&item_words, 2) != ["ADD", "COLUMN"] {
                continue;
            }
            let skip = if upper_words(&item_words[2..], 3) == ["IF", "NOT", "EXISTS"] { 3 } else { 0 };
            let words = &item_words[2 + skip..];
            let Some(column) = column(words) else { continue };
            let after = words.windows(2).find(|w| w[0].eq_ignore_ascii_case("AFTER")).map(|w| w[1]);
            match after.and_then(|a| out.columns.iter().position(|c| c.name == a)) {
                Some(at) => out.columns.insert(at + 1, column),
                None => out.columns.push(column),
            }
        }
    } else if upper.starts_with("CREATE INDEX ") {
        let rest = &words[2..];
        let skip = if upper_words(rest, 3) == ["IF", "NOT", "EXISTS"] { 3 } else { 0 };
        let (Some(name), Some(on), Some(target)) = (rest.get(skip), rest.get(skip + 1), rest.get(skip + 2))
        else {
            return;
        };
        if on.eq_ignore_ascii_case("ON") && target.eq_ignore_ascii_case(table) {
            out.indexes.insert(name.to_string(), parenthesised_names(statement));
        }
    }
}

/// One item of a `CREATE TABLE` body: a column, `PRIMARY KEY (..)` or `INDEX i (..)`.
fn create_item(out: &mut DeclaredTable, item: &str) {
    let words: Vec<&str> = item.split(' ').collect();
    match upper_words(&words, 2).as_slice() {
        [a, b] if a == "PRIMARY" && b == "KEY" => out.primary_key = parenthesised_names(item),
        [a, ..] if a == "INDEX" || a == "KEY" => {
            out.indexes.insert(words[1].to_string(), parenthesised_names(item));
        }
        _ => {
            if let Some(column) = column(&words) {
                if item.to_ascii_uppercase().contains("PRIMARY KEY") {
                    out.primary_key = vec![column.name.clone()];
                }
                out.columns.push(column);
            }
        }
    }
}

/// `name TYPE constraints...` as a column.
fn column(words: &[&str]) -> Option<Declared> {
    let (name, ty) = (words.first()?, words.get(1)?);
    let constraints = words[2..].join(" ").to_ascii_uppercase();
    Some(Declared {
        name: name.to_string(),
        ty: ty.to_ascii_uppercase(),
        required: constraints.contains("NOT NULL") || constraints.contains("PRIMARY KEY"),
        auto: constraints.contains("AUTO_INCREMENT")
            || constraints.contains("AUTOINCREMENT")
            || (constraints.contains("GENERATED") && constraints.contains("AS IDENTITY")),
    })
}

/// The first `n` words, upper case.
fn upper_words(words: &[&str], n: usize) -> Vec<String> {
    words.iter().take(n).map(|w| w.to_ascii_uppercase()).collect()
}

/// `text` split at commas outside parentheses, each item trimmed.
fn top_level_items(text: &str) -> Vec<String> {
    let (mut items, mut current, mut depth) = (Vec::new(), String::new(), 0usize);
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    items.push(current.trim().to_string());
    items.into_iter().filter(|i| !i.is_empty()).collect()
}

/// The comma-separated names inside the last parentheses of `text`.
fn parenthesised_names(text: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (text.rfind('('), text.rfind(')')) else { return Vec::new() };
    if close < open {
        return Vec::new();
    }
    text[open + 1..close].split(',').map(|n| n.trim().to_string()).filter(|n| !n.is_empty()).collect()
}

#[test]
fn the_reader_understands_each_form_the_migrations_use() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(
        dir.path().join("1_create.sql"),
        "-- a comment; with a semicolon\nCREATE TABLE IF NOT EXISTS t (\n  id BIGINT NOT NULL AUTO_INCREMENT,\n  \
         a VARCHAR(8) NULL, -- trailing\n  c DATETIME(6) NOT NULL,\n  PRIMARY KEY (id),\n  INDEX i_a (a, id)\n);\n\
         CREATE TABLE other (x INT NOT NULL);",
    )
    .expect("written");
    std::fs::write(
        dir.path().join("2_alter.sql"),
        "ALTER TABLE t ADD COLUMN IF NOT EXISTS b INT NULL AFTER a, ADD COLUMN d TEXT;\n\
         CREATE INDEX IF NOT EXISTS i_c ON t (c);\nCREATE INDEX i_x ON other (x);",
    )
    .expect("written");
    let t = read(dir.path(), "t");
    let summary: Vec<(&str, &str, bool, bool)> =
        t.columns.iter().map(|c| (c.name.as_str(), c.ty.as_str(), c.required, c.auto)).collect();
    assert_eq!(
        summary,
        [
            ("id", "BIGINT", true, true),
            ("a", "VARCHAR(8)", false, false),
            ("b", "INT", false, false),
            ("c", "DATETIME(6)", true, false),
            ("d", "TEXT", false, false),
        ]
    );
    assert_eq!(t.primary_key, ["id"]);
    let indexes: Vec<(&str, Vec<&str>)> =
        t.indexes.iter().map(|(n, c)| (n.as_str(), c.iter().map(String::as_str).collect())).collect();
    assert_eq!(indexes, [("i_a", vec!["a", "id"]), ("i_c", vec!["c"])]);

    std::fs::write(
        dir.path().join("3_pg.sql"),
        "CREATE TABLE u (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, v TEXT)",
    )
    .expect("written");
    let u = read(dir.path(), "u");
    assert_eq!(
        (u.primary_key.as_slice(), u.columns[0].required, u.columns[0].auto),
        (&["id".to_string()][..], true, true)
    );
}
