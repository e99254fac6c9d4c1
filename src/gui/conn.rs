//! One browser's WebSocket: its messages to its table, the table's to it.
//!
//! What the table sends waits in the browser's bounded outbox
//! ([`super::room::outbox`]); when a browser does not read, the table drops
//! it, which ends this task at once, even while it waits on the socket.
//! What the browser sends goes to the table's bounded queue, so a browser
//! that floods waits for the table (and its socket for it).

use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::ws::{Message, WebSocket};
use serde_json::json;
use tokio::sync::{mpsc, oneshot};

use super::room::{self, Event};

static NEXT_BROWSER: AtomicU64 = AtomicU64::new(1);

/// Relays one browser until it leaves, is dropped or its table closes.
pub async fn serve(mut socket: WebSocket, table: mpsc::Sender<Event>, me: Option<String>) {
    let id = NEXT_BROWSER.fetch_add(1, Ordering::Relaxed);
    let (outbox, mut out) = room::outbox();
    let (kick_tx, mut kick) = oneshot::channel::<()>();
    if table.send(Event::Join { id, outbox, kick: kick_tx, me }).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            _ = &mut kick => break,
            m = socket.recv() => match m {
                Some(Ok(Message::Text(t))) => {
                    let ev = Event::Msg { id, text: t.to_string() };
                    tokio::select! {
                        _ = &mut kick => break,
                        r = table.send(ev) => if r.is_err() { break },
                    }
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                // Pings are answered by the socket; binary messages mean nothing.
                Some(Ok(_)) => {}
            },
            o = out.recv() => match o {
                Some(m) => {
                    tokio::select! {
                        _ = &mut kick => break,
                        r = socket.send(Message::Text(m.as_ref().into())) => if r.is_err() { break },
                    }
                }
                None => break,
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
