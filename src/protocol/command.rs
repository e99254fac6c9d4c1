//! Parsing of one protocol line into a [`Command`], with nom.
//!
//! Keywords are case-insensitive and end at a word boundary; values that
//! may contain spaces (moves, GameStrings, option values) are taken as the
//! rest of the line.

use std::fmt;
use std::time::Duration;

use nom::branch::alt;
use nom::bytes::complete::take_while1;
use nom::character::complete::{space0, space1};
use nom::combinator::{all_consuming, map_res, opt, rest, verify};
use nom::multi::many0;
use nom::sequence::preceded;
use nom::{IResult, Parser};

/// Limits and modes given to `go` (UCI's tokens, UGI's `p1time`...
/// aliases). A token not given does not limit the search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<u64>,
    /// Clock of the first / second mover, ms (`wtime`/`p1time`, ...).
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u64>,
    /// Search for a win in this many own moves.
    pub mate: Option<u32>,
    pub infinite: bool,
    /// UCI's `ponder`: think on the opponent's time until `ponderhit` or
    /// `stop`.
    pub ponder: bool,
    /// Only these root moves (UCI's `searchmoves`), as given.
    pub searchmoves: Vec<String>,
    /// Tokens `go` does not know (UCI ignores them; the meeple dialect
    /// refuses the line).
    pub unknown: Vec<String>,
}

/// Limit of UHP's `bestmove`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BestMoveLimit {
    None,
    Depth(u32),
    Time(Duration),
}

/// What `position` starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionBase {
    StartPos,
    /// A GameType or a GameString (also after UCI's `fen`).
    Game(String),
}

/// UGI's `query` questions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Query {
    /// Is it the first mover's turn?
    P1Turn,
    /// Has the game ended?
    GameOver,
    /// `p1win`, `p2win`, `draw` or `none`.
    Result,
}

/// One parsed command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Info,
    /// `help [topic]`.
    Help(Option<String>),
    NewGame(Option<String>),
    Position {
        base: PositionBase,
        moves: Option<String>,
    },
    Play(String),
    Pass,
    Undo(usize),
    ValidMoves,
    BestMove(BestMoveLimit),
    Go(GoParams),
    Stop,
    PonderHit,
    IsReady,
    Analyze(String),
    /// `review [depth N] [nodes N] [movetime MS]`: every move of the game
    /// judged (the limits are `go`'s, per position).
    Review(GoParams),
    SetOption {
        name: String,
        value: Option<String>,
    },
    Options,
    OptionsGet(String),
    OptionsSet {
        name: String,
        value: String,
    },
    MoveTree {
        json: bool,
    },
    /// `movetree json level [ACTION ...]`: one level of the tree below a
    /// prefix of actions.
    MoveTreeLevel(Vec<String>),
    /// `board json`: the position drawn generically.
    Board,
    /// `games json`: the game families, their options and strategies.
    Games,
    Show,
    Save(String),
    Load(String),
    Saves,
    /// Enter UCI mode.
    Uci,
    /// Enter UGI mode.
    Ugi,
    /// `ucinewgame` / `uginewgame`.
    UciNewGame,
    Query(Query),
    Quit,
}

impl Command {
    /// True for the commands that act at once while a search runs
    /// (everything else waits its turn).
    pub fn is_immediate(&self) -> bool {
        matches!(self, Command::Stop | Command::IsReady | Command::Quit | Command::PonderHit)
    }

    /// True for the commands that start a search.
    pub fn is_search(&self) -> bool {
        matches!(self, Command::Go(_) | Command::BestMove(_) | Command::Analyze(_) | Command::Review(_))
    }
}

/// Why a line is not a valid command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    Unknown(String),
    BadArgs { command: &'static str, usage: &'static str },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Unknown(w) => write!(f, "unknown command '{w}' (try help)"),
            ParseError::BadArgs { command, usage } => write!(f, "bad arguments to {command}; usage: {usage}"),
        }
    }
}

impl std::error::Error for ParseError {}

type Res<'a, T> = IResult<&'a str, T>;

fn is_word_char(c: char) -> bool {
    !c.is_whitespace()
}

/// A case-insensitive keyword ending at a word boundary.
fn keyword<'a>(
    kw: &'static str,
) -> impl Parser<&'a str, Output = &'a str, Error = nom::error::Error<&'a str>> {
    verify(take_while1(is_word_char), move |w: &str| w.eq_ignore_ascii_case(kw))
}

