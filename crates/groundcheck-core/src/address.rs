//! Maps and sets keyed by where a node or a leaf's text lies in memory (the leaf cache, the
//! values that replaced strings in the expanded view). Addresses are not chosen by the
//! input, so SipHash's resistance to crafted keys buys nothing: one multiply-rotate per word
//! (the Fx hash) instead, which took a tenth of a miss's time away.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A map keyed by addresses (and lengths).
pub(crate) type AddressMap<K, V> = HashMap<K, V, BuildHasherDefault<AddressHasher>>;

/// A set of addresses.
pub(crate) type AddressSet = HashSet<usize, BuildHasherDefault<AddressHasher>>;

/// The Fx hash, word by word, as rustc-hash 2 computes it.
#[derive(Default)]
pub(crate) struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    /// The product's high bits moved low: addresses are multiples of a node's size, so their
    /// low bits (which pick a hash table's bucket) are always the same, and the multiply only
    /// mixes upwards.
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}
