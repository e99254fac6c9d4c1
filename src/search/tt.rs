//! A transposition table shared by the threads of one search.
//!
//! Each entry is two 64-bit words, written and read with relaxed atomics:
//! `key ^ data` and `data`. A reader recomputes the key from both words,
//! so an entry torn by two threads writing at once reads as a miss, never
//! as a wrong hit. Entries sit in buckets of two: the first slot keeps the
//! deepest result of the current search, the second is always replaced.
//!
//! The table is allocated fallibly and zeroed lazily
//! ([`crate::search::alloc::zeroed_slice`]): its pages cost nothing until
//! they are written. [`Tt::populate`] writes them ahead (a player runs it
//! on a thread of its own when a game starts, outside any move's time),
//! so no search pays for faulting in pages. A search uses only part of
//! the table: it starts at [`START_BUCKETS`] and grows ([`Tt::reserve`])
//! as the searches show they need more, up to the size asked for; a short
//! search keeps its entries in a few megabytes (the cache holds more of
//! them). Growing moves every entry, so it watches the clock: a growth of
//! 16 MB to 256 MB of fresh pages took 111 ms in the middle of a 1 s move
//! on an idle machine, with no look at the clock until it was done (under
//! load, moves of 1 s took 1.7 s).
//!
//! [`Tt::clear`] forgets every entry at once: the keys are stored mixed
//! with a salt that changes, so an old entry never matches again (it is
//! replaced first, as an entry of an earlier search).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};

use super::alloc::{AllocError, zeroed_slice};
use crate::time::Instant;

// The table is allocated as `u64`s and used as `AtomicU64`s.
const _: () = assert!(align_of::<u64>() == align_of::<AtomicU64>());
const _: () = assert!(size_of::<u64>() == size_of::<AtomicU64>());

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The value is at least the score (a beta cut-off).
    Lower,
    /// The value is at most the score (no move reached alpha).
    Upper,
    /// The exact value.
    Exact,
}

/// One probed entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub score: i32,
    pub depth: u8,
    pub bound: Bound,
    /// The best move's code (`Heuristics::move_code`), if one is known.
    pub mv: Option<u16>,
}

/// A lock-free transposition table.
pub struct Tt {
    words: Box<[AtomicU64]>,
    /// Buckets allocated.
    buckets: usize,
    /// Buckets in use (the first ones), at most `buckets`.
    active: AtomicUsize,
    generation: AtomicU64,
    /// Mixed into every key (changed by [`Tt::clear`]).
    salt: AtomicU64,
    /// Words from the start whose pages were written by [`Tt::populate`].
    populated: AtomicUsize,
}

/// Bytes per bucket: two entries of two words.
const BUCKET_BYTES: usize = 32;
/// Buckets in use when a table is new: 1 MB.
pub const START_BUCKETS: usize = 1 << 15;

/// SplitMix64's finaliser (the salts of [`Tt::clear`]).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn pack(e: &Entry, generation: u8) -> u64 {
    let mv = e.mv.map_or(0, |m| m as u64 + 1) & 0xFFFF;
    let bound = match e.bound {
        Bound::Lower => 1u64,
        Bound::Upper => 2,
        Bound::Exact => 3,
    };
    (e.score as u32 as u64)
        | mv << 32
        | (e.depth as u64) << 48
        | bound << 56
        | ((generation & 63) as u64) << 58
}

fn unpack(d: u64) -> Option<(Entry, u8)> {
    let bound = match (d >> 56) & 3 {
        1 => Bound::Lower,
        2 => Bound::Upper,
        3 => Bound::Exact,
        _ => return None,
    };
    let mv = ((d >> 32) & 0xFFFF) as u16;
    let e = Entry {
        score: d as u32 as i32,
        depth: (d >> 48) as u8,
        bound,
        mv: if mv == 0 { None } else { Some(mv - 1) },
    };
    Some((e, (d >> 58) as u8 & 63))
}

impl Tt {
    /// A table of about `mb` megabytes (at least one bucket).
    pub fn new(mb: usize) -> Result<Tt, AllocError> {
        let buckets = (mb.saturating_mul(1 << 20) / BUCKET_BYTES).max(1);
        let raw = zeroed_slice::<u64>(buckets.saturating_mul(4))?;
        // SAFETY: `AtomicU64` has the size and alignment of `u64` (checked
        // above) and the same bit validity, so the allocation of `[u64]`
        // is a valid `[AtomicU64]` of the same length, owned by the box.
        let words = unsafe { Box::from_raw(Box::into_raw(raw) as *mut [AtomicU64]) };
        let active = AtomicUsize::new(buckets.min(START_BUCKETS));
        Ok(Tt {
            words,
            buckets,
            active,
            generation: AtomicU64::new(0),
            salt: AtomicU64::new(0),
            populated: AtomicUsize::new(0),
        })
    }

    /// Forgets every entry, in constant time: entries stored from now on
    /// carry another salt, so no old one matches a key again; the part in
    /// use is the starting one again.
    pub fn clear(&self) {
        let s = self.salt.load(Relaxed);
        self.salt.store(mix(s.wrapping_add(0x9E37_79B9_7F4A_7C15)), Relaxed);
        self.generation.fetch_add(1, Relaxed);
        self.active.store(self.buckets.min(START_BUCKETS), Relaxed);
    }