/// A decimal number that fits `T` and ends at a word boundary (a number
/// too large for `T` is an error, never a wrap).
fn number<T: std::str::FromStr>(i: &str) -> Res<'_, T> {
    map_res(verify(take_while1(is_word_char), |w: &str| w.bytes().all(|b| b.is_ascii_digit())), |d: &str| {
        d.parse::<T>()
    })
    .parse(i)
}

/// A run of decimal digits that fits `T` (inside a word, as in `hh:mm:ss`).
fn digits<T: std::str::FromStr>(i: &str) -> Res<'_, T> {
    map_res(nom::character::complete::digit1, |d: &str| d.parse::<T>()).parse(i)
}

/// The rest of the line after at least one space, trimmed; `None` if empty.
fn tail(i: &str) -> Res<'_, Option<String>> {
    let (i, r) = opt(preceded(space1, rest)).parse(i)?;
    let r = r.map(|s: &str| s.trim().to_string()).filter(|s| !s.is_empty());
    Ok((i, r))
}

/// The words `go` knows (a `searchmoves` list ends at the next one).
const GO_WORDS: [&str; 17] = [
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "p1time",
    "p2time",
    "p1inc",
    "p2inc",
    "movestogo",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
];

fn go_params(i: &str) -> Res<'_, GoParams> {
    enum P {
        Depth(u32),
        Nodes(u64),
        MoveTime(u64),
        WTime(u64),
        BTime(u64),
        WInc(u64),
        BInc(u64),
        MovesToGo(u64),
        Mate(u32),
        Infinite,
        Ponder,
        SearchMoves(Vec<String>),
        Unknown(String),
    }
    let timed = |kw: &'static str, f: fn(u64) -> P| preceded((keyword(kw), space1), number::<u64>).map(f);
    let not_go_word =
        verify(take_while1(is_word_char), |w: &str| !GO_WORDS.iter().any(|k| k.eq_ignore_ascii_case(w)));
    let item = preceded(
        space1,
        alt((
            alt((
                preceded((keyword("depth"), space1), number::<u32>).map(P::Depth),
                timed("nodes", P::Nodes),
                timed("movetime", P::MoveTime),
                timed("wtime", P::WTime),
                timed("btime", P::BTime),
                timed("winc", P::WInc),
                timed("binc", P::BInc),
                timed("p1time", P::WTime),
                timed("p2time", P::BTime),
                timed("p1inc", P::WInc),
                timed("p2inc", P::BInc),
            )),
            alt((
                timed("movestogo", P::MovesToGo),
                preceded((keyword("mate"), space1), number::<u32>).map(P::Mate),
                keyword("infinite").map(|_| P::Infinite),
                keyword("ponder").map(|_| P::Ponder),
                preceded(keyword("searchmoves"), many0(preceded(space1, not_go_word)))
                    .map(|v: Vec<&str>| P::SearchMoves(v.into_iter().map(str::to_string).collect())),
                // Anything else is one unknown token (a keyword whose value
                // is missing or not a number included).
                take_while1(is_word_char).map(|w: &str| P::Unknown(w.chars().take(64).collect())),
            )),
        )),
    );
    let (i, items) = many0(item).parse(i)?;
    let mut g = GoParams::default();
    for p in items {
        match p {
            P::Depth(v) => g.depth = Some(v),
            P::Nodes(v) => g.nodes = Some(v),
            P::MoveTime(v) => g.movetime = Some(v),
            P::WTime(v) => g.wtime = Some(v),
            P::BTime(v) => g.btime = Some(v),
            P::WInc(v) => g.winc = Some(v),
            P::BInc(v) => g.binc = Some(v),
            P::MovesToGo(v) => g.movestogo = Some(v),
            P::Mate(v) => g.mate = Some(v),
            P::Infinite => g.infinite = true,
            P::Ponder => g.ponder = true,
            P::SearchMoves(v) => g.searchmoves.extend(v),
            P::Unknown(w) => g.unknown.push(w),
        }
    }
    Ok((i, g))
}

