//! The solver's transposition table: proven bounds (upper or lower) of
//! scores, with the move that proved a lower bound, sized in MB.
//!
//! Slots go in pairs (a bucket, within one cache line). The position key is
//! multiplied by an odd constant (a bijection on 64-bit words); the top bits
//! of the product pick the bucket and the low bits (at most 44) are stored,
//! so an entry identifies its position exactly: no false hits, for any
//! board size. A new entry takes the slot of the same position, else an
//! empty one, else the one whose search took less work (log2 of its node
//! count is stored), so the costly results near the root survive. Each
//! entry also holds a generation number, so clearing the table is O(1) (a
//! real wipe happens only when the generation wraps, every 7 clears).
//!
//! The memory is allocated fallibly and lazily
//! ([`crate::search::alloc::zeroed_slice`]: zero pages mapped as they are
//! first written, nothing touched in advance), and the slots are atomic
//! words, so several search threads share one table (lazy SMP): each entry
//! is one word holding its own key check, so a racing write can only
//! replace an entry, never produce a wrong one.
//!
//! Entry: stored key bits << 20 | move (4 bits, 15 = none) << 16 |
//! work (5 bits) << 11 | generation (3 bits) << 8 | lower-bound flag << 7 |
//! score + 64.

/// Odd multiplier (from the golden ratio).
const MUL: u64 = 0x9E37_79B9_7F4A_7C15;
/// At least 2^21 slots (16 MB), so the stored part fits in 44 bits.
const MIN_BITS: u32 = 21;
const NO_MOVE: u64 = 15;
const GENERATIONS: u64 = 8;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::search::alloc::{AllocError, zeroed_slice};

/// A stored bound of a position's score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is at most this.
    Upper(i32),
    /// The score is at least this.
    Lower(i32),
}

pub struct Table {
    slots: Box<[AtomicU64]>,
    /// log2 of the number of slots.
    bits: u32,
    generation: u64,
    /// The thread mapping the table's pages in advance, and its stop flag
    /// (see [`Table::prefault_in_background`]).
    prefault: Option<(std::thread::JoinHandle<()>, std::sync::Arc<std::sync::atomic::AtomicBool>)>,
}

/// The table's memory, handed to the thread that maps it in advance (the
/// table joins that thread before it frees or wipes the memory).
struct Pages(*const AtomicU64, usize);
// SAFETY: the pointer is only used for atomic operations (or a madvise
// that leaves the contents alone) while the table, which owns the memory
// and joins the thread before freeing it, is alive.
unsafe impl Send for Pages {}

impl Table {
    /// A table of at most `mb` megabytes (at least 16 MB), or an error if
    /// the memory cannot be had. Costs no time: pages are mapped when the
    /// search first writes them.
    pub fn with_mb(mb: usize) -> Result<Table, AllocError> {
        Table::with_mb_huge(mb, false)
    }

    /// [`Table::with_mb`], with `huge`: backed by transparent huge pages
    /// where Linux allows it (fewer TLB misses: measured 1.3-1.5x faster on
    /// Middle-Medium), for the command-line solvers only, which have no
    /// per-move deadline (see below).
    pub fn with_mb_huge(mb: usize, huge: bool) -> Result<Table, AllocError> {
        let want = mb.max(1).saturating_mul(1 << 20) / 8;
        let bits = (usize::BITS - 1 - want.leading_zeros()).clamp(MIN_BITS, 40);
        // No transparent huge pages: with the table mapped lazily, a huge
        // page fault inside a search may wait for the kernel to compact
        // memory (measured: a 1 s move took 3.5 s on a busy machine).
        let words: Box<[u64]> = zeroed_slice(1usize << bits)?;
        if huge {
            huge_pages(&words);
        }
        // SAFETY: `AtomicU64` has the size and bit validity of `u64`, and
        // on every 64-bit target its alignment (8); a `Box<[u64]>` of
        // zeroes is therefore a valid `Box<[AtomicU64]>` of the same layout.
        const _: () = assert!(align_of::<AtomicU64>() == align_of::<u64>());
        let slots = unsafe { Box::from_raw(Box::into_raw(words) as *mut [AtomicU64]) };
        Ok(Table { slots, bits, generation: 1, prefault: None })
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.slots.len() * 8
    }

