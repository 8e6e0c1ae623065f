//! What the raw-output file lookups of a command found, counted, with the path tried.
//!
//! A typo in `--raw-outputs` makes every row `raw_output_missing`; each row's verdict says
//! so, but only the counts make it loud: "0 found, 1,204 missing, first tried at …". So every
//! lookup is recorded here, and the path tried for each row that found no file is kept for
//! the formats that show rows (the `human` table, the HTML page).

use std::collections::BTreeMap;
use std::path::PathBuf;

use groundcheck_core::{Invocation, RawOutputFile};
use serde::{Deserialize, Serialize};

/// A row among the runs of a report: its run's `run_id`, else (rows grouped by session) its
/// `session_id`, and its `id`.
pub type RowKey = (Option<String>, Option<String>, i64);

/// The key of `inv`'s row, as a report's runs group it.
pub fn row_key(run_id: Option<&str>, session_id: Option<&str>, id: i64) -> RowKey {
    match run_id {
        Some(run) => (Some(run.to_owned()), None, id),
        None => (None, session_id.map(str::to_owned), id),
    }
}

/// What one row's lookup found: the file's fate, and the path tried (none when a value the
/// template needs was unsafe to put in a path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// The row, as a report's runs group it.
    pub key: RowKey,
    /// What was there.
    pub found: Found,
    /// The path looked at; `None` when a value the template needs could leave its folders.
    pub tried: Option<PathBuf>,
}

/// The fate of one lookup, as counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// A file was read (over the size limit included: it was there).
    File,
    /// No file at the path.
    Missing,
    /// Something at the path that is no regular file, or could not be read.
    Unreadable,
    /// The path could leave the template's folder: a value, or a link on the way.
    Unsafe,
}

impl Found {
    /// How `file` counts.
    pub fn of(file: &RawOutputFile) -> Found {
        match file {
            RawOutputFile::Read(_) | RawOutputFile::OverLimit => Found::File,
            RawOutputFile::Missing => Found::Missing,
            RawOutputFile::Unreadable => Found::Unreadable,
            RawOutputFile::PathUnsafe => Found::Unsafe,
        }
    }
}

impl Lookup {
    /// The lookup `attach_one` made for `inv`, once its `raw_output_file` is set.
    pub fn of(inv: &Invocation, tried: Option<PathBuf>) -> Option<Lookup> {
        let file = inv.raw_output_file.as_ref()?;
        let key = row_key(inv.run_id.as_deref(), inv.session_id.as_deref(), inv.id);
        Some(Lookup { key, found: Found::of(file), tried })
    }
}

/// How many rows found no file for one reason, and the path tried for the first of them in
/// input order (absent when that row's template value was unsafe).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Misses {
    /// How many rows.
    pub count: u64,
    /// The path tried for the first of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<String>,
}

impl Misses {
    fn add(&mut self, tried: Option<&PathBuf>) {
        if self.count == 0 {
            self.first = tried.map(|p| p.display().to_string());
        }
        self.count += 1;
    }

    fn merge(&mut self, other: &Misses) {
        if self.count == 0 {
            self.first.clone_from(&other.first);
        }
        self.count += other.count;
    }
}

/// The counts of every lookup: kept with a `reverify` job's totals, so they add up across
/// batches, resumes and shards' summaries alike.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LookupCounts {
    /// Rows whose file was read.
    pub found: u64,
    /// Rows with no file at the path.
    pub missing: Misses,
    /// Rows whose path held no readable regular file.
    pub unreadable: Misses,
    /// Rows whose path could leave the template's folder.
    #[serde(rename = "unsafe")]
    pub unsafe_paths: Misses,
}

impl LookupCounts {
    /// Counts one lookup.
    pub fn add(&mut self, lookup: &Lookup) {
        let tried = lookup.tried.as_ref();
        match lookup.found {
            Found::File => self.found += 1,
            Found::Missing => self.missing.add(tried),
            Found::Unreadable => self.unreadable.add(tried),
            Found::Unsafe => self.unsafe_paths.add(tried),
        }
    }

    /// Adds `other`'s counts, `self`'s rows coming first.
    pub fn merge(&mut self, other: &LookupCounts) {
        self.found += other.found;
        self.missing.merge(&other.missing);
        self.unreadable.merge(&other.unreadable);
        self.unsafe_paths.merge(&other.unsafe_paths);
    }

    /// Rows that were looked up at all.
    pub fn total(&self) -> u64 {
        self.found + self.missing.count + self.unreadable.count + self.unsafe_paths.count
    }