/// `hh:mm:ss` (UHP's `bestmove time`); hours too large for a `Duration`
/// in seconds are an error.
fn hms(i: &str) -> Res<'_, Duration> {
    let (i, (h, _, m, _, s)) = (
        digits::<u64>,
        nom::character::complete::char(':'),
        digits::<u64>,
        nom::character::complete::char(':'),
        digits::<u64>,
    )
        .parse(i)?;
    let total = h.checked_mul(3600).and_then(|x| x.checked_add(m * 60 + s));
    match total {
        Some(t) if m < 60 && s < 60 => Ok((i, Duration::from_secs(t))),
        _ => Err(nom::Err::Error(nom::error::Error::new(i, nom::error::ErrorKind::Verify))),
    }
}

fn bestmove_limit(i: &str) -> Res<'_, BestMoveLimit> {
    alt((
        preceded((space1, keyword("depth"), space1), number::<u32>).map(BestMoveLimit::Depth),
        preceded((space1, keyword("time"), space1), hms).map(BestMoveLimit::Time),
        space0.map(|_| BestMoveLimit::None),
    ))
    .parse(i)
}

/// Splits `s` at the first whitespace-delimited token equal to `word`
/// (case-insensitive): the trimmed text before it and after it.
fn split_at_word<'a>(s: &'a str, word: &str) -> Option<(&'a str, &'a str)> {
    let mut start = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(st)) => {
                if s[st..i].eq_ignore_ascii_case(word) {
                    return Some((s[..st].trim(), s[i..].trim()));
                }
                start = None;
            }
            _ => {}
        }
    }
    None
}

/// `setoption name <Name with spaces> [value <Value>]`.
fn setoption(i: &str) -> Option<(String, Option<String>)> {
    let (i, _) = (space1::<&str, nom::error::Error<&str>>, keyword("name"), space1).parse(i).ok()?;
    let (name, value) = match split_at_word(i, "value") {
        Some((n, v)) => (n, Some(v.to_string()).filter(|v| !v.is_empty())),
        None => (i.trim(), None),
    };
    if name.is_empty() {
        return None;
    }
    Some((name.split_whitespace().collect::<Vec<_>>().join(" "), value))
}

/// The syntax of `review`.
pub const REVIEW_USAGE: &str = "review [depth N] [nodes N] [movetime MS]";

fn usage(command: &'static str, usage: &'static str) -> ParseError {
    ParseError::BadArgs { command, usage }
}

/// Parses one line (already trimmed, non-empty, not a comment).
pub fn parse_command(line: &str) -> Result<Command, ParseError> {
    let line = line.trim();
    let (args, word) = take_while1::<_, &str, nom::error::Error<&str>>(is_word_char)
        .parse(line)
        .map_err(|_| ParseError::Unknown(String::new()))?;
    let w = word.to_ascii_lowercase();
    let no_args = |c: Command, name: &'static str| {
        if args.trim().is_empty() { Ok(c) } else { Err(usage(name, name)) }
    };
    match w.as_str() {
        "info" => no_args(Command::Info, "info"),
        "help" => Ok(Command::Help(tail(args).map(|r| r.1).unwrap_or(None))),
        "newgame" => Ok(Command::NewGame(tail(args).map(|r| r.1).unwrap_or(None))),
        "position" => parse_position(args),
        "play" => match tail(args).map(|r| r.1).unwrap_or(None) {
            Some(m) => Ok(Command::Play(m)),
            None => Err(usage("play", "play <move>")),
        },
        "pass" => no_args(Command::Pass, "pass"),
        "undo" => {
            let r: Res<'_, Option<usize>> = all_consuming((opt(preceded(space1, number::<usize>)), space0))
                .map(|(n, _)| n)
                .parse(args);
            match r {
                Ok((_, n)) => Ok(Command::Undo(n.unwrap_or(1))),
                Err(_) => Err(usage("undo", "undo [N]")),
            }
        }
        "validmoves" => no_args(Command::ValidMoves, "validmoves"),
        "bestmove" => all_consuming((bestmove_limit, space0))
            .parse(args)
            .map(|(_, (l, _))| Command::BestMove(l))
            .map_err(|_| usage("bestmove", "bestmove [depth N | time hh:mm:ss]")),
        "go" => all_consuming((go_params, space0)).parse(args).map(|(_, (g, _))| Command::Go(g)).map_err(|_| {
            usage("go", "go [depth N] [movetime MS] [nodes N] [wtime MS btime MS winc MS binc MS movestogo N] [infinite]")
        }),
        "stop" => no_args(Command::Stop, "stop"),
        "ponderhit" => no_args(Command::PonderHit, "ponderhit"),
        "isready" => no_args(Command::IsReady, "isready"),
        "analyze" => Ok(Command::Analyze(args.trim().to_string())),
        "review" => all_consuming((go_params, space0))
            .parse(args)
            .map(|(_, (g, _))| Command::Review(g))
            .map_err(|_| usage("review", REVIEW_USAGE)),
        "setoption" => setoption(args)
            .map(|(name, value)| Command::SetOption { name, value })
            .ok_or_else(|| usage("setoption", "setoption name <Name> [value <Value>]")),
        "options" => parse_options(args),
        "movetree" => {
            let w: Vec<&str> = args.split_whitespace().collect();
            match w.as_slice() {
                [] => Ok(Command::MoveTree { json: false }),
                [j] if j.eq_ignore_ascii_case("json") => Ok(Command::MoveTree { json: true }),
                [j, l, prefix @ ..] if j.eq_ignore_ascii_case("json") && l.eq_ignore_ascii_case("level") => {
                    Ok(Command::MoveTreeLevel(prefix.iter().map(|a| a.to_string()).collect()))
                }
                _ => Err(usage("movetree", "movetree [json] | movetree json level [ACTION ...]")),
            }
        }
        "board" => json_arg(args, Command::Board, "board", "board json"),
        "games" => json_arg(args, Command::Games, "games", "games json"),
        "show" => no_args(Command::Show, "show"),
        "save" => one_word(args).map(Command::Save).ok_or_else(|| usage("save", "save <name>")),
        "load" => one_word(args).map(Command::Load).ok_or_else(|| usage("load", "load <name>")),
        "saves" => no_args(Command::Saves, "saves"),
        "uci" => no_args(Command::Uci, "uci"),
        "ugi" => no_args(Command::Ugi, "ugi"),
        "ucinewgame" => no_args(Command::UciNewGame, "ucinewgame"),
        "uginewgame" => no_args(Command::UciNewGame, "uginewgame"),
        "query" => match args.trim().to_ascii_lowercase().as_str() {
            "p1turn" => Ok(Command::Query(Query::P1Turn)),
            "gameover" => Ok(Command::Query(Query::GameOver)),
            "result" => Ok(Command::Query(Query::Result)),
            _ => Err(usage("query", "query p1turn | gameover | result")),
        },
        "quit" | "exit" => Ok(Command::Quit),
        _ => Err(ParseError::Unknown(word.chars().take(64).collect())),
    }
}

