//! `help` and `help <topic>`: the syntax and an example of every command,
//! and each game's move notation. Every line is indented, so no help line
//! starts with a word a client scans for (`info`, `bestmove`, `go`, `ok`).

use crate::registry;

/// (command, syntax, what it does, example).
const COMMANDS: &[(&str, &str, &str, &str)] = &[
    ("info", "info", "engine id and capabilities (two lines, as UHP)", "info"),
    (
        "help",
        "help [command | game]",
        "this list, or one command's syntax, or a game's move notation",
        "help play",
    ),
    (
        "newgame",
        "newgame [GameType | GameString]",
        "start a game (no argument: the --game / UCI_Variant type)",
        "newgame Connect4+6x5",
    ),
    (
        "position",
        "position <startpos | [fen] GameType | [fen] GameString> [moves m1 m2 ...]",
        "set a whole position in one line",
        "position startpos moves 4 4 5",
    ),
    ("play", "play <move>", "play one move; replies the GameString", "play 4"),
    ("pass", "pass", "the only move when a side cannot move (Hive)", "pass"),
    ("undo", "undo [N]", "take back N plies (default 1)", "undo 2"),
    ("validmoves", "validmoves", "the legal moves joined by ;", "validmoves"),
    (
        "bestmove",
        "bestmove [depth N | time hh:mm:ss]",
        "UHP: the engine's move, alone on its line",
        "bestmove time 00:00:05",
    ),
    (
        "go",
        "go [depth N] [nodes N] [movetime MS] [wtime MS btime MS winc MS binc MS movestogo N] [mate N] [infinite] [ponder] [searchmoves m...]",
        "UCI: search, info lines, then bestmove <move>",
        "go movetime 500",
    ),
    ("stop", "stop", "end the running search now (its bestmove is printed)", "stop"),
    ("ponderhit", "ponderhit", "the pondered move was played: the search's time starts", "ponderhit"),
    (
        "isready",
        "isready",
        "readyok (at once while searching; otherwise once a new game's set-up, such as a book being read, is done)",
        "isready",
    ),
    (
        "analyze",
        "analyze [go limits] [game arguments]",
        "a game's own analysis (Connect Four: every column's score)",
        "analyze movetime 1000",
    ),
    (
        "review",
        "review [depth N] [nodes N] [movetime MS]",
        "judge every move of the game (limits per position): ply lines, side lines",
        "review movetime 200",
    ),
    (
        "setoption",
        "setoption name <Name> [value <Value>]",
        "set an option (UCI); names may contain spaces",
        "setoption name Move Overhead value 50",
    ),
    (
        "options",
        "options | options get <Name> | options set <Name> <Value>",
        "UHP's option commands",
        "options get Strategy",
    ),
    (
        "movetree",
        "movetree [json] | movetree json level [ACTION ...]",
        "the legal moves as a tree of decisions; level: one level below a prefix of actions",
        "movetree json level wS1",
    ),
    ("board", "board json", "the position described generically, for a GUI (JSON, one line)", "board json"),
    (
        "games",
        "games json",
        "the game families, their types, options and strategies (JSON, one line)",
        "games json",
    ),
    ("show", "show", "the board drawn for a person", "show"),
    ("save", "save <name>", "save the game in the data folder", "save mygame"),
    ("load", "load <name>", "load a saved game", "load mygame"),
    ("saves", "saves", "the saved games", "saves"),
    (
        "query",
        "query p1turn | gameover | result",
        "UGI: response true/false, or p1win/p2win/draw/none",
        "query result",
    ),
    ("uci", "uci", "switch to UCI: option list, uciok; no ok lines from then on", "uci"),
    ("ugi", "ugi", "switch to UGI (UCI plus query): ugiok", "ugi"),
    ("ucinewgame", "ucinewgame | uginewgame", "a new game of the UCI_Variant type", "ucinewgame"),
    (
        "quit",
        "quit | exit",
        "stop any search and exit (end of input does too, letting a limited search finish)",
        "quit",
    ),
];

/// The lines of `help [topic]`.
pub fn lines(topic: Option<&str>) -> Result<Vec<String>, String> {
    let Some(topic) = topic.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(overview());
    };
    let t = topic.to_ascii_lowercase();
    let t = match t.as_str() {
        "exit" => "quit",
        "uginewgame" => "ucinewgame",
        other => other,
    };
    if let Some((name, syntax, what, example)) = COMMANDS.iter().find(|c| c.0 == t) {
        let mut v = vec![format!("  {syntax}"), format!("  {what}"), format!("  example: {example}")];
        if matches!(*name, "play" | "position" | "validmoves") {
            v.push("  moves of each game:".into());
            v.extend(notations());
        }
        return Ok(v);
    }
    if let Some(f) = registry::families().into_iter().find(|f| f.name.eq_ignore_ascii_case(topic)) {
        return Ok(vec![
            format!("  {}: game types {}", f.name, f.type_grammar),
            format!("  moves: {}", f.move_notation),
        ]);
    }
    Err(format!("no help on '{}' (try help)", topic.chars().take(64).collect::<String>()))
}

fn notations() -> Vec<String> {
    registry::families().iter().map(|f| format!("    {}: {}", f.name, f.move_notation)).collect()
}

fn overview() -> Vec<String> {
    let mut v = vec!["  commands (help <command> for its syntax and an example):".to_string()];
    for (name, _, what, _) in COMMANDS {
        v.push(format!("    {name:<11} {what}"));
    }
    v.push("  games (help <game> for its moves):".into());
    for f in registry::families() {
        v.push(format!("    {:<11} {}", f.name, f.type_grammar));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_is_indented_and_every_command_has_help() {
        let mut all = lines(None).unwrap();
        for (name, ..) in COMMANDS {
            let l = lines(Some(name)).unwrap();
            assert!(l.iter().any(|x| x.contains("example: ")), "{name}");
            all.extend(l);
        }
        for f in registry::families() {
            all.extend(lines(Some(f.name)).unwrap());
        }
        assert!(all.iter().all(|l| l.starts_with("  ")));
        assert!(lines(Some("frobnicate")).is_err());
    }
}
