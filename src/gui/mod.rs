//! `meeple gui`: a game-agnostic GUI in the browser.
//!
//! A small web server (axum on tokio) serves one page (HTML, CSS and
//! JavaScript embedded in the binary) and a WebSocket. Each browser tab
//! gets a [`table::Table`]: its own engine process (this executable with
//! no subcommand), driven over the line protocol only, so the GUI knows no
//! game. A host may invite a second person (and spectators) to its table
//! with a link carrying an unguessable token.

pub mod engine;
pub mod table;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rand::Rng;
use serde::Deserialize;
use tokio::sync::mpsc;

use table::{Event, Table};

/// The arguments of `meeple gui`.
#[derive(clap::Args, Debug, Clone)]
pub struct GuiArgs {
    /// Port to serve on (0: any free port).
    #[arg(long, default_value_t = 7878)]
    pub port: u16,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Host networked games: listen on ADDR (e.g. 0.0.0.0) instead of
    /// localhost only.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
}

/// Networked tables by their room token.
pub type Rooms = Mutex<HashMap<String, mpsc::UnboundedSender<Event>>>;

struct App {
    /// The key in the page's link: needed to open a table of one's own.
    key: String,
    exe: PathBuf,
    data_dir: PathBuf,
    rooms: Arc<Rooms>,
}

/// An unguessable token: 128 random bits in hex.
pub fn token() -> String {
    let mut r = rand::rng();
    format!("{:032x}", r.random::<u128>())
}

const INDEX: &str = include_str!("page/index.html");
const APP_JS: &str = include_str!("page/app.js");
const STYLE: &str = include_str!("page/style.css");

/// Runs the server until the process is stopped.
pub fn run(args: GuiArgs, data_dir: PathBuf) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the engine executable: {e}"))?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(serve(args, exe, data_dir))
}

async fn serve(args: GuiArgs, exe: PathBuf, data_dir: PathBuf) -> Result<(), String> {
    let host = args.listen.clone().unwrap_or_else(|| "127.0.0.1".to_string());
    let addr = format!("{host}:{}", args.port);
    let listener =
        tokio::net::TcpListener::bind(&addr).await.map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local: SocketAddr = listener.local_addr().map_err(|e| e.to_string())?;
    let app = Arc::new(App { key: token(), exe, data_dir, rooms: Arc::new(Mutex::new(HashMap::new())) });
    let shown =
        if local.ip().is_unspecified() { format!("127.0.0.1:{}", local.port()) } else { local.to_string() };
    let url = format!("http://{shown}/#k={}", app.key);
    // The link is the way in: printed on stdout for the person (and tests).
    println!("meeple gui: open {url}");
    if args.listen.is_some() {
        println!("meeple gui: listening on {local}; share a game's invitation link from the page");
    }
    if args.open {
        open_browser(&url);
    }
    let router = Router::new()
        .route("/", get(|| async { page(INDEX, "text/html; charset=utf-8") }))
        .route("/app.js", get(|| async { page(APP_JS, "text/javascript; charset=utf-8") }))
        .route("/style.css", get(|| async { page(STYLE, "text/css; charset=utf-8") }))
        .route("/ws", get(ws))
        .with_state(app);
    axum::serve(listener, router).await.map_err(|e| e.to_string())
}

fn open_browser(url: &str) {
    for cmd in ["xdg-open", "open"] {
        if std::process::Command::new(cmd)
            .arg(url)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .is_ok()
        {
            return;
        }
    }
    log::warn!("cannot open a browser; open {url}");
}

fn page(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-store")], body).into_response()
}

#[derive(Deserialize, Default)]
struct WsQuery {
    /// The server's key: a new table of one's own.
    k: Option<String>,
    /// A room token: join that networked table.
    room: Option<String>,
    /// The key this browser had at that table (rejoin its seat).
    me: Option<String>,
}