    /// True if the next [`Table::clear`] wipes the memory (the others only
    /// bump the generation).
    pub fn clear_wipes(&self) -> bool {
        self.generation + 1 == GENERATIONS
    }

    /// Maps the table's pages on another thread, without changing what
    /// they hold, so that a search does not pay the page faults of a fresh
    /// table (the engine's table is mapped lazily: at 256 MB, a 100 ms
    /// search spent most of its time faulting pages in). The pages are
    /// written as the search would, so the memory is then in use. A search
    /// should not use the table until [`Table::mapped`]: while this thread
    /// maps pages, a search's own page faults were measured 5-50 times
    /// slower.
    pub fn prefault_in_background(&mut self) {
        if self.prefault.is_some() {
            return;
        }
        let pages = Pages(self.slots.as_ptr(), self.slots.len());
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stop2 = stop.clone();
        // Where there are no threads the pages are left to the search.
        let spawned = crate::threads::background("c4-table-pages", move || {
            let pages = pages;
            // SAFETY: the table outlives this thread (see `Pages`).
            map_pages(unsafe { std::slice::from_raw_parts(pages.0, pages.1) }, &stop2);
        });
        if let Some(h) = spawned {
            self.prefault = Some((h, stop));
        }
    }

    /// Maps the table's pages now (a small table: 16 MB take about 10 ms).
    pub fn prefault_now(&self) {
        map_pages(&self.slots, &std::sync::atomic::AtomicBool::new(false));
    }

    /// False while the thread of [`Table::prefault_in_background`] is
    /// still mapping pages.
    pub fn mapped(&self) -> bool {
        self.prefault.as_ref().is_none_or(|(h, _)| h.is_finished())
    }

    /// Stops the page-mapping thread, if any, and waits for it.
    fn stop_prefault(&mut self) {
        if let Some((h, stop)) = self.prefault.take() {
            stop.store(true, Relaxed);
            let _ = h.join();
        }
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.generation += 1;
        if self.generation == GENERATIONS {
            self.stop_prefault();
            self.slots.iter_mut().for_each(|s| *s.get_mut() = 0);
            self.generation = 1;
        }
    }

    /// First slot of the bucket of `key`, and the bits stored to tell keys
    /// of that bucket apart.
    #[inline]
    fn split(&self, key: u64) -> (usize, u64) {
        let h = key.wrapping_mul(MUL);
        let bucket_bits = self.bits - 1;
        (2 * (h >> (64 - bucket_bits)) as usize, h & ((1u64 << (64 - bucket_bits)) - 1))
    }

    #[inline]
    fn holds(&self, e: u64, rest: u64) -> bool {
        e >> 20 == rest && (e >> 8) & 7 == self.generation
    }

    /// Starts loading the bucket of `key` into the cache (a hint: the
    /// search will probe it soon; the table is too big for the caches).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        let (i, _) = self.split(key);
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let p = self.slots[i..].as_ptr() as *const i8;
            // SAFETY: a prefetch never faults nor changes memory; `p` points
            // into the table anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    /// The bound stored for `key` and the move stored with it, if any.
    #[inline]
    pub fn get(&self, key: u64) -> Option<(Bound, Option<u32>)> {
        let (i, rest) = self.split(key);
        let (e0, e1) = (self.slots[i].load(Relaxed), self.slots[i + 1].load(Relaxed));
        let e = if self.holds(e0, rest) {
            e0
        } else if self.holds(e1, rest) {
            e1
        } else {
            return None;
        };
        let v = (e & 0x7F) as i32 - 64;
        let mv = (e >> 16) & 0xF;
        let mv = if mv == NO_MOVE { None } else { Some(mv as u32) };
        Some((if e & 0x80 != 0 { Bound::Lower(v) } else { Bound::Upper(v) }, mv))
    }

