//! The load test of `meeple gui`, as a library: a real server (the
//! `meeple` binary) and real WebSocket clients on the loopback
//! (tokio-tungstenite), no mock. Used by `examples/gui_load/main.rs`
//! (`scripts/loadtest.sh`, the figures) and by a small run in the tests
//! (`tests/gui_load.rs`, bounds on memory and completeness, never a time).
//!
//! Scenarios: [`load`] (engine tables, reading spectators, non-readers),
//! [`crowd`] (the reproducer: a big Mastermind variant, spectators
//! who never read, the host playing and taking back), [`waves`] (memory
//! after tables close), [`stall`] (leaderboards asked during a clocked
//! game), [`paste`] (a long game set up from its GameString), and
//! [`gen_results`] (a results database of many games).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A safety net for any wait (never a measurement).
const SAFETY: Duration = Duration::from_secs(600);

/// Milliseconds since the Unix epoch, as the server writes `at`.
pub fn now_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// A running `meeple gui`.
pub struct Server {
    child: Child,
    pub addr: String,
    pub key: String,
    pub pid: u32,
    pub data_dir: PathBuf,
}

fn status_kb(pid: u32, field: &str) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// CPU seconds of a process: (its own, its children's that were waited for).
fn cpu_s(pid: u32) -> (f64, f64) {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let rest = s.rsplit(')').next().unwrap_or("");
    let f: Vec<f64> = rest.split_whitespace().map(|x| x.parse().unwrap_or(0.0)).collect();
    // After the name: state is field 3; utime 14, stime 15, cutime 16, cstime 17.
    let at = |n: usize| f.get(n - 3).copied().unwrap_or(0.0) / 100.0;
    (at(14) + at(15), at(16) + at(17))
}

