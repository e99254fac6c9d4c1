//! The server: the page's files, the WebSocket, admitting browsers
//! (native only).

use super::*;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt;
use serde::Deserialize;
use tokio::sync::{Semaphore, mpsc};

use room::Event;
use table::Table;

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
    /// Most engine processes at once (one per table); a new table past it
    /// is refused with a message. The default fits a 2-core, 24 GB machine:
    /// 16 engines of at most --max-hash MB each stay under 17 GB.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub max_engines: u32,
    /// Largest Hash (MB) a table may give its engine.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(16..=16384))]
    pub max_hash: u32,
    /// A table nobody is connected to is closed after this many seconds
    /// (time for a guest or a reloaded page to come back).
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub rejoin_seconds: u64,
    /// A table where nothing happens for this many minutes is closed.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=10_080))]
    pub idle_minutes: u64,
    /// Most spectators at one table at once; one past it is told so. The
    /// default fits a 2-core, 24 GB machine: 16 tables of 100 spectators
    /// hold a few hundred MB of connections.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub max_spectators: u32,
    /// Most MB waiting to be sent to browsers, server-wide (each message
    /// counted once however many browsers it goes to, plus each socket's
    /// copy of the frame it writes); past it a browser that is behind is
    /// dropped and a new one is refused with a message.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub max_queued_mb: u32,
    /// Serve the offline site in DIR (what `scripts/build-web.sh` writes
    /// to target/web/site: the page with its table and engine in the
    /// browser) instead of the networked GUI, with the headers that let a
    /// search be stopped through a shared flag (COOP/COEP).
    #[arg(long, value_name = "DIR")]
    pub offline_site: Option<PathBuf>,
}

/// Largest WebSocket message (and frame) a browser may send, checked as
/// its frame header arrives: nothing larger is buffered.
pub const MAX_MESSAGE: usize = 64 * 1024;
/// A connection's read buffer (allocated and zeroed whole on the first
/// read; browsers send little, so 4 KiB rather than tungstenite's 128).
pub const READ_BUFFER: usize = 4 * 1024;

impl Config {
    pub fn new(exe: PathBuf, data_dir: PathBuf, args: &GuiArgs) -> Config {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        Config {
            exe,
            max_hash: args.max_hash,
            default_hash: 256.min(args.max_hash),
            max_threads: cores.clamp(1, 64),
            rejoin: Duration::from_secs(args.rejoin_seconds),
            idle: Duration::from_secs(args.idle_minutes * 60),
            engines: Arc::new(Semaphore::new(args.max_engines as usize)),
            max_engines: args.max_engines,
            max_spectators: args.max_spectators as usize,
            budget: outbox::Budget::new((args.max_queued_mb as usize) << 20),
            results: record::Recorder::new(data_dir.clone()),
            networked: true,
            data_dir,
        }
    }
}

/// Events waiting for a table before a browser's messages wait.
const TABLE_QUEUE: usize = 64;

struct App {
    /// The key in the page's link: needed to open a table.
    key: String,
    cfg: Arc<Config>,
    rooms: Arc<Rooms>,
}

