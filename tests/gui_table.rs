//! The GUI server's table driven directly (no browser): a real engine
//! process behind it, browsers simulated by their outboxes.
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use meeple::gui::client::Engine;
use meeple::gui::outbox::Budget;
use meeple::gui::record::Recorder;
use meeple::gui::room::{OutboxRx, outbox};
use meeple::gui::table::{Event, Table};
use meeple::gui::{Config, Rooms};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tokio::sync::{Semaphore, mpsc};

use crate::common::unique_dir;

mod protocol {
    use crate::common::Engine;

    /// `board json`, `games json` and the structured `movetree json`
    /// through the binary.
    #[test]
    fn board_games_and_movetree_json_through_the_binary() {
        let mut e = Engine::start("gui-proto");
        e.cmd("newgame Connect4");
        e.cmd("play 4");
        let b: serde_json::Value = serde_json::from_str(&e.one("board json")).unwrap();
        assert_eq!(b["geometry"]["kind"], "square");
        assert_eq!(b["turn"], 1);
        assert_eq!(b["cells"].as_array().unwrap().len(), 42);
        let t: serde_json::Value = serde_json::from_str(&e.one("movetree json")).unwrap();
        assert_eq!(t["children"][3]["select"][0]["cell"], "c4r2");
        let g: serde_json::Value = serde_json::from_str(&e.one("games json")).unwrap();
        assert_eq!(g["games"].as_array().unwrap().len(), 3);
        assert!(e.cmd("board")[0].starts_with("err "));
        // Each side's colour where the sides have one (issue 41: the page
        // showed Mastermind's Breaker and Maker in Connect Four's colours).
        assert_eq!(b["side_colours"], serde_json::json!(["#e53935", "#fdd835"]));
        e.cmd("newgame Base");
        let b: serde_json::Value = serde_json::from_str(&e.one("board json")).unwrap();
        assert_eq!(b["side_colours"].as_array().map(Vec::len), Some(2));
        e.cmd("newgame Mastermind");
        let b: serde_json::Value = serde_json::from_str(&e.one("board json")).unwrap();
        assert!(b.get("side_colours").is_none(), "{b}");
        assert_eq!(e.close(), 0);
    }

    /// Issue 10, item 14: the tree of a huge Mastermind variant is refused
    /// at once with a clear error instead of megabytes on one line, and
    /// the engine keeps answering.
    #[test]
    fn movetree_of_a_huge_variant_is_refused_clearly() {
        let mut e = Engine::start("gui-mt");
        e.cmd("setoption name Mastermind.Codemaker value none");
        e.cmd("newgame Mastermind+5x10");
        let r = e.cmd("movetree json");
        assert_eq!(r.len(), 1);
        assert!(r[0].starts_with("err too many moves for a tree: 100000"), "{r:?}");
        assert!(e.cmd("movetree")[0].starts_with("err "));
        assert_eq!(e.cmd("isready"), vec!["readyok"]);
        // validmoves still lists them.
        assert_eq!(e.one("validmoves").split(';').count(), 100_000);
        // The scoring turn has a small tree.
        e.cmd("play 12345");
        assert!(e.one("movetree json").starts_with("{\"actions\":[]"));
        assert_eq!(e.close(), 0);
    }

    /// `movetree json level`: one level of the tree below a prefix, for a
    /// variant too big for the whole tree (5x8 and 5x10 guesses entered
    /// peg by peg) and for Hive (a piece, then its destinations).
    #[test]
    fn movetree_one_level_at_a_time_through_the_binary() {
        let mut e = Engine::start("gui-level");
        e.cmd("setoption name Mastermind.Codemaker value none");
        for (ty, symbols) in [("Mastermind+5x8", 8), ("Mastermind+5x10+letters+blanks", 11)] {
            e.cmd(&format!("newgame {ty}"));
            assert!(e.cmd("movetree json")[0].starts_with("err "), "{ty}");
            let root: serde_json::Value = serde_json::from_str(&e.one("movetree json level")).unwrap();
            assert_eq!(root["children"].as_array().unwrap().len(), symbols, "{ty}");
            assert_eq!(root["children"][0]["more"], true);
            assert_eq!(root["children"][0]["select"][0]["cell"], "r1s1");
            let first = root["children"][0]["actions"][0].as_str().unwrap().to_string();
            let p = format!("{first} {first} {first} {first}");
            let last: serde_json::Value =
                serde_json::from_str(&e.one(&format!("movetree json level {p}"))).unwrap();
            let c = &last["children"][1];
            assert_eq!(c["final"], true);
            assert!(c.get("more").is_none());
            let mv = c["move"].as_str().unwrap().to_string();
            assert_eq!(mv.len(), 5);
            assert!(e.one(&format!("play {mv}")).contains(&mv));
            assert!(e.cmd("movetree json level 9 9")[0].contains("begins with '9"), "{ty}");
        }
        // The feedback's levels: black counts, then white counts.
        let fb: serde_json::Value = serde_json::from_str(&e.one("movetree json level")).unwrap();
        assert_eq!(fb["children"][0]["select"][0]["slot"], "black");
        e.cmd("newgame Base");
        e.cmd("play wS1");
        e.cmd("play bS1 wS1-");
        let root: serde_json::Value = serde_json::from_str(&e.one("movetree json level")).unwrap();
        let whole: serde_json::Value = serde_json::from_str(&e.one("movetree json")).unwrap();
        assert_eq!(root["children"].as_array().unwrap().len(), whole["children"].as_array().unwrap().len());
        let piece = root["children"][0]["actions"][0].as_str().unwrap().to_string();
        let l: serde_json::Value =
            serde_json::from_str(&e.one(&format!("movetree json level {piece}"))).unwrap();
        assert_eq!(l["children"], whole["children"][0]["children"]);
        assert!(e.cmd("movetree json level zz")[0].starts_with("err no legal move begins with 'zz'"));
        assert_eq!(e.close(), 0);
    }
}

/// A browser, simulated: what the table sends it.
struct Browser {
    rx: OutboxRx,
    id: u64,
    /// Its own part of the state (the last `me` message), as the page
    /// merges it into every state (`state["me"]`).
    me: Value,
    /// The last state seen, with `me`.
    state: Value,
}

impl Browser {
    /// The next message of type `t` (others are skipped; states noted).
    async fn next(&mut self, t: &str) -> Value {
        loop {
            let v = self.recv().await;
            if v["t"] == t {
                return v;
            }
        }
    }

    async fn recv(&mut self) -> Value {
        let m = tokio::time::timeout(Duration::from_secs(60), self.rx.recv())
            .await
            .expect("no message within a minute")
            .expect("table gone");
        let mut v: Value = serde_json::from_str(m.text()).unwrap();
        if v["t"] == "me" {
            self.me = v.clone();
            if self.state.is_object() {
                self.state["me"] = v.clone();
            }
        }
        if v["t"] == "state" {
            v["me"] = self.me.clone();
            self.state = v.clone();
        }
        v
    }

    /// The reply to the last message sent: `Ok` or the error's text.
    async fn reply(&mut self) -> Result<(), String> {
        loop {
            let v = self.recv().await;
            match v["t"].as_str() {
                Some("ok") => return Ok(()),
                Some("error") => return Err(v["text"].as_str().unwrap_or("").to_string()),
                _ => {}
            }
        }
    }

    /// The last state seen if it satisfies `f`, else the next that does.
    async fn state_where(&mut self, f: impl Fn(&Value) -> bool) -> Value {
        if f(&self.state) {
            return self.state.clone();
        }
        loop {
            let s = self.next("state").await;
            if f(&s) {
                return s;
            }
        }
    }
}

struct Tab {
    tx: mpsc::Sender<Event>,
    host: String,
    data_dir: std::path::PathBuf,
}

fn config(data_dir: &Path) -> Config {
    Config {
        exe: env!("CARGO_BIN_EXE_meeple").into(),
        data_dir: data_dir.to_path_buf(),
        max_hash: 64,
        default_hash: 16,
        max_threads: 1,
        rejoin: Duration::from_secs(60),
        idle: Duration::from_secs(3600),
        engines: Arc::new(Semaphore::new(4)),
        max_engines: 4,
        max_spectators: 8,
        budget: Budget::new(64 << 20),
        results: Recorder::new(data_dir.to_path_buf()),
        networked: true,
    }
}

