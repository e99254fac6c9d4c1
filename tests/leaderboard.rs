//! `meeple leaderboard` on data folders prepared through the library
//! (`meeple::results`): the table, the JSON, the filters, a missing
//! database (an empty table, nothing created) and a corrupt one (an error).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

use meeple::results::{Ending, GameRecord, MatchRecord, Outcome, Place, Player, Results, Round, Seat};
use serde_json::{Value, json};

use crate::common::unique_dir;

fn run(data_dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meeple"))
        .arg("--data-dir")
        .arg(data_dir)
        .arg("leaderboard")
        .args(args)
        .output()
        .expect("run meeple leaderboard")
}

fn stdout_of(data_dir: &Path, args: &[&str]) -> String {
    let o = run(data_dir, args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

fn json_of(data_dir: &Path, args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    serde_json::from_str(&stdout_of(data_dir, &a)).unwrap()
}

fn game(family: &str, a: (&str, Player), b: (&str, Player), result: Outcome, place: Place) -> GameRecord {
    GameRecord {
        when: SystemTime::now(),
        family: family.into(),
        game_type: family.into(),
        game_string: format!("{family};InProgress;{}[1]", a.0),
        seats: [Seat::new(a.0, a.1), Seat::new(b.0, b.1)],
        result,
        ending: Ending::Normal,
        place,
    }
}

/// Ann: Connect Four won, Hive lost and drawn, the match won (5-3): 2-1-1.
/// bob: Connect Four lost, Hive won and drawn: 1-1-1. perfect at
/// movetime 300: 1-1-0; perfect with no level: the match lost, 0-1-0.
/// Reviewed: Ann's Connect Four win (90, known when recorded) and the Hive
/// draw (Ann 70, bob 60, set afterwards): Ann's accuracy 80 over 2, bob's
/// 60 over 1.
fn prepare() -> PathBuf {
    let d = unique_dir("meeple-it-leaderboard");
    let _ = fs::remove_dir_all(&d);
    let mut r = Results::open(&d).unwrap();
    let ann = || Player::person("Ann");
    let bob = || Player::person("bob");
    let perfect = || Player::engine("perfect", "movetime 300");
    use Outcome::*;
    let mut reviewed = game("Connect4", ("Yellow", ann()), ("Red", perfect()), First, Place::Gui);
    reviewed.seats[0].accuracy = Some(90.0);
    let mut ids = Vec::new();
    for g in [
        reviewed,
        game("Connect4", ("Yellow", bob()), ("Red", perfect()), Second, Place::Play),
        game("Hive", ("White", bob()), ("Black", ann()), First, Place::Gui),
        game("Hive", ("White", ann()), ("Black", bob()), Draw, Place::Gui),
    ] {
        ids.push(r.record_game(&g).unwrap().unwrap());
    }
    r.set_accuracy(ids[3], [Some(70.0), Some(60.0)]).unwrap();
    let round = |sides: [&str; 2], result, points| Round {
        game_string: "Mastermind;BreakerWins;Breaker[2];1122;1B1W;1212;4B0W".into(),
        sides: sides.map(String::from),
        result,
        ending: Ending::Normal,
        points,
    };
    let m = MatchRecord {
        when: SystemTime::now(),
        family: "Mastermind".into(),
        game_type: "Mastermind".into(),
        players: [Player::person("ann"), Player::engine("perfect", "")],
        rounds_planned: 2,
        rounds: vec![round(["Maker", "Breaker"], Second, [5, 0]), round(["Breaker", "Maker"], First, [0, 3])],
        result: First,
        ending: Ending::Normal,
        place: Place::Play,
    };
    r.record_match(&m).unwrap().unwrap();
    d
}

#[test]
fn the_table_and_the_json() {
    let d = prepare();
    let table = stdout_of(&d, &[]);
    assert_eq!(
        table,
        "People by wins (all games, top 10):\n\
         \x20 #  Name  Won  Lost  Drawn  Games   Acc\n\
         \x20 1  Ann     2     1      1      4  80.0\n\
         \x20 2  bob     1     1      1      3  60.0\n\
         \n\
         Engines against people (all games; won, lost, drawn by the engine):\n\
         \x20 Strategy  Level         Won  Lost  Drawn  Games\n\
         \x20 perfect                   0     1      0      1\n\
         \x20 perfect   movetime 300    1     1      0      2\n",
        "{table}"
    );
    let j = json_of(&d, &[]);
    assert_eq!(j["exists"], json!(true));
    assert_eq!(j["top"], json!(10));
    assert_eq!(j["pending"], json!(0));
    assert_eq!(
        j["people"],
        json!([
            {"name": "Ann", "wins": 2, "losses": 1, "draws": 1, "games": 4, "accuracy": 80.0, "reviewed": 2},
            {"name": "bob", "wins": 1, "losses": 1, "draws": 1, "games": 3, "accuracy": 60.0, "reviewed": 1},
        ])
    );
    assert_eq!(
        j["engines"],
        json!([
            {"strategy": "perfect", "level": "", "wins": 0, "losses": 1, "draws": 0, "games": 1},
            {"strategy": "perfect", "level": "movetime 300", "wins": 1, "losses": 1, "draws": 0, "games": 2},
        ])
    );
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn the_filters() {
    let d = prepare();
    let people = |args: &[&str]| -> Vec<(String, u64, u64, u64, u64)> {
        let j = json_of(&d, args);
        j["people"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let n = |k: &str| p[k].as_u64().unwrap();
                (p["name"].as_str().unwrap().to_string(), n("wins"), n("losses"), n("draws"), n("games"))
            })
            .collect()
    };
    let row = |n: &str, w, l, dr, g| (n.to_string(), w, l, dr, g);
    // Hive only (any case of the family).
    assert_eq!(people(&["--game", "hive"]), vec![row("bob", 1, 0, 1, 2), row("Ann", 0, 1, 1, 2)]);
    // Against perfect at any level, then at one.
    assert_eq!(people(&["--vs", "engine:perfect"]), vec![row("Ann", 2, 0, 0, 2), row("bob", 0, 1, 0, 1)]);
    assert_eq!(people(&["--vs", "engine:perfect:"]), vec![row("Ann", 1, 0, 0, 1)]);
    assert_eq!(people(&["--vs", "engine:perfect:movetime 300", "--game", "Connect4"]), {
        vec![row("Ann", 1, 0, 0, 1), row("bob", 0, 1, 0, 1)]
    });
    // Against a person: people and engines.
    assert_eq!(people(&["--vs", "ANN"]), vec![row("bob", 1, 0, 1, 2)]);
    let j = json_of(&d, &["--vs", "person:ann"]);
    assert_eq!(j["engines"].as_array().unwrap().len(), 2);
    assert_eq!(j["games"], json!("games against ann"));
    // The top one.
    assert_eq!(people(&["--top", "1"]), vec![row("Ann", 2, 1, 1, 4)]);
    // The filters in the table's heading; a filter matching nothing.
    let t = stdout_of(&d, &["--game", "Mastermind", "--vs", "engine:perfect"]);
    assert!(
        t.starts_with("People by wins (Mastermind games against engine perfect (any level), top 10):\n"),
        "{t}"
    );
    let t = stdout_of(&d, &["--vs", "Zed"]);
    assert!(t.starts_with("No games recorded for games against Zed.\n"), "{t}");
    assert_eq!(t.matches("(none)").count(), 2, "{t}");
    // Refused arguments: an unknown family, a bad name, no room at the top.
    for bad in [&["--game", "Chess"][..], &["--vs", "a\u{2028}b"], &["--vs", "engine:"], &["--top", "0"]] {
        let o = run(&d, bad);
        assert!(!o.status.success(), "{bad:?}");
        assert!(o.stdout.is_empty());
        assert!(!o.stderr.is_empty());
    }
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn no_database_is_an_empty_table_and_creates_nothing() {
    let d = unique_dir("meeple-it-leaderboard-none");
    let _ = fs::remove_dir_all(&d);
    let t = stdout_of(&d, &[]);
    assert!(t.starts_with("No results yet: "), "{t}");
    assert_eq!(t.matches("(none)").count(), 2, "{t}");
    let j = json_of(&d, &["--game", "Connect4"]);
    assert_eq!(j["exists"], json!(false));
    assert_eq!(j["people"], json!([]));
    assert_eq!(j["engines"], json!([]));
    assert!(!d.exists());
    // An empty folder stays empty.
    fs::create_dir_all(&d).unwrap();
    stdout_of(&d, &[]);
    assert_eq!(fs::read_dir(&d).unwrap().count(), 0);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_corrupt_or_strange_database_is_an_error() {
    let d = unique_dir("meeple-it-leaderboard-bad");
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    let path = d.join(meeple::results::FILE_NAME);
    fs::write(&path, "not SQLite at all, but long enough to be read as a database header....").unwrap();
    for args in [&[][..], &["--json"]] {
        let o = run(&d, args);
        assert!(!o.status.success());
        assert!(o.stdout.is_empty());
        let e = String::from_utf8(o.stderr).unwrap();
        assert!(e.starts_with("meeple: results database ") && e.contains("not a database"), "{e}");
    }
    fs::remove_file(&path).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc/passwd", &path).unwrap();
        let o = run(&d, &[]);
        assert!(!o.status.success());
        assert!(String::from_utf8(o.stderr).unwrap().contains("symbolic link"));
    }
    fs::remove_dir_all(&d).unwrap();
}

/// Opens (creating its tables) the referee's store on `db`, through the
/// referee's own code.
fn referee_opens(db: &Path) {
    let o = Command::new("python3")
        .args(["-c", "import sys; sys.path.insert(0, 'scripts'); from referee import store; store.open_db(sys.argv[1]).close()"])
        .arg(db)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3 must be installed to run the referee");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The referee's default --db is the same file: either may come first.
#[test]
fn the_referee_shares_the_file() {
    let d = prepare();
    let table = stdout_of(&d, &[]);
    referee_opens(&d.join(meeple::results::FILE_NAME));
    assert_eq!(stdout_of(&d, &[]), table);
    fs::remove_dir_all(&d).unwrap();

    let d = unique_dir("meeple-it-leaderboard-referee");
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    let db = d.join(meeple::results::FILE_NAME);
    referee_opens(&db);
    let before = fs::read(&db).unwrap();
    assert!(stdout_of(&d, &[]).starts_with("No games recorded yet in "));
    assert_eq!(fs::read(&db).unwrap(), before);
    let mut r = Results::open(&d).unwrap();
    r.record_game(&game(
        "Connect4",
        ("Yellow", Player::person("Ann")),
        ("Red", Player::person("bob")),
        Outcome::Draw,
        Place::Gui,
    ))
    .unwrap();
    drop(r);
    referee_opens(&db);
    assert_eq!(
        json_of(&d, &[])["people"],
        json!([
            {"name": "Ann", "wins": 0, "losses": 0, "draws": 1, "games": 1, "accuracy": null, "reviewed": 0},
            {"name": "bob", "wins": 0, "losses": 0, "draws": 1, "games": 1, "accuracy": null, "reviewed": 0},
        ])
    );
    fs::remove_dir_all(&d).unwrap();
}