/// The page's files: name, content type, body.
const FILES: &[(&str, &str, &str)] = &[
    ("index.html", "text/html; charset=utf-8", include_str!("page/index.html")),
    ("style.css", "text/css; charset=utf-8", include_str!("page/style.css")),
    ("app.js", "text/javascript; charset=utf-8", include_str!("page/app.js")),
    ("net.js", "text/javascript; charset=utf-8", include_str!("page/net.js")),
    ("board.js", "text/javascript; charset=utf-8", include_str!("page/board.js")),
    ("bugs.js", "text/javascript; charset=utf-8", include_str!("page/bugs.js")),
    ("input.js", "text/javascript; charset=utf-8", include_str!("page/input.js")),
    ("clocks.js", "text/javascript; charset=utf-8", include_str!("page/clocks.js")),
    ("analysis.js", "text/javascript; charset=utf-8", include_str!("page/analysis.js")),
    ("review.js", "text/javascript; charset=utf-8", include_str!("page/review.js")),
    ("setup.js", "text/javascript; charset=utf-8", include_str!("page/setup.js")),
    ("people.js", "text/javascript; charset=utf-8", include_str!("page/people.js")),
    ("words.js", "text/javascript; charset=utf-8", include_str!("page/words.js")),
    ("dom.js", "text/javascript; charset=utf-8", include_str!("page/dom.js")),
    ("state.js", "text/javascript; charset=utf-8", include_str!("page/state.js")),
];

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
    let shown =
        if local.ip().is_unspecified() { format!("127.0.0.1:{}", local.port()) } else { local.to_string() };
    if let Some(dir) = args.offline_site.clone() {
        if !dir.join("index.html").is_file() || !dir.join("meeple_bg.wasm").is_file() {
            return Err(format!(
                "{} is not the offline site: build it with scripts/build-web.sh (target/web/site)",
                dir.display()
            ));
        }
        let url = format!("http://{shown}/");
        println!("meeple gui: the offline site at {url}");
        if args.open {
            open_browser(&url);
        }
        let dir = Arc::new(dir);
        let router = Router::new()
            .route("/", get(|State(d): State<Arc<PathBuf>>| async move { site_file(&d, "index.html") }))
            .route(
                "/{name}",
                get(|State(d): State<Arc<PathBuf>>, Path(n): Path<String>| async move { site_file(&d, &n) }),
            )
            .with_state(dir);
        return axum::serve(listener, router).await.map_err(|e| e.to_string());
    }
    let cfg = Arc::new(Config::new(exe, data_dir, &args));
    let app = Arc::new(App { key: token(), cfg, rooms: Arc::new(Mutex::new(HashMap::new())) });
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
        .route("/", get(|| async { file("index.html") }))
        .route("/ws", get(ws))
        .route("/{name}", get(|Path(name): Path<String>| async move { file(&name) }))
        .with_state(app);
    // Small messages go out at once (no waiting for the last one's
    // acknowledgement: a move and its state are two messages).
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            log::warn!("gui: TCP_NODELAY: {e}");
        }
    });
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

/// One of the page's files, with headers that keep it to itself: no
/// script, style or connection from elsewhere, nothing inline run.
fn file(name: &str) -> Response {
    let Some((_, kind, body)) = FILES.iter().find(|(n, _, _)| *n == name) else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    (
        [
            (header::CONTENT_TYPE, *kind),
            (header::CACHE_CONTROL, "no-store"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                 connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            ),
        ],
        *body,
    )
        .into_response()
}

/// A file of the offline site in `dir`: a plain name of the folder (no
/// path, nothing hidden), a regular file (a link or anything else there is
/// refused), with its type and the headers of cross-origin isolation.
fn site_file(dir: &std::path::Path, name: &str) -> Response {
    let plain = !name.is_empty()
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    let path = dir.join(name);
    let regular = plain && std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file());
    let Some(body) = regular.then(|| std::fs::read(&path).ok()).flatten() else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    let kind = match name.rsplit_once('.').map(|(_, e)| e) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("webmanifest") => "application/manifest+json",
        _ => "application/octet-stream",
    };
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::HeaderName::from_static("cross-origin-opener-policy"), "same-origin"),
            (header::HeaderName::from_static("cross-origin-embedder-policy"), "require-corp"),
            (header::HeaderName::from_static("cross-origin-resource-policy"), "same-origin"),
        ],
        body,
    )
        .into_response()
}

#[derive(Deserialize, Default)]
struct WsQuery {
    /// The server's key: a new table.
    k: Option<String>,
    /// A table's token: join it.
    room: Option<String>,
    /// The key this browser had at that table (its seat).
    me: Option<String>,
}

/// Which table a WebSocket request reaches: an existing one, or a new one
/// (the server's key).
enum Admit {
    Table(mpsc::Sender<Event>),
    New,
}

fn admit(app: &App, q: &WsQuery) -> Result<Admit, StatusCode> {
    if let Some(r) = &q.room {
        let rooms = app.rooms.lock().unwrap_or_else(|p| p.into_inner());
        return rooms.get(r).cloned().map(Admit::Table).ok_or(StatusCode::NOT_FOUND);
    }
    match &q.k {
        Some(k) if constant_time_eq(k.as_bytes(), app.key.as_bytes()) => Ok(Admit::New),
        _ => Err(StatusCode::FORBIDDEN),
    }
}