async fn table(tag: &str) -> Tab {
    table_with(tag, true).await
}

async fn table_with(tag: &str, networked: bool) -> Tab {
    let dir = unique_dir(&format!("meeple-gui-table-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = Arc::new(Config { networked, ..config(&dir) });
    let engine = Engine::spawn(&cfg.exe, &dir, None).await.unwrap();
    let rooms: Arc<Rooms> = Arc::new(Mutex::new(Default::default()));
    let (tx, rx) = mpsc::channel(64);
    let t = Table::new(cfg, engine, rooms);
    let host = t.host_key();
    tokio::spawn(t.run(rx));
    Tab { tx, host, data_dir: dir }
}

async fn join(t: &Tab, id: u64, me: Option<&str>) -> Browser {
    let (outbox, rx) = outbox();
    t.tx.send(Event::Join { id, outbox, me: me.map(str::to_string) }).await.unwrap();
    Browser { rx, id, me: Value::Null, state: Value::Null }
}

async fn send(t: &Tab, b: &Browser, v: Value) {
    t.tx.send(Event::Msg { id: b.id, text: v.to_string(), at: Instant::now() }).await.unwrap();
}

/// Sends a message and awaits its reply (`ok` or the error's text).
async fn act(t: &Tab, b: &mut Browser, v: Value) -> Result<(), String> {
    send(t, b, v).await;
    b.reply().await
}

fn human(name: &str) -> Value {
    json!({"kind": "human", "name": name})
}

fn engine(strategy: &str, movetime: u64) -> Value {
    json!({"kind": "engine", "strategy": strategy, "movetime": movetime})
}

/// A person against the engine: the person's move, then the engine's
/// (announced with the tree it was chosen from), undo back to the person.
#[tokio::test]
async fn person_against_engine_and_undo() {
    let t = table("pve").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    let w = host.next("welcome").await;
    assert_eq!(w["role"], "host");
    assert_eq!(w["games"]["games"][0]["family"], "Connect4");
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Connect4+5x4", "pause": 0, "players": [human("Ann"), engine("random", 10)]}),
    )
    .await
    .unwrap();
    let s = host.state_where(|s| s["board"]["ply"] == 0).await;
    assert_eq!(s["me"]["you"], json!([0]));
    assert_eq!(s["sides"][0]["name"], "Ann");
    assert_eq!(s["tree"]["children"].as_array().unwrap().len(), 5);
    act(&t, &mut host, json!({"t": "play", "move": "3"})).await.unwrap();
    let m = host.next("moved").await;
    assert_eq!(m["engine"], true);
    assert_eq!(m["side"], 1);
    // The selections along the engine's move, for the page to show it.
    assert_eq!(m["select"][0]["kind"], "cell", "{m}");
    assert_eq!(m["ply"], 2);
    assert!(m["at"].as_u64().is_some_and(|t| t > 0));
    let s = host.state_where(|s| s["board"]["ply"] == 2).await;
    assert_eq!(s["history"].as_array().unwrap().len(), 2);
    assert!(s["game_string"].as_str().unwrap().starts_with("Connect4+5x4;InProgress;Red[2];3;"));
    // Undo takes back the engine's move and the person's.
    act(&t, &mut host, json!({"t": "undo"})).await.unwrap();
    let s = host.state_where(|s| s["board"]["ply"] == 0).await;
    assert_eq!(s["history"], json!([]));
    assert!(
        act(&t, &mut host, json!({"t": "play", "move": "9"})).await.unwrap_err().contains("not a column")
    );
    // The move tree one level at a time, at the person's turn only.
    send(&t, &host, json!({"t": "tree", "ply": 0, "prefix": []})).await;
    let l = host.next("tree").await;
    assert_eq!(l["node"]["children"].as_array().unwrap().len(), 5);
    assert!(act(&t, &mut host, json!({"t": "tree", "ply": 3, "prefix": []})).await.is_err());
}

/// The reproducer: `stop` during an engine's search, then a new
/// game of two people: the table is not one reply behind its engine.
#[tokio::test]
async fn stop_during_a_search_then_a_new_game_stays_in_step() {
    let t = table("repro").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Connect4", "pause": 0,
        "players": [engine("perfect", 1500), engine("attack", 1500)]}),
    )
    .await
    .unwrap();
    host.state_where(|s| !s["searching"].is_null()).await;
    act(&t, &mut host, json!({"t": "stop"})).await.unwrap();
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Connect4", "pause": 0, "players": [human("A"), human("B")]}),
    )
    .await
    .unwrap();
    for mv in ["4", "3", "4"] {
        assert_eq!(act(&t, &mut host, json!({"t": "play", "move": mv})).await, Ok(()), "play {mv}");
    }
    let s = host.state_where(|s| s["board"]["ply"] == 3).await;
    assert_eq!(s["game_string"], "Connect4;InProgress;Yellow[2];4;3;4");
    // Undo, and a save names the same position the engine has.
    act(&t, &mut host, json!({"t": "undo"})).await.unwrap();
    send(&t, &host, json!({"t": "save", "name": "after-undo"})).await;
    let n = host.next("notice").await;
    assert_eq!(n["game_string"], "Connect4;InProgress;Red[2];4;3");
    assert_eq!(saved(&t.data_dir, "after-undo"), "Connect4;InProgress;Red[2];4;3");
}

/// The GameString an engine saved.
fn saved(dir: &Path, name: &str) -> String {
    let text = std::fs::read_to_string(dir.join("saves").join(format!("{name}.json"))).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["game"].as_str().unwrap().to_string()
}

/// A GameString without its `Name=value` extras (a save keeps a
/// Mastermind game's secret mid-game).
fn bare(gs: &str) -> String {
    gs.split(';').filter(|f| !f.contains('=')).collect::<Vec<_>>().join(";")
}

/// A random legal move for the browser to play now, chosen as a person
/// does: walking the move tree from the state's first level, asking the
/// table for each level below (`None` if the table refuses: not its move).
async fn random_move(t: &Tab, b: &mut Browser, rng: &mut StdRng) -> Option<String> {
    let ply = b.state["board"]["ply"].as_u64()?;
    let mut node = b.state["tree"].clone();
    let mut prefix: Vec<Value> = node["actions"].as_array().cloned().unwrap_or_default();
    loop {
        let children = node["children"].as_array().cloned().unwrap_or_default();
        if node["final"] == true && (children.is_empty() || rng.random_range(0..4) == 0) {
            return node["move"].as_str().map(str::to_string);
        }
        if children.is_empty() {
            return None;
        }
        let c = children[rng.random_range(0..children.len())].clone();
        prefix.extend(c["actions"].as_array().cloned().unwrap_or_default());
        node = if c["more"] == true {
            send(t, b, json!({"t": "tree", "ply": ply, "prefix": prefix})).await;
            loop {
                let v = b.recv().await;
                if v["t"] == "error" {
                    return None;
                }
                if v["t"] == "tree" && v["prefix"] == json!(prefix) {
                    break v["node"].clone();
                }
            }
        } else {
            c
        };
    }
}