    /// Writes the pages of the table's first `bytes` once (those the
    /// searches use first), so that searches do not stop to fault them in;
    /// pages written by an earlier call are skipped; stops early when
    /// `cancel` is set. Safe while searches run: a page's first word is
    /// written only if it is 0 (a compare-exchange of 0 with 0, which
    /// changes no entry; an idempotent `or 0` is compiled into a load,
    /// which writes nothing), and a word that is not 0 was written, so its
    /// page is in already.
    pub fn populate(&self, bytes: usize, cancel: &AtomicBool) {
        // One word per 4 KB page.
        const STEP: usize = 4096 / size_of::<u64>();
        let end = (bytes / size_of::<u64>()).min(self.words.len());
        let mut i = self.populated.load(Relaxed);
        while i < end {
            if cancel.load(Relaxed) {
                return;
            }
            let stop = (i + 256 * STEP).min(end);
            for w in self.words[i..stop].iter().step_by(STEP) {
                let _ = w.compare_exchange(0, 0, Relaxed, Relaxed);
            }
            i = stop;
            self.populated.fetch_max(i, Relaxed);
        }
    }

    /// Bytes from the start whose pages [`Tt::populate`] wrote.
    pub fn populated_bytes(&self) -> usize {
        self.populated.load(Relaxed) * size_of::<u64>()
    }

    /// Bytes of the part in use.
    pub fn bytes_in_use(&self) -> usize {
        self.active.load(Relaxed) * BUCKET_BYTES
    }

    /// Size in megabytes as asked for.
    pub fn megabytes(&self) -> usize {
        (self.buckets * BUCKET_BYTES) >> 20
    }

    /// Entries (two a bucket) in the part of the table in use.
    pub fn capacity_in_use(&self) -> usize {
        self.active.load(Relaxed) * 2
    }

    /// Bytes of the whole table.
    pub fn bytes(&self) -> usize {
        self.buckets * BUCKET_BYTES
    }

    /// Makes room for about `entries` results: the part in use grows to
    /// the next power of two of buckets that holds them (up to the whole
    /// table; it never shrinks), and the entries stored move to their
    /// buckets in the larger part. Meant to be called between searches or
    /// iterations; a thread that stores or probes meanwhile is harmless
    /// (an entry may be lost or missed, never read wrong: every read
    /// checks its key). Past `deadline` (looked at every 4096 buckets) the
    /// entries not yet moved are given up (they are not found again).
    pub fn reserve(&self, entries: u64, deadline: Option<Instant>) {
        let old = self.active.load(Relaxed);
        let want = (entries / 2).max(1).checked_next_power_of_two().unwrap_or(u64::MAX);
        let new = usize::try_from(want).unwrap_or(usize::MAX).min(self.buckets);
        if new <= old {
            return;
        }
        // From the last bucket down: a bucket's entries move to buckets at
        // or after it (`new > old`), which have been emptied already.
        let w = &self.words;
        for i in (0..old).rev() {
            if i % 4096 == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let b = i * 4;
            let slots = [
                (w[b].load(Relaxed), w[b + 1].load(Relaxed)),
                (w[b + 2].load(Relaxed), w[b + 3].load(Relaxed)),
            ];
            for x in &w[b..b + 4] {
                x.store(0, Relaxed);
            }
            for (x, d) in slots {
                if unpack(d).is_none() {
                    continue;
                }
                let j = Self::index(x ^ d, new);
                let slot = if w[j + 1].load(Relaxed) == 0 { j } else { j + 2 };
                w[slot].store(x, Relaxed);
                w[slot + 1].store(d, Relaxed);
            }
        }
        self.active.store(new, Relaxed);
    }

