//! One browser's WebSocket: its messages to its table, the table's to it.
//!
//! What the table sends waits in the browser's bounded outbox
//! ([`super::outbox`]); when a browser does not read, the table drops it,
//! which ends this task at once, even while it waits on the socket. What
//! the browser sends goes to the table's bounded queue, so a browser that
//! floods waits for the table (and its socket for it); each message is
//! timed as it is read, so a move counts from then, whenever the table
//! gets to it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use axum::extract::ws::{Message, WebSocket};
use serde_json::json;
use tokio::sync::mpsc;

use super::outbox::{Budget, outbox};
use super::room::Event;

static NEXT_BROWSER: AtomicU64 = AtomicU64::new(1);

/// Relays one browser until it leaves, is dropped or its table closes.
/// The frame being written is counted in the server's `budget` (the
/// socket's copy of a message).
pub async fn serve(
    mut socket: WebSocket,
    table: mpsc::Sender<Event>,
    me: Option<String>,
    budget: Arc<Budget>,
) {
    let id = NEXT_BROWSER.fetch_add(1, Ordering::Relaxed);
    let (outbox, out) = outbox();
    if table.send(Event::Join { id, outbox, me }).await.is_err() {
        return;
    }
    // A message read, waiting for room in the table's queue: meanwhile
    // the socket is not read, but what the table sends is still written.
    let mut pending: Option<Event> = None;
    loop {
        tokio::select! {
            _ = out.killed() => break,
            permit = table.reserve(), if pending.is_some() => match permit {
                Ok(p) => p.send(pending.take().expect("pending")),
                Err(_) => break,
            },
            m = socket.recv(), if pending.is_none() => match m {
                Some(Ok(Message::Text(t))) => {
                    pending = Some(Event::Msg { id, text: t.to_string(), at: Instant::now() });
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                // Pings are answered by the socket; binary messages mean nothing.
                Some(Ok(_)) => {}
            },
            o = out.recv() => match o {
                Some(m) => {
                    let _copy = budget.charge(m.len());
                    tokio::select! {
                        _ = out.killed() => break,
                        r = socket.send(Message::Text(m.bytes())) => if r.is_err() { break },
                    }
                }
                None => {
                    // Closed after a last message (a refusal), or dropped.
                    if !out.is_killed() {
                        let _ = socket.send(Message::Close(None)).await;
                    }
                    break;
                }
            },
        }
    }
    let _ = table.send(Event::Leave { id }).await;
}

/// Tells a browser why it cannot have a table, and closes.
pub async fn refuse(mut socket: WebSocket, text: String) {
    let m = json!({"t": "fatal", "text": text}).to_string();
    let _ = socket.send(Message::Text(m.into())).await;
    let _ = socket.send(Message::Close(None)).await;
}