/// Issue 26, item 1: thousands of page actions at random moments, most
/// during an engine's search (stop, resume, new, undo, load, abandon, a
/// person's move, save, a pause), and after each a save: the GameString
/// the engine saved is the one the table showed when it sent `save`.
/// MEEPLE_GUI_ACTIONS sets the number of actions (default 2000),
/// MEEPLE_GUI_SEED the seed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_page_actions_during_searches_keep_the_table_in_step_with_its_engine() {
    let n: usize = std::env::var("MEEPLE_GUI_ACTIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(2000);
    let seed: u64 = std::env::var("MEEPLE_GUI_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(26);
    let mut rng = StdRng::seed_from_u64(seed);
    let t = table("interleave").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    let news = [
        json!({"game_type": "Connect4", "players": [engine("perfect", 40), engine("attack", 30)]}),
        json!({"game_type": "Connect4+6x5", "players": [human("Ann"), engine("attack", 20)]}),
        json!({"game_type": "Connect4", "players": [engine("random", 10), human("Bob")]}),
        json!({"game_type": "Base", "players": [engine("alphabeta", 40), engine("random", 10)]}),
        json!({"game_type": "Base", "players": [human("Ann"), engine("alphabeta", 20)]}),
        json!({"game_type": "Mastermind", "players": [human("Ann"), engine("entropy", 20)]}),
        json!({"game_type": "Mastermind+3x5", "players": [engine("knuth", 20), human("Bob")]}),
        json!({"game_type": "Connect4;InProgress;Yellow[3];4;4;3;3;5", "players": [engine("perfect", 60), engine("perfect", 60)]}),
    ];
    let mut saves: Vec<String> = Vec::new();
    let (mut checks, mut refused, mut engine_moves, mut during) = (0, 0, 0, 0);
    let mut counts = std::collections::BTreeMap::new();
    for i in 0..n {
        // Mostly let an engine that is to move start its search first, so
        // that most actions come during one.
        let engine_to_move = |s: &Value| {
            s["paused"] == false
                && s["result"].is_null()
                && s["board"]["turn"].as_u64().is_some_and(|t| s["players"][t as usize]["kind"] == "engine")
        };
        if engine_to_move(&host.state) && host.state["searching"].is_null() && rng.random_range(0..4) > 0 {
            let _ = tokio::time::timeout(
                Duration::from_secs(2),
                host.state_where(|s| !s["searching"].is_null() || !engine_to_move(s)),
            )
            .await;
        }
        let st = host.state.clone();
        let ply_before = st["board"]["ply"].as_u64();
        // A paused table is resumed more often than the others are chosen.
        let r =
            if st["paused"] == true && rng.random_range(0..3) == 0 { 30 } else { rng.random_range(0..100) };
        let (what, msg) = match r {
            0..=9 => {
                let mut m = news[rng.random_range(0..news.len())].clone();
                m["t"] = json!("new");
                m["pause"] = json!(rng.random_range(0..15));
                ("new", m)
            }
            10..=24 => ("stop", json!({"t": "stop"})),
            25..=39 => ("resume", json!({"t": "resume"})),
            40..=49 => ("undo", json!({"t": "undo"})),
            50..=53 => ("abandon", json!({"t": "abandon"})),
            54..=60 if !saves.is_empty() => {
                ("load", json!({"t": "load", "name": saves[rng.random_range(0..saves.len())]}))
            }
            61..=65 => {
                let name = format!("s{}", rng.random_range(0..4));
                if !saves.contains(&name) && !st["board"].is_null() {
                    saves.push(name.clone());
                }
                ("save", json!({"t": "save", "name": name}))
            }
            66..=89 => ("play", Value::Null),
            _ => ("wait", Value::Null),
        };
        let (what, msg) = match what {
            "play" => match random_move(&t, &mut host, &mut rng).await {
                Some(mv) => ("play", json!({"t": "play", "move": mv})),
                None => ("wait", Value::Null),
            },
            _ => (what, msg),
        };
        *counts.entry(what).or_insert(0) += 1;
        if !st["searching"].is_null() && !msg.is_null() {
            during += 1;
        }
        if msg.is_null() {
            tokio::time::sleep(Duration::from_millis(rng.random_range(0..30))).await;
        } else {
            send(&t, &host, msg).await;
            if what == "save" {
                // Answered in its turn; a save with no game is refused.
                loop {
                    let v = host.recv().await;
                    if v["t"] == "notice" || v["t"] == "error" {
                        break;
                    }
                }
            } else if host.reply().await.is_err() {
                refused += 1;
            }
        }
        if host.state["board"].as_object().is_none() {
            continue;
        }
        if host.state["board"]["ply"].as_u64() > ply_before.map(|p| p + 1) {
            engine_moves += 1;
        }
        send(&t, &host, json!({"t": "save", "name": "check"})).await;
        let v = loop {
            let v = host.recv().await;
            if v["t"] == "notice" || v["t"] == "error" {
                break v;
            }
        };
        assert_eq!(v["t"], "notice", "action {i} ({what}): {v}");
        let shown = v["game_string"].as_str().unwrap();
        let engine = saved(&t.data_dir, "check");
        assert_eq!(
            bare(shown),
            bare(&engine),
            "action {i} ({what}): the table shows {shown}, its engine has {engine}"
        );
        checks += 1;
    }
    eprintln!(
        "{n} actions {counts:?}: {during} sent during a search, {checks} checks, {refused} refused, \
         engine moves seen {engine_moves} (seed {seed})"
    );
    assert!(checks > n / 2, "{checks} checks of {n}");
    assert!(during > n / 8, "only {during} of {n} actions came during a search");
}

/// A networked table: the guest's seat is in its link (from any browser),
/// a spectator sees the board and the chat but cannot move, names show on
/// the seats and in the chat, the host frees the seat and invites again.
#[tokio::test]
async fn networked_seats_names_spectators_chat_and_freeing() {
    let t = table("net").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    act(&t, &mut host, json!({"t": "name", "name": "Ann"})).await.unwrap();
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Connect4", "pause": 0, "players": [human(""), human("")]}),
    )
    .await
    .unwrap();
    act(&t, &mut host, json!({"t": "invite", "side": 0})).await.unwrap();
    let s = host.state_where(|s| s["room"].is_string()).await;
    assert_eq!(s["me"]["you"], json!([0]));
    let key = s["me"]["guest_key"].as_str().unwrap().to_string();
    let mut guest = join(&t, 2, Some(&key)).await;
    let gw = guest.next("welcome").await;
    assert_eq!(gw["role"], "player");
    act(&t, &mut guest, json!({"t": "name", "name": "<b>Bob</b>"})).await.unwrap();
    let s = guest.state_where(|s| s["sides"][1]["name"] == "<b>Bob</b>").await;
    assert_eq!(s["me"]["you"], json!([1]));
    assert_eq!(s["sides"][0]["name"], "Ann");
    assert!(s["me"]["guest_key"].is_null(), "only the host sees the invitation's key");
    let mut spec = join(&t, 3, None).await;
    assert_eq!(spec.next("welcome").await["role"], "spectator");
    assert_eq!(spec.next("state").await["me"]["you"], json!([]));
    // Spectators see no saves; the guest cannot start a game.
    assert!(act(&t, &mut spec, json!({"t": "saves"})).await.unwrap_err().contains("host"));
    assert!(act(&t, &mut guest, json!({"t": "undo"})).await.unwrap_err().contains("host"));
    assert!(
        act(&t, &mut guest, json!({"t": "play", "move": "4"})).await.unwrap_err().contains("not your move")
    );
    act(&t, &mut host, json!({"t": "play", "move": "4"})).await.unwrap();
    spec.state_where(|s| s["board"]["ply"] == 1).await;
    assert!(
        act(&t, &mut spec, json!({"t": "play", "move": "4"})).await.unwrap_err().contains("not your move")
    );
    act(&t, &mut guest, json!({"t": "chat", "text": "nice\nmove"})).await.unwrap();
    let c = loop {
        let c = host.next("chat").await;
        if c["from"] != "" {
            break c;
        }
    };
    assert_eq!((c["from"].as_str(), c["text"].as_str()), (Some("<b>Bob</b>"), Some("nice move")));
    // The guest closes the browser; its link, opened anywhere, is its seat.
    t.tx.send(Event::Leave { id: 2 }).await.unwrap();
    let mut guest = join(&t, 4, Some(&key)).await;
    assert_eq!(guest.next("welcome").await["role"], "player");
    act(&t, &mut guest, json!({"t": "play", "move": "5"})).await.unwrap();
    let s = spec.state_where(|s| s["board"]["ply"] == 2).await;
    assert_eq!(s["history"], json!(["4", "5"]));
    // A made-up key is a spectator's.
    let mut other = join(&t, 5, Some(&"0".repeat(32))).await;
    assert_eq!(other.next("welcome").await["role"], "spectator");
    // The host frees the seat: the old link only watches, a new one plays.
    act(&t, &mut host, json!({"t": "free"})).await.unwrap();
    let s = host.state_where(|s| s["me"]["guest_key"] != json!(key)).await;
    let fresh = s["me"]["guest_key"].as_str().unwrap().to_string();
    let s = guest.state_where(|s| s["me"]["role"] == "spectator").await;
    assert_eq!(s["me"]["you"], json!([]));
    let mut again = join(&t, 6, Some(&key)).await;
    assert_eq!(again.next("welcome").await["role"], "spectator");
    let mut newcomer = join(&t, 7, Some(&fresh)).await;
    assert_eq!(newcomer.next("welcome").await["role"], "player");
}

