use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;

/// A fresh, empty data directory (not created).
fn tempdir(tag: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("meeple-results-{tag}-{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

/// Runs `f` on a thread: a hang fails the test instead of blocking it.
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60)).expect("finished (did not hang)")
}

fn person(name: &str) -> Player {
    Player::person(name)
}

fn engine(strategy: &str, level: &str) -> Player {
    Player::engine(strategy, level)
}

fn game(family: &str, a: Player, b: Player, result: Outcome) -> GameRecord {
    GameRecord {
        when: UNIX_EPOCH + Duration::from_secs(1_795_000_000),
        family: family.into(),
        game_type: family.into(),
        game_string: format!("{family};InProgress;White[1]"),
        seats: [Seat { side: "White".into(), player: a }, Seat { side: "Black".into(), player: b }],
        result,
        ending: Ending::Normal,
        place: Place::Other,
    }
}

/// Ann against perfect in two Mastermind rounds: 3 points to 5.
fn mastermind_match() -> MatchRecord {
    MatchRecord {
        when: UNIX_EPOCH + Duration::from_secs(1_795_000_000),
        family: "Mastermind".into(),
        game_type: "Mastermind".into(),
        players: [person("Ann"), engine("perfect", "")],
        rounds_planned: 2,
        rounds: vec![
            Round {
                game_string: "Mastermind;BreakerWins;Breaker[3];1122;0B0W;3456;2B0W;3478;4B0W".into(),
                sides: ["Maker".into(), "Breaker".into()],
                result: Outcome::Second,
                ending: Ending::Normal,
                points: [3, 0],
            },
            Round {
                game_string: "Mastermind;MakerWins;Breaker[4];1122;0B0W;3344;0B0W;5566;0B0W;1234;0B1W".into(),
                sides: ["Breaker".into(), "Maker".into()],
                result: Outcome::Second,
                ending: Ending::Normal,
                points: [0, 5],
            },
        ],
        result: Outcome::Second,
        ending: Ending::Normal,
        place: Place::Gui,
    }
}

/// The hand-made set of games whose tables are worked out below.
fn sample(r: &mut Results) {
    use Outcome::*;
    let games = [
        game("Connect4", person("Ann"), engine("perfect", "movetime 300"), First), // 1
        game("Connect4", engine("perfect", "movetime 300"), person("Ann"), First), // 2
        game("Connect4", person("Ann"), person("bob"), Draw),                      // 3
        game("Hive", person("bob"), engine("attack", ""), Second),                 // 4
        game("Hive", person("Cy"), person("bob"), First),                          // 5
        game("Connect4", person("bob"), engine("perfect", "depth 6"), First),      // 6
        game("Connect4", person("ANN"), person("Cy"), Second),                     // 7
        game("Mastermind", person("Cy"), person("bob"), First),                    // 10
        game("Hive", person("bob"), person(" Ann "), First),                       // 11
        game("Connect4", person("Dee"), engine("attack", ""), First),              // 12
    ];
    for g in &games {
        assert!(r.record_game(g).unwrap().is_some());
    }
    // 8: no person, nothing kept.
    assert_eq!(
        r.record_game(&game("Connect4", engine("perfect", ""), engine("attack", ""), First)).unwrap(),
        None
    );
    // 9: a match, counted once.
    assert!(r.record_match(&mastermind_match()).unwrap().is_some());
}

fn row(name: &str, wins: u64, losses: u64, draws: u64, games: u64) -> PersonRow {
    PersonRow { name: name.into(), record: Record { wins, losses, draws, games } }
}

fn erow(strategy: &str, level: &str, wins: u64, losses: u64, draws: u64, games: u64) -> EngineRow {
    EngineRow {
        strategy: strategy.into(),
        level: level.into(),
        record: Record { wins, losses, draws, games },
    }
}

fn count(r: &Results, table: &str) -> i64 {
    r.conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |x| x.get(0)).unwrap()
}