/// A table has closed: the allocator hands the memory it freed back to
/// the system (glibc keeps freed memory in each thread's arena, at its
/// high-water mark, until asked).
fn give_back_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn ws(ws: WebSocketUpgrade, Query(q): Query<WsQuery>, State(app): State<Arc<App>>) -> Response {
    let ws = ws
        .max_message_size(MAX_MESSAGE)
        .max_frame_size(MAX_MESSAGE)
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(0)
        .max_write_buffer_size(4 << 20);
    let admitted = match admit(&app, &q) {
        Ok(a) => a,
        Err(code) => {
            return (code, "not allowed: open the link printed by meeple gui or an invitation")
                .into_response();
        }
    };
    let budget = app.cfg.budget.clone();
    if budget.over() {
        let text = format!(
            "The server is busy: {} MB are waiting to be sent to browsers. Try again in a moment, or start \
             meeple gui with a larger --max-queued-mb.",
            budget.used() >> 20
        );
        return ws.on_upgrade(move |socket| conn::refuse(socket, text));
    }
    match admitted {
        Admit::Table(tx) => ws.on_upgrade(move |socket| conn::serve(socket, tx, q.me, budget)),
        Admit::New => {
            let Ok(permit) = app.cfg.engines.clone().try_acquire_owned() else {
                let text = format!(
                    "The server is busy: all {} of its engines are in use. Close a table you do not need, \
                     or start meeple gui with a larger --max-engines.",
                    app.cfg.max_engines
                );
                return ws.on_upgrade(move |socket| conn::refuse(socket, text));
            };
            ws.on_upgrade(move |socket| async move {
                let engine = match client::Engine::spawn(&app.cfg.exe, &app.cfg.data_dir, Some(permit)).await
                {
                    Ok(e) => e,
                    Err(e) => {
                        log::error!("gui: {e}");
                        return conn::refuse(socket, e).await;
                    }
                };
                let (tx, rx) = mpsc::channel(TABLE_QUEUE);
                let table = Table::new(app.cfg.clone(), engine, app.rooms.clone());
                let (token, host) = (table.token(), table.host_key());
                app.rooms.lock().unwrap_or_else(|p| p.into_inner()).insert(token, tx.clone());
                tokio::spawn(async move {
                    table.run(rx).await;
                    give_back_memory();
                });
                conn::serve(socket, tx, Some(host), budget).await
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app() -> App {
        let args = GuiArgs {
            port: 0,
            open: false,
            listen: None,
            max_engines: 2,
            max_hash: 64,
            rejoin_seconds: 1,
            idle_minutes: 1,
            max_spectators: 10,
            max_queued_mb: 16,
            offline_site: None,
        };
        App {
            key: "k".repeat(32),
            cfg: Arc::new(Config::new(PathBuf::new(), PathBuf::new(), &args)),
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
    fn only_the_key_or_a_known_table_gets_in() {
        let app = app();
        let q = |k: Option<&str>, room: Option<&str>| WsQuery {
            k: k.map(str::to_string),
            room: room.map(str::to_string),
            me: None,
        };
        assert_eq!(admit(&app, &q(None, None)).err(), Some(StatusCode::FORBIDDEN));
        assert_eq!(admit(&app, &q(Some("wrong"), None)).err(), Some(StatusCode::FORBIDDEN));
        assert!(matches!(admit(&app, &q(Some(&"k".repeat(32)), None)), Ok(Admit::New)));
        assert_eq!(admit(&app, &q(None, Some("nope"))).err(), Some(StatusCode::NOT_FOUND));
        let (tx, _rx) = mpsc::channel(1);
        app.rooms.lock().unwrap().insert("r1".into(), tx);
        assert!(matches!(admit(&app, &q(None, Some("r1"))), Ok(Admit::Table(_))));
        assert_eq!(app.cfg.default_hash, 64);
    }

    #[test]
    fn the_offline_site_serves_its_regular_files_only() {
        let dir = std::env::temp_dir().join(format!("meeple-offline-site-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("meeple_bg.wasm"), b"\0asm").unwrap();
        std::fs::write(dir.join("sub/x.js"), b"x").unwrap();
        std::fs::write(dir.join(".hidden"), b"x").unwrap();
        let r = site_file(&dir, "meeple_bg.wasm");
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.headers()[header::CONTENT_TYPE], "application/wasm");
        assert_eq!(r.headers()["cross-origin-embedder-policy"], "require-corp");
        for bad in ["", "..", ".hidden", "sub", "sub/x.js", "../x", "nothing.js"] {
            assert_eq!(site_file(&dir, bad).status(), StatusCode::NOT_FOUND, "{bad}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("meeple_bg.wasm"), dir.join("link.wasm")).unwrap();
            assert_eq!(site_file(&dir, "link.wasm").status(), StatusCode::NOT_FOUND);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn every_file_is_served_with_its_type_and_nothing_else() {
        let r = file("app.js");
        assert_eq!(r.status(), StatusCode::OK);
        assert!(r.headers()[header::CONTENT_SECURITY_POLICY].to_str().unwrap().contains("script-src 'self'"));
        assert_eq!(file("../Cargo.toml").status(), StatusCode::NOT_FOUND);
        assert_eq!(file("ws").status(), StatusCode::NOT_FOUND);
    }
}