/// Engine against engine with a pause; stop halts it at once, resume goes
/// on, abandon drops the game.
#[tokio::test]
async fn engine_against_engine_stop_resume_abandon() {
    let t = table("eve").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    send(
        &t,
        &host,
        json!({"t": "new", "game_type": "Base", "pause": 10,
        "players": [engine("random", 20), {"kind": "engine", "strategy": "random", "depth": 1}]}),
    )
    .await;
    host.state_where(|s| s["board"]["ply"] == 3).await;
    act(&t, &mut host, json!({"t": "stop"})).await.unwrap();
    let s = host.state_where(|s| s["paused"] == true).await;
    let ply = s["board"]["ply"].as_u64().unwrap();
    act(&t, &mut host, json!({"t": "resume"})).await.unwrap();
    host.state_where(|s| s["board"]["ply"].as_u64().unwrap() > ply + 1).await;
    act(&t, &mut host, json!({"t": "abandon"})).await.unwrap();
    let s = host.state_where(|s| s["board"].is_null()).await;
    assert!(s["game_string"].is_null());
    // A strategy the game does not have is refused, its text kept as text.
    let e = act(&t, &mut host, json!({"t": "new", "game_type": "Connect4", "players": [human("A"), engine("<img src=x onerror=alert(1)>", 10)]})).await.unwrap_err();
    assert!(e.contains("is not a strategy of Connect4"), "{e}");
}

/// A finished game with a named person is on the leaderboard; a clock that
/// runs out loses on time (and that too is recorded).
#[tokio::test]
async fn results_reach_the_leaderboard_and_a_clock_runs_out() {
    let t = table("results").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    // Two people, Red wins with a vertical four.
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Connect4", "pause": 0, "players": [human("Ann"), human("Bob")]}),
    )
    .await
    .unwrap();
    for mv in ["1", "2", "1", "2", "1", "2", "1"] {
        act(&t, &mut host, json!({"t": "play", "move": mv})).await.unwrap();
    }
    let s = host.state_where(|s| s["recorded"].is_string()).await;
    assert_eq!(s["result"]["winner"], 0);
    assert_eq!(s["recorded"], "the game is on the leaderboard");
    // A person whose clock runs out loses, with loss on time.
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Connect4", "pause": 0, "flag": true,
            "players": [{"kind": "human", "name": "Bob", "time": {"kind": "clock", "base": 1000, "inc": 0}},
                        engine("random", 10)]}),
    )
    .await
    .unwrap();
    // The record is written off the table's task: its state says when.
    let s = host.state_where(|s| s["result"].is_object() && s["recorded"].is_string()).await;
    assert_eq!(s["result"]["ending"], "time");
    assert_eq!(s["result"]["winner"], 1);
    assert!(s["result"]["text"].as_str().unwrap().contains("Red ran out of time"));
    send(&t, &host, json!({"t": "leaderboard", "game": "Connect4"})).await;
    let b = host.next("leaderboard").await;
    assert_eq!(b["people"][0]["name"], "Ann");
    assert_eq!(b["people"][0]["wins"], 1);
    let bob = b["people"].as_array().unwrap().iter().find(|p| p["name"] == "Bob").unwrap();
    assert_eq!(bob["losses"], 2);
    assert_eq!(b["engines"][0]["strategy"], "random");
    assert_eq!(b["engines"][0]["wins"], 1);
}

/// A Mastermind match of 4 rounds between a person and the engine: roles
/// alternate, the codemaker scores the rows used (plus one if the code is
/// not broken), and the match is recorded with its points.
#[tokio::test]
async fn a_mastermind_match_scored_as_the_seed_did() {
    let t = table("match").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Mastermind+3x4", "pause": 0, "rounds": 4,
            "players": [human("Cleo"), engine("knuth", 10)]}),
    )
    .await
    .unwrap();
    let mut rng = StdRng::seed_from_u64(3);
    let mut expect = [0u64, 0];
    for round in 0..4u64 {
        // Play the person's moves (guesses or feedback) from the tree.
        let end = loop {
            let s = host.state.clone();
            if s["result"].is_object() {
                break s;
            }
            let mine = s["me"]["you"].as_array().is_some_and(|y| y.iter().any(|x| *x == s["board"]["turn"]));
            if mine && s["searching"].is_null() {
                if let Some(mv) = random_move(&t, &mut host, &mut rng).await {
                    let _ = act(&t, &mut host, json!({"t": "play", "move": mv})).await;
                }
            } else {
                host.next("state").await;
            }
        };
        let rows = end["board"]["ply"].as_u64().unwrap().div_ceil(2);
        let broken = end["board"]["state"] == "BreakerWins";
        // Match player p is the breaker in rounds where p == round % 2.
        let maker = (1 + round) % 2;
        expect[maker as usize] += rows + u64::from(!broken);
        assert_eq!(end["match"]["points"], json!(expect), "round {round}: {}", end["game_string"]);
        if round < 3 {
            act(&t, &mut host, json!({"t": "next"})).await.unwrap();
            let s = host.state_where(|s| s["match"]["round"] == round + 2 && s["result"].is_null()).await;
            // Roles alternate: Cleo breaks in rounds 1 and 3.
            let cleo_side = s["sides"].as_array().unwrap().iter().position(|x| x["name"] == "Cleo").unwrap();
            assert_eq!(cleo_side as u64, (round + 1) % 2);
        }
    }
    let s = host.state_where(|s| s["recorded"].is_string()).await;
    assert_eq!(s["match"]["over"], true);
    assert_eq!(s["recorded"], "the match is on the leaderboard");
    send(&t, &host, json!({"t": "leaderboard", "game": "Mastermind"})).await;
    let b = host.next("leaderboard").await;
    assert_eq!(b["people"][0]["name"], "Cleo");
    assert_eq!(b["people"][0]["games"], 1);
}

/// Issue 43 item 1: a Mastermind match in which each side loses a round
/// on time. The breaker who runs out of time leaves the code unbroken (the
/// maker scores all the rows plus one, the game's `forfeit`), the maker who
/// runs out of time scores only the guesses made; each round goes to the
/// side announced, and what is stored equals what was announced.
#[tokio::test]
async fn a_mastermind_match_with_rounds_lost_on_time_is_stored_as_announced() {
    let t = table("match-time").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    let cleo = json!({"kind": "human", "name": "Cleo", "time": {"kind": "clock", "base": 1000, "inc": 0}});
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Mastermind+3x4", "pause": 0, "rounds": 2, "flag": true,
            "players": [cleo, engine("knuth", 10)]}),
    )
    .await
    .unwrap();
    // Round 1: Cleo breaks and lets her clock run out (a guess could
    // break the code by chance).
    let before = host.state_where(|s| s["board"]["turn"] == 0 && s["board"]["forfeit"].is_array()).await;
    let forfeit_breaker = before["board"]["forfeit"][0].clone();
    let end = host.state_where(|s| s["result"].is_object()).await;
    assert_eq!((end["result"]["ending"].as_str(), end["result"]["winner"].as_u64()), (Some("time"), Some(1)));
    let maker_pts = forfeit_breaker[1].as_u64().unwrap();
    assert!(maker_pts > 1, "all the rows plus one, not the rows used: {forfeit_breaker}");
    assert_eq!(end["match"]["points"], json!([0, maker_pts]));
    // Round 2: Cleo keeps the code and does not score the engine's guess.
    act(&t, &mut host, json!({"t": "next"})).await.unwrap();
    let waiting = host.state_where(|s| s["match"]["round"] == 2 && s["board"]["ply"] == 1).await;
    assert_eq!(waiting["board"]["forfeit"][1], json!([0, 1]), "the maker forfeits: it scores the guess made");
    let s = host.state_where(|s| s["match"]["over"] == true && s["recorded"].is_string()).await;
    assert_eq!((s["result"]["ending"].as_str(), s["result"]["winner"].as_u64()), (Some("time"), Some(0)));
    assert_eq!(s["match"]["points"], json!([1, maker_pts]));
    assert_eq!(s["recorded"], "the match is on the leaderboard");
    // Stored as announced: each round's points, its winner (the engine,
    // match player 2, both times) and ending, and the match's result.
    let db = rusqlite::Connection::open(t.data_dir.join("results.sqlite")).unwrap();
    let mut q = db
        .prepare(
            "SELECT g.round, g.result, g.ending, \
               (SELECT points FROM game_seat WHERE game_id = g.id AND seat = 1), \
               (SELECT points FROM game_seat WHERE game_id = g.id AND seat = 2) \
             FROM game g WHERE g.match_id IS NOT NULL ORDER BY g.round",
        )
        .unwrap();
    let rounds: Vec<(i64, String, String, i64, i64)> = q
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let m = maker_pts as i64;
    assert_eq!(
        rounds,
        vec![(1, "second".into(), "time".into(), 0, m), (2, "second".into(), "time".into(), 1, 0)]
    );
    let (result, a, b): (String, i64, i64) = db
        .query_row(
            "SELECT m.result, (SELECT points FROM match_seat WHERE match_id = m.id AND seat = 1), \
               (SELECT points FROM match_seat WHERE match_id = m.id AND seat = 2) FROM matches m",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((result.as_str(), a, b), ("second", 1, m));
}