    /// Stores a bound for `key` (|score| < 64), a move (column < 15) and
    /// the number of nodes its search took.
    #[inline]
    pub fn put(&self, key: u64, bound: Bound, mv: Option<u32>, nodes: u64) {
        let (i, rest) = self.split(key);
        let (v, flag) = match bound {
            Bound::Upper(v) => (v, 0),
            Bound::Lower(v) => (v, 0x80),
        };
        debug_assert!((-64..64).contains(&v));
        let mv = mv.map_or(NO_MOVE, |m| m as u64 & 0xF);
        let work = (64 - nodes.leading_zeros() as u64).min(31);
        let (e0, e1) = (self.slots[i].load(Relaxed), self.slots[i + 1].load(Relaxed));
        let current = |e: u64| (e >> 8) & 7 == self.generation;
        let j = if self.holds(e0, rest) || !current(e0) {
            i
        } else if self.holds(e1, rest) || !current(e1) {
            i + 1
        } else if (e0 >> 11) & 31 < (e1 >> 11) & 31 {
            i
        } else {
            i + 1
        };
        self.slots[j].store(
            rest << 20 | mv << 16 | work << 11 | self.generation << 8 | flag | (v + 64) as u64 & 0x7F,
            Relaxed,
        );
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        self.stop_prefault();
    }
}

/// Maps the pages of `chunk` writable without touching their contents
/// (Linux 5.14's `MADV_POPULATE_WRITE`); false where that is not possible.
fn populate(chunk: &[AtomicU64]) -> bool {
    // The contents (zero, or entries a search wrote) stay as they are.
    advise(chunk.as_ptr() as usize, std::mem::size_of_val(chunk), 23)
}

/// Asks Linux to back the table with transparent huge pages (when the
/// system allows them on request): the table is probed at random, and with
/// 4 KB pages nearly every probe also misses the TLB. Must run before the
/// pages are first touched. Elsewhere, nothing; a failure is harmless.
fn huge_pages(slots: &[u64]) {
    // MADV_HUGEPAGE only changes how the kernel backs the pages.
    advise(slots.as_ptr() as usize, std::mem::size_of_val(slots), 14);
}

/// Maps the pages of `slots` (2 MB at a time, until `stop`), leaving what
/// they hold as it is.
fn map_pages(slots: &[AtomicU64], stop: &std::sync::atomic::AtomicBool) {
    const CHUNK: usize = 1 << 18; // slots: 2 MB
    for chunk in slots.chunks(CHUNK) {
        if stop.load(Relaxed) {
            return;
        }
        if !populate(chunk) {
            // One write per 4 KB page that leaves the word as it is.
            for w in chunk.iter().step_by(512) {
                w.fetch_or(0, Relaxed);
            }
        }
    }
}