    /// Starts a new search: entries of earlier searches become the first
    /// to be replaced.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Relaxed);
    }

    fn gen_now(&self) -> u8 {
        (self.generation.load(Relaxed) & 63) as u8
    }

    /// The first word of `key`'s bucket when `active` buckets are in use.
    #[inline]
    fn index(key: u64, active: usize) -> usize {
        (((key as u128) * (active as u128)) >> 64) as usize * 4
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        Self::index(key, self.active.load(Relaxed))
    }

    /// The entry stored for `key`, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let key = key ^ self.salt.load(Relaxed);
        let b = self.bucket(key);
        for s in 0..2 {
            let x = self.words[b + 2 * s].load(Relaxed);
            let d = self.words[b + 2 * s + 1].load(Relaxed);
            if x ^ d == key
                && let Some((e, _)) = unpack(d)
            {
                return Some(e);
            }
        }
        None
    }

    /// Stores a result for `key`.
    #[inline]
    pub fn store(&self, key: u64, e: Entry) {
        let key = key ^ self.salt.load(Relaxed);
        let b = self.bucket(key);
        let g = self.gen_now();
        let x0 = self.words[b].load(Relaxed);
        let d0 = self.words[b + 1].load(Relaxed);
        let old = unpack(d0);
        let same = x0 ^ d0 == key;
        // Keep the move of the same position when the new result has none.
        let mut e = e;
        if same
            && e.mv.is_none()
            && let Some((o, _)) = old
        {
            e.mv = o.mv;
        }
        let take_first = match old {
            None => true,
            Some((o, og)) => same || og != g || e.depth >= o.depth,
        };
        let slot = if take_first { b } else { b + 2 };
        let d = pack(&e, g);
        self.words[slot].store(key ^ d, Relaxed);
        self.words[slot + 1].store(d, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_finds_entries() {
        let t = Tt::new(1).unwrap();
        assert_eq!(t.probe(42), None);
        let e = Entry { score: -1234, depth: 7, bound: Bound::Upper, mv: Some(3) };
        t.store(42, e);
        assert_eq!(t.probe(42), Some(e));
        // A shallower result of another position in the same bucket goes
        // to the second slot and keeps the first.
        let buckets = t.buckets as u128;
        let other = (1u64..).find(|&k| k != 42 && (k as u128 * buckets) >> 64 == (42u128 * buckets) >> 64);
        if let Some(k) = other {
            let f = Entry { score: 5, depth: 2, bound: Bound::Exact, mv: None };
            t.store(k, f);
            assert_eq!(t.probe(42), Some(e));
            assert_eq!(t.probe(k), Some(f));
        }
        // Storing without a move keeps the known move.
        t.store(42, Entry { score: 9, depth: 8, bound: Bound::Lower, mv: None });
        assert_eq!(t.probe(42).unwrap().mv, Some(3));
        assert!(Tt::new(usize::MAX / 2).is_err());
    }

    #[test]
    fn clear_forgets_and_populate_keeps() {
        let t = Tt::new(4).unwrap();
        let keys: Vec<u64> = (1..=1000u64).map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
        let e = Entry { score: 17, depth: 3, bound: Bound::Lower, mv: Some(5) };
        for &k in &keys {
            t.store(k, e);
        }
        let found = |t: &Tt| keys.iter().filter(|&&k| t.probe(k) == Some(e)).count();
        let before = found(&t);
        assert!(before > 900, "{before}");
        t.populate(1 << 20, &AtomicBool::new(false));
        assert_eq!(t.populated_bytes(), 1 << 20);
        t.populate(usize::MAX, &AtomicBool::new(true));
        assert_eq!(t.populated_bytes(), 1 << 20);
        t.populate(usize::MAX, &AtomicBool::new(false));
        assert_eq!(t.populated_bytes(), t.bytes());
        assert_eq!(found(&t), before);
        t.reserve(u64::MAX, None);
        t.clear();
        assert_eq!(found(&t), 0);
        assert_eq!(t.capacity_in_use(), 2 * START_BUCKETS.min(t.buckets));
        // The cleared table stores and finds again.
        t.store(keys[0], e);
        assert_eq!(t.probe(keys[0]), Some(e));
    }

    #[test]
    fn the_part_in_use_grows_and_keeps_its_entries() {
        let t = Tt::new(64).unwrap();
        assert_eq!(t.capacity_in_use(), 2 * START_BUCKETS);
        // Keys spread over the buckets: most entries of a full table.
        let keys: Vec<u64> = (1..=40_000u64).map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
        let entry = |k: u64| Entry {
            score: (k % 1000) as i32,
            depth: (k % 50) as u8,
            bound: Bound::Exact,
            mv: Some(1),
        };
        for &k in &keys {
            t.store(k, entry(k));
        }
        let kept = |t: &Tt| keys.iter().filter(|&&k| t.probe(k) == Some(entry(k))).count();
        let before = kept(&t);
        assert!(before > 30_000, "{before}");
        // Smaller or equal requests change nothing.
        t.reserve(10, None);
        assert_eq!(t.capacity_in_use(), 2 * START_BUCKETS);
        t.reserve(1_000_000, None);
        assert_eq!(t.capacity_in_use(), 1 << 20);
        // Every entry is still found, and no key finds another's entry.
        assert_eq!(kept(&t), before);
        assert!((50_000..60_000u64).all(|k| t.probe(k.wrapping_mul(0x9E37_79B9_7F4A_7C15)).is_none()));
        // Growth stops at the size asked for.
        t.reserve(u64::MAX, None);
        assert_eq!(t.capacity_in_use(), 64 * (1 << 20) / BUCKET_BYTES * 2);
        assert_eq!(kept(&t), before);
        // A growth past its deadline gives up the entries it has not moved
        // yet: fewer are found, none wrongly.
        let late = Tt::new(64).unwrap();
        for &k in &keys {
            late.store(k, entry(k));
        }
        late.reserve(1_000_000, Some(Instant::now()));
        assert_eq!(late.capacity_in_use(), 1 << 20);
        let found = kept(&late);
        assert!(found < before, "{found}");
        assert!(keys.iter().all(|&k| late.probe(k).is_none_or(|e| e == entry(k))));
        // A table smaller than the starting part uses all of itself.
        let small = Tt::new(0).unwrap();
        assert_eq!(small.capacity_in_use(), 2);
    }
}