/// The analysis of Connect Four gives `analyze`'s seven scores; Hive's
/// gives a best move; Mastermind 5x8's tree comes one level at a time.
#[tokio::test]
async fn analysis_and_tree_levels() {
    let t = table("analysis").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    act(&t, &mut host, json!({"t": "new", "game_type": "Connect4;InProgress;Red[2];4;4", "players": [human("A"), human("B")]})).await.unwrap();
    act(&t, &mut host, json!({"t": "analyze"})).await.unwrap();
    let a = loop {
        let a = host.next("analysis").await;
        if a["running"] == false {
            break a;
        }
    };
    let mut e = crate::common::Engine::start("gui-analyze");
    e.cmd("newgame Connect4;InProgress;Red[2];4;4");
    let expected = e.one("analyze");
    assert!(a["lines"].as_array().unwrap().iter().any(|l| l == &json!(expected)), "{a} vs {expected}");
    assert!(a["best"].is_string());
    // Reviewing: the board after each ply is kept.
    send(&t, &host, json!({"t": "review", "ply": 1})).await;
    let r = host.next("review").await;
    assert_eq!(r["board"]["ply"], 1);
    assert_eq!(r["move"], "4");
    act(&t, &mut host, json!({"t": "new", "game_type": "Base", "players": [human("A"), human("B")]}))
        .await
        .unwrap();
    act(&t, &mut host, json!({"t": "analyze"})).await.unwrap();
    let a = loop {
        let a = host.next("analysis").await;
        if a["running"] == false {
            break a;
        }
    };
    assert!(a["best"].is_string(), "{a}");
    // 5x8: the tree comes one level at a time, peg by peg.
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Mastermind+5x8", "players": [human("A"), engine("entropy", 10)]}),
    )
    .await
    .unwrap();
    let s = host.state_where(|s| s["board"]["family"] == "Mastermind").await;
    assert_eq!(s["tree"]["children"][0]["more"], true);
    send(&t, &host, json!({"t": "tree", "ply": 0, "prefix": ["1", "2", "3", "4"]})).await;
    let l = host.next("tree").await;
    assert_eq!(l["node"]["children"][7]["move"], "12348");
    act(&t, &mut host, json!({"t": "play", "move": "12348"})).await.unwrap();
}

/// The engine's threads and hash from the New-game form: set on the
/// engine (a refused `setoption` would fail the new game), capped by what
/// the server allows (here 1 thread and 64 MB), shown back in the state.
#[tokio::test]
async fn engine_threads_and_hash_are_set_within_the_servers_limits() {
    let t = table("limits").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    let w = host.next("welcome").await;
    assert_eq!(w["limits"], json!({"threads": 1, "hash": 64}));
    let new = |engine: Value| {
        json!({"t": "new", "game_type": "Connect4", "pause": 0,
            "players": [human("Ann"), engine_player()], "engine": engine})
    };
    fn engine_player() -> Value {
        engine("random", 10)
    }
    act(&t, &mut host, new(json!({"threads": 8, "hash": 32}))).await.unwrap();
    let s = host.state_where(|s| s["setup"]["hash"] == 32).await;
    assert_eq!(s["setup"]["threads"], 1);
    act(&t, &mut host, new(json!({"hash": 100000}))).await.unwrap();
    let s = host.state_where(|s| s["setup"]["hash"] == 64).await;
    assert_eq!(s["setup"]["threads"], 1);
    // A game still plays with them.
    act(&t, &mut host, json!({"t": "play", "move": "4"})).await.unwrap();
    host.state_where(|s| s["board"]["ply"] == 2).await;
}

/// The offline page's table (not networked): its welcome says so and
/// nobody can be invited; everything else plays as on the server.
#[tokio::test]
async fn a_table_that_is_not_networked_invites_nobody() {
    let t = table_with("offline", false).await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    assert_eq!(host.next("welcome").await["networked"], false);
    let new = json!({"t": "new", "game_type": "Connect4", "pause": 0,
        "players": [human("Ann"), engine("random", 10)]});
    act(&t, &mut host, new).await.unwrap();
    let e = act(&t, &mut host, json!({"t": "invite", "side": 0})).await.unwrap_err();
    assert!(e.contains("offline"), "{e}");
    act(&t, &mut host, json!({"t": "play", "move": "4"})).await.unwrap();
    host.state_where(|s| s["board"]["ply"] == 2).await;
    let t2 = table("networked").await;
    let mut h2 = join(&t2, 1, Some(&t2.host)).await;
    assert_eq!(h2.next("welcome").await["networked"], true);
}

/// The options the page's form sends for `family`: every option of the
/// family in `games json` but its strategy, at its default, as text.
fn form_options(games: &Value, family: &str) -> Value {
    let g = games["games"].as_array().unwrap().iter().find(|g| g["family"] == family).unwrap();
    let mut o = serde_json::Map::new();
    for opt in g["options"].as_array().unwrap() {
        let name = opt["name"].as_str().unwrap();
        if name == "Strategy" || (family == "Mastermind" && (name == "Codemaker" || name == "Secret")) {
            continue;
        }
        let v = match &opt["default"] {
            Value::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            v => v.to_string(),
        };
        o.insert(name.to_string(), json!(v));
    }
    Value::Object(o)
}

