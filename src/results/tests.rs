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
        seats: [Seat::new("White", a), Seat::new("Black", b)],
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
    PersonRow {
        name: name.into(),
        record: Record { wins, losses, draws, games },
        accuracy: None,
        reviewed: 0,
    }
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

/// `(application_id, user_version)` of an open database.
fn header_of(r: &Results) -> (i64, i64) {
    let c = &r.conn;
    (
        c.pragma_query_value(None, "application_id", |x| x.get(0)).unwrap(),
        c.pragma_query_value(None, "user_version", |x| x.get(0)).unwrap(),
    )
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
    let seats: Vec<(i64, Option<i64>, Option<i64>, i64)> = rows(
        &r.conn,
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
    let rows: Vec<(i64, String, String, i64, i64)> = rows(
        &r.conn,
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
    assert_eq!(header_of(&r), (APPLICATION_ID, SCHEMA_VERSION));
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
    // The referee's first version: its tables, none of the columns added
    // since (the referee's own code opening the file: tests/leaderboard.rs).
    let c = Connection::open(&path).unwrap();
    c.execute_batch(schema::REFEREE_SCHEMA).unwrap();
    c.execute_batch("INSERT INTO tournaments VALUES (1, 'then', 'Hive', '{}', 0);").unwrap();
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
    for e in [Results::open(&d).err().unwrap(), Results::open_existing(&d).err().unwrap()] {
        assert!(e.contains("holds what meeple did not make: table 'notes'"), "{e}");
    }
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
        assert!(e.contains("malformed") || e.contains("not a database") || e.contains("damaged"), "{e}");
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
    assert_eq!(header_of(&r).1, SCHEMA_VERSION);
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

/// Opens the database file with a plain connection (no checks), as anyone
/// who can write the file can.
fn raw(d: &Path) -> Connection {
    Connection::open(d.join(FILE_NAME)).unwrap()
}

/// Short limits for tests: a lock is given up after 0.2 s.
fn quick() -> Limits {
    Limits { busy: Duration::from_millis(200), ..Limits::default() }
}

fn contest(g: GameRecord) -> Contest {
    Contest::Game(g)
}

/// Issue 43 item 3: triggers and views planted in the file ran inside
/// every write and read (every game a draw, winners swapped, "Ann: 1000
/// won", a recursive view that spun forever, a looping trigger that hung
/// the writer). Each is refused at open with a message that names it, for
/// reading and writing; nothing is written into the file; a result to
/// store is kept for later.
#[test]
fn a_planted_trigger_or_view_is_refused_and_named() {
    let plants: [(&str, &str); 7] = [
        (
            "CREATE TRIGGER all_draws AFTER INSERT ON game BEGIN \
             UPDATE game SET result = 'draw' WHERE id = new.id; END",
            "trigger 'all_draws' on table 'game'",
        ),
        (
            "CREATE TRIGGER swap AFTER INSERT ON game_seat WHEN new.seat = 2 BEGIN \
             UPDATE game SET result = CASE result WHEN 'first' THEN 'second' WHEN 'second' THEN 'first' \
             ELSE result END WHERE id = new.game_id; END",
            "trigger 'swap' on table 'game_seat'",
        ),
        (
            "DROP VIEW standing; CREATE VIEW standing AS \
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) \
             SELECT 'game' AS kind, i AS contest, 'Connect4' AS family, 1 AS person_id, \
             NULL AS engine_id, NULL AS opp_person_id, NULL AS opp_engine_id, 'win' AS outcome, \
             NULL AS acc_sum, 0 AS acc_n FROM n",
            "view 'standing' (altered)",
        ),
        (
            "CREATE VIEW forever AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) \
             SELECT i FROM n",
            "view 'forever'",
        ),
        (
            "CREATE VIEW spin AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) \
             SELECT i FROM n; CREATE TRIGGER hang AFTER INSERT ON game BEGIN SELECT count(*) FROM spin; END",
            "trigger 'hang' on table 'game'",
        ),
        ("CREATE INDEX sneaky ON game (family)", "index 'sneaky' on table 'game'"),
        (
            "PRAGMA writable_schema = ON; \
             UPDATE sqlite_schema SET sql = replace(sql, 'name TEXT NOT NULL,', \
             'name TEXT NOT NULL CHECK (name <> ''Bob''),') WHERE name = 'person'; \
             PRAGMA writable_schema = OFF",
            "table 'person' (altered)",
        ),
    ];
    for (i, (sql, named)) in plants.iter().enumerate() {
        let d = tempdir(&format!("plant{i}"));
        let mut r = Results::open(&d).unwrap();
        sample(&mut r);
        drop(r);
        raw(&d).execute_batch(sql).unwrap();
        let path = d.join(FILE_NAME);
        let before = fs::read(&path).unwrap();
        let dd = d.clone();
        let (w, rd, stored) = within_a_minute(move || {
            let g = game("Connect4", person("Ann"), person("Bob"), Outcome::First);
            (
                Results::open(&dd).err(),
                Results::open_existing(&dd).err(),
                store_with(&dd, &contest(g), quick()),
            )
        });
        for e in [w.expect("refused for writing"), rd.expect("refused for reading")] {
            assert!(e.contains(named), "{named}: {e}");
            assert!(e.contains("did not make"), "{e}");
            assert!(!e.contains('\n'));
        }
        let Stored::Kept { why, .. } = &stored else { panic!("{stored:?}") };
        assert!(why.contains(named), "{why}");
        assert_eq!(fs::read(&path).unwrap(), before, "{named}: the file was written");
        assert_eq!(pending_count(&d).unwrap(), 1);
        fs::remove_dir_all(&d).unwrap();
    }
}

/// No query runs longer than its bound, whatever the file holds: a query
/// that would never end is stopped with a message, and the connection
/// goes on answering.
#[test]
fn a_query_that_never_ends_is_stopped_at_its_bound() {
    let d = tempdir("bound");
    let limits = Limits { query: Duration::from_millis(300), ..Limits::default() };
    let mut r = Results::open_with(&d, limits).unwrap();
    sample(&mut r);
    let (e, after) = within_a_minute(move || {
        let e = r
            .query(|c| {
                Ok(c.query_row(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n",
                    [],
                    |x| x.get::<_, i64>(0),
                )?)
            })
            .unwrap_err();
        (e, r.leaderboard(&Filter::default(), 10).map(|b| b.len()))
    });
    assert!(e.contains("computed for more than 0.3 s and was stopped"), "{e}");
    assert_eq!(after, Ok(4));
    fs::remove_dir_all(&d).unwrap();
}

/// Time spent waiting for another process's lock is not the query's: a
/// read that waits longer than the query bound for a writer to finish is
/// answered.
#[test]
fn waiting_for_a_lock_is_not_counted_in_the_bound() {
    let d = tempdir("lockwait");
    let mut r = Results::open(&d).unwrap();
    sample(&mut r);
    drop(r);
    let limits = Limits { query: Duration::from_millis(100), ..Limits::default() };
    let r = Results::open_existing_with(&d, limits).unwrap().unwrap();
    let locker = raw(&d);
    locker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let reader = std::thread::spawn(move || r.leaderboard(&Filter::default(), 10).map(|b| b.len()));
    std::thread::sleep(Duration::from_millis(500));
    locker.execute_batch("COMMIT").unwrap();
    assert_eq!(reader.join().unwrap(), Ok(4));
    fs::remove_dir_all(&d).unwrap();
}

/// Issue 43 item 5: with the database locked past the busy timeout the
/// result was lost. It is kept, said so, counted, and stored at the next
/// result, once; the next flush finds nothing to do.
#[test]
fn a_result_is_kept_while_the_database_is_locked_and_stored_once_afterwards() {
    let d = tempdir("locked");
    drop(Results::open(&d).unwrap());
    let locker = raw(&d);
    locker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let first = game("Connect4", person("Ann"), engine("perfect", ""), Outcome::First);
    let stored = store_with(&d, &contest(first), quick());
    let Stored::Kept { file, why } = &stored else { panic!("{stored:?}") };
    assert!(why.contains("locked by another process"), "{why}");
    assert!(stored.words("The result").contains("kept; it will be stored later"), "{}", stored.words("x"));
    assert!(file.starts_with(d.join(PENDING_DIR)));
    assert_eq!(pending_count(&d).unwrap(), 1);
    // Still locked: a second result waits beside the first.
    let second = game("Hive", person("Ann"), person("Bob"), Outcome::Draw);
    assert!(matches!(store_with(&d, &contest(second), quick()), Stored::Kept { .. }));
    assert_eq!(pending_count(&d).unwrap(), 2);
    assert!(flush_at_start_with(&d, quick()).unwrap().contains("2 results are kept"));
    locker.execute_batch("ROLLBACK").unwrap();
    drop(locker);
    // The next result: the two kept first, then it.
    let third = game("Connect4", person("Bob"), engine("perfect", ""), Outcome::Second);
    let stored = store_with(&d, &contest(third), quick());
    assert!(matches!(stored, Stored::Recorded { flushed: 2, .. }), "{stored:?}");
    assert_eq!(pending_count(&d).unwrap(), 0);
    assert_eq!(flush_at_start(&d), None);
    let r = Results::open_existing(&d).unwrap().unwrap();
    assert_eq!(count(&r, "game"), 3);
    assert_eq!(count(&r, "result_key"), 3);
    assert_eq!(
        r.leaderboard(&Filter::default(), 10).unwrap(),
        vec![row("Ann", 1, 0, 1, 2), row("Bob", 0, 1, 1, 2)]
    );
    // The finish times are the games' own, not the time they were stored.
    let when: String = r.conn.query_row("SELECT min(finished) FROM game", [], |x| x.get(0)).unwrap();
    assert_eq!(when, "2026-11-18T11:06:40Z");
    fs::remove_dir_all(&d).unwrap();
}

/// Several processes (here threads, each with its own connection) flushing
/// the same kept results at once store each exactly once; so does a flush
/// after a process was killed between storing a result and removing its
/// file.
#[test]
fn kept_results_are_stored_exactly_once() {
    let d = tempdir("once");
    drop(Results::open(&d).unwrap());
    let locker = raw(&d);
    locker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    for i in 0..12 {
        let g = game("Connect4", person(&format!("P{i}")), engine("perfect", ""), Outcome::First);
        assert!(matches!(store_with(&d, &contest(g), quick()), Stored::Kept { .. }));
    }
    locker.execute_batch("ROLLBACK").unwrap();
    drop(locker);
    let files = pending::list(&d).unwrap();
    assert_eq!(files.len(), 12);
    let copy = (files[7].clone(), fs::read(&files[7]).unwrap());
    let flushers: Vec<_> = (0..4)
        .map(|_| {
            let d = d.clone();
            std::thread::spawn(move || Results::open(&d).unwrap().flush_pending())
        })
        .collect();
    for f in flushers {
        let f = f.join().unwrap();
        assert_eq!(f.error, None);
    }
    assert_eq!(pending_count(&d).unwrap(), 0);
    let r = Results::open_existing(&d).unwrap().unwrap();
    assert_eq!(count(&r, "game"), 12);
    // A process killed after storing a result but before removing its file.
    fs::write(&copy.0, &copy.1).unwrap();
    assert_eq!(pending_count(&d).unwrap(), 1);
    let f = Results::open(&d).unwrap().flush_pending();
    assert_eq!((f.stored, f.left), (1, 0));
    assert_eq!(pending_count(&d).unwrap(), 0);
    assert_eq!(count(&r, "game"), 12);
    assert_eq!(count(&r, "person"), 12);
    fs::remove_dir_all(&d).unwrap();
}

/// What the pending folder holds is hostile too: a link or FIFO there is
/// not read, a corrupt file is left and counted, a folder that is a link
/// is never written through (the result is then said to be lost, with the
/// record in the log).
#[cfg(unix)]
#[test]
fn the_pending_folder_is_not_trusted() {
    use std::os::unix::fs::symlink;
    let d = tempdir("pendhostile");
    drop(Results::open(&d).unwrap());
    let dir = d.join(PENDING_DIR);
    fs::create_dir_all(&dir).unwrap();
    let outside = d.join("outside.json");
    fs::write(&outside, "precious").unwrap();
    symlink(&outside, dir.join("00000000000000000001-1-0-00000000.json")).unwrap();
    fs::write(dir.join("00000000000000000002-1-0-00000000.json"), "{not json").unwrap();
    assert_eq!(pending_count(&d).unwrap(), 2);
    let stored = store(&d, &contest(game("Hive", person("Ann"), person("Bob"), Outcome::First)));
    assert!(matches!(stored, Stored::Recorded { flushed: 0, .. }), "{stored:?}");
    let f = Results::open(&d).unwrap().flush_pending();
    assert_eq!((f.stored, f.unreadable, f.left), (0, 2, 2));
    assert!(f.words().contains("2 cannot be read"), "{}", f.words());
    assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
    // The folder itself a link, and the database locked: nothing written
    // through the link.
    fs::remove_dir_all(&dir).unwrap();
    let elsewhere = d.join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    symlink(&elsewhere, &dir).unwrap();
    let locker = raw(&d);
    locker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let stored =
        store_with(&d, &contest(game("Hive", person("Ann"), person("Bob"), Outcome::First)), quick());
    let Stored::Lost { why } = &stored else { panic!("{stored:?}") };
    assert!(why.contains("symbolic link"), "{why}");
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    drop(locker);
    fs::remove_dir_all(&d).unwrap();
}

/// Issue 43 item 9: a damaged page went unnoticed and play kept writing
/// into the file. It is noticed at open (PRAGMA quick_check), for reading
/// and writing, nothing more is written into it, and a result is kept.
#[test]
fn a_damaged_page_is_noticed_at_open_and_nothing_is_written_into_it() {
    let d = tempdir("damaged");
    let mut r = Results::open(&d).unwrap();
    sample(&mut r);
    drop(r);
    let path = d.join(FILE_NAME);
    // The root page of `matches`, which recording a game does not touch
    // (so that the damage went unnoticed): its header overwritten.
    let root: i64 = raw(&d)
        .query_row("SELECT rootpage FROM sqlite_schema WHERE name = 'matches'", [], |x| x.get(0))
        .unwrap();
    let mut bytes = fs::read(&path).unwrap();
    let at = (root as usize - 1) * 4096;
    bytes[at..at + 12].fill(0xEE);
    fs::write(&path, &bytes).unwrap();
    let dd = d.clone();
    let (w, rd, stored) = within_a_minute(move || {
        let g = game("Connect4", person("Zed"), engine("perfect", ""), Outcome::First);
        (Results::open(&dd).err(), Results::open_existing(&dd).err(), store(&dd, &contest(g)))
    });
    for e in [w.unwrap(), rd.unwrap()] {
        assert!(e.contains("damaged"), "{e}");
    }
    assert!(matches!(stored, Stored::Kept { .. }), "{stored:?}");
    assert_eq!(fs::read(&path).unwrap(), bytes);
    fs::remove_dir_all(&d).unwrap();
}

/// Issue 43 item 9: a planted 1 MB name padded every leaderboard row, and a
/// name stored as a blob aborted the whole leaderboard. Names are read as
/// text whatever their type, and clipped.
#[test]
fn planted_names_are_typed_and_clipped_when_read() {
    let d = tempdir("bignames");
    let mut r = Results::open(&d).unwrap();
    sample(&mut r);
    let huge = "A".repeat(1 << 20);
    r.conn.execute("UPDATE person SET name = ? WHERE name = 'Cy'", [&huge]).unwrap();
    r.conn.execute("UPDATE person SET name = x'ff426f62' WHERE name = 'bob'", []).unwrap();
    r.conn.execute("UPDATE person SET name = 12345 WHERE name = 'Dee'", []).unwrap();
    r.conn.execute("UPDATE engine SET strategy = x'00' WHERE strategy = 'attack'", []).unwrap();
    let b = r.board(&Filter::default(), 10).unwrap();
    let names: Vec<&str> = b.people.iter().map(|p| p.name.as_str()).collect();
    let clipped = format!("{}…", "A".repeat(MAX_NAME_CHARS - 1));
    assert_eq!(names, [clipped.as_str(), "\u{FFFD}Bob", "12345", "Ann"]);
    assert_eq!(b.engines.len(), 4);
    assert!(b.engines.iter().all(|e| !e.strategy.chars().any(crate::text::is_unprintable)));
    let table = b.to_table("all games", 10);
    assert!(table.len() < 2000, "{} bytes", table.len());
    // The person's own record reads the same.
    assert_eq!(r.person_record("Ann", &Filter::default()).unwrap().unwrap().name, "Ann");
    fs::remove_dir_all(&d).unwrap();
}

/// Issue 43 item 4 through the database: nine spellings of "Ann" are one
/// person or refused; the leaderboard has one Ann.
#[test]
fn nine_anns_on_the_leaderboard_are_one() {
    let d = tempdir("anns");
    let mut r = Results::open(&d).unwrap();
    let spellings = [
        "Ann",
        "ANN",
        "ann",
        "A\u{00AD}nn",
        "A\u{200D}nn",
        "Ann\u{FE0F}",
        "Ann\u{E0041}",
        "A\u{034F}nn",
        "Ann\u{3164}",
        "Ａｎｎ",
        "\u{1D400}nn",
    ];
    let (mut kept, mut refused) = (0, 0);
    for s in spellings {
        match r.record_game(&game("Connect4", person(s), engine("perfect", ""), Outcome::First)) {
            Ok(Some(_)) => kept += 1,
            Ok(None) => panic!("{s:?}"),
            Err(e) => {
                assert!(e.contains("invisible") || e.contains("blank"), "{s:?}: {e}");
                refused += 1;
            }
        }
    }
    assert_eq!((kept, refused), (5, 6));
    assert_eq!(r.leaderboard(&Filter::default(), 10).unwrap(), vec![row("Ann", 5, 0, 0, 5)]);
    // Composed and decomposed: one person, whoever comes first.
    r.record_game(&game("Hive", person("Ren\u{e9}e"), person("Bob"), Outcome::First)).unwrap();
    r.record_game(&game("Hive", person("RENE\u{301}E"), person("Bob"), Outcome::First)).unwrap();
    assert_eq!(r.person_record("rene\u{301}e", &Filter::default()).unwrap(), Some(row("Renée", 2, 0, 0, 2)));
    // One person on both seats, spelt two ways: refused.
    let both = game("Hive", person("Ann"), person("ａｎｎ"), Outcome::First);
    assert!(r.record_game(&both).unwrap_err().contains("one person"));
    assert_eq!(count(&r, "person"), 3);
    fs::remove_dir_all(&d).unwrap();
}

/// Issue 42 item 4: each seat's accuracy, known when recorded or set
/// afterwards (a game, a round of a match), and each person's mean over
/// their reviewed games on the leaderboard.
#[test]
fn accuracy_is_kept_and_averaged_over_reviewed_games() {
    let d = tempdir("accuracy");
    let mut r = Results::open(&d).unwrap();
    let mut g = game("Connect4", person("Ann"), engine("perfect", ""), Outcome::First);
    g.seats[0].accuracy = Some(91.5);
    g.seats[1].accuracy = Some(100.0);
    r.record_game(&g).unwrap();
    let later = r.record_game(&game("Hive", person("Bob"), person("Ann"), Outcome::Draw)).unwrap().unwrap();
    r.record_game(&game("Hive", person("Bob"), person("Ann"), Outcome::First)).unwrap();
    let m = r.record_match(&mastermind_match()).unwrap().unwrap();
    let board = |r: &Results| -> Vec<(String, Option<f64>, u64)> {
        r.leaderboard(&Filter::default(), 10)
            .unwrap()
            .into_iter()
            .map(|p| (p.name, p.accuracy, p.reviewed))
            .collect()
    };
    assert_eq!(board(&r), [("Bob".to_string(), None, 0), ("Ann".to_string(), Some(91.5), 1)]);
    r.set_accuracy(later, [Some(40.0), Some(70.5)]).unwrap();
    // The match's rounds: Ann is the match's first player.
    let round: i64 =
        r.conn.query_row("SELECT id FROM game WHERE match_id = ? AND round = 2", [m], |x| x.get(0)).unwrap();
    r.set_accuracy(round, [Some(50.0), None]).unwrap();
    assert_eq!(board(&r), [("Bob".to_string(), Some(40.0), 1), ("Ann".to_string(), Some(212.0 / 3.0), 3)]);
    let hive = Filter { family: Some("Hive".into()), opponent: None };
    let ann = r.person_record("ann", &hive).unwrap().unwrap();
    assert_eq!((ann.accuracy, ann.reviewed), (Some(70.5), 1));
    // Refused: out of range, not a number, no such game; nothing changed.
    for bad in [-0.1, 100.5, f64::NAN, f64::INFINITY] {
        assert!(r.set_accuracy(later, [Some(bad), None]).unwrap_err().contains("0 to 100"));
    }
    assert!(r.set_accuracy(9999, [Some(1.0), None]).unwrap_err().contains("no game 9999"));
    g.seats[0].accuracy = Some(101.0);
    assert!(r.record_game(&g).is_err());
    assert_eq!(board(&r)[1].1, Some(212.0 / 3.0));
    // Cleared again.
    r.set_accuracy(later, [None, None]).unwrap();
    assert_eq!(board(&r)[0], ("Bob".to_string(), None, 0));
    fs::remove_dir_all(&d).unwrap();
}

/// Issue 42 item 4 (a migration): a version 1 file, made by version 1's
/// schema and statements, is migrated to version 2 in one transaction and
/// keeps every record; names that are now one person are merged (the first
/// recorded kept, shown without its invisible characters); a game between
/// two spellings of one person is kept and counts for neither.
#[test]
fn a_version_1_file_is_migrated_and_keeps_every_record() {
    let d = tempdir("v1");
    fs::create_dir_all(&d).unwrap();
    let c = raw(&d);
    c.execute_batch(schema::MIGRATIONS[0].sql).unwrap();
    c.pragma_update(None, "user_version", 1).unwrap();
    c.pragma_update(None, "application_id", APPLICATION_ID).unwrap();
    // As version 1 wrote them: fold = lower case of the name.
    let people = ["A\u{00AD}nn", "Ann", "bob", "Ren\u{e9}e", "Rene\u{301}e", "Cy"];
    for p in people {
        c.execute("INSERT INTO person (name, fold) VALUES (?, lower(?))", params![p, p]).unwrap();
    }
    c.execute("INSERT INTO engine (strategy, level) VALUES ('perfect', 'depth 6')", []).unwrap();
    // (seat 1's person, seat 2's person or 0 for the engine, result)
    let games: [(i64, i64, &str); 5] = [
        (1, 2, "first"),  // 1: A-nn against Ann: one person now
        (2, 3, "first"),  // 2: Ann against bob
        (4, 5, "second"), // 3: Renée against Renée (NFD)
        (3, 0, "draw"),   // 4: bob against perfect
        (1, 6, "second"), // 5: A-nn against Cy
    ];
    for (i, (a, b, result)) in games.iter().enumerate() {
        c.execute(
            "INSERT INTO game (finished, family, game_type, game_string, result, ending, place) \
             VALUES ('2026-11-25T19:33:52Z', 'Connect4', 'Connect4', 'Connect4', ?, 'normal', 'gui')",
            [result],
        )
        .unwrap();
        let id = i as i64 + 1;
        c.execute(
            "INSERT INTO game_seat (game_id, seat, side, person_id) VALUES (?, 1, 'Red', ?)",
            params![id, a],
        )
        .unwrap();
        if *b > 0 {
            c.execute(
                "INSERT INTO game_seat (game_id, seat, side, person_id) VALUES (?, 2, 'Yellow', ?)",
                params![id, b],
            )
            .unwrap();
        } else {
            c.execute(
                "INSERT INTO game_seat (game_id, seat, side, engine_id) VALUES (?, 2, 'Yellow', 1)",
                [id],
            )
            .unwrap();
        }
    }
    let tally = |c: &Connection| -> Vec<i64> {
        ["game", "game_seat", "matches", "match_seat", "engine"]
            .iter()
            .map(|t| c.query_row(&format!("SELECT count(*) FROM {t}"), [], |x| x.get(0)).unwrap())
            .collect()
    };
    let before = tally(&c);
    let seats_before: Vec<(i64, i64, String)> =
        rows(&c, "SELECT game_id, seat, side FROM game_seat ORDER BY 1, 2", [], |x| {
            Ok((x.get(0)?, x.get(1)?, x.get(2)?))
        })
        .unwrap();
    drop(c);
    let r = Results::open_existing(&d).unwrap().unwrap();
    assert_eq!(header_of(&r), (APPLICATION_ID, 2));
    assert_eq!(tally(&r.conn), before);
    let seats_after: Vec<(i64, i64, String)> =
        rows(&r.conn, "SELECT game_id, seat, side FROM game_seat ORDER BY 1, 2", [], |x| {
            Ok((x.get(0)?, x.get(1)?, x.get(2)?))
        })
        .unwrap();
    assert_eq!(seats_after, seats_before);
    assert_eq!(count(&r, "person"), 4);
    // Ann (first recorded as A<soft hyphen>nn, shown as Ann): game 1
    // against herself counts for neither; game 2 won, game 5 lost. bob:
    // game 2 lost, game 4 drawn. Renée: her game against herself does not
    // count. Cy: game 5 won.
    assert_eq!(
        r.leaderboard(&Filter::default(), 10).unwrap(),
        vec![row("Cy", 1, 0, 0, 1), row("Ann", 1, 1, 0, 2), row("bob", 0, 1, 1, 2)]
    );
    assert_eq!(r.person_record("RENÉE", &Filter::default()).unwrap(), Some(row("Renée", 0, 0, 0, 0)));
    drop(r);
    // Opened again: nothing to migrate, the same.
    let r = Results::open(&d).unwrap();
    assert_eq!(tally(&r.conn), before);
    fs::remove_dir_all(&d).unwrap();
}