/// `madvise(advice)` over the whole 4 KB pages of the `bytes` from `start`
/// (inside one of the table's allocations); false if there is no whole page,
/// the call fails, or the system is not Linux.
fn advise(start: usize, bytes: usize, advice: i32) -> bool {
    #[cfg(target_os = "linux")]
    {
        unsafe extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        const PAGE: usize = 4096;
        let end = start + bytes;
        let first = start.next_multiple_of(PAGE);
        if end < first + PAGE {
            return false;
        }
        let len = (end - first) / PAGE * PAGE;
        // SAFETY: the range lies inside the caller's allocation and is page
        // aligned; the advice used here leaves the contents as they are.
        unsafe { madvise(first as *mut std::ffi::c_void, len, advice) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (start, bytes, advice);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_clears() {
        let mut t = Table::with_mb(1).unwrap();
        assert_eq!(t.bytes(), 16 << 20);
        assert_eq!(Table::with_mb(40).unwrap().bytes(), 32 << 20);
        t.put(12345, Bound::Lower(-7), Some(3), 100);
        t.put(999, Bound::Upper(21), None, 1);
        assert_eq!(t.get(12345), Some((Bound::Lower(-7), Some(3))));
        assert_eq!(t.get(999), Some((Bound::Upper(21), None)));
        assert_eq!(t.get(1000), None);
        t.clear();
        assert_eq!(t.get(12345), None);
        // Generations wrap with a real wipe.
        t.put(5, Bound::Upper(0), Some(8), 0);
        for _ in 0..300 {
            t.clear();
            assert_eq!(t.get(5), None);
        }
    }

    #[test]
    fn a_size_the_machine_cannot_give_is_an_error() {
        // 2^40 slots of 8 bytes: 8 TB, refused unless the kernel is set to
        // promise any amount of memory (overcommit mode 1).
        if std::fs::read_to_string("/proc/sys/vm/overcommit_memory").is_ok_and(|m| m.trim() == "1") {
            return;
        }
        // black_box: in an optimized build an allocation that is never
        // used may be elided, and would then "succeed".
        let e = std::hint::black_box(Table::with_mb(usize::MAX)).err().expect("8 TB cannot be allocated");
        assert!(e.to_string().starts_with("cannot allocate"), "{e}");
    }

    #[test]
    fn mapping_pages_in_advance_keeps_the_entries() {
        let mut t = Table::with_mb(64).unwrap();
        t.put(42, Bound::Lower(5), Some(1), 7);
        t.prefault_in_background();
        for k in 0..10_000u64 {
            t.put(k * 977 + 1, Bound::Upper(-1), None, 1);
        }
        t.stop_prefault();
        assert_eq!(t.get(42), Some((Bound::Lower(5), Some(1))));
        assert_eq!(t.get(977 * 5 + 1), Some((Bound::Upper(-1), None)));
        // Clearing (with its wipes) and dropping wait for the thread.
        t.prefault_in_background();
        for _ in 0..GENERATIONS {
            t.clear();
        }
        assert_eq!(t.get(42), None);
        t.prefault_in_background();
        drop(t);
    }

    #[test]
    fn threads_share_a_table() {
        let t = Table::with_mb(1).unwrap();
        std::thread::scope(|s| {
            for k in 0..2u64 {
                let t = &t;
                s.spawn(move || (0..1000u64).for_each(|i| t.put(i * 2 + k, Bound::Lower(k as i32), None, 1)));
            }
        });
        assert_eq!(t.get(7), Some((Bound::Lower(1), None)));
        assert_eq!(t.get(8), Some((Bound::Lower(0), None)));
    }

    #[test]
    fn keys_sharing_a_bucket_are_told_apart_and_work_is_kept() {
        let t0 = Table::with_mb(1).unwrap();
        let (i, _) = t0.split(77);
        // Other keys of the same bucket.
        let same: Vec<u64> = (78u64..).filter(|&k| t0.split(k).0 == i).take(3).collect();
        let t = t0;
        t.put(77, Bound::Lower(3), Some(0), 1 << 20);
        assert_eq!(t.get(same[0]), None);
        t.put(same[0], Bound::Upper(-2), None, 10);
        assert_eq!(t.get(77), Some((Bound::Lower(3), Some(0))));
        assert_eq!(t.get(same[0]), Some((Bound::Upper(-2), None)));
        // A third key replaces the entry with less work.
        t.put(same[1], Bound::Upper(5), None, 1000);
        assert_eq!(t.get(77), Some((Bound::Lower(3), Some(0))));
        assert_eq!(t.get(same[0]), None);
        assert_eq!(t.get(same[1]), Some((Bound::Upper(5), None)));
        // The same key is updated in place.
        t.put(77, Bound::Lower(4), Some(2), 5);
        assert_eq!(t.get(77), Some((Bound::Lower(4), Some(2))));
        assert_eq!(t.get(same[1]), Some((Bound::Upper(5), None)));
    }
}
