//! Threads, where the platform has them: the one place that starts the
//! engine's threads (search helpers, the protocol's search runner, tables
//! mapped or written in advance, the opening book read in the background).
//!
//! Natively these are `std::thread`s. The engine compiled to WebAssembly
//! (`wasm32-unknown-unknown`, in a Web Worker) has one thread: there
//! [`usable`] is 1, so no search starts helpers; work that must be done
//! ([`run`], [`Scope::spawn`]) runs here and now, in the caller; work that
//! only prepares ([`background`]) is not started at all.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

/// True if this build can start threads (false in WebAssembly).
pub const AVAILABLE: bool = cfg!(not(target_arch = "wasm32"));

/// The most threads the `Threads` option may ask for in this build: 64
/// natively (a search uses at most the machine's cores, see [`usable`]),
/// 1 in WebAssembly.
pub const MAX_THREADS: i64 = if AVAILABLE { 64 } else { 1 };

/// Threads a search of `asked` threads starts: no more than the machine
/// runs at once (`std::thread::available_parallelism`, which counts the
/// CPUs this process may use), and at least one; always one where there
/// are no threads. More threads than cores only take turns: each must be
/// scheduled to see a stop, and with 64 of them on 2 busy cores a `stop`
/// took seconds.
pub fn usable(asked: usize) -> usize {
    asked.clamp(1, cores())
}

/// The CPUs this process may use (1 where there are no threads).
pub fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| {
        if AVAILABLE { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { 1 }
    })
}

/// Work started by [`run`]: on a thread of its own, or done already.
pub struct Task<T>(TaskState<T>);

enum TaskState<T> {
    Thread(JoinHandle<T>),
    Done(std::thread::Result<T>),
}

impl<T> Task<T> {
    /// True once the work is over.
    pub fn is_finished(&self) -> bool {
        match &self.0 {
            TaskState::Thread(h) => h.is_finished(),
            TaskState::Done(_) => true,
        }
    }

    /// Waits for the work; `Err` if it panicked.
    pub fn join(self) -> std::thread::Result<T> {
        match self.0 {
            TaskState::Thread(h) => h.join(),
            TaskState::Done(r) => r,
        }
    }
}

/// Runs `f` on a new thread named `name` (with `stack` bytes of stack if
/// given), or here and now where there are no threads or none can be
/// started (a panic is caught and kept for [`Task::join`] as a thread's
/// would be).
pub fn run<T, F>(name: &str, stack: Option<usize>, f: F) -> Task<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    if AVAILABLE {
        // The closure waits in a slot the thread empties, so that if no
        // thread can be started it is still here to run.
        let slot = Arc::new(Mutex::new(Some(f)));
        let theirs = slot.clone();
        let mut b = std::thread::Builder::new().name(name.to_string());
        if let Some(s) = stack {
            b = b.stack_size(s);
        }
        let spawned = b.spawn(move || {
            let f = theirs.lock().unwrap_or_else(|p| p.into_inner()).take().expect("the thread's work");
            f()
        });
        match spawned {
            Ok(h) => return Task(TaskState::Thread(h)),
            Err(e) => log::error!("cannot start thread {name}: {e}; running it here"),
        }
        let f = slot.lock().unwrap_or_else(|p| p.into_inner()).take().expect("not taken: no thread ran");
        return Task(TaskState::Done(catch_unwind(AssertUnwindSafe(f))));
    }
    Task(TaskState::Done(catch_unwind(AssertUnwindSafe(f))))
}

/// Starts `f` on a thread named `name` if the platform has threads: for
/// work that only prepares (a table mapped in advance), which is better
/// not done at all than done in the caller's time. `None` where there
/// are no threads or none could be started.
pub fn background<T, F>(name: &str, f: F) -> Option<JoinHandle<T>>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    if !AVAILABLE {
        return None;
    }
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(f)
        .map_err(|e| log::warn!("cannot start thread {name}: {e}"))
        .ok()
}