/// Issue 41, D1: "Set up a position" with a GameString of another game
/// than the form's, for every pair of games, with an engine and with two
/// people: the pasted game decides (its default strategy for the engine,
/// the form's options left out, a note says so), and the game plays on.
#[tokio::test]
async fn a_position_of_another_game_is_set_up_from_any_form() {
    let t = table("pasted").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    let games = host.next("welcome").await["games"].clone();
    let first = |f: &str| {
        let g = games["games"].as_array().unwrap().iter().find(|g| g["family"] == f).unwrap();
        g["strategies"][0].as_str().unwrap().to_string()
    };
    let pasted = [
        ("Connect4", "Connect4;InProgress;Red[2];4;4", "3", "perfect"),
        ("Hive", "Base;InProgress;White[2];wS1;bS1 wS1-", "wQ -wS1", "alphabeta"),
        ("Mastermind", "Mastermind;InProgress;Breaker[2];1234;1B1W", "5566", ""),
    ];
    for form in ["Connect4", "Hive", "Mastermind"] {
        for (family, gs, mv, _) in pasted.iter().filter(|p| p.0 != form) {
            let what = format!("{family} pasted on the {form} form");
            // Two people: the form's options are another game's.
            act(
                &t,
                &mut host,
                json!({"t": "new", "game_type": gs, "family": form, "pause": 0,
                "options": form_options(&games, form), "players": [human("Ann"), human("Bob")],
                "rounds": if form == "Mastermind" { 2 } else { 1 }}),
            )
            .await
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let s = host.state_where(|s| s["game_string"] == json!(gs)).await;
            assert_eq!(s["setup"]["family"], json!(family), "{what}");
            assert_eq!(s["setup"]["options"], json!({}), "{what}");
            assert!(s["match"].is_null(), "{what}: a single game");
            let note = s["note"].as_str().unwrap_or_default();
            assert!(
                note.contains(&format!("A {family} position set up from the {form} form")),
                "{what}: {note}"
            );
            // An engine of the form's game: the pasted game's default.
            act(
                &t,
                &mut host,
                json!({"t": "new", "game_type": gs, "family": form, "pause": 0,
                "options": form_options(&games, form), "players": [human("Ann"), engine(&first(form), 50)]}),
            )
            .await
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let s = host
                .state_where(|s| {
                    s["game_string"] == json!(gs) && s["setup"]["players"][1]["kind"] == "engine"
                })
                .await;
            let default = pasted.iter().find(|p| p.0 == *family).unwrap().3;
            let strategy = s["setup"]["players"][1]["strategy"].as_str().unwrap().to_string();
            if !default.is_empty() {
                assert_eq!(strategy, default, "{what}");
            }
            assert!(
                s["note"].as_str().unwrap().contains(&format!("default strategy ({strategy})")),
                "{what}"
            );
            let ply = s["board"]["ply"].as_u64().unwrap();
            act(&t, &mut host, json!({"t": "play", "move": mv}))
                .await
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            host.state_where(|s| s["board"]["ply"].as_u64().unwrap() == ply + 2).await;
        }
    }
    // The same family keeps the strict checks: a strategy of another game
    // is refused, and the game on the table goes on, in step with its
    // engine.
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Connect4", "family": "Connect4", "pause": 0,
        "players": [human("Ann"), human("Bob")]}),
    )
    .await
    .unwrap();
    act(&t, &mut host, json!({"t": "play", "move": "4"})).await.unwrap();
    let e = act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Base", "family": "Hive", "pause": 0,
        "players": [human("Ann"), engine("perfect", 10)]}),
    )
    .await
    .unwrap_err();
    assert!(e.contains("'perfect' is not a strategy of Hive"), "{e}");
    act(&t, &mut host, json!({"t": "play", "move": "3"})).await.unwrap();
    let s = host.state_where(|s| s["board"]["ply"] == 2).await;
    assert_eq!(s["game_string"], "Connect4;InProgress;Red[2];4;3");
    send(&t, &host, json!({"t": "save", "name": "refused-new"})).await;
    host.next("notice").await;
    assert_eq!(saved(&t.data_dir, "refused-new"), "Connect4;InProgress;Red[2];4;3");
}

/// Issue 43, item 2: one person cannot hold both seats, so a clashing name
/// is refused when it is given (the guest's, the host's, a new game's
/// players), not when the result is written; a browser is told its name
/// and role as they change.
#[tokio::test]
async fn a_name_that_is_the_other_players_is_refused_when_given() {
    let t = table("names").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    send(&t, &host, json!({"t": "name", "name": "Ann"})).await;
    let you = host.next("you").await;
    assert_eq!((you["role"].as_str(), you["name"].as_str()), (Some("host"), Some("Ann")));
    host.reply().await.unwrap();
    // A local game of two people with one name (in any case) is refused.
    for pair in [["Ann", "ANN"], ["", "ann"], ["Bo", " bo "]] {
        let e = act(
            &t,
            &mut host,
            json!({"t": "new", "game_type": "Connect4", "pause": 0,
            "players": [human(pair[0]), human(pair[1])]}),
        )
        .await
        .unwrap_err();
        assert!(e.contains("choose another name"), "{pair:?}: {e}");
    }
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Connect4", "pause": 0,
        "players": [human(""), human("Bob")]}),
    )
    .await
    .unwrap();
    // The host cannot take the other person's name in this game either.
    let e = act(&t, &mut host, json!({"t": "name", "name": "BOB"})).await.unwrap_err();
    assert!(e.contains("'BOB' is the same name as the other player's, 'Bob'"), "{e}");
    act(&t, &mut host, json!({"t": "invite", "side": 0})).await.unwrap();
    let s = host.state_where(|s| s["room"].is_string()).await;
    let key = s["me"]["guest_key"].as_str().unwrap().to_string();
    let mut guest = join(&t, 2, Some(&key)).await;
    guest.next("welcome").await;
    for clash in ["ANN", "ann", " Ann "] {
        let e = act(&t, &mut guest, json!({"t": "name", "name": clash})).await.unwrap_err();
        assert!(e.contains("choose another name"), "{clash}: {e}");
    }
    send(&t, &guest, json!({"t": "name", "name": "Cleo"})).await;
    assert_eq!(guest.next("you").await["name"], "Cleo");
    guest.reply().await.unwrap();
    let e = act(&t, &mut host, json!({"t": "name", "name": "cleo"})).await.unwrap_err();
    assert!(e.contains("'cleo' is the same name as the other player's, 'Cleo'"), "{e}");
    // An unnamed guest is `Guest`: the host cannot be called so.
    act(&t, &mut host, json!({"t": "free"})).await.unwrap();
    let e = act(&t, &mut host, json!({"t": "name", "name": "guest"})).await.unwrap_err();
    assert!(e.contains("choose another name"), "{e}");
    let s = host.state_where(|s| s["sides"][1]["name"] == "Guest").await;
    assert_eq!(s["sides"][0]["name"], "Ann");
    // A game played to the end is recorded with both names.
    let key = s["me"]["guest_key"].as_str().unwrap().to_string();
    let mut guest = join(&t, 3, Some(&key)).await;
    guest.next("welcome").await;
    act(&t, &mut guest, json!({"t": "name", "name": "Dora"})).await.unwrap();
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Connect4", "pause": 0, "players": [human(""), human("")]}),
    )
    .await
    .unwrap();
    for (b, mv) in [(1, "1"), (3, "2"), (1, "1"), (3, "2"), (1, "1"), (3, "2"), (1, "1")] {
        let who = if b == 1 { &mut host } else { &mut guest };
        act(&t, who, json!({"t": "play", "move": mv})).await.unwrap();
    }
    let s = host.state_where(|s| s["recorded"].is_string()).await;
    assert_eq!(s["recorded"], "the game is on the leaderboard");
}

/// Issue 41: the guest's link opened in a second browser gives the seat to
/// that browser and the one before watches (both told); a freed guest is
/// told it watches (its label follows).
#[tokio::test]
async fn one_browser_holds_the_guest_seat_and_each_is_told_its_role() {
    let t = table("seat").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Connect4", "pause": 0, "players": [human(""), human("")]}),
    )
    .await
    .unwrap();
    act(&t, &mut host, json!({"t": "invite", "side": 0})).await.unwrap();
    let s = host.state_where(|s| s["room"].is_string()).await;
    let key = s["me"]["guest_key"].as_str().unwrap().to_string();
    let mut a = join(&t, 2, Some(&key)).await;
    assert_eq!(a.next("welcome").await["role"], "player");
    act(&t, &mut a, json!({"t": "name", "name": "Guesty"})).await.unwrap();
    let mut b = join(&t, 3, Some(&key)).await;
    assert_eq!(b.next("welcome").await["role"], "player");
    assert!(b.next("notice").await["text"].as_str().unwrap().contains("You took your seat"));
    let you = a.next("you").await;
    assert_eq!((you["role"].as_str(), you["name"].as_str()), (Some("spectator"), Some("Guesty")));
    assert!(a.next("notice").await["text"].as_str().unwrap().contains("taken by the same invitation link"));
    let s = a.state_where(|s| s["me"]["role"] == "spectator").await;
    assert_eq!(s["me"]["you"], json!([]));
    act(&t, &mut host, json!({"t": "play", "move": "4"})).await.unwrap();
    assert!(act(&t, &mut a, json!({"t": "play", "move": "4"})).await.unwrap_err().contains("not your move"));
    act(&t, &mut b, json!({"t": "play", "move": "4"})).await.unwrap();
    // Freed: the holder is told it watches.
    act(&t, &mut host, json!({"t": "free"})).await.unwrap();
    let you = b.next("you").await;
    assert_eq!((you["role"].as_str(), you["name"].as_str()), (Some("spectator"), Some("Guesty")));
    assert!(b.next("notice").await["text"].as_str().unwrap().contains("freed your seat"));
}