/// A command whose one argument is `json`.
fn json_arg(
    args: &str,
    cmd: Command,
    name: &'static str,
    usage_text: &'static str,
) -> Result<Command, ParseError> {
    if args.trim().eq_ignore_ascii_case("json") { Ok(cmd) } else { Err(usage(name, usage_text)) }
}

fn one_word(args: &str) -> Option<String> {
    let mut it = args.split_whitespace();
    let w = it.next()?;
    if it.next().is_some() { None } else { Some(w.to_string()) }
}

fn parse_position(args: &str) -> Result<Command, ParseError> {
    let bad = || usage("position", "position <startpos | GameType | GameString> [moves <list>]");
    let (base_part, moves) = match split_at_word(args, "moves") {
        Some((b, m)) => (b, Some(m.to_string())),
        None => (args.trim(), None),
    };
    if base_part.is_empty() {
        return Err(bad());
    }
    let base = if base_part.eq_ignore_ascii_case("startpos") {
        PositionBase::StartPos
    } else {
        // UCI's `position fen <state>`: the state is a GameString.
        let state = match split_at_word(base_part, "fen") {
            Some(("", st)) if !st.is_empty() => st,
            Some(("", _)) => return Err(bad()),
            _ => base_part,
        };
        PositionBase::Game(state.to_string())
    };
    Ok(Command::Position { base, moves })
}