#[test]
fn leaderboard_order_and_filters_on_a_hand_made_set() {
    let d = tempdir("board");
    let mut r = Results::open(&d).unwrap();
    sample(&mut r);
    let all = Filter::default();
    // Ann: 1 W, 2 L, 3 D, 7 L, 9 L (the match), 11 L; bob: 3 D, 4 L, 5 L,
    // 6 W, 10 L, 11 W; Cy: 5 W, 7 W, 10 W; Dee: 12 W. Dee and Ann both
    // have one win: fewer losses first.
    assert_eq!(
        r.leaderboard(&all, DEFAULT_TOP).unwrap(),
        vec![row("Cy", 3, 0, 0, 3), row("bob", 2, 3, 1, 6), row("Dee", 1, 0, 0, 1), row("Ann", 1, 4, 1, 6)]
    );
    assert_eq!(r.leaderboard(&all, 2).unwrap(), vec![row("Cy", 3, 0, 0, 3), row("bob", 2, 3, 1, 6)]);
    // Connect Four (1 2 3 6 7 12), any case: all one win; no loss first,
    // then more draws, then the name.
    let c4 = Filter { family: Some("connect4".into()), opponent: None };
    assert_eq!(
        r.leaderboard(&c4, 10).unwrap(),
        vec![row("bob", 1, 0, 1, 2), row("Cy", 1, 0, 0, 1), row("Dee", 1, 0, 0, 1), row("Ann", 1, 2, 1, 4)]
    );
    // Mastermind: game 10 and the match; its rounds do not count.
    let mm = Filter { family: Some("Mastermind".into()), opponent: None };
    assert_eq!(
        r.leaderboard(&mm, 10).unwrap(),
        vec![row("Cy", 1, 0, 0, 1), row("Ann", 0, 1, 0, 1), row("bob", 0, 1, 0, 1)]
    );
    assert_eq!(r.engine_records(&mm).unwrap(), vec![erow("perfect", "", 1, 0, 0, 1)]);
    // Against perfect at any level: 1, 2, 6 and the match.
    let perfect = Filter { family: None, opponent: Some(Opponent::parse("engine:perfect").unwrap()) };
    assert_eq!(r.leaderboard(&perfect, 10).unwrap(), vec![row("bob", 1, 0, 0, 1), row("Ann", 1, 2, 0, 3)]);
    let depth6 = Filter { family: None, opponent: Some(Opponent::parse("engine:Perfect:depth 6").unwrap()) };
    assert_eq!(r.leaderboard(&depth6, 10).unwrap(), vec![row("bob", 1, 0, 0, 1)]);
    assert_eq!(r.engine_records(&depth6).unwrap(), vec![erow("perfect", "depth 6", 0, 1, 0, 1)]);
    // Against Ann (any case): 3, 7, 11; engines against her: 1, 2, 9.
    let ann = Filter { family: None, opponent: Some(Opponent::parse("ann").unwrap()) };
    assert_eq!(r.leaderboard(&ann, 10).unwrap(), vec![row("bob", 1, 0, 1, 2), row("Cy", 1, 0, 0, 1)]);
    assert_eq!(
        r.engine_records(&ann).unwrap(),
        vec![erow("perfect", "", 1, 0, 0, 1), erow("perfect", "movetime 300", 1, 1, 0, 2)]
    );
    // Every engine level against people, by strategy then level.
    assert_eq!(
        r.engine_records(&all).unwrap(),
        vec![
            erow("attack", "", 1, 1, 0, 2),
            erow("perfect", "", 1, 0, 0, 1),
            erow("perfect", "depth 6", 0, 1, 0, 1),
            erow("perfect", "movetime 300", 1, 1, 0, 2),
        ]
    );
    // One person's record.
    assert_eq!(r.person_record("ANN", &all).unwrap(), Some(row("Ann", 1, 4, 1, 6)));
    let hive = Filter { family: Some("Hive".into()), opponent: None };
    assert_eq!(r.person_record("ann", &hive).unwrap(), Some(row("Ann", 0, 1, 0, 1)));
    assert_eq!(r.person_record("Dee", &hive).unwrap(), Some(row("Dee", 0, 0, 0, 0)));
    assert_eq!(r.person_record("Eve", &all).unwrap(), None);
    // Unknown filters select nothing.
    let none = Filter { family: Some("Chess".into()), opponent: None };
    assert!(r.leaderboard(&none, 10).unwrap().is_empty());
    assert!(r.engine_records(&none).unwrap().is_empty());
    // The case-insensitive name is one person, shown as first given.
    assert_eq!(count(&r, "person"), 4);
    assert_eq!(count(&r, "game"), 12);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_match_is_kept_with_its_rounds_and_points() {
    let d = tempdir("match");
    let mut r = Results::open(&d).unwrap();
    let id = r.record_match(&mastermind_match()).unwrap().unwrap();
    let seats: Vec<(i64, Option<i64>, Option<i64>, i64)> = r
        .rows(
            "SELECT seat, person_id, engine_id, points FROM match_seat WHERE match_id = ? ORDER BY seat",
            [id],
            |x| Ok((x.get(0)?, x.get(1)?, x.get(2)?, x.get(3)?)),
        )
        .unwrap();
    assert_eq!(seats.len(), 2);
    assert!(seats[0].1.is_some() && seats[0].2.is_none() && seats[0].3 == 3);
    assert!(seats[1].1.is_none() && seats[1].2.is_some() && seats[1].3 == 5);
    let (rounds, result, when): (i64, String, String) = r
        .conn
        .query_row("SELECT rounds, result, finished FROM matches WHERE id = ?", [id], |x| {
            Ok((x.get(0)?, x.get(1)?, x.get(2)?))
        })
        .unwrap();
    assert_eq!((rounds, result.as_str(), when.as_str()), (2, "second", "2026-11-18T11:06:40Z"));
    let rows: Vec<(i64, String, String, i64, i64)> = r
        .rows(
            "SELECT g.round, g.result, s.side, s.seat, s.points FROM game g JOIN game_seat s ON s.game_id = g.id \
             WHERE g.match_id = ? ORDER BY g.round, s.seat",
            [id],
            |x| Ok((x.get(0)?, x.get(1)?, x.get(2)?, x.get(3)?, x.get(4)?)),
        )
        .unwrap();
    let expected = [(1, "second", "Maker", 1, 3), (1, "second", "Breaker", 2, 0)];
    let expected2 = [(2, "second", "Breaker", 1, 0), (2, "second", "Maker", 2, 5)];
    let got: Vec<_> = rows.iter().map(|(a, b, c, d, e)| (*a, b.as_str(), c.as_str(), *d, *e)).collect();
    assert_eq!(got, [expected, expected2].concat());
    // The GameStrings are kept.
    let gs: String =
        r.conn.query_row("SELECT game_string FROM game WHERE round = 2", [], |x| x.get(0)).unwrap();
    assert!(gs.starts_with("Mastermind;MakerWins;"));

    // Refused: a normal ending whose result contradicts the points, fewer
    // rounds than planned, none at all, more than planned.
    let mut m = mastermind_match();
    m.result = Outcome::First;
    assert!(r.record_match(&m).unwrap_err().contains("3-5"));
    let mut m = mastermind_match();
    m.rounds_planned = 4;
    assert!(r.record_match(&m).is_err());
    m.ending = Ending::Resignation; // resigned after two rounds of four: kept
    assert!(r.record_match(&m).unwrap().is_some());
    m.rounds.clear();
    assert!(r.record_match(&m).is_err());
    let mut m = mastermind_match();
    m.rounds_planned = 1;
    assert!(r.record_match(&m).is_err());
    // Engines only: nothing kept.
    m = mastermind_match();
    m.players[0] = engine("random", "");
    assert_eq!(r.record_match(&m).unwrap(), None);
    assert_eq!(count(&r, "matches"), 2);
    assert_eq!(count(&r, "game"), 4);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn names_are_checked_trimmed_and_unique_regardless_of_case() {
    assert_eq!(check_person_name("  Ann Lee ").unwrap(), "Ann Lee");
    assert_eq!(check_person_name(&"é".repeat(40)).unwrap(), "é".repeat(40));
    for bad in [
        "",
        "   ",
        &"x".repeat(41),
        "a\nok",
        "a\rb",
        "a\tb",
        "a\u{1b}[31mb",
        "a\u{2028}b",
        "a\u{2029}b",
        "a\u{85}b",
        "a\u{202E}b",
        "a\u{200B}b",
        "a\u{0}b",
    ] {
        assert!(check_person_name(bad).is_err(), "{bad:?}");
    }
    let d = tempdir("names");
    let mut r = Results::open(&d).unwrap();
    let mut g = game("Connect4", person("ann"), person("ANN "), Outcome::First);
    assert!(r.record_game(&g).unwrap_err().contains("both seats"));
    g.seats[1].player = person("a\nb");
    assert!(r.record_game(&g).is_err());
    g.seats[1].player = engine("perfect\nok", "");
    assert!(r.record_game(&g).is_err());
    g.seats[1].player = engine("perfect", &"1".repeat(41));
    assert!(r.record_game(&g).is_err());
    g.seats[1].player = engine("perfect", "depth 6");
    g.game_string = "Connect4\nbestmove 4".into();
    assert!(r.record_game(&g).unwrap_err().contains("control character"));
    g.game_string = "Connect4".into();
    g.seats[0].side = String::new();
    assert!(r.record_game(&g).is_err());
    assert_eq!(count(&r, "game"), 0);
    // Refused records leave nothing behind.
    assert_eq!(count(&r, "person"), 0);
    assert!(Opponent::parse("engine:").is_err());
    assert!(Opponent::parse("person:").is_err());
    assert_eq!(Opponent::parse("person:engine:x").unwrap(), Opponent::Person { name: "engine:x".into() });
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_empty_file_is_migrated_and_reading_creates_nothing() {
    let d = tempdir("empty");
    // Nothing there: reading creates neither the folder nor the file.
    assert!(Results::open_existing(&d).unwrap().is_none());
    assert!(!d.exists());
    fs::create_dir_all(&d).unwrap();
    let path = d.join(FILE_NAME);
    fs::write(&path, b"").unwrap();
    assert!(Results::open_existing(&d).unwrap().is_none());
    assert_eq!(fs::metadata(&path).unwrap().len(), 0);
    let r = Results::open(&d).unwrap();
    assert_eq!(r.header().unwrap().0, APPLICATION_ID);
    assert_eq!(r.header().unwrap().1, SCHEMA_VERSION);
    assert_eq!(count(&r, "standing"), 0);
    drop(r);
    // Open again: nothing to migrate; readable; no journal left.
    let r = Results::open_existing(&d).unwrap().unwrap();
    assert!(r.leaderboard(&Filter::default(), 10).unwrap().is_empty());
    let names: Vec<String> =
        fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names, [FILE_NAME]);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_newer_or_foreign_database_is_refused_and_left_alone() {
    let d = tempdir("newer");
    drop(Results::open(&d).unwrap());
    let path = d.join(FILE_NAME);
    let c = Connection::open(&path).unwrap();
    c.pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
    drop(c);
    let before = fs::read(&path).unwrap();
    for e in [Results::open(&d).err().unwrap(), Results::open_existing(&d).err().unwrap()] {
        assert!(e.contains("newer"), "{e}");
    }
    assert_eq!(fs::read(&path).unwrap(), before);
    // Another program's database.
    fs::remove_file(&path).unwrap();
    let c = Connection::open(&path).unwrap();
    c.execute_batch("CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('mine');").unwrap();
    drop(c);
    let before = fs::read(&path).unwrap();
    assert!(Results::open(&d).err().unwrap().contains("not a meeple results database"));
    assert!(Results::open_existing(&d).err().unwrap().contains("not a meeple results database"));
    assert_eq!(fs::read(&path).unwrap(), before);
    let c = Connection::open(&path).unwrap();
    c.pragma_update(None, "application_id", 7).unwrap();
    drop(c);
    assert!(Results::open(&d).err().unwrap().contains("application id"));
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn the_referees_tables_live_beside_ours() {
    // The referee's default --db is this very file: its tables
    // (tournaments, games, moves) are neighbours, not another program's.
    let d = tempdir("neighbours");
    fs::create_dir_all(&d).unwrap();
    let path = d.join(FILE_NAME);
    let c = Connection::open(&path).unwrap();
    c.execute_batch(
        "CREATE TABLE tournaments (id INTEGER PRIMARY KEY, created TEXT NOT NULL);
         CREATE TABLE games (id INTEGER PRIMARY KEY, tournament_id INTEGER, game_index INTEGER,
                             UNIQUE (tournament_id, game_index));
         CREATE TABLE moves (game_id INTEGER, ply INTEGER, PRIMARY KEY (game_id, ply));
         INSERT INTO tournaments VALUES (1, 'then');",
    )
    .unwrap();
    drop(c);
    let before = fs::read(&path).unwrap();
    // Reading: no results of ours yet, and nothing written.
    assert!(Results::open_existing(&d).unwrap().is_none());
    assert_eq!(fs::read(&path).unwrap(), before);
    let mut r = Results::open(&d).unwrap();
    r.record_game(&game("Hive", person("Ann"), engine("alphabeta", "depth 3"), Outcome::First)).unwrap();
    assert_eq!(count(&r, "tournaments"), 1);
    assert_eq!(count(&r, "game"), 1);
    drop(r);
    // One more table of someone else's: refused.
    let c = Connection::open(&path).unwrap();
    c.execute_batch("CREATE TABLE notes (t TEXT);").unwrap();
    drop(c);
    let fresh = tempdir("neighbours2");
    fs::create_dir_all(&fresh).unwrap();
    let c = Connection::open(fresh.join(FILE_NAME)).unwrap();
    c.execute_batch("CREATE TABLE games (id INTEGER); CREATE TABLE notes (t TEXT);").unwrap();
    drop(c);
    assert!(Results::open(&fresh).err().unwrap().contains("not a meeple results database"));
    assert!(Results::open_existing(&fresh).err().unwrap().contains("not a meeple results database"));
    fs::remove_dir_all(&d).unwrap();
    fs::remove_dir_all(&fresh).unwrap();
}

#[test]
fn a_corrupt_or_non_sqlite_file_is_an_error() {
    let d = tempdir("corrupt");
    fs::create_dir_all(&d).unwrap();
    let path = d.join(FILE_NAME);
    fs::write(&path, "this is not a database, it is a text file long enough to hold a header ..........")
        .unwrap();
    let before = fs::read(&path).unwrap();
    for e in [Results::open(&d).err().unwrap(), Results::open_existing(&d).err().unwrap()] {
        assert!(e.contains("not a database"), "{e}");
    }
    assert_eq!(fs::read(&path).unwrap(), before);
    // A real database whose pages after the first are overwritten.
    fs::remove_file(&path).unwrap();
    let mut r = Results::open(&d).unwrap();
    sample(&mut r);
    drop(r);
    let mut bytes = fs::read(&path).unwrap();
    assert!(bytes.len() > 8192);
    for b in &mut bytes[4096..] {
        *b = 0x5A;
    }
    fs::write(&path, &bytes).unwrap();
    let dd = d.clone();
    let errors = within_a_minute(move || {
        let read = Results::open_existing(&dd).and_then(|r| {
            let r = r.ok_or("empty")?;
            r.leaderboard(&Filter::default(), 10)?;
            r.engine_records(&Filter::default()).map(|_| ())
        });
        let write = Results::open(&dd).and_then(|mut r| {
            r.record_game(&game("Hive", person("Zed"), engine("x", ""), Outcome::First)).map(|_| ())
        });
        (read, write)
    });
    for e in [errors.0.unwrap_err(), errors.1.unwrap_err()] {
        assert!(e.contains("malformed") || e.contains("not a database"), "{e}");
        assert!(!e.contains('\n'));
    }
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn two_writers_at_once_are_both_stored() {
    let d = tempdir("writers");
    drop(Results::open(&d).unwrap());
    let writers: Vec<_> = ["Ann", "bob"]
        .into_iter()
        .map(|name| {
            let d = d.clone();
            std::thread::spawn(move || {
                let mut r = Results::open(&d).unwrap();
                for i in 0..25 {
                    let result = if i % 5 == 0 { Outcome::Second } else { Outcome::First };
                    r.record_game(&game("Connect4", person(name), engine("perfect", "depth 2"), result))
                        .unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let r = Results::open_existing(&d).unwrap().unwrap();
    assert_eq!(count(&r, "game"), 50);
    assert_eq!(
        r.leaderboard(&Filter::default(), 10).unwrap(),
        vec![row("Ann", 20, 5, 0, 25), row("bob", 20, 5, 0, 25)]
    );
    assert_eq!(
        r.engine_records(&Filter::default()).unwrap(),
        vec![erow("perfect", "depth 2", 10, 40, 0, 50)]
    );
    fs::remove_dir_all(&d).unwrap();
}

/// The GUI server moves an open database between threads (behind a
/// mutex, or one per `spawn_blocking`).
#[test]
fn an_open_database_can_move_between_threads() {
    fn send<T: Send>(_: &T) {}
    let d = tempdir("send");
    let r = Results::open(&d).unwrap();
    send(&r);
    let mut r = std::thread::spawn(move || r).join().unwrap();
    assert!(r.record_game(&game("Hive", person("Ann"), person("bob"), Outcome::Draw)).unwrap().is_some());
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn two_first_opens_at_once_migrate_once() {
    let d = tempdir("migrate2");
    fs::create_dir_all(&d).unwrap();
    let opens: Vec<_> = (0..2)
        .map(|_| {
            let d = d.clone();
            std::thread::spawn(move || Results::open(&d).map(|_| ()))
        })
        .collect();
    for o in opens {
        o.join().unwrap().unwrap();
    }
    let r = Results::open_existing(&d).unwrap().unwrap();
    assert_eq!(r.header().unwrap().1, SCHEMA_VERSION);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn text_read_back_is_made_printable() {
    // A hand-edited database with a control character in a name.
    let d = tempdir("printable");
    let mut r = Results::open(&d).unwrap();
    r.record_game(&game("Connect4", person("Ann"), engine("perfect", ""), Outcome::First)).unwrap();
    r.conn.execute("UPDATE person SET name = 'A' || char(10) || 'ok'", []).unwrap();
    r.conn.execute("UPDATE engine SET level = char(27) || '[31m'", []).unwrap();
    assert_eq!(r.leaderboard(&Filter::default(), 10).unwrap()[0].name, "A?ok");
    assert_eq!(r.engine_records(&Filter::default()).unwrap()[0].level, "?[31m");
    fs::remove_dir_all(&d).unwrap();
}

#[cfg(unix)]
mod hostile {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_link_fifo_or_folder_in_place_of_the_database_is_refused() {
        let d = tempdir("hostile");
        fs::create_dir_all(&d).unwrap();
        let path = d.join(FILE_NAME);
        let outside = d.join("outside.txt");
        fs::write(&outside, "precious").unwrap();

        // A link to a file elsewhere, and a dangling one.
        symlink(&outside, &path).unwrap();
        for e in [Results::open(&d).err().unwrap(), Results::open_existing(&d).err().unwrap()] {
            assert!(e.contains("symbolic link"), "{e}");
        }
        assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
        fs::remove_file(&path).unwrap();
        let target = d.join("elsewhere.sqlite");
        symlink(&target, &path).unwrap();
        assert!(Results::open(&d).is_err());
        assert!(!target.exists());
        fs::remove_file(&path).unwrap();

        // A link in place of the journal.
        drop(Results::open(&d).unwrap());
        let journal = d.join(format!("{FILE_NAME}-journal"));
        symlink(&outside, &journal).unwrap();
        assert!(Results::open(&d).err().unwrap().contains("symbolic link"));
        assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
        fs::remove_file(&journal).unwrap();
        fs::remove_file(&path).unwrap();

        // A folder.
        fs::create_dir(&path).unwrap();
        assert!(Results::open(&d).err().unwrap().contains("folder"));
        fs::remove_dir(&path).unwrap();

        // A FIFO (where mkfifo exists) and a device: refused, no hang.
        let fifo = std::process::Command::new("mkfifo").arg(&path).status().is_ok_and(|s| s.success());
        if fifo {
            let dd = d.clone();
            let (a, b) =
                within_a_minute(move || (Results::open(&dd).err(), Results::open_existing(&dd).err()));
            assert!(a.unwrap().contains("not a regular file"));
            assert!(b.unwrap().contains("not a regular file"));
            fs::remove_file(&path).unwrap();
        }
        symlink("/dev/zero", &path).unwrap();
        let dd = d.clone();
        assert!(
            within_a_minute(move || Results::open_existing(&dd).err()).unwrap().contains("symbolic link")
        );
        fs::remove_dir_all(&d).unwrap();
    }
}