/// No state carries a whole move tree: a state of a big Mastermind variant
/// is a few KB (its first level: the symbols of the first peg), and an
/// engine's move comes with the selections along its path, found level by
/// level (a guess peg by peg, a Hive piece then its destination).
#[tokio::test]
async fn small_states_and_the_path_of_an_engines_move() {
    let t = table("paths").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Mastermind+4x10+blanks", "pause": 0,
            "players": [engine("random", 10), human("Ann")]}),
    )
    .await
    .unwrap();
    let m = host.next("moved").await;
    let guess = m["move"].as_str().unwrap();
    let sels = m["select"].as_array().unwrap();
    assert_eq!(sels.len(), 4, "{m}");
    let symbols: String = sels.iter().map(|s| s["symbol"].as_str().unwrap()).collect();
    assert_eq!(symbols, guess);
    assert_eq!(sels[3]["cell"], "r1s4");
    let s = host.state_where(|s| s["board"]["ply"] == 1).await;
    let size = s.to_string().len();
    assert!(size < 8000, "a state of {size} bytes: {s}");
    // The person scores it: black, then white.
    assert_eq!(s["tree"]["children"][0]["select"][0]["slot"], "black");
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Base", "pause": 0, "players": [engine("random", 10), engine("random", 10)]}),
    )
    .await
    .unwrap();
    let mut seen = 0;
    while seen < 4 {
        let m = host.next("moved").await;
        let sels = m["select"].as_array().cloned().unwrap_or_default();
        let mv = m["move"].as_str().unwrap();
        if m["ply"].as_u64() == Some(1) {
            // The first piece has nowhere to choose: one selection.
            assert_eq!(sels.len(), 1, "{m}");
        } else if mv != "pass" {
            assert_eq!(sels.len(), 2, "{m}");
            assert_eq!(sels[0]["kind"], "piece");
            assert_eq!(sels[0]["piece"], mv.split(' ').next().unwrap());
            assert_eq!(sels[1]["kind"], "cell");
        }
        seen += 1;
    }
    act(&t, &mut host, json!({"t": "abandon"})).await.unwrap();
}

/// The results database locked by another process: the end of a game and
/// a spectator's leaderboard wait off the table's task; the table answers
/// its players meanwhile (their answers come before the record's and the
/// leaderboard's), and the record is written once the lock goes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_database_stalls_nobody() {
    let t = table("locked").await;
    meeple::results::Results::open(&t.data_dir).unwrap();
    let (release, locked) = std::sync::mpsc::channel::<()>();
    let (ready, is_ready) = std::sync::mpsc::channel::<()>();
    let path = t.data_dir.join("results.sqlite");
    let locker = std::thread::spawn(move || {
        let c = rusqlite::Connection::open(path).unwrap();
        c.execute_batch("BEGIN EXCLUSIVE").unwrap();
        ready.send(()).unwrap();
        locked.recv().unwrap();
        c.execute_batch("ROLLBACK").unwrap();
    });
    is_ready.recv().unwrap();
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    let mut spec = join(&t, 2, None).await;
    spec.next("welcome").await;
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Connect4", "pause": 0, "players": [human("Ann"), human("Bob")]}),
    )
    .await
    .unwrap();
    for mv in ["1", "2", "1", "2", "1", "2", "1"] {
        act(&t, &mut host, json!({"t": "play", "move": mv})).await.unwrap();
    }
    send(&t, &spec, json!({"t": "leaderboard"})).await;
    // The table answers at once, the database being locked.
    act(&t, &mut host, json!({"t": "name", "name": "Ann"})).await.unwrap();
    assert!(host.state["result"].is_object(), "{}", host.state);
    assert!(host.state["recorded"].is_null(), "recorded while the database is locked: {}", host.state);
    act(&t, &mut host, json!({"t": "chat", "text": "still here"})).await.unwrap();
    release.send(()).unwrap();
    locker.join().unwrap();
    let s = host.state_where(|s| s["recorded"].is_string()).await;
    assert_eq!(s["recorded"], "the game is on the leaderboard");
    // The leaderboard came or was refused, in its time, to the spectator only.
    let v = loop {
        let v = spec.recv().await;
        if v["t"] == "leaderboard" || v["t"] == "error" {
            break v;
        }
    };
    assert!(v["t"] == "leaderboard" || v["text"].as_str().is_some_and(|e| e.contains("lock")), "{v}");
}

/// What the GUI relies on to find an engine's move in the tree level by
/// level (protocol.md section 12): a move's text is its actions written
/// one after another, with or without blanks, in every game.
#[test]
fn a_moves_text_is_its_actions_in_every_game() {
    fn walk(node: &Value, prefix: &str, n: &mut usize) {
        let here: String =
            node["actions"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let path = format!("{prefix}{here}");
        if node["final"] == true {
            let mv: String = node["move"].as_str().unwrap().chars().filter(|c| !c.is_whitespace()).collect();
            assert_eq!(mv, path, "{node}");
            *n += 1;
        }
        for c in node["children"].as_array().into_iter().flatten() {
            walk(c, &path, n);
        }
    }
    let mut e = crate::common::Engine::start("gui-actions");
    e.cmd("setoption name Mastermind.Codemaker value none");
    for (game, moves) in [
        ("Connect4", vec!["4", "4"]),
        ("Base+MLP", vec!["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"]),
        ("Mastermind+3x4", vec!["123"]),
        ("Mastermind+4x6+blanks", vec![]),
    ] {
        e.cmd(&format!("newgame {game}"));
        for m in &moves {
            e.cmd(&format!("play {m}"));
        }
        let t: Value = serde_json::from_str(&e.one("movetree json")).unwrap();
        let mut n = 0;
        walk(&t, "", &mut n);
        assert!(n > 1, "{game}: {n} moves");
    }
    assert_eq!(e.close(), 0);
}

/// The review messages of a table until one that satisfies `f`.
async fn review_where(b: &mut Browser, f: impl Fn(&Value) -> bool) -> Value {
    loop {
        let v = b.next("gamereview").await;
        if f(&v) {
            return v;
        }
    }
}

/// The engine's own `review` of a game, read through a separate engine:
/// each ply's label.
fn engine_labels(gs: &str, limit: &str) -> Vec<(u64, String)> {
    let mut e = crate::common::Engine::start("gui-review-check");
    e.cmd(&format!("newgame {gs}"));
    let lines = e.cmd(&format!("review {limit}"));
    assert_eq!(e.close(), 0);
    lines
        .iter()
        .filter(|l| l.starts_with("ply "))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let at = |k: &str| w.iter().position(|x| *x == k).map(|i| w[i + 1].to_string()).unwrap();
            (at("ply").parse().unwrap(), at("label"))
        })
        .collect()
}