fn parse_options(args: &str) -> Result<Command, ParseError> {
    let bad = || usage("options", "options | options get <Name> | options set <Name> <Value>");
    let a = args.trim();
    if a.is_empty() {
        return Ok(Command::Options);
    }
    // Names may have spaces (`Move Overhead`): `get` takes the rest of the
    // line, `set` every word but the last, which is the value.
    let r: Res<'_, (&str, &str)> = (alt((keyword("get"), keyword("set"))), preceded(space1, rest)).parse(a);
    let (_, (kw, tail)) = r.map_err(|_| bad())?;
    let words: Vec<&str> = tail.split_whitespace().collect();
    match (kw.eq_ignore_ascii_case("get"), words.len()) {
        (true, n) if n >= 1 => Ok(Command::OptionsGet(words.join(" "))),
        (false, n) if n >= 2 => {
            Ok(Command::OptionsSet { name: words[..n - 1].join(" "), value: words[n - 1].to_string() })
        }
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_commands() {
        assert_eq!(parse_command("INFO"), Ok(Command::Info));
        assert_eq!(parse_command("uci"), Ok(Command::Uci));
        assert_eq!(parse_command("uginewgame"), Ok(Command::UciNewGame));
        assert_eq!(parse_command("query P1TURN"), Ok(Command::Query(Query::P1Turn)));
        assert!(parse_command("query foo").is_err());
        assert_eq!(parse_command("help go"), Ok(Command::Help(Some("go".into()))));
        assert_eq!(parse_command("isready"), Ok(Command::IsReady));
        assert_eq!(parse_command("exit"), Ok(Command::Quit));
        assert!(matches!(parse_command("infox"), Err(ParseError::Unknown(_))));
        assert!(matches!(parse_command("info x"), Err(ParseError::BadArgs { .. })));
    }

    #[test]
    fn newgame_and_play() {
        assert_eq!(parse_command("newgame"), Ok(Command::NewGame(None)));
        assert_eq!(
            parse_command("newgame  Base;InProgress;White[2];wS1;bS1 wS1-"),
            Ok(Command::NewGame(Some("Base;InProgress;White[2];wS1;bS1 wS1-".into())))
        );
        assert_eq!(parse_command("play  bG1   -wS1"), Ok(Command::Play("bG1   -wS1".into())));
        assert!(parse_command("play").is_err());
        assert_eq!(parse_command("PASS"), Ok(Command::Pass));
    }

    #[test]
    fn undo() {
        assert_eq!(parse_command("undo"), Ok(Command::Undo(1)));
        assert_eq!(parse_command("undo 3"), Ok(Command::Undo(3)));
        assert_eq!(parse_command("undo 0"), Ok(Command::Undo(0)));
        assert!(parse_command("undo -1").is_err());
        assert!(parse_command("undo x").is_err());
        assert!(parse_command("undo 99999999999999999999999").is_err());
    }

    #[test]
    fn go() {
        assert_eq!(parse_command("go"), Ok(Command::Go(GoParams::default())));
        assert_eq!(
            parse_command("go depth 5 movetime 200"),
            Ok(Command::Go(GoParams { depth: Some(5), movetime: Some(200), ..Default::default() }))
        );
        assert_eq!(
            parse_command("GO wtime 1000 btime 900 winc 10 binc 20 nodes 7"),
            Ok(Command::Go(GoParams {
                wtime: Some(1000),
                btime: Some(900),
                winc: Some(10),
                binc: Some(20),
                nodes: Some(7),
                ..Default::default()
            }))
        );
        assert_eq!(
            parse_command("go infinite"),
            Ok(Command::Go(GoParams { infinite: true, ..Default::default() }))
        );
        let g = |l: &str| match parse_command(l) {
            Ok(Command::Go(g)) => g,
            other => panic!("{l}: {other:?}"),
        };
        assert_eq!(g("go depth").unknown, vec!["depth"]);
        assert_eq!(g("go depthx 4").unknown, vec!["depthx", "4"]);
        assert_eq!(g("go fast").unknown, vec!["fast"]);
        // Numbers too large for their type are not silently wrapped.
        assert_eq!(g("go depth 99999999999").unknown, vec!["depth", "99999999999"]);
        assert_eq!(g("go movetime 99999999999999999999999").unknown.len(), 2);
        let p = g("go p1time 500 p2time 400 p1inc 5 p2inc 6 movestogo 3 ponder mate 2");
        assert_eq!((p.wtime, p.btime, p.winc, p.binc), (Some(500), Some(400), Some(5), Some(6)));
        assert_eq!((p.movestogo, p.mate, p.ponder), (Some(3), Some(2), true));
        let p = g("go searchmoves 4 5 wQ_wS1/ depth 3");
        assert_eq!(p.searchmoves, vec!["4", "5", "wQ_wS1/"]);
        assert_eq!(p.depth, Some(3));
    }

    #[test]
    fn bestmove() {
        assert_eq!(parse_command("bestmove"), Ok(Command::BestMove(BestMoveLimit::None)));
        assert_eq!(parse_command("bestmove depth 2"), Ok(Command::BestMove(BestMoveLimit::Depth(2))));
        assert_eq!(
            parse_command("bestmove time 00:01:05"),
            Ok(Command::BestMove(BestMoveLimit::Time(Duration::from_secs(65))))
        );
        assert!(parse_command("bestmove time 1:99:00").is_err());
        // Too far away for a clock, but a valid limit: no overflow anywhere.
        assert!(parse_command("bestmove time 5124095576030431:00:00").is_ok());
        assert!(parse_command("bestmove time 5124095576030432:00:00").is_err());
        assert!(parse_command("bestmove time 99999999999999999999:00:00").is_err());
        assert!(parse_command("bestmove depth").is_err());
    }

    #[test]
    fn setoption_and_options() {
        assert_eq!(
            parse_command("setoption name Hash value 128"),
            Ok(Command::SetOption { name: "Hash".into(), value: Some("128".into()) })
        );
        assert_eq!(
            parse_command("setoption NAME Some Name VALUE a b"),
            Ok(Command::SetOption { name: "Some Name".into(), value: Some("a b".into()) })
        );
        assert_eq!(
            parse_command("setoption name Clear"),
            Ok(Command::SetOption { name: "Clear".into(), value: None })
        );
        assert!(parse_command("setoption Hash 1").is_err());
        assert_eq!(parse_command("options"), Ok(Command::Options));
        assert_eq!(parse_command("options get Hash"), Ok(Command::OptionsGet("Hash".into())));
        assert_eq!(
            parse_command("options set Strategy random"),
            Ok(Command::OptionsSet { name: "Strategy".into(), value: "random".into() })
        );
        assert!(parse_command("options set Strategy").is_err());
        assert_eq!(
            parse_command("options get Move  Overhead"),
            Ok(Command::OptionsGet("Move Overhead".into()))
        );
        assert_eq!(
            parse_command("options set Move Overhead 50"),
            Ok(Command::OptionsSet { name: "Move Overhead".into(), value: "50".into() })
        );
        assert!(parse_command("options get").is_err());
        assert!(parse_command("options frob x").is_err());
    }

    #[test]
    fn position() {
        assert_eq!(
            parse_command("position startpos moves 4 4 5"),
            Ok(Command::Position { base: PositionBase::StartPos, moves: Some("4 4 5".into()) })
        );
        assert_eq!(
            parse_command("position Connect4+5x4"),
            Ok(Command::Position { base: PositionBase::Game("Connect4+5x4".into()), moves: None })
        );
        assert_eq!(
            parse_command("position Base MOVES wS1;bG1 -wS1"),
            Ok(Command::Position {
                base: PositionBase::Game("Base".into()),
                moves: Some("wS1;bG1 -wS1".into())
            })
        );
        assert_eq!(
            parse_command("position fen Connect4;InProgress;Yellow[1];4 moves 4"),
            Ok(Command::Position {
                base: PositionBase::Game("Connect4;InProgress;Yellow[1];4".into()),
                moves: Some("4".into())
            })
        );
        assert!(parse_command("position fen").is_err());
        assert!(parse_command("position").is_err());
        assert!(parse_command("position moves 4").is_err());
    }

    #[test]
    fn misc() {
        assert_eq!(parse_command("movetree json"), Ok(Command::MoveTree { json: true }));
        assert_eq!(parse_command("board json"), Ok(Command::Board));
        assert_eq!(parse_command("GAMES Json"), Ok(Command::Games));
        assert!(parse_command("board").is_err());
        assert!(parse_command("movetree xml").is_err());
        assert_eq!(parse_command("movetree json level"), Ok(Command::MoveTreeLevel(vec![])));
        assert_eq!(
            parse_command("movetree JSON Level wS1  -bQ"),
            Ok(Command::MoveTreeLevel(vec!["wS1".into(), "-bQ".into()]))
        );
        assert!(parse_command("movetree level 1").is_err());
        assert_eq!(parse_command("save game-1"), Ok(Command::Save("game-1".into())));
        assert!(parse_command("save a b").is_err());
        assert_eq!(parse_command("analyze"), Ok(Command::Analyze(String::new())));
        assert_eq!(
            parse_command("Review movetime 200"),
            Ok(Command::Review(GoParams { movetime: Some(200), ..Default::default() }))
        );
        let Ok(Command::Review(p)) = parse_command("review depth x") else { panic!() };
        assert_eq!(p.unknown, vec!["depth", "x"]);
    }
}
