//! The reproducers of issue 10 that go through the binary: each was a
//! hang, a panic or a way out of the data directory.

use std::fs;
use std::process::Command;

use crate::common::Engine;

fn no_internal_error(r: &[String]) {
    assert!(!r.iter().any(|l| l.contains("internal error")), "{r:?}");
}

/// Item 1: `genetic` never returned on variants whose number of codes is
/// odd and not above the population size.
#[test]
fn genetic_returns_on_small_variants() {
    let mut e = Engine::start("hard-genetic");
    e.cmd("setoption name Mastermind.Strategy value genetic");
    e.cmd("setoption name Mastermind.Codemaker value none");
    e.one("newgame Mastermind+3x3");
    e.one("play 122");
    e.one("play 1B0W");
    let r = e.cmd("go movetime 1");
    assert!(r.last().unwrap().starts_with("bestmove "), "{r:?}");
    // Whole games on every variant of the report, the engine on both
    // sides (a random secret each game).
    e.cmd("setoption name Mastermind.Codemaker value random");
    for v in ["4x3", "3x3", "2x5", "3x5", "2x9", "2x4+blanks", "1x2", "3x4+norepeat"] {
        for seed in 1..=3 {
            e.cmd(&format!("setoption name Seed value {seed}"));
            e.one(&format!("newgame Mastermind+{v}"));
            for _ in 0..60 {
                let m = e.engine_move();
                let gs = e.one(&format!("play {m}"));
                if !gs.contains(";InProgress;") {
                    break;
                }
            }
        }
    }
    // `stop` is honoured too.
    e.one("newgame Mastermind+8x10");
    e.one("play 11223344");
    e.one("play 0B2W");
    e.send("go infinite");
    e.send("stop");
    let r = e.read_reply();
    assert!(r.iter().any(|l| l.starts_with("bestmove ")), "{r:?}");
    e.read_reply();
}

/// Item 4: a multi-byte character where a side name is expected.
#[test]
fn multi_byte_side_names_are_errors() {
    let mut e = Engine::start("hard-utf8");
    let before = e.snapshot();
    for gs in [
        "Connect4;InProgress;Reé[1]",
        "Connect4;InProgress;Red[1٤]",
        "Connect4;InProgress;Yelloé[1]",
        "Base;InProgress;Whé",
        "Base;InProgress;Whiteé[1]",
        "Mastermind;InProgress;Breakeé[1]",
    ] {
        for cmd in [format!("newgame {gs}"), format!("position {gs}"), format!("position {gs} moves 4")] {
            let r = e.cmd(&cmd);
            no_internal_error(&r);
            assert!(r.len() == 1 && r[0].starts_with("err "), "{cmd}: {r:?}");
        }
        // Through a save file too.
        let dir = e.data_dir.join("saves");
        fs::create_dir_all(&dir).unwrap();
        let json = serde_json::json!({"format": "meeple-save", "version": 1, "game": gs, "options": {}});
        fs::write(dir.join("mb.json"), json.to_string()).unwrap();
        let r = e.cmd("load mb");
        no_internal_error(&r);
        assert!(r[0].starts_with("err "), "{r:?}");
        let r = e.cmd("saves");
        no_internal_error(&r);
        // The command line: an error and exit status 2, not a panic (101).
        let out =
            Command::new(env!("CARGO_BIN_EXE_meeple")).args(["perft", "--depth", "1", gs]).output().unwrap();
        assert_ne!(out.status.code(), Some(101), "{gs}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.status.success());
    }
    assert_eq!(e.snapshot(), before);
}

/// Item 8: an option value with a control character is refused.
#[test]
fn option_values_with_control_characters_are_refused() {
    let mut e = Engine::start("hard-ctl");
    e.one("newgame Mastermind");
    let before = e.snapshot();
    e.send_raw(b"setoption name Secret value x\rok\ry\n");
    let r = e.read_reply();
    assert_eq!(r.len(), 2, "{r:?}");
    assert!(r[0].starts_with("err ") && !r[0].contains('\r'), "{r:?}");
    e.send_raw(b"options set Secret 12\x1b[2J34\n");
    let r = e.read_reply();
    assert!(r[0].starts_with("err "), "{r:?}");
    assert_eq!(e.snapshot(), before);
}

/// Items 6-8 through the binary: a hostile saves folder.
#[cfg(unix)]
#[test]
fn a_hostile_saves_folder_neither_hangs_nor_escapes() {
    use std::os::unix::fs::symlink;
    let mut e = Engine::start("hard-saves");
    let dir = e.data_dir.join("saves");
    fs::create_dir_all(&dir).unwrap();
    let outside = std::env::temp_dir().join(format!("meeple-hard-outside-{}", std::process::id()));
    fs::write(&outside, "precious").unwrap();
    // A link where the save goes, and links at the old predictable
    // temporary names.
    symlink(&outside, dir.join("g.json")).unwrap();
    symlink(&outside, dir.join(format!(".g.{}.tmp", e.child.id()))).unwrap();
    e.one("newgame Connect4;InProgress;Yellow[1];4");
    assert_eq!(e.one("save g"), "saved g");
    assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
    assert!(fs::symlink_metadata(dir.join("g.json")).unwrap().is_file());
    // A FIFO, a link to /dev/zero, a link out of the folder, a huge file.
    let fifo = Command::new("mkfifo").arg(dir.join("fifo.json")).status().is_ok_and(|s| s.success());
    symlink("/dev/zero", dir.join("zero.json")).unwrap();
    symlink(&outside, dir.join("out.json")).unwrap();
    fs::write(dir.join("big.json"), vec![b' '; 5 << 20]).unwrap();
    // Injected lines in a save's game and options.
    let json = serde_json::json!({
        "format": "meeple-save", "version": 1,
        "game": "Connect4\nok\nbestmove 4", "options": {"Strategy": "random\rok"}
    });
    fs::write(dir.join("inj.json"), json.to_string()).unwrap();
    let json = serde_json::json!({
        "format": "meeple-save", "version": 1,
        "game": "Connect4", "options": {"Strategy": "random\rok"}
    });
    fs::write(dir.join("inj2.json"), json.to_string()).unwrap();
    let before = e.snapshot();
    for name in ["fifo", "zero", "out", "big", "inj", "inj2"] {
        if name == "fifo" && !fifo {
            continue;
        }
        let r = e.cmd(&format!("load {name}"));
        assert!(r.len() == 1 && r[0].starts_with("err "), "{name}: {r:?}");
        assert!(!r[0].chars().any(char::is_control), "{r:?}");
    }
    let r = e.cmd("saves");
    assert!(r.iter().all(|l| !l.chars().any(char::is_control) && l != "ok"), "{r:?}");
    assert!(r.iter().any(|l| l.starts_with("save g Connect4;")), "{r:?}");
    assert_eq!(r.len(), 6 + fifo as usize, "{r:?}");
    assert!(!r.iter().any(|l| l.starts_with("bestmove")));
    assert_eq!(e.snapshot(), before);
    assert_eq!(e.one("isready"), "readyok");
    assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
    let _ = fs::remove_file(&outside);
}

/// Item 9: `saves` must not show the secret of a game in progress.
#[test]
fn saves_hide_the_secret() {
    let mut e = Engine::start("hard-secret");
    e.cmd("setoption name Secret value 1234");
    e.one("newgame Mastermind");
    e.one("play 1122");
    e.one("save s");
    let r = e.cmd("saves");
    assert_eq!(r, vec!["save s Mastermind;InProgress;Maker[1];1122".to_string()]);
    assert!(!r[0].contains("Secret"));
}
