//! The GUI's runtime, its one seam with the platform's tasks and timers:
//! tokio's natively, the browser's event loop in the offline page
//! (WebAssembly: tasks on the page's microtask queue through
//! `wasm-bindgen-futures`, timers over `setTimeout` through `gloo-timers`).
//! tokio's channels and `select!` work on both; its runtime and timers
//! only natively. Instants are [`crate::time::Instant`] (std's natively).

use std::future::Future;
use std::time::Duration;

use crate::time::Instant;

/// The future's time ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed;

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::*;

    /// Runs a task of its own.
    pub fn spawn(f: impl Future<Output = ()> + Send + 'static) {
        tokio::spawn(f);
    }

    /// Resolves at `at` (at once if it is past).
    pub async fn sleep_until(at: Instant) {
        tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await
    }

    /// The future's output, or [`Elapsed`] after `d`.
    pub async fn timeout<T>(d: Duration, f: impl Future<Output = T>) -> Result<T, Elapsed> {
        tokio::time::timeout(d, f).await.map_err(|_| Elapsed)
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::*;

    /// Runs a task of its own (on the page's one thread).
    pub fn spawn(f: impl Future<Output = ()> + 'static) {
        wasm_bindgen_futures::spawn_local(f);
    }

    /// Resolves at `at` (at once if it is past).
    pub async fn sleep_until(at: Instant) {
        let d = at.saturating_duration_since(Instant::now());
        // setTimeout's delay is at most 2^31 - 1 ms: a later instant is
        // waited for in steps.
        let ms = d.as_millis().min(i32::MAX as u128) as u32;
        gloo_timers::future::TimeoutFuture::new(ms).await;
        if Instant::now() < at {
            Box::pin(sleep_until(at)).await
        }
    }

    /// The future's output, or [`Elapsed`] after `d`.
    pub async fn timeout<T>(d: Duration, f: impl Future<Output = T>) -> Result<T, Elapsed> {
        let at = Instant::now() + d;
        tokio::select! {
            biased;
            v = f => Ok(v),
            _ = sleep_until(at) => Err(Elapsed),
        }
    }
}

pub use imp::{sleep_until, spawn, timeout};

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[tokio::test]
    async fn timers_and_timeouts() {
        sleep_until(Instant::now() + Duration::from_millis(5)).await;
        assert_eq!(timeout(Duration::from_secs(5), async { 3 }).await, Ok(3));
        let never = std::future::pending::<()>();
        assert_eq!(timeout(Duration::from_millis(1), never).await, Err(Elapsed));
        let (tx, rx) = tokio::sync::oneshot::channel();
        spawn(async move {
            let _ = tx.send(7);
        });
        assert_eq!(rx.await, Ok(7));
    }
}
