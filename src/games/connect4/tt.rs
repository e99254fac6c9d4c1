//! The solver's transposition table: one proven bound (upper or lower) of
//! the score per position, with the move that proved a lower bound,
//! always-replace, sized in MB.
//!
//! The position key is multiplied by an odd constant (a bijection on 64-bit
//! words); the top `bits` bits of the product pick the slot and the low
//! `64 - bits` bits (at most 44) are stored, so an entry identifies its
//! position exactly: no false hits, for any board size. Each entry also
//! holds a generation number, so clearing the table is O(1) (a real wipe
//! happens only when the generation wraps).
//!
//! Entry: stored key bits << 20 | move (4 bits, 15 = none) << 16 |
//! generation << 8 | lower-bound flag << 7 | score + 64.

/// Odd multiplier (from the golden ratio).
const MUL: u64 = 0x9E37_79B9_7F4A_7C15;
/// At least 2^20 slots (8 MB), so the stored part fits in 44 bits.
const MIN_BITS: u32 = 20;
const NO_MOVE: u64 = 15;

/// A stored bound of a position's score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is at most this.
    Upper(i32),
    /// The score is at least this.
    Lower(i32),
}

pub struct Table {
    slots: Vec<u64>,
    bits: u32,
    generation: u64,
}

impl Table {
    /// A table of at most `mb` megabytes (at least 8 MB).
    pub fn with_mb(mb: usize) -> Table {
        let want = mb.max(1).saturating_mul(1 << 20) / 8;
        let bits = (usize::BITS - 1 - want.leading_zeros()).clamp(MIN_BITS, 40);
        let mut slots = vec![0u64; 1usize << bits];
        huge_pages(&mut slots);
        // Touch every page now, not during the first searches.
        for s in slots.iter_mut().step_by(512) {
            *s = std::hint::black_box(0);
        }
        Table { slots, bits, generation: 1 }
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.slots.len() * 8
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.generation += 1;
        if self.generation == 256 {
            self.slots.iter_mut().for_each(|s| *s = 0);
            self.generation = 1;
        }
    }

    #[inline]
    fn split(&self, key: u64) -> (usize, u64) {
        let h = key.wrapping_mul(MUL);
        ((h >> (64 - self.bits)) as usize, h & ((1u64 << (64 - self.bits)) - 1))
    }

    /// Starts loading the slot of `key` into the cache (a hint: the
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
        let e = self.slots[i];
        if e >> 20 != rest || (e >> 8) & 0xFF != self.generation {
            return None;
        }
        let v = (e & 0x7F) as i32 - 64;
        let mv = (e >> 16) & 0xF;
        let mv = if mv == NO_MOVE { None } else { Some(mv as u32) };
        Some((if e & 0x80 != 0 { Bound::Lower(v) } else { Bound::Upper(v) }, mv))
    }

    /// Stores a bound for `key` (|score| < 64) and a move (column < 15),
    /// replacing the slot.
    #[inline]
    pub fn put(&mut self, key: u64, bound: Bound, mv: Option<u32>) {
        let (i, rest) = self.split(key);
        let (v, flag) = match bound {
            Bound::Upper(v) => (v, 0),
            Bound::Lower(v) => (v, 0x80),
        };
        debug_assert!((-64..64).contains(&v));
        let mv = mv.map_or(NO_MOVE, |m| m as u64 & 0xF);
        self.slots[i] = rest << 20 | mv << 16 | self.generation << 8 | flag | (v + 64) as u64 & 0x7F;
    }
}

/// Asks Linux to back the table with transparent huge pages (when the
/// system allows them on request): the table is probed at random, and with
/// 4 KB pages nearly every probe also misses the TLB. Must run before the
/// pages are first touched. Elsewhere, nothing.
fn huge_pages(slots: &mut [u64]) {
    #[cfg(target_os = "linux")]
    {
        unsafe extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        const MADV_HUGEPAGE: i32 = 14;
        const PAGE: usize = 4096;
        let start = slots.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(slots);
        let first = start.next_multiple_of(PAGE);
        if end > first + PAGE {
            let len = (end - first) / PAGE * PAGE;
            // SAFETY: the range lies inside our own allocation, is page
            // aligned, and MADV_HUGEPAGE only changes how the kernel backs
            // it (the contents stay zero); a failure is harmless.
            let _ = unsafe { madvise(first as *mut std::ffi::c_void, len, MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = slots;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_clears() {
        let mut t = Table::with_mb(1);
        assert_eq!(t.bytes(), 8 << 20);
        assert_eq!(Table::with_mb(20).bytes(), 16 << 20);
        t.put(12345, Bound::Lower(-7), Some(3));
        t.put(999, Bound::Upper(21), None);
        assert_eq!(t.get(12345), Some((Bound::Lower(-7), Some(3))));
        assert_eq!(t.get(999), Some((Bound::Upper(21), None)));
        assert_eq!(t.get(1000), None);
        t.clear();
        assert_eq!(t.get(12345), None);
        // Generations wrap with a real wipe.
        t.put(5, Bound::Upper(0), Some(8));
        for _ in 0..300 {
            t.clear();
            assert_eq!(t.get(5), None);
        }
    }

    #[test]
    fn keys_sharing_a_slot_are_told_apart() {
        let t0 = Table::with_mb(1);
        let (i, _) = t0.split(77);
        // Find another key in the same slot.
        let other = (78u64..).find(|&k| t0.split(k).0 == i).unwrap();
        let mut t = t0;
        t.put(77, Bound::Lower(3), Some(0));
        assert_eq!(t.get(other), None);
        t.put(other, Bound::Upper(-2), None);
        assert_eq!(t.get(77), None);
        assert_eq!(t.get(other), Some((Bound::Upper(-2), None)));
    }
}
