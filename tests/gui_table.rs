//! The GUI server's table driven directly (no browser): a real engine
//! process behind it, browsers simulated by channels.
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use meeple::gui::engine::Engine;
use meeple::gui::table::{Event, Table};
use serde_json::{Value, json};
use tokio::sync::mpsc;

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

struct Browser {
    rx: mpsc::UnboundedReceiver<String>,
    id: u64,
}

impl Browser {
    /// The next message of type `t` (others are skipped).
    async fn next(&mut self, t: &str) -> Value {
        loop {
            let m = tokio::time::timeout(Duration::from_secs(60), self.rx.recv())
                .await
                .expect("no message within a minute")
                .expect("table gone");
            let v: Value = serde_json::from_str(&m).unwrap();
            if v["t"] == t {
                return v;
            }
        }
    }

    /// The next state whose board satisfies `f`.
    async fn state_where(&mut self, f: impl Fn(&Value) -> bool) -> Value {
        loop {
            let s = self.next("state").await;
            if f(&s) {
                return s;
            }
        }
    }
}

async fn table() -> mpsc::UnboundedSender<Event> {
    let dir = std::env::temp_dir().join(format!("meeple-gui-table-{}", std::process::id()));
    let engine = Engine::spawn(Path::new(env!("CARGO_BIN_EXE_meeple")), &dir).await.unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(Table::new(engine, Arc::new(Mutex::new(Default::default())), tx.clone()).run(rx));
    tx
}

fn join(t: &mpsc::UnboundedSender<Event>, id: u64, me: Option<String>) -> Browser {
    let (tx, rx) = mpsc::unbounded_channel();
    t.send(Event::Join { id, tx, me }).unwrap();
    Browser { rx, id }
}

fn send(t: &mpsc::UnboundedSender<Event>, b: &Browser, v: Value) {
    t.send(Event::Msg { id: b.id, text: v.to_string() }).unwrap();
}

/// A person against the engine: the person's move, then the engine's
/// (announced with the tree it was chosen from), undo back to the person.
#[tokio::test]
async fn person_against_engine_and_undo() {
    let t = table().await;
    let mut host = join(&t, 1, None);
    let w = host.next("welcome").await;
    assert_eq!(w["role"], "host");
    assert_eq!(w["games"]["games"][0]["family"], "Connect4");
    send(
        &t,
        &host,
        json!({"t": "new", "game_type": "Connect4+5x4", "pause": 0,
        "players": [{"kind": "human"}, {"kind": "engine", "strategy": "random", "movetime": 50}]}),
    );
    let s = host.state_where(|s| s["board"]["ply"] == 0).await;
    assert_eq!(s["you"], json!([0]));
    assert_eq!(s["tree"]["children"].as_array().unwrap().len(), 5);
    send(&t, &host, json!({"t": "play", "move": "3"}));
    let m = host.next("moved").await;
    assert_eq!(m["move"], "3");
    let m = host.next("moved").await;
    assert_eq!(m["engine"], true);
    assert_eq!(m["side"], 1);
    assert!(m["tree"]["children"].is_array());
    let s = host.state_where(|s| s["board"]["ply"] == 2).await;
    assert_eq!(s["history"].as_array().unwrap().len(), 2);
    assert!(s["game_string"].as_str().unwrap().starts_with("Connect4+5x4;InProgress;Red[2];3;"));
    // Not the person's move while the engine is to move: refused.
    send(&t, &host, json!({"t": "undo"}));
    let s = host.state_where(|s| s["board"]["ply"] == 0).await;
    assert_eq!(s["history"], json!([]));
    send(&t, &host, json!({"t": "play", "move": "9"}));
    assert!(host.next("error").await["text"].as_str().unwrap().contains("not a column"));
}

/// A networked table: the guest holds the other seat, a spectator sees
/// the board and the chat but cannot move, a dropped guest rejoins its
/// seat with its key.
#[tokio::test]
async fn networked_seats_spectators_chat_and_rejoin() {
    let t = table().await;
    let mut host = join(&t, 1, None);
    host.next("welcome").await;
    send(
        &t,
        &host,
        json!({"t": "new", "game_type": "Connect4", "pause": 0,
        "players": [{"kind": "human"}, {"kind": "human"}]}),
    );
    send(&t, &host, json!({"t": "invite", "side": 0}));
    let s = host.state_where(|s| s["room"].is_string()).await;
    assert_eq!(s["you"], json!([0]));
    let mut guest = join(&t, 2, None);
    let gw = guest.next("welcome").await;
    assert_eq!(gw["role"], "player");
    let key = gw["me"].as_str().unwrap().to_string();
    let s = guest.next("state").await;
    assert_eq!(s["you"], json!([1]));
    let mut spec = join(&t, 3, None);
    assert_eq!(spec.next("welcome").await["role"], "spectator");
    assert_eq!(spec.next("state").await["you"], json!([]));
    // The guest may not move for the host, nor start a new game.
    send(&t, &guest, json!({"t": "play", "move": "4"}));
    assert!(guest.next("error").await["text"].as_str().unwrap().contains("not your move"));
    send(&t, &guest, json!({"t": "undo"}));
    assert!(guest.next("error").await["text"].as_str().unwrap().contains("host"));
    send(&t, &host, json!({"t": "play", "move": "4"}));
    spec.state_where(|s| s["board"]["ply"] == 1).await;
    send(&t, &spec, json!({"t": "play", "move": "4"}));
    assert!(spec.next("error").await["text"].as_str().unwrap().contains("not your move"));
    send(&t, &spec, json!({"t": "chat", "text": "nice\nmove"}));
    let mut c = host.next("chat").await;
    // Joins are announced in the chat by the table (from nobody).
    while c["from"] == "" {
        c = host.next("chat").await;
    }
    assert_eq!(c["text"], "nicemove");
    assert_eq!(c["from"], "Spectator 1");
    // The guest drops and rejoins its seat.
    t.send(Event::Leave { id: 2 }).unwrap();
    let mut guest = join(&t, 4, Some(key.clone()));
    let gw = guest.next("welcome").await;
    assert_eq!(gw["me"], key.as_str());
    assert_eq!(gw["role"], "player");
    send(&t, &guest, json!({"t": "play", "move": "5"}));
    let s = spec.state_where(|s| s["board"]["ply"] == 2).await;
    assert_eq!(s["history"], json!(["4", "5"]));
    // A stranger with a made-up key is only a spectator.
    let mut other = join(&t, 5, Some("0".repeat(32)));
    assert_eq!(other.next("welcome").await["role"], "spectator");
}

/// Engine against engine with a pause; stop halts it at once, resume goes
/// on, abandon drops the game.
#[tokio::test]
async fn engine_against_engine_stop_resume_abandon() {
    let t = table().await;
    let mut host = join(&t, 1, None);
    host.next("welcome").await;
    send(
        &t,
        &host,
        json!({"t": "new", "game_type": "Base", "pause": 10,
        "players": [{"kind": "engine", "strategy": "random", "movetime": 20},
                    {"kind": "engine", "strategy": "random", "depth": 1}]}),
    );
    host.state_where(|s| s["board"]["ply"] == 3).await;
    send(&t, &host, json!({"t": "stop"}));
    let s = host.state_where(|s| s["paused"] == true).await;
    let ply = s["board"]["ply"].as_u64().unwrap();
    send(&t, &host, json!({"t": "resume"}));
    host.state_where(|s| s["board"]["ply"].as_u64().unwrap() > ply + 1).await;
    send(&t, &host, json!({"t": "abandon"}));
    let s = host.state_where(|s| s["board"].is_null()).await;
    assert!(s["game_string"].is_null());
}