/// A scope for threads that borrow from the caller (see
/// [`std::thread::scope`]): every thread spawned in it is joined before
/// [`scope`] returns.
pub struct Scope<'scope, 'env: 'scope>(&'scope std::thread::Scope<'scope, 'env>);

/// Runs `f` with a [`Scope`]; returns once every thread of the scope has
/// ended.
pub fn scope<'env, F, T>(f: F) -> T
where
    F: for<'scope> FnOnce(&Scope<'scope, 'env>) -> T,
{
    std::thread::scope(|s| f(&Scope(s)))
}

/// A thread of a [`Scope`], or its work done already.
pub struct ScopedTask<'scope, T>(ScopedState<'scope, T>);

enum ScopedState<'scope, T> {
    Thread(std::thread::ScopedJoinHandle<'scope, T>),
    Done(std::thread::Result<T>),
}

impl<T> ScopedTask<'_, T> {
    /// Waits for the work; `Err` if it panicked.
    pub fn join(self) -> std::thread::Result<T> {
        match self.0 {
            ScopedState::Thread(h) => h.join(),
            ScopedState::Done(r) => r,
        }
    }
}

impl<'scope> Scope<'scope, '_> {
    /// Runs `f` on a thread of the scope, or here and now where there are
    /// no threads (callers start helpers only up to [`usable`], which is
    /// 1 there; what is spawned anyway is work that ends on its own).
    pub fn spawn<T, F>(&self, f: F) -> ScopedTask<'scope, T>
    where
        T: Send + 'scope,
        F: FnOnce() -> T + Send + 'scope,
    {
        self.spawn_named("", f)
    }

    /// [`Scope::spawn`] with a thread name (none if empty).
    pub fn spawn_named<T, F>(&self, name: &str, f: F) -> ScopedTask<'scope, T>
    where
        T: Send + 'scope,
        F: FnOnce() -> T + Send + 'scope,
    {
        if AVAILABLE {
            let slot = Arc::new(Mutex::new(Some(f)));
            let theirs = slot.clone();
            let mut b = std::thread::Builder::new();
            if !name.is_empty() {
                b = b.name(name.to_string());
            }
            let spawned = b.spawn_scoped(self.0, move || {
                let f = theirs.lock().unwrap_or_else(|p| p.into_inner()).take().expect("the thread's work");
                f()
            });
            match spawned {
                Ok(h) => return ScopedTask(ScopedState::Thread(h)),
                Err(e) => log::error!("cannot start a thread: {e}; running its work here"),
            }
            let f = slot.lock().unwrap_or_else(|p| p.into_inner()).take().expect("not taken: no thread ran");
            return ScopedTask(ScopedState::Done(catch_unwind(AssertUnwindSafe(f))));
        }
        ScopedTask(ScopedState::Done(catch_unwind(AssertUnwindSafe(f))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn usable_is_within_the_cores() {
        assert_eq!(usable(0), 1);
        assert_eq!(usable(10_000), cores());
        assert!(cores() >= 1);
    }

    #[test]
    fn run_gives_the_result_and_a_panic() {
        let t = run("test-run", Some(1 << 20), || 6 * 7);
        assert_eq!(t.join().ok(), Some(42));
        let t = run("test-panic", None, || -> u32 { panic!("on purpose") });
        assert!(t.join().is_err());
    }

    #[test]
    fn a_scope_joins_its_threads() {
        let n = AtomicUsize::new(0);
        let total = scope(|s| {
            let n = &n;
            let hs: Vec<_> = (0..4).map(|i| s.spawn(move || n.fetch_add(i, Ordering::Relaxed))).collect();
            let named = s.spawn_named("test-named", || std::thread::current().name().map(str::to_string));
            assert_eq!(named.join().unwrap().as_deref(), Some("test-named"));
            hs.into_iter().map(|h| h.join().is_ok() as usize).sum::<usize>()
        });
        assert_eq!(total, 4);
        assert_eq!(n.load(Ordering::Relaxed), 6);
    }

    #[test]
    fn background_work_runs_natively() {
        let h = background("test-bg", || 5).expect("threads natively");
        assert_eq!(h.join().ok(), Some(5));
    }
}