    /// No row was looked up.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// Why verdicts decided with these lookups should not be stored: rows needed a raw-output
    /// file and not one was found, so the template is most likely wrong, and storing would put
    /// `raw_output_missing` verdicts over good ones. `None` when a file was found, or none was
    /// needed. E.g. `no raw-output file was found for any of the 16 rows without a raw output
    /// of their own (first tried: /srv/1.json)`.
    pub fn none_found(&self) -> Option<String> {
        if self.found > 0 || self.total() == 0 {
            return None;
        }
        let first = [&self.missing, &self.unreadable, &self.unsafe_paths]
            .into_iter()
            .find_map(|m| m.first.as_deref())
            .map(|p| format!(" (first tried: {p})"))
            .unwrap_or_default();
        let rows = match self.total() {
            1 => "the 1 row".to_string(),
            n => format!("any of the {n} rows"),
        };
        Some(format!("no raw-output file was found for {rows} without a raw output of their own{first}"))
    }

    /// The line a person reads after the output, e.g. `raw-output files (--raw-outputs
    /// T): 0 found, 12 missing (first tried: /srv/7.json), 0 unreadable, 0 unsafe`; `None`
    /// when no row was looked up.
    pub fn line(&self, template: Option<&str>) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let part = |name: &str, misses: &Misses| match &misses.first {
            Some(first) if misses.count > 0 => format!("{} {name} (first tried: {first})", misses.count),
            _ => format!("{} {name}", misses.count),
        };
        let flag = template.map(|t| format!(" (--raw-outputs {t})")).unwrap_or_default();
        let mut line = format!(
            "raw-output files{flag}: {} found, {}, {}, {}",
            self.found,
            part("missing", &self.missing),
            part("unreadable", &self.unreadable),
            part("unsafe", &self.unsafe_paths),
        );
        if self.found == 0 {
            line.push_str("; no file was found: check the template");
        }
        Some(line)
    }
}

/// Every lookup of one command: the counts, and the path tried for each row that found no
/// file (the formats that show rows name it).
#[derive(Debug, Clone, Default)]
pub struct Lookups {
    /// Every lookup, counted.
    pub counts: LookupCounts,
    tried: BTreeMap<RowKey, PathBuf>,
}

impl Lookups {
    /// Records `lookup`; lookups are added in input order, which decides "first".
    pub fn add(&mut self, lookup: Lookup) {
        self.counts.add(&lookup);
        if lookup.found != Found::File {
            if let Some(tried) = lookup.tried {
                self.tried.insert(lookup.key, tried);
            }
        }
    }

    /// Records a lookup, if one was made.
    pub fn extend(&mut self, lookup: Option<Lookup>) {
        if let Some(lookup) = lookup {
            self.add(lookup);
        }
    }

    /// The path tried for a row that found no file there.
    pub fn tried(&self, key: &RowKey) -> Option<&PathBuf> {
        self.tried.get(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(id: i64, found: Found, tried: Option<&str>) -> Lookup {
        Lookup { key: row_key(Some("r"), None, id), found, tried: tried.map(PathBuf::from) }
    }

    #[test]
    fn counts_add_up_and_name_the_first_path_tried() {
        let mut lookups = Lookups::default();
        lookups.add(lookup(1, Found::File, Some("/s/1.json")));
        lookups.add(lookup(2, Found::Missing, Some("/s/2.json")));
        lookups.add(lookup(3, Found::Missing, Some("/s/3.json")));
        lookups.add(lookup(4, Found::Unsafe, None));
        lookups.add(lookup(5, Found::Unsafe, Some("/s/5.json")));
        let counts = &lookups.counts;
        assert_eq!(counts.total(), 5);
        assert_eq!(
            counts.line(Some("/s/{id}.json")).unwrap(),
            "raw-output files (--raw-outputs /s/{id}.json): 1 found, 2 missing (first tried: /s/2.json), \
             0 unreadable, 2 unsafe"
        );
        assert_eq!(lookups.tried(&row_key(Some("r"), None, 3)), Some(&PathBuf::from("/s/3.json")));
        assert_eq!(lookups.tried(&row_key(Some("r"), None, 1)), None, "found files are not kept");
    }

    #[test]
    fn a_template_that_finds_nothing_says_so_and_merged_counts_keep_the_first() {
        let mut a = LookupCounts::default();
        a.add(&lookup(1, Found::Missing, Some("/x/1")));
        let mut b = LookupCounts::default();
        b.add(&lookup(2, Found::Missing, Some("/x/2")));
        let mut total = LookupCounts::default();
        total.merge(&a);
        total.merge(&b);
        assert_eq!(total.missing, Misses { count: 2, first: Some("/x/1".into()) });
        assert!(total.line(Some("/x/{id}")).unwrap().ends_with("; no file was found: check the template"));
        assert_eq!(LookupCounts::default().line(None), None);
    }
}
