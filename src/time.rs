//! The engine's clock, the one seam between the engine and the platform's
//! time: `std::time::Instant` natively, the browser's `performance.now()`
//! in WebAssembly (`wasm32-unknown-unknown`, where `std`'s `Instant::now`
//! panics). Every clock reading outside the native-only rooms (`gui`,
//! `play`, `results`) goes through [`Instant`] here; durations are
//! `std::time::Duration` everywhere.
//!
//! The `web-time` crate is that very split: on native targets its
//! `Instant` *is* `std::time::Instant` (a re-export, so native builds are
//! unchanged), on the web a monotonic clock of the same interface.

pub use web_time::Instant;

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Natively the clock is std's own: values pass between the two.
    #[test]
    fn natively_the_clock_is_std() {
        let a: std::time::Instant = Instant::now();
        let b: Instant = a + Duration::from_millis(5);
        assert_eq!(b.duration_since(a), Duration::from_millis(5));
    }
}
