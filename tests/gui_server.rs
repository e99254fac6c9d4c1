//! `meeple gui` under hostile use, over real WebSockets (a small client
//! written here, so a test can also send what no browser would): the cap
//! on engine processes and on spectators, tables reaped when nobody is
//! left, a killed engine reaped and replaced, browsers that never read
//! (skipped to the newest state, dropped once what cannot be skipped piles
//! up; the server's memory stays flat, also with 50 of them at a big
//! Mastermind variant), and a message too large refused as its header
//! arrives.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::unique_dir;

/// A running `meeple gui`.
struct Server {
    child: Child,
    addr: String,
    key: String,
}

impl Server {
    fn start(tag: &str, args: &[&str]) -> Server {
        let dir = unique_dir(&format!("meeple-gui-server-{tag}"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_meeple"))
            .arg("--data-dir")
            .arg(&dir)
            .args(["gui", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start meeple gui");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        // meeple gui: open http://127.0.0.1:PORT/#k=KEY
        let url = line.trim().rsplit(' ').next().unwrap().to_string();
        let rest = url.strip_prefix("http://").unwrap();
        let (addr, key) = rest.split_once("/#k=").unwrap();
        Server { child, addr: addr.to_string(), key: key.to_string() }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's resident memory, kB.
    fn rss_kb(&self) -> u64 {
        let s = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        let l = s.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        l.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// The server's child processes and their states (`S`, `R`, `Z`, ...).
    fn children(&self) -> Vec<(u32, char)> {
        let mut out = Vec::new();
        for t in std::fs::read_dir(format!("/proc/{}/task", self.pid())).unwrap().flatten() {
            let list = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
            for pid in list.split_whitespace().filter_map(|p| p.parse::<u32>().ok()) {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                let state = stat.rsplit(')').next().and_then(|r| r.trim().chars().next()).unwrap_or('?');
                out.push((pid, state));
            }
        }
        out
    }

    /// True once the server has closed its side of a client's connection
    /// (seen in the kernel's table of sockets, so the client need not read
    /// what is still on its way).
    fn dropped(&self, ws: &Ws) -> bool {
        let port = |a: std::net::SocketAddr| format!(":{:04X}", a.port());
        let (server, client) = (port(ws.s.peer_addr().unwrap()), port(ws.s.local_addr().unwrap()));
        let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
        // local address, remote address, state (01: established).
        !table.lines().skip(1).any(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.len() > 3 && f[1].ends_with(&server) && f[2].ends_with(&client) && f[3] == "01"
        })
    }

    fn ws(&self, query: &str) -> Ws {
        Ws::connect(&self.addr, &format!("/ws?{query}"))
    }

    /// A new table's WebSocket (the server's key).
    fn table(&self) -> Ws {
        self.ws(&format!("k={}", self.key))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits (polling) until `f` holds; a safety net, not a timing assertion.
fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(60) {
        if f() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{what}: not within a minute");
}

/// A WebSocket client: the handshake, masked text frames out, frames in.
struct Ws {
    s: TcpStream,
}

impl Ws {
    fn connect(addr: &str, path: &str) -> Ws {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_nodelay(true).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        .unwrap();
        let mut head = Vec::new();
        let mut b = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            s.read_exact(&mut b).unwrap();
            head.push(b[0]);
        }
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        Ws { s }
    }

    /// A frame's header and masked payload; `len` is what the header says.
    fn frame(opcode: u8, payload: &[u8], len: u64) -> Vec<u8> {
        let mut f = vec![0x80 | opcode];
        match len {
            0..=125 => f.push(0x80 | len as u8),
            126..=65535 => {
                f.push(0x80 | 126);
                f.extend((len as u16).to_be_bytes());
            }
            _ => {
                f.push(0x80 | 127);
                f.extend(len.to_be_bytes());
            }
        }
        let mask = [0x12u8, 0x34, 0x56, 0x78];
        f.extend(mask);
        f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        f
    }

    fn send(&mut self, v: &Value) -> std::io::Result<()> {
        let text = v.to_string();
        self.s.write_all(&Ws::frame(1, text.as_bytes(), text.len() as u64))
    }

    /// The next text message (`None`: closed).
    fn recv(&mut self) -> Option<Value> {
        loop {
            let mut h = [0u8; 2];
            self.s.read_exact(&mut h).ok()?;
            let mut len = (h[1] & 0x7f) as u64;
            if len == 126 {
                let mut b = [0u8; 2];
                self.s.read_exact(&mut b).ok()?;
                len = u16::from_be_bytes(b) as u64;
            } else if len == 127 {
                let mut b = [0u8; 8];
                self.s.read_exact(&mut b).ok()?;
                len = u64::from_be_bytes(b);
            }
            let mut p = vec![0u8; len as usize];
            self.s.read_exact(&mut p).ok()?;
            match h[0] & 0x0f {
                1 => return serde_json::from_slice(&p).ok(),
                8 => return None,
                _ => {}
            }
        }
    }

    /// The next message of type `t`.
    fn next(&mut self, t: &str) -> Value {
        loop {
            let v = self.recv().unwrap_or_else(|| panic!("closed while waiting for {t}"));
            if v["t"] == t {
                return v;
            }
        }
    }
}

/// More sessions than the cap: the cap holds and the others are told why;
/// a table nobody is connected to is closed after --rejoin-seconds and
/// its engine reaped, so a new table gets in.
#[test]
fn the_engine_cap_holds_and_abandoned_tables_are_reaped() {
    let srv = Server::start("cap", &["--max-engines", "3", "--rejoin-seconds", "1"]);
    let mut open = Vec::new();
    let mut refused = 0;
    for _ in 0..6 {
        let mut ws = srv.table();
        let m = ws.recv().unwrap();
        match m["t"].as_str() {
            Some("welcome") => open.push(ws),
            Some("fatal") => {
                assert!(m["text"].as_str().unwrap().contains("all 3 of its engines are in use"), "{m}");
                refused += 1;
            }
            _ => panic!("{m}"),
        }
    }
    assert_eq!((open.len(), refused), (3, 3));
    assert_eq!(srv.children().len(), 3, "{:?}", srv.children());
    // Everyone leaves: the tables close, their engines are reaped.
    drop(open);
    eventually("the engines reaped", || srv.children().is_empty());
    let mut ws = srv.table();
    assert_eq!(ws.recv().unwrap()["t"], "welcome");
    assert_eq!(srv.children().len(), 1);
}

/// A killed engine is reaped (no zombie) and another takes its place at
/// the same position; the table goes on.
#[test]
fn a_killed_engine_is_reaped_and_replaced() {
    let srv = Server::start("kill", &[]);
    let mut ws = srv.table();
    ws.next("welcome");
    ws.send(&json!({"t": "new", "game_type": "Connect4", "pause": 0,
        "players": [{"kind": "human"}, {"kind": "human"}]}))
        .unwrap();
    ws.next("ok");
    ws.send(&json!({"t": "play", "move": "4"})).unwrap();
    ws.next("ok");
    let [(pid, _)] = srv.children()[..] else { panic!("{:?}", srv.children()) };
    Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap();
    let s = loop {
        let s = ws.next("state");
        if s["note"].as_str().is_some_and(|n| n.contains("engine stopped")) {
            break s;
        }
    };
    assert_eq!(s["game_string"], "Connect4;InProgress;Yellow[1];4");
    eventually("the killed engine reaped", || srv.children().iter().all(|&(p, st)| p != pid && st != 'Z'));
    assert_eq!(srv.children().len(), 1);
    ws.send(&json!({"t": "play", "move": "3"})).unwrap();
    let mut last = Value::Null;
    loop {
        let v = ws.recv().unwrap();
        match v["t"].as_str() {
            Some("state") => last = v,
            Some("ok") => break,
            _ => {}
        }
    }
    assert_eq!(last["game_string"], "Connect4;InProgress;Red[2];4;3");
}

/// One browser never reads while another floods the table with states
/// (every name change): the one that does not read keeps only
/// the newest state (it gets it when it reads again) and the server's
/// memory stays flat; once messages that cannot be skipped pile up for it
/// (people joining and leaving, announced to everybody), it is dropped. A
/// frame announcing 48 MB is refused as its header arrives, before
/// anything is buffered.
#[test]
fn a_browser_that_never_reads_is_skipped_then_dropped_and_memory_stays_flat() {
    let srv = Server::start("flood", &[]);
    let mut host = srv.table();
    let w = host.next("welcome");
    let table = w["table"].as_str().unwrap().to_string();
    host.send(&json!({"t": "new", "game_type": "Mastermind", "pause": 0,
        "players": [{"kind": "human"}, {"kind": "human"}]}))
        .unwrap();
    host.next("ok");
    host.send(&json!({"t": "invite", "side": 0})).unwrap();
    let key = loop {
        let s = host.next("me");
        if let Some(k) = s["guest_key"].as_str() {
            break k.to_string();
        }
    };
    // From here the host does not read.
    let mut guest = srv.ws(&format!("room={table}&me={key}"));
    guest.next("welcome");
    let before = srv.rss_kb();
    // The guest floods the table in windows of 100 renames, reading its
    // own replies after each window (one that did not read them would be
    // dropped itself, rightly). Each rename is a new state, which
    // supersedes the states before it: the host, not reading, is behind
    // or not depending on how fast the server writes, but it is skipped,
    // never dropped, either way.
    let mut sent = 0;
    while sent < 4000 {
        for _ in 0..100 {
            let v = json!({"t": "name", "name": format!("flood {sent} {}", "x".repeat(20))});
            guest.send(&v).unwrap();
            sent += 1;
        }
        for _ in 0..100 {
            guest.next("ok");
        }
    }
    let last = format!("flood {} {}", sent - 1, "x".repeat(20));
    let after = srv.rss_kb();
    eprintln!("sent {sent} messages; server memory {before} kB before, {after} kB after");
    assert!(after < before + 40_000, "the server grew from {before} kB to {after} kB");
    // The host reads again: it is still there, and gets the newest state.
    let mut states = 0;
    loop {
        let s = host.next("state");
        states += 1;
        if s["sides"][1]["name"] == json!(last) {
            break;
        }
    }
    eprintln!("the host read {states} states of {sent} sent");
    // Now people come, chat and go, announced to everybody: the host, no
    // longer reading, is dropped once that piles up (it cannot be skipped).
    let t = Instant::now();
    while !srv.dropped(&host) {
        assert!(t.elapsed() < Duration::from_secs(120), "the host that never read is still connected");
        for _ in 0..10 {
            let mut s = srv.ws(&format!("room={table}"));
            s.next("welcome");
            for _ in 0..8 {
                s.send(&json!({"t": "chat", "text": "y".repeat(500)})).unwrap();
                s.next("ok");
            }
        }
    }
    assert!(srv.rss_kb() < before + 40_000);
    let mut buf = vec![0u8; 1 << 20];
    // A 48 MB message is refused at its header: the connection closes
    // although only 1 KB of it was sent.
    let mut big = srv.ws(&format!("room={table}"));
    big.next("welcome");
    let mut f = Ws::frame(1, &[b'x'; 1024], 48 << 20);
    f.truncate(f.len());
    big.s.write_all(&f).unwrap();
    big.s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut gone = false;
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(60) {
        match big.s.read(&mut buf) {
            Ok(0) | Err(_) => {
                gone = true;
                break;
            }
            Ok(_) => {}
        }
    }
    assert!(gone, "a 48 MB frame was not refused");
    assert!(srv.rss_kb() < before + 40_000);
}

/// A table holds at most --max-spectators spectators: one past it is told
/// so and its connection ends; the seats are never refused, and a
/// spectator who leaves makes room.
#[test]
fn a_spectator_past_the_limit_is_told_so() {
    let srv = Server::start("spectators", &["--max-spectators", "2"]);
    let mut host = srv.table();
    let table = host.next("welcome")["table"].as_str().unwrap().to_string();
    let mut a = srv.ws(&format!("room={table}"));
    assert_eq!(a.next("welcome")["role"], "spectator");
    let mut b = srv.ws(&format!("room={table}"));
    b.next("welcome");
    let mut c = srv.ws(&format!("room={table}"));
    let m = c.recv().unwrap();
    assert_eq!(m["t"], "fatal", "{m}");
    assert!(m["text"].as_str().unwrap().contains("most spectators (2)"), "{m}");
    assert!(c.recv().is_none(), "the refused spectator is still connected");
    drop(a);
    let t = Instant::now();
    loop {
        let mut d = srv.ws(&format!("room={table}"));
        if d.recv().unwrap()["t"] == "welcome" {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "no room after a spectator left");
    }
    host.send(&json!({"t": "chat", "text": "still here"})).unwrap();
    host.next("ok");
}

/// The reproducer, smaller: a big Mastermind variant (14,641
/// codes), 50 spectators who never read, the host playing and taking back
/// a guess: every state is small and shared, so the server stays small and
/// nobody who does not read costs more than its socket.
#[test]
fn non_reading_spectators_of_a_big_variant_cost_little() {
    let srv = Server::start("crowd", &[]);
    let mut host = srv.table();
    let table = host.next("welcome")["table"].as_str().unwrap().to_string();
    host.send(&json!({"t": "new", "game_type": "Mastermind+4x10+blanks", "pause": 0,
        "players": [{"kind": "human"}, {"kind": "engine", "strategy": "random", "movetime": 50}]}))
        .unwrap();
    let s = host.next("state");
    host.next("ok");
    let size = s.to_string().len();
    assert!(size < 16_000, "a state of {size} bytes");
    let before = srv.rss_kb();
    let mut crowd: Vec<Ws> = (0..50).map(|_| srv.ws(&format!("room={table}"))).collect();
    for _ in 0..12 {
        host.send(&json!({"t": "play", "move": "1234"})).unwrap();
        host.next("ok");
        loop {
            let s = host.next("state");
            if s["board"]["ply"] == 2 {
                break;
            }
        }
        host.send(&json!({"t": "undo"})).unwrap();
        host.next("ok");
    }
    let after = srv.rss_kb();
    eprintln!("server memory {before} kB with the host alone, {after} kB with 50 spectators not reading");
    assert!(after < before + 40_000, "the server grew from {before} kB to {after} kB");
    // They are still there (only states, superseded, and a few lines wait
    // for them), and get the newest state when they read.
    let s = loop {
        let s = crowd[0].next("state");
        if s["board"]["ply"] == 0 && s["history"] == json!([]) {
            break s;
        }
    };
    assert_eq!(s["board"]["game_type"], "Mastermind+4x10+blanks");
    crowd.clear();
}

/// A raw HTTP GET: the status line and headers, and the body.
fn http_get(addr: &str, path: &str) -> (String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let split = all.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    (String::from_utf8_lossy(&all[..split]).to_lowercase(), all[split + 4..].to_vec())
}

/// `meeple gui --offline-site DIR` serves the site's files, cross-origin
/// isolated, and nothing else; a folder that is not the site is refused.
#[test]
fn the_offline_site_is_served_isolated() {
    let site = unique_dir("meeple-gui-offline-site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<!doctype html><title>site</title>").unwrap();
    std::fs::write(site.join("meeple_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .args(["gui", "--port", "0", "--offline-site"])
        .arg(&site)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start meeple gui");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    // meeple gui: the offline site at http://127.0.0.1:PORT/
    let addr = line.trim().rsplit("http://").next().unwrap().trim_end_matches('/').to_string();
    let (head, body) = http_get(&addr, "/");
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("cross-origin-opener-policy: same-origin"), "{head}");
    assert!(head.contains("cross-origin-embedder-policy: require-corp"), "{head}");
    assert_eq!(body, b"<!doctype html><title>site</title>");
    let (head, body) = http_get(&addr, "/meeple_bg.wasm");
    assert!(head.contains("content-type: application/wasm"), "{head}");
    assert_eq!(body, b"\0asm\x01\0\0\0");
    for path in ["/ws", "/app.js", "/..%2fCargo.toml", "/%2e%2e"] {
        assert!(http_get(&addr, path).0.starts_with("http/1.1 404"), "{path}");
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .args(["gui", "--port", "0", "--offline-site"])
        .arg(site.join("nothing"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("scripts/build-web.sh"), "{out:?}");
    let _ = std::fs::remove_dir_all(&site);
}
