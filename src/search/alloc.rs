//! Fallible allocation of large tables (transposition tables of every
//! game's search).
//!
//! A table is allocated zeroed through the allocator's `alloc_zeroed`,
//! which for large sizes maps fresh zero pages from the operating system
//! without touching them: asking for a gigabyte costs microseconds, and
//! the pages are faulted in as the search writes them. A size the machine
//! cannot give is an error, never an abort.

use std::alloc::{Layout, alloc_zeroed};
use std::fmt;

/// Types whose all-zero bit pattern is a valid value.
///
/// # Safety
/// Implement only for types for which zeroed memory is a valid value
/// (integers, arrays and plain structs of them).
pub unsafe trait Zeroable: Copy {}

unsafe impl Zeroable for u8 {}
unsafe impl Zeroable for u16 {}
unsafe impl Zeroable for u32 {}
unsafe impl Zeroable for u64 {}
unsafe impl Zeroable for u128 {}
unsafe impl Zeroable for i8 {}
unsafe impl Zeroable for i16 {}
unsafe impl Zeroable for i32 {}
unsafe impl Zeroable for i64 {}
unsafe impl<T: Zeroable, const N: usize> Zeroable for [T; N] {}

/// A table that could not be allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocError {
    /// Bytes asked for.
    pub bytes: usize,
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot allocate {} MB", self.bytes.div_ceil(1 << 20))
    }
}

impl std::error::Error for AllocError {}

/// `n` zeroed values of `T`, or an error if the memory cannot be had.
pub fn zeroed_slice<T: Zeroable>(n: usize) -> Result<Box<[T]>, AllocError> {
    let bytes = n.saturating_mul(size_of::<T>());
    if n == 0 {
        return Ok(Vec::new().into_boxed_slice());
    }
    let layout = Layout::array::<T>(n).map_err(|_| AllocError { bytes })?;
    // SAFETY: the layout has a non-zero size; a null pointer is handled; a
    // non-null one points to `n` zeroed `T`s, a valid value by `Zeroable`,
    // allocated with the global allocator and the layout of `[T; n]`, so a
    // `Box<[T]>` may own it.
    unsafe {
        let p = alloc_zeroed(layout) as *mut T;
        if p.is_null() {
            return Err(AllocError { bytes });
        }
        Ok(Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, n)))
    }
}

/// True if `bytes` could be allocated now (allocates and frees at once,
/// touching nothing): the check behind `setoption name Hash`.
pub fn can_allocate(bytes: usize) -> bool {
    zeroed_slice::<u64>(bytes.div_ceil(8)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_tables_are_zeroed() {
        let t = zeroed_slice::<u64>(1000).unwrap();
        assert_eq!(t.len(), 1000);
        assert!(t.iter().all(|&x| x == 0));
        let e = zeroed_slice::<[u32; 4]>(0).unwrap();
        assert!(e.is_empty());
    }

    #[test]
    fn absurd_sizes_fail_without_aborting() {
        let e = zeroed_slice::<u64>(usize::MAX / 4).unwrap_err();
        assert!(e.to_string().starts_with("cannot allocate"));
        assert!(!can_allocate(usize::MAX / 2));
        assert!(can_allocate(1 << 20));
    }
}
