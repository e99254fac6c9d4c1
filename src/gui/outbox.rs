//! What waits to be sent to browsers, bounded: every message is made once
//! ([`Msg`], shared by every browser it goes to and counted once in the
//! server's [`Budget`] of queued bytes), and each browser's connection has
//! its own small queue ([`Outbox`]) in which a state supersedes the states
//! before it, a search's `info` lines are skipped when the browser is
//! behind, and anything else past the queue's bounds drops the browser.
//!
//! The budget counts the bytes of every message alive (queued for one
//! browser or many, or being written), once, and the copy each
//! connection's socket makes of the frame it writes: so it is the memory
//! the server holds for browsers, whoever connects and however many.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

#[cfg(not(target_arch = "wasm32"))]
use axum::extract::ws::Utf8Bytes;
use tokio::sync::Notify;

/// A message's text: natively shared with the WebSocket frame that carries
/// it; in the offline page handed to the page's JavaScript.
#[cfg(target_arch = "wasm32")]
type Utf8Bytes = Arc<str>;

/// Messages waiting for one browser before it counts as not reading.
pub const OUTBOX_MESSAGES: usize = 256;
/// Bytes waiting for one browser before it counts as not reading.
pub const OUTBOX_BYTES: usize = 4 << 20;
/// Messages waiting past which a search's `info` lines are skipped.
pub const INFO_SKIP: usize = 32;

/// The server's bytes waiting for browsers, and their limit.
#[derive(Debug)]
pub struct Budget {
    used: AtomicUsize,
    limit: usize,
}

impl Budget {
    pub fn new(limit: usize) -> Arc<Budget> {
        Arc::new(Budget { used: AtomicUsize::new(0), limit })
    }

    /// A budget that is never exceeded (tests, a table on its own).
    pub fn unlimited() -> Arc<Budget> {
        Budget::new(usize::MAX)
    }

    /// Bytes held for browsers now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// True once the bytes held reach the limit.
    pub fn over(&self) -> bool {
        self.used() >= self.limit
    }

    /// Counts `n` bytes until the charge is dropped.
    pub fn charge(self: &Arc<Budget>, n: usize) -> Charge {
        self.used.fetch_add(n, Ordering::Relaxed);
        Charge { budget: self.clone(), n }
    }
}

/// Bytes counted in a [`Budget`] while this lives.
#[derive(Debug)]
pub struct Charge {
    budget: Arc<Budget>,
    n: usize,
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.budget.used.fetch_sub(self.n, Ordering::Relaxed);
    }
}

/// What a message is to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The table's state: a newer one supersedes it.
    State,
    /// A search's progress: skipped when the browser is behind.
    Info,
    /// Anything else: delivered in order, or the browser is dropped.
    Other,
}

/// One message, made once and shared by every browser it goes to; its
/// bytes are counted in the budget while it lives.
#[derive(Debug)]
pub struct Msg {
    /// Shared with the frame the socket writes (not copied for it).
    text: Utf8Bytes,
    kind: Kind,
    _charge: Charge,
}