/// Which table a WebSocket request may reach, if any.
fn admit(app: &App, q: &WsQuery) -> Result<Option<mpsc::UnboundedSender<Event>>, StatusCode> {
    if let Some(r) = &q.room {
        let rooms = app.rooms.lock().unwrap_or_else(|p| p.into_inner());
        return rooms.get(r).cloned().map(Some).ok_or(StatusCode::NOT_FOUND);
    }
    match &q.k {
        Some(k) if constant_time_eq(k.as_bytes(), app.key.as_bytes()) => Ok(None),
        _ => Err(StatusCode::FORBIDDEN),
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn ws(ws: WebSocketUpgrade, Query(q): Query<WsQuery>, State(app): State<Arc<App>>) -> Response {
    let table = match admit(&app, &q) {
        Ok(t) => t,
        Err(code) => {
            return (code, "not allowed: open the link printed by meeple gui or an invitation")
                .into_response();
        }
    };
    let me = q.me.clone();
    ws.on_upgrade(move |socket| async move {
        let tx = match table {
            Some(tx) => tx,
            None => match engine::Engine::spawn(&app.exe, &app.data_dir).await {
                Ok(e) => {
                    let (tx, rx) = mpsc::unbounded_channel();
                    tokio::spawn(Table::new(e, app.rooms.clone(), tx.clone()).run(rx));
                    tx
                }
                Err(e) => {
                    log::error!("{e}");
                    return;
                }
            },
        };
        client(socket, tx, me).await
    })
}

static NEXT_CLIENT: AtomicU64 = AtomicU64::new(1);

/// Relays one browser: its messages to the table, the table's to it.
async fn client(mut socket: WebSocket, table: mpsc::UnboundedSender<Event>, me: Option<String>) {
    let id = NEXT_CLIENT.fetch_add(1, Ordering::Relaxed);
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    if table.send(Event::Join { id, tx, me }).is_err() {
        return;
    }
    enum Wake {
        In(Option<Result<Message, axum::Error>>),
        Out(Option<String>),
    }
    loop {
        let w = tokio::select! {
            m = socket.recv() => Wake::In(m),
            o = rx.recv() => Wake::Out(o),
        };
        match w {
            Wake::In(Some(Ok(Message::Text(t)))) => {
                if t.len() > 64 * 1024 || table.send(Event::Msg { id, text: t.to_string() }).is_err() {
                    break;
                }
            }
            Wake::In(Some(Ok(Message::Close(_)))) | Wake::In(None) | Wake::In(Some(Err(_))) => break,
            Wake::In(Some(Ok(_))) => {}
            Wake::Out(Some(s)) => {
                if socket.send(Message::Text(s.into())).await.is_err() {
                    break;
                }
            }
            Wake::Out(None) => break,
        }
    }
    let _ = table.send(Event::Leave { id });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app() -> App {
        App {
            key: "k".repeat(32),
            exe: PathBuf::new(),
            data_dir: PathBuf::new(),
            rooms: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    #[test]
    fn tokens_are_long_and_distinct() {
        let (a, b) = (token(), token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }

    #[test]
    fn only_the_key_or_a_known_room_gets_in() {
        let app = app();
        let q = |k: Option<&str>, room: Option<&str>| WsQuery {
            k: k.map(str::to_string),
            room: room.map(str::to_string),
            me: None,
        };
        assert_eq!(admit(&app, &q(None, None)).err(), Some(StatusCode::FORBIDDEN));
        assert_eq!(admit(&app, &q(Some("wrong"), None)).err(), Some(StatusCode::FORBIDDEN));
        assert!(matches!(admit(&app, &q(Some(&"k".repeat(32)), None)), Ok(None)));
        assert_eq!(admit(&app, &q(None, Some("nope"))).err(), Some(StatusCode::NOT_FOUND));
        let (tx, _rx) = mpsc::unbounded_channel();
        app.rooms.lock().unwrap().insert("r1".into(), tx);
        assert!(matches!(admit(&app, &q(None, Some("r1"))), Ok(Some(_))));
    }
}