/// Issue 42, item 2: a player reviews a finished game through the table:
/// the review streams to every browser (a spectator's too), its labels are
/// the engine's, a better move is shown on a board, and each side's
/// accuracy is stored with the game's record (the leaderboard shows it).
/// A spectator cannot start one, and one runs at a time.
#[tokio::test]
async fn a_finished_game_is_reviewed_and_its_accuracy_stored() {
    let t = table("review").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    let mut spec = join(&t, 2, None).await;
    assert_eq!(spec.next("welcome").await["role"], "spectator");
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Connect4", "pause": 0, "players": [human("Ann"), human("Bob")]}),
    )
    .await
    .unwrap();
    // Nothing to review before a move.
    assert!(act(&t, &mut host, json!({"t": "judge"})).await.unwrap_err().contains("no move"));
    for mv in ["4", "1", "4", "1", "4", "1", "4"] {
        act(&t, &mut host, json!({"t": "play", "move": mv})).await.unwrap();
    }
    let s = host.state_where(|s| s["result"].is_object()).await;
    let gs = s["game_string"].as_str().unwrap().to_string();
    assert!(act(&t, &mut spec, json!({"t": "judge"})).await.unwrap_err().contains("spectators"));
    assert!(act(&t, &mut host, json!({"t": "judge", "limit": "infinite"})).await.is_err());
    act(&t, &mut host, json!({"t": "judge", "limit": ""})).await.unwrap();
    let first = host.next("gamereview").await;
    assert_eq!(first["plies"], 7);
    let done = review_where(&mut host, |r| r["running"] == false).await;
    let seen = review_where(&mut spec, |r| r["running"] == false).await;
    assert_eq!(seen["moves"], done["moves"], "every browser sees the review");
    let labels: Vec<(u64, String)> = done["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["ply"].as_u64().unwrap(), m["label"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(labels, engine_labels(&gs, ""));
    assert_eq!(done["sides"].as_array().unwrap().len(), 2);
    assert_eq!(done["progress"]["done"], done["progress"]["total"]);
    // The accuracy is stored with the game's record.
    let stored = review_where(&mut host, |r| r["stored"].is_string()).await;
    assert_eq!(stored["stored"], "each side's accuracy is stored with the game's result", "{stored}");
    send(&t, &host, json!({"t": "leaderboard", "game": "Connect4"})).await;
    let b = host.next("leaderboard").await;
    let acc = |name: &str| {
        b["people"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap()["accuracy"].as_f64()
    };
    let side_acc = |s: usize| done["sides"][s]["accuracy"].as_f64().unwrap();
    assert!((acc("Ann").unwrap() - side_acc(0)).abs() < 0.01, "{b}");
    assert!((acc("Bob").unwrap() - side_acc(1)).abs() < 0.01, "{b}");
    // A better move: the position before Yellow's first move with 4
    // played instead; the game's position is put back after.
    let bad = done["moves"].as_array().unwrap().iter().find(|m| m["best"] != m["move"]).unwrap().clone();
    let ply = bad["ply"].as_u64().unwrap();
    send(&t, &host, json!({"t": "better", "ply": ply})).await;
    let m = host.next("better").await;
    assert_eq!(m["move"], bad["best"]);
    assert_eq!(m["board"]["ply"], ply);
    let col = bad["best"].as_str().unwrap();
    let cell =
        m["board"]["cells"].as_array().unwrap().iter().find(|c| c["id"] == format!("c{col}r2")).unwrap();
    assert_eq!(cell["pieces"][0]["side"], 1, "{cell}");
    assert!(act(&t, &mut host, json!({"t": "better", "ply": 1})).await.unwrap_err().contains("best"));
    send(&t, &host, json!({"t": "save", "name": "after-better"})).await;
    host.next("notice").await;
    assert_eq!(bare(&saved(&t.data_dir, "after-better")), bare(&gs));
    // A browser that joins later is shown the review.
    let mut late = join(&t, 3, None).await;
    let r = late.next("gamereview").await;
    assert_eq!(r["moves"], done["moves"]);
    // A new game clears the review from every browser.
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Connect4", "pause": 0, "players": [human("Ann"), human("Bob")]}),
    )
    .await
    .unwrap();
    review_where(&mut spec, |r| r["none"] == true).await;
}

/// A review during a game and Stop: a Hive game between two people is
/// reviewed so far; Stop ends it with what was judged, a move during a
/// review cancels it and is played, and the table stays in step with its
/// engine. A review of a game in progress stores no accuracy.
#[tokio::test]
async fn a_review_is_stopped_or_cancelled_by_a_move() {
    let t = table("review-stop").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Base", "pause": 0, "players": [human("Ann"), human("Bob")]}),
    )
    .await
    .unwrap();
    let mut rng = StdRng::seed_from_u64(42);
    for ply in 0..8 {
        host.state_where(|s| s["board"]["ply"] == ply).await;
        let mv = random_move(&t, &mut host, &mut rng).await.unwrap();
        act(&t, &mut host, json!({"t": "play", "move": mv})).await.unwrap();
    }
    host.state_where(|s| s["board"]["ply"] == 8).await;
    // Stop once the first position is judged: a whole reply, fewer plies.
    act(&t, &mut host, json!({"t": "judge", "limit": "movetime 1500"})).await.unwrap();
    review_where(&mut host, |r| r["progress"]["done"].as_u64() >= Some(1)).await;
    assert!(act(&t, &mut host, json!({"t": "judge"})).await.unwrap_err().contains("running"));
    act(&t, &mut host, json!({"t": "judgestop"})).await.unwrap();
    let r = review_where(&mut host, |r| r["running"] == false).await;
    assert_eq!(r["stopped"], true);
    assert!(r["moves"].as_array().unwrap().len() < 8, "{r}");
    assert!(r["error"].is_null(), "{r}");
    // A move during a review cancels it; the move is played. The levels
    // of the move tree wait for the review (the page says so).
    let mv = random_move(&t, &mut host, &mut rng).await.unwrap();
    act(&t, &mut host, json!({"t": "judge", "limit": "movetime 1500"})).await.unwrap();
    review_where(&mut host, |r| r["running"] == true).await;
    let e = act(&t, &mut host, json!({"t": "tree", "ply": 8, "prefix": ["wQ"]})).await.unwrap_err();
    assert!(e.contains("review"), "{e}");
    send(&t, &host, json!({"t": "play", "move": mv})).await;
    review_where(&mut host, |r| r["none"] == true).await;
    assert_eq!(host.reply().await, Ok(()));
    let s = host.state_where(|s| s["board"]["ply"] == 9).await;
    let gs = s["game_string"].as_str().unwrap().to_string();
    send(&t, &host, json!({"t": "save", "name": "after-cancel"})).await;
    host.next("notice").await;
    assert_eq!(saved(&t.data_dir, "after-cancel"), gs);
    // A whole review of the game so far: no accuracy is stored.
    act(&t, &mut host, json!({"t": "judge", "limit": "depth 1"})).await.unwrap();
    let r = review_where(&mut host, |r| r["running"] == false).await;
    assert_eq!(r["moves"].as_array().unwrap().len(), 9, "{r}");
    assert_eq!(r["finished"], false);
    assert!(r["stored"].is_null());
    let labels: Vec<String> =
        r["moves"].as_array().unwrap().iter().map(|m| m["label"].as_str().unwrap().to_string()).collect();
    assert_eq!(labels, engine_labels(&gs, "depth 1").into_iter().map(|(_, l)| l).collect::<Vec<_>>());
    // The table answers at once meanwhile and after.
    act(&t, &mut host, json!({"t": "undo"})).await.unwrap();
    host.state_where(|s| s["board"]["ply"] == 8).await;
}

/// An engine about to move waits for a review of the game so far: its
/// turn is paused (the page says so), and Resume lets it move.
#[tokio::test]
async fn an_engine_about_to_move_waits_for_the_review() {
    let t = table("review-pause").await;
    let mut host = join(&t, 1, Some(&t.host)).await;
    host.next("welcome").await;
    act(
        &t,
        &mut host,
        json!({"t": "new", "game_type": "Connect4", "pause": 3000, "players": [human("Ann"), engine("random", 10)]}),
    )
    .await
    .unwrap();
    act(&t, &mut host, json!({"t": "play", "move": "4"})).await.unwrap();
    host.state_where(|s| s["board"]["ply"] == 1).await;
    act(&t, &mut host, json!({"t": "judge"})).await.unwrap();
    let s = host.state_where(|s| s["paused"] == true).await;
    assert!(s["note"].as_str().unwrap().contains("Resume"), "{s}");
    let r = review_where(&mut host, |r| r["running"] == false).await;
    assert_eq!(r["moves"][0]["move"], "4");
    assert_eq!(r["moves"][0]["label"], "best");
    assert_eq!(host.state["board"]["ply"], 1, "the engine waited");
    act(&t, &mut host, json!({"t": "resume"})).await.unwrap();
    host.state_where(|s| s["board"]["ply"] == 2).await;
}