impl Msg {
    pub fn new(budget: &Arc<Budget>, kind: Kind, text: String) -> Arc<Msg> {
        let charge = budget.charge(text.len());
        Arc::new(Msg { text: Utf8Bytes::from(text), kind, _charge: charge })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text for a WebSocket frame (shared, not copied).
    pub fn bytes(&self) -> Utf8Bytes {
        self.text.clone()
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn len(&self) -> usize {
        self.text().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Default)]
struct Queue {
    items: VecDeque<Arc<Msg>>,
    bytes: usize,
    /// Deliver what is queued, then end (a refusal).
    closing: bool,
}

struct Inner {
    queue: Mutex<Queue>,
    /// A message was queued, or the queue is closing.
    wake: Notify,
    /// The browser was dropped: its connection ends at once.
    killed: AtomicBool,
    kill: Notify,
}

impl Inner {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The table's side of a browser's queue. Dropping it drops the browser
/// (its connection ends at once, even while it waits on a browser that
/// does not read), unless it was [`Outbox::close`]d.
pub struct Outbox {
    inner: Arc<Inner>,
}

/// The connection's side: what to send to the browser.
pub struct OutboxRx {
    inner: Arc<Inner>,
}

/// A new outbox.
pub fn outbox() -> (Outbox, OutboxRx) {
    let inner = Arc::new(Inner {
        queue: Mutex::new(Queue::default()),
        wake: Notify::new(),
        killed: AtomicBool::new(false),
        kill: Notify::new(),
    });
    (Outbox { inner: inner.clone() }, OutboxRx { inner })
}

impl Outbox {
    /// Queues a message; false if the browser is behind past the queue's
    /// bounds (or, with the server's budget spent, behind at all): it is
    /// to be dropped. A state takes the place of the states queued before
    /// it; an `info` line is skipped for a browser that is behind.
    pub fn push(&self, m: &Arc<Msg>) -> bool {
        let mut q = self.inner.lock();
        if q.closing {
            return true;
        }
        match m.kind() {
            Kind::State => {
                let mut freed = 0;
                q.items.retain(|x| {
                    let old = x.kind() == Kind::State;
                    if old {
                        freed += x.len();
                    }
                    !old
                });
                q.bytes -= freed;
            }
            Kind::Info if q.items.len() >= INFO_SKIP => return true,
            _ => {}
        }
        if q.items.len() >= OUTBOX_MESSAGES || q.bytes + m.len() > OUTBOX_BYTES {
            return false;
        }
        if !q.items.is_empty() && m._charge.budget.over() {
            return false;
        }
        q.bytes += m.len();
        q.items.push_back(m.clone());
        drop(q);
        self.inner.wake.notify_one();
        true
    }

    /// Messages waiting.
    pub fn len(&self) -> usize {
        self.inner.lock().items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sends what is queued, then ends the connection (a refusal with a
    /// message): nothing more is queued.
    pub fn close(&self) {
        self.inner.lock().closing = true;
        self.inner.wake.notify_one();
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        if self.inner.lock().closing {
            return;
        }
        self.inner.killed.store(true, Ordering::Release);
        self.inner.kill.notify_waiters();
        self.inner.wake.notify_one();
    }
}

impl OutboxRx {
    /// The next message; `None` once the table has dropped this browser,
    /// or closed its queue and everything queued was taken.
    pub async fn recv(&self) -> Option<Arc<Msg>> {
        loop {
            if self.inner.killed.load(Ordering::Acquire) {
                return None;
            }
            let notified = self.inner.wake.notified();
            {
                let mut q = self.inner.lock();
                if let Some(m) = q.items.pop_front() {
                    q.bytes -= m.len();
                    return Some(m);
                }
                if q.closing {
                    return None;
                }
            }
            notified.await;
        }
    }

    /// Resolves once the table has dropped this browser.
    pub async fn killed(&self) {
        loop {
            let n = self.inner.kill.notified();
            if self.inner.killed.load(Ordering::Acquire) {
                return;
            }
            n.await;
        }
    }

    /// The table has dropped this browser.
    pub fn is_killed(&self) -> bool {
        self.inner.killed.load(Ordering::Acquire)
    }

    /// Takes what is queued without waiting (tests).
    pub fn try_recv(&self) -> Option<Arc<Msg>> {
        let mut q = self.inner.lock();
        let m = q.items.pop_front()?;
        q.bytes -= m.len();
        Some(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_counted_once_however_many_queues_hold_it() {
        let b = Budget::new(1 << 20);
        let m = Msg::new(&b, Kind::Other, "x".repeat(1000));
        let queues: Vec<_> = (0..50).map(|_| outbox()).collect();
        for (o, _) in &queues {
            assert!(o.push(&m));
        }
        drop(m);
        assert_eq!(b.used(), 1000);
        drop(queues);
        assert_eq!(b.used(), 0);
    }

    #[test]
    fn a_state_supersedes_the_states_before_it_and_info_is_skipped_when_behind() {
        let b = Budget::unlimited();
        let (o, rx) = outbox();
        for i in 0..1000 {
            assert!(o.push(&Msg::new(&b, Kind::State, format!("s{i}"))));
        }
        assert!(o.push(&Msg::new(&b, Kind::Other, "moved".into())));
        assert!(o.push(&Msg::new(&b, Kind::State, "last".into())));
        assert_eq!(o.len(), 2);
        assert_eq!(rx.try_recv().unwrap().text(), "moved");
        assert_eq!(rx.try_recv().unwrap().text(), "last");
        for _ in 0..INFO_SKIP + 100 {
            assert!(o.push(&Msg::new(&b, Kind::Info, "info".into())));
        }
        assert_eq!(o.len(), INFO_SKIP);
        // Anything else past the bounds: the browser is to be dropped.
        let other = Msg::new(&b, Kind::Other, "chat".into());
        let pushed = (0..OUTBOX_MESSAGES).filter(|_| o.push(&other)).count();
        assert_eq!(pushed, OUTBOX_MESSAGES - INFO_SKIP);
        assert!(!o.push(&Msg::new(&b, Kind::Other, "x".repeat(OUTBOX_BYTES))));
    }

    #[test]
    fn with_the_budget_spent_only_a_browser_that_keeps_up_gets_more() {
        let b = Budget::new(100);
        let (o, rx) = outbox();
        let big = Msg::new(&b, Kind::Other, "x".repeat(200));
        assert!(b.over());
        assert!(o.push(&big));
        assert!(!o.push(&Msg::new(&b, Kind::Other, "y".into())));
        rx.try_recv();
        assert!(o.push(&Msg::new(&b, Kind::Other, "y".into())));
    }

    #[tokio::test]
    async fn dropping_the_outbox_ends_the_connection_and_closing_delivers_first() {
        let b = Budget::unlimited();
        let (o, rx) = outbox();
        o.push(&Msg::new(&b, Kind::Other, "a".into()));
        drop(o);
        assert!(rx.is_killed());
        assert!(rx.recv().await.is_none());
        rx.killed().await;
        let (o, rx) = outbox();
        o.push(&Msg::new(&b, Kind::Other, "fatal".into()));
        o.close();
        drop(o);
        assert_eq!(rx.recv().await.unwrap().text(), "fatal");
        assert!(rx.recv().await.is_none());
        assert!(!rx.is_killed());
    }
}