impl Server {
    /// Starts `meeple --data-dir DIR gui --port 0 ARGS`.
    pub fn start(meeple: &Path, data_dir: &Path, args: &[String]) -> Server {
        let mut child = Command::new(meeple)
            .arg("--data-dir")
            .arg(data_dir)
            .args(["gui", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            // GUI_LOAD_SERVER_LOG=1: the server's log on stderr (with RUST_LOG).
            .stderr(if std::env::var_os("GUI_LOAD_SERVER_LOG").is_some() {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .spawn()
            .expect("start meeple gui");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().rsplit(' ').next().unwrap().to_string();
        let rest = url.strip_prefix("http://").expect("the server's link");
        let (addr, key) = rest.split_once("/#k=").unwrap();
        let pid = child.id();
        Server { child, addr: addr.to_string(), key: key.to_string(), pid, data_dir: data_dir.to_path_buf() }
    }

    /// Resident memory now, kB.
    pub fn rss_kb(&self) -> u64 {
        status_kb(self.pid, "VmRSS:")
    }

    /// The most resident memory so far, kB.
    pub fn peak_kb(&self) -> u64 {
        status_kb(self.pid, "VmHWM:")
    }

    /// CPU seconds: the server's own, and its engines' that have ended.
    pub fn cpu(&self) -> (f64, f64) {
        cpu_s(self.pid)
    }

    /// Its engine processes now.
    pub fn engines(&self) -> usize {
        let mut n = 0;
        for t in std::fs::read_dir(format!("/proc/{}/task", self.pid)).into_iter().flatten().flatten() {
            n += std::fs::read_to_string(t.path().join("children"))
                .unwrap_or_default()
                .split_whitespace()
                .count();
        }
        n
    }

    /// Waits until every table has closed (no engine left).
    pub async fn tables_closed(&self) {
        let t = Instant::now();
        while self.engines() > 0 {
            assert!(t.elapsed() < SAFETY, "the tables did not close");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // The memory freed as the last table closed is given back then.
        tokio::time::sleep(Duration::from_millis(300)).await;
    }

    pub async fn ws(&self, query: &str) -> Ws {
        let url = format!("ws://{}/ws?{query}", self.addr);
        let (ws, _) = tokio_tungstenite::connect_async(url).await.expect("connect");
        if let MaybeTlsStream::Plain(s) = ws.get_ref() {
            let _ = s.set_nodelay(true);
        }
        ws
    }

    /// A new table: the host's socket and the table's token.
    pub async fn table(&self) -> (Ws, String) {
        let mut ws = self.ws(&format!("k={}", self.key)).await;
        let w = next(&mut ws, "welcome").await;
        (ws, w["table"].as_str().unwrap().to_string())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.expect("send");
}

/// The next JSON message (`None`: closed).
pub async fn recv(ws: &mut Ws) -> Option<Value> {
    loop {
        match tokio::time::timeout(SAFETY, ws.next()).await.expect("no message for long") {
            Some(Ok(Message::Text(t))) => return serde_json::from_str(&t).ok(),
            Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return None,
            Some(Ok(_)) => {}
        }
    }
}

/// The next message of type `t`.
pub async fn next(ws: &mut Ws, t: &str) -> Value {
    loop {
        let v = recv(ws).await.unwrap_or_else(|| panic!("closed while waiting for {t}"));
        if v["t"] == t {
            return v;
        }
    }
}

/// Sends and awaits `ok` (or the error's text); the states on the way are
/// passed to `on_state`.
pub async fn act(ws: &mut Ws, v: Value, mut on_state: impl FnMut(&Value)) -> Result<(), String> {
    send(ws, v).await;
    loop {
        let v = recv(ws).await.ok_or("closed")?;
        match v["t"].as_str() {
            Some("ok") => return Ok(()),
            Some("error") => return Err(v["text"].as_str().unwrap_or("").to_string()),
            Some("state") => on_state(&v),
            _ => {}
        }
    }
}

/// The value at fraction `q` of sorted `v`.
pub fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v[((v.len() - 1) as f64 * q).round() as usize]
}

pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    quantile(&s, 0.5)
}

// ----- the load test ----------------------------------------------------

/// What [`load`] runs.
#[derive(Clone, Debug)]
pub struct LoadCfg {
    pub tables: usize,
    pub spectators: usize,
    pub non_readers: usize,
    pub seconds: u64,
    pub movetime: u64,
    /// The server's --rejoin-seconds (tables close that long after
    /// everybody left).
    pub rejoin: u64,
    pub server_args: Vec<String>,
}

/// What [`load`] measured.
#[derive(Debug, Default)]
pub struct LoadReport {
    pub moves: usize,
    pub games: usize,
    /// Spectators that saw every move of their table, of all.
    pub complete: usize,
    pub spectators: usize,
    /// Move (the server's `at`) to its state at a spectator, ms, sorted.
    pub latencies: Vec<f64>,
    pub rss_start_kb: u64,
    pub rss_peak_kb: u64,
    pub rss_end_kb: u64,
    pub cpu_server_s: f64,
    pub cpu_engines_s: f64,
    /// This client's own CPU.
    pub cpu_client_s: f64,
    /// From a move (`at`) to the `moved` message at the host, ms, sorted:
    /// the table's part (the move played, the position read back).
    pub host_latencies: Vec<f64>,
    /// From the host's `moved` to a spectator's state of the same move,
    /// ms, sorted: the sending to every browser.
    pub fanout: Vec<f64>,
    pub wall_s: f64,
    pub non_readers_dropped: usize,
    /// The first spectator who did not see every move, what differed.
    pub mismatch: Option<String>,
}

impl LoadReport {
    pub fn text(&self, cfg: &LoadCfg) -> String {
        let l = &self.latencies;
        format!(
            "load: {} tables of engines at {} ms a move, {} reading spectators each ({} in all), {} \
             non-readers, {} s\n\
             moves: {} in {} games; spectators who saw every move of their table: {} of {}\n\
             move to its state at a spectator: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({} samples)\n\
             server RSS: {:.1} MB at start, {:.1} MB at peak, {:.1} MB after every table closed\n\
             of which the table's part (from the move to its `moved` at the host): p50 {:.1} ms, p99 {:.1} \
             ms, and the sending (the host's `moved` to a spectator's state): p50 {:.1} ms, p99 {:.1} ms\n\
             CPU: server {:.1} s ({:.2} of a core), engines {:.1} s, this client {:.1} s, over {:.0} s; \
             non-readers dropped: {} of {}",
            cfg.tables,
            cfg.movetime,
            cfg.spectators,
            cfg.tables * cfg.spectators,
            cfg.non_readers,
            cfg.seconds,
            self.moves,
            self.games,
            self.complete,
            self.spectators,
            quantile(l, 0.5),
            quantile(l, 0.99),
            l.last().copied().unwrap_or(f64::NAN),
            l.len(),
            self.rss_start_kb as f64 / 1024.0,
            self.rss_peak_kb as f64 / 1024.0,
            self.rss_end_kb as f64 / 1024.0,
            quantile(&self.host_latencies, 0.5),
            quantile(&self.host_latencies, 0.99),
            quantile(&self.fanout, 0.5),
            quantile(&self.fanout, 0.99),
            self.cpu_server_s,
            self.cpu_server_s / self.wall_s,
            self.cpu_engines_s,
            self.cpu_client_s,
            self.wall_s,
            self.non_readers_dropped,
            cfg.non_readers,
        ) + &self.mismatch.as_ref().map(|m| format!("\n{m}")).unwrap_or_default()
    }
}

/// The engines' hash, MB: the load is the server's. (At the GUI's default
/// of 256 MB, Connect Four's `perfect` maps its table's pages on a thread
/// of its own after a new game, and with 16 engines on 2 cores the
/// commands after its moves waited for that: tens to hundreds of ms.)
pub const ENGINE_HASH: u32 = 16;

/// The games the tables play, in turn: engines on both sides.
fn load_game(i: usize, movetime: u64) -> Value {
    let e = |s: &str| json!({"kind": "engine", "strategy": s, "movetime": movetime});
    let (ty, a, b) = match i % 3 {
        0 => ("Connect4", e("perfect"), e("attack")),
        1 => ("Mastermind", e("entropy"), e("random")),
        _ => ("Base", e("alphabeta"), e("random")),
    };
    json!({"t": "new", "game_type": ty, "pause": 0, "players": [a, b], "engine": {"hash": ENGINE_HASH}})
}

/// A move as a table's browsers see it: (the table's game number, ply, move).
type Seen = (usize, u64, String);

const END: &str = "end of the load test";

/// What a spectator reads of a message (the rest is skipped unparsed:
/// the client must keep up with hundreds of connections on two cores).
#[derive(serde::Deserialize)]
struct Lite {
    t: String,
    #[serde(default)]
    ply: Option<u64>,
    #[serde(default)]
    at: Option<f64>,
    #[serde(default, rename = "move")]
    mv: Option<String>,
    #[serde(default)]
    game_no: Option<u64>,
    #[serde(default)]
    board: Option<LiteBoard>,
    #[serde(default)]
    text: Option<String>,
}

#[derive(serde::Deserialize)]
struct LiteBoard {
    ply: u64,
}

/// A reading spectator: every `moved`, and the time from each to the
/// state that shows it.
async fn spectator(mut ws: Ws) -> (Vec<Seen>, Vec<((usize, u64), f64)>) {
    let (mut seen, mut lat) = (Vec::new(), Vec::new());
    let mut pending: Option<(usize, u64, f64)> = None;
    loop {
        let text = match tokio::time::timeout(SAFETY, ws.next()).await.expect("no message for long") {
            Some(Ok(Message::Text(t))) => t,
            Some(Ok(_)) => continue,
            _ => break,
        };
        let now = now_ms();
        // A search's progress is most of what comes: not even parsed.
        if text.contains("\"t\":\"info\"") {
            continue;
        }
        let Ok(v) = serde_json::from_str::<Lite>(&text) else { continue };
        match v.t.as_str() {
            "moved" => {
                let (ply, game) = (v.ply.unwrap_or(0), v.game_no.unwrap_or(0) as usize);
                seen.push((game, ply, v.mv.unwrap_or_default()));
                pending = Some((game, ply, v.at.unwrap_or(now)));
            }
            "state" => {
                if let Some((game, ply, at)) = pending
                    && v.game_no == Some(game as u64)
                    && v.board.as_ref().is_some_and(|b| b.ply >= ply)
                {
                    lat.push(((game, ply), now - at));
                    pending = None;
                }
            }
            "chat" if v.text.as_deref() == Some(END) => break,
            _ => {}
        }
    }
    (seen, lat)
}

/// Samples the server's RSS until told to stop; the highest seen.
fn sample_rss(pid: u32, stop: Arc<Mutex<bool>>) -> tokio::task::JoinHandle<u64> {
    tokio::spawn(async move {
        let mut peak = 0;
        while !*stop.lock().unwrap() {
            peak = peak.max(status_kb(pid, "VmRSS:"));
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        peak
    })
}

/// T tables of engines playing each other, S reading spectators at each,
/// N spectators that never read: the time from each move to its state at
/// every spectator, whether every spectator saw every move, the server's
/// memory (at start, at peak, after every table closed) and CPU.
pub async fn load(meeple: &Path, data_dir: &Path, cfg: &LoadCfg) -> LoadReport {
    let mut args = vec!["--rejoin-seconds".to_string(), cfg.rejoin.to_string()];
    args.extend(cfg.server_args.iter().cloned());
    let srv = Server::start(meeple, data_dir, &args);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut r = LoadReport { rss_start_kb: srv.rss_kb(), ..LoadReport::default() };
    let stop = Arc::new(Mutex::new(false));
    let sampler = sample_rss(srv.pid, stop.clone());
    let t0 = Instant::now();
    let mut hosts = Vec::new();
    let mut watchers = Vec::new();
    for _ in 0..cfg.tables {
        let (ws, token) = srv.table().await;
        let mut specs = Vec::new();
        for _ in 0..cfg.spectators {
            let mut s = srv.ws(&format!("room={token}")).await;
            next(&mut s, "welcome").await;
            specs.push(tokio::spawn(spectator(s)));
        }
        hosts.push((ws, token));
        watchers.push(specs);
    }
    // Non-readers: connected, then never read again.
    let mut non_readers = Vec::new();
    for i in 0..cfg.non_readers {
        let token = &hosts[i % hosts.len()].1;
        non_readers.push(srv.ws(&format!("room={token}")).await);
    }
    let deadline = Instant::now() + Duration::from_secs(cfg.seconds);
    let mut runs = Vec::new();
    for (i, (mut ws, _)) in hosts.into_iter().enumerate() {
        let movetime = cfg.movetime;
        runs.push(tokio::spawn(async move {
            let mut seen: Vec<Seen> = Vec::new();
            let mut lat = Vec::new();
            let mut games = 0;
            let mut k = i;
            while Instant::now() < deadline {
                send(&mut ws, load_game(k, movetime)).await;
                k += 1;
                games += 1;
                loop {
                    let left = deadline.saturating_duration_since(Instant::now());
                    let v = match tokio::time::timeout(left, recv(&mut ws)).await {
                        Ok(Some(v)) => v,
                        Ok(None) => panic!("the host's connection closed"),
                        Err(_) => break,
                    };
                    match v["t"].as_str() {
                        Some("moved") => {
                            let game = v["game_no"].as_u64().unwrap_or(0) as usize;
                            lat.push((
                                (game, v["ply"].as_u64().unwrap_or(0)),
                                now_ms() - v["at"].as_f64().unwrap_or_else(now_ms),
                            ));
                            seen.push((
                                game,
                                v["ply"].as_u64().unwrap_or(0),
                                v["move"].as_str().unwrap_or("").to_string(),
                            ))
                        }
                        Some("state") if v["result"].is_object() => break,
                        Some("error") => panic!("the host was told {v}"),
                        _ => {}
                    }
                }
            }
            // Stop the game, and say so to everybody (after its last move).
            send(&mut ws, json!({"t": "abandon"})).await;
            let (mut done, mut ok) = (false, false);
            while !(done && ok) {
                let v = recv(&mut ws).await.expect("host");
                match v["t"].as_str() {
                    Some("moved") => seen.push((
                        v["game_no"].as_u64().unwrap_or(0) as usize,
                        v["ply"].as_u64().unwrap_or(0),
                        v["move"].as_str().unwrap_or("").to_string(),
                    )),
                    Some("state") if v["board"].is_null() => done = true,
                    Some("ok") | Some("error") => ok = true,
                    _ => {}
                }
            }
            act(&mut ws, json!({"t": "chat", "text": END}), |_| {}).await.ok();
            (ws, seen, games, lat)
        }));
    }
    let mut host_socks = Vec::new();
    for (run, specs) in runs.into_iter().zip(watchers) {
        let (ws, seen, games, lat) = run.await.expect("host");
        r.host_latencies.extend(lat.iter().map(|x| x.1));
        let host: std::collections::HashMap<(usize, u64), f64> = lat.into_iter().collect();
        r.moves += seen.len();
        r.games += games;
        for s in specs {
            let (got, lat) = s.await.expect("spectator");
            r.spectators += 1;
            if got == seen {
                r.complete += 1;
            } else if r.mismatch.is_none() {
                let i = got.iter().zip(&seen).position(|(a, b)| a != b).unwrap_or(got.len().min(seen.len()));
                r.mismatch = Some(format!(
                    "a spectator saw {} moves, the host {}; first difference at {i}: {:?} / {:?}",
                    got.len(),
                    seen.len(),
                    got.get(i),
                    seen.get(i)
                ));
            }
            for (k, l) in lat {
                r.latencies.push(l);
                if let Some(h) = host.get(&k) {
                    r.fanout.push(l - h);
                }
            }
        }
        host_socks.push(ws);
    }
    r.wall_s = t0.elapsed().as_secs_f64();
    // The non-readers that the server dropped (their connection is closed).
    for mut w in non_readers {
        let closed = async {
            loop {
                match w.next().await {
                    Some(Ok(_)) => {}
                    _ => return true,
                }
            }
        };
        if tokio::time::timeout(Duration::from_millis(200), closed).await.unwrap_or(false) {
            r.non_readers_dropped += 1;
        }
    }
    drop(host_socks);
    srv.tables_closed().await;
    *stop.lock().unwrap() = true;
    r.rss_peak_kb = sampler.await.unwrap_or(0).max(srv.peak_kb());
    r.rss_end_kb = srv.rss_kb();
    let (own, engines) = srv.cpu();
    r.cpu_server_s = own;
    r.cpu_engines_s = engines;
    r.cpu_client_s = cpu_s(std::process::id()).0;
    r.latencies.sort_by(f64::total_cmp);
    r.host_latencies.sort_by(f64::total_cmp);
    r.fanout.sort_by(f64::total_cmp);
    r
}

// ----- the crowd: the reproducer ---------------------------------

/// What [`crowd`] measured.
#[derive(Debug, Default)]
pub struct CrowdReport {
    /// The largest state message the host got, bytes.
    pub state_bytes: usize,
    /// From `play` to the state with the engine's answer, ms, per round:
    /// without spectators, then with the crowd.
    pub alone_ms: Vec<f64>,
    pub crowded_ms: Vec<f64>,
    pub rss_start_kb: u64,
    pub rss_alone_kb: u64,
    pub rss_peak_kb: u64,
    pub rss_end_kb: u64,
}

impl CrowdReport {
    pub fn text(&self, variant: &str, crowd: usize, rounds: usize) -> String {
        let first = |v: &[f64]| v.first().copied().unwrap_or(f64::NAN);
        format!(
            "crowd: {variant}, the host playing 1234 and taking it back {rounds} times, alone then with {crowd} \
             spectators who never read\n\
             largest state: {} bytes\n\
             the engine's answer at the host: alone first {:.0} ms, median {:.0} ms; with the crowd first {:.0} \
             ms, median {:.0} ms\n\
             server RSS: {:.1} MB at start, {:.1} MB after the rounds alone, {:.1} MB at peak, {:.1} MB at the end",
            self.state_bytes,
            first(&self.alone_ms),
            median(&self.alone_ms),
            first(&self.crowded_ms),
            median(&self.crowded_ms),
            self.rss_start_kb as f64 / 1024.0,
            self.rss_alone_kb as f64 / 1024.0,
            self.rss_peak_kb as f64 / 1024.0,
            self.rss_end_kb as f64 / 1024.0,
        )
    }
}

/// `rounds` times: the host plays 1234, the engine (codemaker) answers,
/// the host takes both back. The time from `play` to the state with the
/// answer, ms, each round; the largest state seen.
async fn play_and_take_back(host: &mut Ws, rounds: usize, largest: &mut usize) -> Vec<f64> {
    let mut times = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        send(host, json!({"t": "play", "move": "1234"})).await;
        loop {
            let v = recv(host).await.expect("host");
            if v["t"] == "error" {
                panic!("play: {v}");
            }
            if v["t"] == "state" {
                *largest = (*largest).max(v.to_string().len());
                if v["board"]["ply"] == 2 {
                    break;
                }
            }
        }
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        act(host, json!({"t": "undo"}), |v| *largest = (*largest).max(v.to_string().len()))
            .await
            .expect("undo");
    }
    times
}

/// A new game of `variant` at the host's table: the host breaks, the
/// engine keeps the code.
async fn new_codebreaking(host: &mut Ws, variant: &str) {
    let players = [
        json!({"kind": "human", "name": "Host"}),
        json!({"kind": "engine", "strategy": "random", "movetime": 100}),
    ];
    act(host, json!({"t": "new", "game_type": variant, "pause": 0, "players": players}), |_| {})
        .await
        .expect("new");
}

/// The reproducer: the host plays a big Mastermind variant alone,
/// then with `crowd` spectators who never read.
pub async fn crowd(
    meeple: &Path,
    data_dir: &Path,
    variant: &str,
    crowd: usize,
    rounds: usize,
    args: &[String],
) -> CrowdReport {
    let srv = Server::start(meeple, data_dir, args);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut r = CrowdReport { rss_start_kb: srv.rss_kb(), ..CrowdReport::default() };
    let (mut host, token) = srv.table().await;
    new_codebreaking(&mut host, variant).await;
    let mut largest = 0;
    r.alone_ms = play_and_take_back(&mut host, rounds, &mut largest).await;
    r.rss_alone_kb = srv.rss_kb();
    let stop = Arc::new(Mutex::new(false));
    let sampler = sample_rss(srv.pid, stop.clone());
    let mut them = Vec::new();
    for _ in 0..crowd {
        them.push(srv.ws(&format!("room={token}")).await);
    }
    r.crowded_ms = play_and_take_back(&mut host, rounds, &mut largest).await;
    *stop.lock().unwrap() = true;
    r.rss_peak_kb = sampler.await.unwrap_or(0);
    r.rss_end_kb = srv.rss_kb();
    r.state_bytes = largest;
    drop(them);
    r
}

/// Memory after tables close: a fresh server (`--rejoin-seconds`: 5 in the
/// issue's account), three
/// tables where the host plays the crowd's rounds alone, then three where
/// `crowd` spectators who never read are there too; the RSS at start and
/// after each table closed, kB.
pub async fn waves(
    meeple: &Path,
    data_dir: &Path,
    variant: &str,
    crowd: usize,
    rounds: usize,
    rejoin: u64,
    args: &[String],
) -> Vec<(String, u64)> {
    let mut a = vec!["--rejoin-seconds".to_string(), rejoin.to_string()];
    a.extend(args.iter().cloned());
    let srv = Server::start(meeple, data_dir, &a);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut out = vec![("at start".to_string(), srv.rss_kb())];
    let mut largest = 0;
    for wave in 0..6 {
        let (mut host, token) = srv.table().await;
        new_codebreaking(&mut host, variant).await;
        let mut them = Vec::new();
        if wave >= 3 {
            for _ in 0..crowd {
                them.push(srv.ws(&format!("room={token}")).await);
            }
        }
        play_and_take_back(&mut host, rounds, &mut largest).await;
        drop(them);
        drop(host);
        srv.tables_closed().await;
        let what = if wave < 3 {
            format!("after host-only round {}", wave + 1)
        } else {
            format!("after wave {} of {crowd} non-readers", wave - 2)
        };
        out.push((what.clone(), srv.rss_kb()));
        if std::env::var_os("GUI_LOAD_TRIM").is_some() {
            // A diagnosis: how much of what is held is memory the allocator
            // has free but has not given back (gdb calls malloc_trim in the
            // server).
            let _ = Command::new("gdb")
                .args(["-p", &srv.pid.to_string(), "-batch", "-ex", "call (int)malloc_trim(0)"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            out.push((format!("{what}, then malloc_trim"), srv.rss_kb()));
        }
    }
    out
}

// ----- no one stalls a table ----------------------------------------------

/// What [`stall`] measured.
#[derive(Debug, Default)]
pub struct StallReport {
    /// Each of the person's moves: (what its clock was charged, what the
    /// person took, from the state showing its turn to sending the move), ms.
    pub moves: Vec<(f64, f64)>,
    /// The table's answers to the person (`name` → `ok`), ms.
    pub answers: Vec<f64>,
    pub leaderboards_asked: usize,
    pub leaderboards_answered: usize,
    pub leaderboard_errors: BTreeMap<String, usize>,
    pub result: String,
}

impl StallReport {
    pub fn text(&self) -> String {
        let worst = self.moves.iter().map(|(c, t)| (c - t).abs()).fold(0.0, f64::max);
        let mut a = self.answers.clone();
        a.sort_by(f64::total_cmp);
        format!(
            "the person's moves: {} (clock charged - time taken, ms: {}); worst difference {:.0} ms\n\
             the table's answers to the person: {} (p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms)\n\
             leaderboards: {} asked, {} answered, refused or failed: {:?}\n\
             the game: {}",
            self.moves.len(),
            self.moves.iter().map(|(c, t)| format!("{:+.0}", c - t)).collect::<Vec<_>>().join(" "),
            worst,
            a.len(),
            quantile(&a, 0.5),
            quantile(&a, 0.99),
            a.last().copied().unwrap_or(f64::NAN),
            self.leaderboards_asked,
            self.leaderboards_answered,
            self.leaderboard_errors,
            self.result,
        )
    }
}

/// A person (side 0, a clock of 10 minutes) against an engine at
/// `engine_ms` a move in Connect Four, `moves` moves of the person's,
/// each after `think_ms`; `spectators` spectators each asking for the
/// leaderboard every second (with four kinds of filters, so that many
/// queries run); the person asks the table something (its
/// name) every 200 ms. With `lock`, another process holds the results
/// database locked throughout.
pub async fn stall(
    meeple: &Path,
    data_dir: &Path,
    spectators: usize,
    engine_ms: u64,
    moves: usize,
    think_ms: u64,
    lock: bool,
) -> StallReport {
    let srv = Server::start(meeple, data_dir, &[]);
    let locker = lock.then(|| {
        let path = data_dir.join("results.sqlite");
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
        let h = std::thread::spawn(move || {
            let c = rusqlite::Connection::open(&path).expect("open the results database");
            c.execute_batch("BEGIN EXCLUSIVE").expect("lock the results database");
            ready_tx.send(()).unwrap();
            let _ = rx.recv();
            let _ = c.execute_batch("ROLLBACK");
        });
        ready_rx.recv().unwrap();
        (tx, h)
    });
    let (mut host, token) = srv.table().await;
    let stop = Arc::new(Mutex::new(false));
    let asked = Arc::new(Mutex::new((0usize, 0usize, BTreeMap::<String, usize>::new())));
    let mut specs = Vec::new();
    for i in 0..spectators {
        let mut ws = srv.ws(&format!("room={token}")).await;
        next(&mut ws, "welcome").await;
        let (stop, asked) = (stop.clone(), asked.clone());
        specs.push(tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            tick.tick().await;
            tokio::time::sleep(Duration::from_millis(50 * i as u64)).await;
            loop {
                tokio::select! {
                    _ = tick.tick() => {
                        if *stop.lock().unwrap() { break; }
                        // Different filters: many queries, not one kept answer.
                        let ask = match i % 4 {
                            0 => json!({"t": "leaderboard"}),
                            1 => json!({"t": "leaderboard", "game": "Connect4"}),
                            2 => json!({"t": "leaderboard", "vs": format!("person:Player {}", i * 7)}),
                            _ => json!({"t": "leaderboard", "game": "Hive", "vs": "engine:perfect"}),
                        };
                        send(&mut ws, ask).await;
                        asked.lock().unwrap().0 += 1;
                    }
                    v = recv(&mut ws) => match v {
                        None => break,
                        Some(v) if v["t"] == "leaderboard" => asked.lock().unwrap().1 += 1,
                        Some(v) if v["t"] == "error" => {
                            let e = v["text"].as_str().unwrap_or("").chars().take(60).collect::<String>();
                            *asked.lock().unwrap().2.entry(e).or_insert(0) += 1;
                        }
                        _ => {}
                    },
                }
            }
        }));
    }
    let mut r = StallReport::default();
    let person =
        json!({"kind": "human", "name": "Bob", "time": {"kind": "clock", "base": 600_000, "inc": 0}});
    let engine = json!({"kind": "engine", "strategy": "attack", "movetime": engine_ms});
    let mut state = Value::Null;
    act(
        &mut host,
        json!({"t": "new", "game_type": "Connect4", "pause": 0, "flag": true, "players": [person, engine]}),
        |v| state = v.clone(),
    )
    .await
    .expect("new");
    // My turn since (the state that showed it), my clock after my last move.
    let mut turn_at: Option<Instant> = None;
    let mut left_before = 600_000.0;
    let mut pending_move: Option<Instant> = None;
    let mut asked_at: Option<Instant> = None;
    let mut ask_tick = tokio::time::interval(Duration::from_millis(200));
    let my_turn = |s: &Value| {
        s["board"]["turn"] == 0
            && s["result"].is_null()
            && s["clocks"]["running"] == 0
            && s["searching"].is_null()
    };
    if my_turn(&state) {
        turn_at = Some(Instant::now());
    }
    let t0 = Instant::now();
    while r.moves.len() < moves && t0.elapsed() < SAFETY {
        tokio::select! {
            _ = ask_tick.tick(), if asked_at.is_none() && pending_move.is_none() => {
                send(&mut host, json!({"t": "name", "name": "Bob"})).await;
                asked_at = Some(Instant::now());
            }
            _ = tokio::time::sleep_until(tokio::time::Instant::from_std(turn_at.map_or(t0 + SAFETY, |t| t + Duration::from_millis(think_ms)))),
                if turn_at.is_some() && asked_at.is_none() && pending_move.is_none() => {
                let children = state["tree"]["children"].as_array().cloned().unwrap_or_default();
                let mv = children.iter().filter_map(|c| c["move"].as_str()).nth(r.moves.len() % children.len().max(1)).unwrap_or("4").to_string();
                send(&mut host, json!({"t": "play", "move": mv})).await;
                pending_move = Some(Instant::now());
            }
            v = recv(&mut host) => {
                let v = v.expect("the host's connection");
                match v["t"].as_str() {
                    Some("ok") | Some("error") => {
                        if let Some(t) = asked_at.take() {
                            r.answers.push(t.elapsed().as_secs_f64() * 1000.0);
                        } else if let Some(sent) = pending_move.take() {
                            let took = sent.duration_since(turn_at.take().expect("my turn")).as_secs_f64() * 1000.0;
                            let left = state["clocks"]["left"][0].as_f64().unwrap_or(0.0);
                            r.moves.push((left_before - left, took));
                            left_before = left;
                            if v["t"] == "error" {
                                panic!("the person's move was refused: {v}");
                            }
                        }
                    }
                    Some("state") => {
                        state = v.clone();
                        if pending_move.is_none() && turn_at.is_none() && my_turn(&state) {
                            turn_at = Some(Instant::now());
                        }
                        if state["result"].is_object() {
                            r.result = state["result"]["text"].as_str().unwrap_or("").to_string();
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    // The clock after the last move is in the state that followed `ok`:
    // it was read when `ok` came (the state comes before it).
    *stop.lock().unwrap() = true;
    for s in specs {
        let _ = s.await;
    }
    let (a, b, e) = std::mem::take(&mut *asked.lock().unwrap());
    r.leaderboards_asked = a;
    r.leaderboards_answered = b;
    r.leaderboard_errors = e;
    if r.result.is_empty() {
        r.result = "not over".into();
    }
    if let Some((tx, h)) = locker {
        let _ = tx.send(());
        let _ = h.join();
    }
    r
}

/// Writes `games` finished games to the results database of `dir` (a
/// person against an engine level, Connect Four, Hive or Mastermind),
/// through meeple's own results API; in a memory-backed folder first when
/// there is one (each game is a transaction), then copied.
pub fn gen_results(dir: &Path, games: usize) -> Result<(), String> {
    use meeple::results::{Ending, GameRecord, Outcome, Place, Player, Results, Seat};
    let work = if Path::new("/dev/shm").is_dir() {
        PathBuf::from(format!("/dev/shm/meeple-gen-results-{}", std::process::id()))
    } else {
        dir.to_path_buf()
    };
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let mut db = Results::open(&work)?;
    let fams = [
        ("Connect4", "Connect4", "Connect4;RedWins;Yellow[4];4;3;4;3;4;3;4", ["Red", "Yellow"]),
        ("Hive", "Base", "Base;WhiteWins;Black[3];wS1;bS1 wS1-", ["White", "Black"]),
        ("Mastermind", "Mastermind", "Mastermind;BreakerWins;Breaker[2];1234;4B0W", ["Breaker", "Maker"]),
    ];
    let strategies = ["perfect", "alphabeta", "entropy", "random", "knuth"];
    let mut rng = 0x2545F4914F6CDD1Du64;
    let mut rand = |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    for i in 0..games {
        let (family, ty, gs, sides) = fams[rand(3) as usize];
        let person = Player::person(&format!("Player {}", rand(5000)));
        let engine =
            Player::engine(strategies[rand(5) as usize], &format!("movetime {}", 100 * (1 + rand(10))));
        let (a, b) = if rand(2) == 0 { (person, engine) } else { (engine, person) };
        let rec = GameRecord {
            when: SystemTime::now() - Duration::from_secs(i as u64),
            family: family.into(),
            game_type: ty.into(),
            game_string: gs.into(),
            seats: [Seat::new(sides[0], a), Seat::new(sides[1], b)],
            result: [Outcome::First, Outcome::Second, Outcome::Draw][rand(3) as usize],
            ending: Ending::Normal,
            place: Place::Gui,
        };
        db.record_game(&rec)?;
        if i % 50_000 == 0 && i > 0 {
            eprintln!("gen-results: {i} games");
        }
    }
    drop(db);
    if work != dir {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        std::fs::copy(work.join("results.sqlite"), dir.join("results.sqlite")).map_err(|e| e.to_string())?;
        let _ = std::fs::remove_dir_all(&work);
    }
    Ok(())
}

// ----- a long pasted game -------------------------------------------------

/// A Hive game of `plies` random moves that never ends, from a helper
/// engine (no move that would end it).
pub fn long_hive_game(meeple: &Path, data_dir: &Path, plies: usize, seed: u64) -> String {
    let mut p = Command::new(meeple)
        .arg("--data-dir")
        .arg(data_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("helper engine");
    let mut stdin = p.stdin.take().unwrap();
    let mut out = BufReader::new(p.stdout.take().unwrap());
    let mut reply = |cmd: &str, stdin: &mut std::process::ChildStdin| -> Vec<String> {
        if !cmd.is_empty() {
            writeln!(stdin, "{cmd}").unwrap();
        }
        let mut lines = Vec::new();
        loop {
            let mut l = String::new();
            if out.read_line(&mut l).unwrap() == 0 {
                panic!("the helper engine exited");
            }
            let l = l.trim_end().to_string();
            if l == "ok" {
                return lines;
            }
            lines.push(l);
        }
    };
    reply("", &mut stdin);
    reply("newgame Base", &mut stdin);
    let mut rng = seed | 1;
    let mut rand = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let mut gs = String::new();
    for _ in 0..plies {
        let valid = reply("validmoves", &mut stdin).pop().unwrap_or_default();
        let moves: Vec<&str> = valid.split(';').collect();
        let start = rand(moves.len());
        for k in 0..moves.len() {
            let mv = moves[(start + k) % moves.len()];
            let r = reply(&format!("play {mv}"), &mut stdin);
            let g = r.last().cloned().unwrap_or_default();
            if g.split(';').nth(1) == Some("InProgress") {
                gs = g;
                break;
            }
            reply("undo", &mut stdin);
        }
    }
    let _ = writeln!(stdin, "quit");
    let _ = p.wait();
    gs
}

/// What [`paste`] measured.
#[derive(Debug, Default)]
pub struct PasteReport {
    pub plies: usize,
    pub bytes: usize,
    pub rss_before_kb: u64,
    /// After each table set the game up.
    pub rss_after_kb: Vec<u64>,
    pub setup_ms: Vec<f64>,
    pub reviewed: bool,
}

/// A long game set up from its GameString at `tables` tables (the host
/// pastes it into "Set up a position"): the server's memory before and
/// after each, and a review of its first position.
pub async fn paste(meeple: &Path, data_dir: &Path, game_string: &str, tables: usize) -> PasteReport {
    let srv = Server::start(meeple, data_dir, &[]);
    let mut r = PasteReport {
        bytes: game_string.len(),
        plies: game_string.split(';').count() - 3,
        ..PasteReport::default()
    };
    let mut hosts = Vec::new();
    // A table first, so that what one costs on its own is not counted.
    let (mut first, _) = srv.table().await;
    act(
        &mut first,
        json!({"t": "new", "game_type": "Base", "pause": 0,
        "players": [{"kind": "human"}, {"kind": "human"}]}),
        |_| {},
    )
    .await
    .expect("new");
    tokio::time::sleep(Duration::from_millis(300)).await;
    r.rss_before_kb = srv.rss_kb();
    for _ in 0..tables {
        let (mut host, _) = srv.table().await;
        let t = Instant::now();
        act(
            &mut host,
            json!({"t": "new", "game_type": game_string, "pause": 0,
            "players": [{"kind": "human"}, {"kind": "human"}]}),
            |_| {},
        )
        .await
        .expect("the pasted game");
        r.setup_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        send(&mut host, json!({"t": "review", "ply": 1})).await;
        let v = next(&mut host, "review").await;
        r.reviewed = v["board"]["ply"] == 1;
        tokio::time::sleep(Duration::from_millis(300)).await;
        r.rss_after_kb.push(srv.rss_kb());
        hosts.push(host);
    }
    drop(first);
    r
}
