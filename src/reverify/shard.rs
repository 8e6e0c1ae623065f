//! `--shard K/N`: which runs a worker owns, decided from the run's id alone.
//!
//! Every worker lists the run ids (an index-only scan) and keeps those whose FNV-1a hash
//! falls in its shard, so N workers started by any scheduler cover every run exactly once,
//! with no coordination, and none reads another's rows. The hash is fixed here, not taken
//! from a library or a database, so shard membership never changes between versions.

use groundcheck_store::RunKey;

/// Shard `index` (0-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    index: u64,
    count: u64,
}

impl Shard {
    /// The whole job.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Parses `K/N` with 1 ≤ K ≤ N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("--shard: {text:?} is not K/N with 1 <= K <= N (e.g. 2/8)");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (k, n): (u64, u64) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { index: k - 1, count: n })
    }

    /// Whether this shard owns `key`.
    pub fn owns(&self, key: &RunKey) -> bool {
        let (tag, id) = match key {
            RunKey::Run(id) => (b'r', id),
            RunKey::Session(id) => (b's', id),
        };
        fnv1a(std::iter::once(tag).chain(id.bytes())) % self.count == self.index
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes
        .into_iter()
        .fold(0xcbf2_9ce4_8422_2325, |hash, b| (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_every_run() {
        let keys: Vec<RunKey> = (0..1000).map(|i| RunKey::Run(format!("run-{i}"))).collect();
        for n in [1, 2, 3, 7] {
            let shards: Vec<Shard> = (1..=n).map(|k| Shard::parse(&format!("{k}/{n}")).unwrap()).collect();
            for key in &keys {
                assert_eq!(shards.iter().filter(|s| s.owns(key)).count(), 1, "{key} in exactly one of {n}");
            }
            let smallest = shards.iter().map(|s| keys.iter().filter(|k| s.owns(k)).count()).min().unwrap();
            assert!(smallest * n as usize > 1000 / 2, "shards of {n} are roughly even");
        }
    }

    #[test]
    fn membership_is_fixed() {
        // Changing the hash would silently move runs between workers of a running job.
        assert_eq!(fnv1a(*b"run-20261130-order-5xx"), 0xbd1c_2c35_f73f_0135);
    }

    #[test]
    fn bad_shards_are_refused() {
        for bad in ["0/3", "4/3", "1/0", "x/2", "2", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Shard::parse("3/8").unwrap().to_string(), "3/8");
    }
}
