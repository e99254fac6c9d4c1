//! `meeple review NAME|GAMESTRING`, and the review `meeple play` offers
//! when a game ends: the protocol's `review` run on an in-process session
//! (`client.rs`), its reply drawn for a person: the moves annotated
//! (`?!`, `?`, `??`), the evaluation graph in characters (one column per
//! ply, the first side above the line, the second below), each mistake
//! with the better move, and each side's accuracy. Colours only when
//! stdout is a terminal (or `--color always`). It knows no game by name:
//! the sides, their colours and the result come from `board json`.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

use super::board::{self, Board};
use super::client::Client;
use super::term::{self, ColorChoice};
use crate::engine::review::{Label, PlyLine};

/// The arguments of `meeple review`.
#[derive(clap::Args, Debug, Clone)]
pub struct ReviewArgs {
    /// A saved game's name (see `saves`, or the data folder's saves/), or
    /// a GameString (`'Connect4;RedWins;Yellow[4];4;4;4;3;4;3;4'`).
    #[arg(value_name = "NAME_OR_GAMESTRING")]
    pub game: String,
    /// The engine's time to judge each position, in milliseconds [default:
    /// none, each game's own: Connect Four and Mastermind exactly, Hive to
    /// its Depth option].
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub movetime: Option<u64>,
    /// Colours: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Set an engine option first, as `setoption` does (repeatable):
    /// --set Threads=2 --set Hash=64.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
}

/// Rows of the graph on each side of its line.
const HALF: usize = 4;
/// Columns of the graph at most: a longer game puts several plies in a
/// column (their mean).
const MAX_COLUMNS: usize = 100;

/// `meeple review`.
pub fn run(args: ReviewArgs, data_dir: &Path) -> Result<(), String> {
    let color = term::want_color(args.color);
    let mut client = Client::new(data_dir, "Connect4", false);
    for s in &args.set {
        let (name, value) = s.split_once('=').ok_or_else(|| format!("--set {s}: write NAME=VALUE"))?;
        client
            .command(&format!("setoption name {} value {}", name.trim(), value.trim()))
            .map_err(|e| format!("--set {s}: {e}"))?;
    }
    let spec = args.game.trim();
    if spec.contains(';') {
        client.line(&format!("newgame {spec}")).map_err(|e| format!("cannot read the game: {e}"))?;
    } else {
        client.line(&format!("load {spec}")).map_err(|e| {
            let names: Vec<String> = client.saves().into_iter().map(|(n, _)| n).collect();
            format!(
                "cannot load '{spec}': {e} (saved: {}; or give a GameString)",
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            )
        })?;
    }
    let text = review_text(&mut client, args.movetime, color)?;
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes()).and_then(|_| o.flush()).map_err(|e| e.to_string())
}

/// The review of the session's current game, drawn (progress on stderr
/// while it runs, when stderr is a terminal).
pub fn review_text(client: &mut Client, movetime: Option<u64>, color: bool) -> Result<String, String> {
    let b = Board::parse(&client.line("board json").map_err(|e| e.to_string())?)?;
    let r = collect(client, movetime)?;
    Ok(draw(&b, &r, movetime, color))
}

/// What `review` answered.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Review {
    pub plies: Vec<PlyLine>,
    /// Each side's `side` line, as key-value pairs.
    pub sides: Vec<Vec<(String, String)>>,
}

impl Review {
    fn side(&self, i: usize, key: &str) -> Option<&str> {
        self.sides.get(i)?.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// Runs `review [movetime MS]` and reads its reply.
pub fn collect(client: &mut Client, movetime: Option<u64>) -> Result<Review, String> {
    let live = std::io::stderr().is_terminal();
    client.start(&match movetime {
        Some(ms) => format!("review movetime {ms}"),
        None => "review".to_string(),
    });
    let mut r = Review::default();
    loop {
        let Some(line) = client.next_line(Duration::from_secs(600)).map_err(|e| e.to_string())? else {
            return Err("the review said nothing for 10 minutes".into());
        };
        if line == "ok" {
            break;
        }
        if let Some(p) = PlyLine::parse(&line) {
            r.plies.push(p);
        } else if let Some(rest) = line.strip_prefix("side ") {
            let toks: Vec<&str> = rest.split(' ').collect();
            let mut kv = vec![("name".to_string(), toks[0].to_string())];
            kv.extend(toks[1..].chunks(2).filter_map(|c| match c {
                [k, v] => Some((k.to_string(), v.to_string())),
                _ => None,
            }));
            r.sides.push(kv);
        } else if let Some(m) = line.strip_prefix("err ") {
            if live {
                eprint!("\r\x1b[K");
            }
            // The reply's `ok` follows.
            let _ = client.next_line(Duration::from_secs(30));
            return Err(m.to_string());
        } else if let Some(rest) = line.strip_prefix("info review positions ") {
            let mut w = rest.split(' ');
            if let (true, Some(done), Some(_), Some(total)) = (live, w.next(), w.next(), w.next()) {
                eprint!("\rReviewing: position {done} of {total}\x1b[K");
            }
        }
    }
    if live {
        eprint!("\r\x1b[K");
    }
    Ok(r)
}

/// ANSI helpers.
struct Ink {
    on: bool,
}

impl Ink {
    fn fg(&self, text: &str, code: u8) -> String {
        if self.on && !text.trim().is_empty() {
            format!("\x1b[38;5;{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    fn bold(&self, text: &str) -> String {
        if self.on { format!("\x1b[1m{text}\x1b[0m") } else { text.to_string() }
    }
    fn dim(&self, text: &str) -> String {
        if self.on { format!("\x1b[2m{text}\x1b[0m") } else { text.to_string() }
    }
    /// A label's glyph in its colour.
    fn glyph(&self, l: Label) -> String {
        self.fg(l.glyph(), label_colour(l))
    }
}

/// 256-colour codes of the labels: inaccuracy yellow, mistake orange,
/// blunder red.
fn label_colour(l: Label) -> u8 {
    match l {
        Label::Inaccuracy => 220,
        Label::Mistake => 208,
        Label::Blunder => 196,
        _ => 250,
    }
}

/// The colour of a side's pieces (from the board), made visible on a dark
/// terminal, as a 256-colour code; a default per side otherwise.
fn side_colour(b: &Board, side: usize) -> u8 {
    let css = b
        .cells
        .iter()
        .flat_map(|c| &c.pieces)
        .chain(b.hands.iter().flatten())
        .find(|p| p.side == Some(side) && !p.colour.is_empty())
        .map(|p| p.colour.clone());
    match css.as_deref().and_then(board::rgb) {
        Some((r, g, bl)) => {
            let lum = (0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(bl)) / 255.0;
            if lum < 0.3 {
                // Too dark to see: its grey-blue.
                board::ansi256(r / 2 + 90, g / 2 + 100, bl / 2 + 120)
            } else {
                board::ansi256(r, g, bl)
            }
        }
        None if side == 0 => 252,
        None => 75,
    }
}

/// A move as a person reads it (the reply's one-token form, a space for
/// each `_` in a game whose moves hold spaces).
fn move_text(b: &Board, mv: &str) -> String {
    let spaces = crate::registry::family_by_name(&b.family).is_some_and(|f| f.moves_have_spaces);
    if spaces { mv.replace('_', " ") } else { mv.to_string() }
}

/// The whole review as text.
pub fn draw(b: &Board, r: &Review, movetime: Option<u64>, color: bool) -> String {
    let ink = Ink { on: color };
    let mut out = String::new();
    let sides = &b.sides;
    let result = match b.ending() {
        Some(board::Ending::Win(s)) => format!("{} won", sides[s]),
        Some(board::Ending::Draw) => "a draw".to_string(),
        None => "not finished".to_string(),
    };
    let _ = writeln!(
        out,
        "{}",
        ink.bold(&format!(
            "Review of {} ({result}, {} moves), {}",
            b.game_type,
            r.plies.len(),
            match movetime {
                Some(ms) => format!("{ms} ms a position"),
                None => "no time limit".to_string(),
            }
        ))
    );
    out.push('\n');
    moves(&mut out, b, r, &ink);
    out.push('\n');
    graph(&mut out, b, r, &ink);
    out.push('\n');
    mistakes(&mut out, b, r, &ink);
    let unproven: Vec<String> =
        r.plies.iter().filter(|p| p.label == Some(Label::Unproven)).map(|p| p.ply.to_string()).collect();
    if !unproven.is_empty() {
        let _ = writeln!(
            out,
            "Not judged within the time: move{} {} (give more --movetime).",
            if unproven.len() == 1 { "" } else { "s" },
            unproven.join(", ")
        );
    }
    out.push('\n');
    for (i, name) in sides.iter().enumerate() {
        let acc = r.side(i, "accuracy").unwrap_or("none");
        let count = |k: &str| r.side(i, k).and_then(|v| v.parse::<usize>().ok()).unwrap_or(0);
        let mut parts = Vec::new();
        for (k, word) in [("blunder", "blunder"), ("mistake", "mistake"), ("inaccuracy", "inaccurac")] {
            let n = count(k);
            if n > 0 {
                let plural = match (k, n) {
                    ("inaccuracy", 1) => "y",
                    ("inaccuracy", _) => "ies",
                    (_, 1) => "",
                    _ => "s",
                };
                parts.push(format!("{n} {word}{plural}"));
            }
        }
        let what = if parts.is_empty() { String::new() } else { format!(" ({})", parts.join(", ")) };
        let acc = if acc == "none" { "not judged".to_string() } else { format!("accuracy {acc}%") };
        let _ = writeln!(out, "{}: {acc}{what}", ink.fg(name, side_colour(b, i)));
    }
    out
}

/// The moves, one turn a line, each with its glyph.
fn moves(out: &mut String, b: &Board, r: &Review, ink: &Ink) {
    let _ = writeln!(out, "{}", ink.bold("Moves (?! inaccuracy, ? mistake, ?? blunder)"));
    let cells: Vec<(usize, String, usize)> = r
        .plies
        .iter()
        .map(|p| {
            let l = p.label.unwrap_or(Label::None);
            let text = move_text(b, &p.mv);
            let width = text.chars().count() + l.glyph().len();
            (p.ply, format!("{text}{}", ink.glyph(l)), width)
        })
        .collect();
    let col = cells.iter().map(|c| c.2).max().unwrap_or(0).max(b.sides[0].len()) + 3;
    let _ = writeln!(
        out,
        "       {}{}{}",
        ink.fg(&b.sides[0], side_colour(b, 0)),
        " ".repeat(col.saturating_sub(b.sides[0].len())),
        ink.fg(&b.sides[1], side_colour(b, 1))
    );
    for pair in cells.chunks(2) {
        let turn = pair[0].0.div_ceil(2);
        let _ = write!(out, "  {turn:>3}. ");
        // A game that starts with the second side's move (none here).
        for (i, (_, text, width)) in pair.iter().enumerate() {
            out.push_str(text);
            if i == 0 && pair.len() == 2 {
                out.push_str(&" ".repeat(col.saturating_sub(*width)));
            }
        }
        out.push('\n');
    }
}

/// The graph: one column per ply (or per few plies in a long game), the
/// first side's standing above the line, the second's below; under it,
/// the plies marked `i` inaccuracy, `M` mistake, `B` blunder, and a ruler.
fn graph(out: &mut String, b: &Board, r: &Review, ink: &Ink) {
    let n = r.plies.len();
    if n == 0 {
        return;
    }
    let per = n.div_ceil(MAX_COLUMNS);
    let cols: Vec<(Option<f64>, Label)> = r
        .plies
        .chunks(per)
        .map(|c| {
            let vals: Vec<f64> = c.iter().filter_map(|p| p.get("graph")?.parse().ok()).collect();
            let v = (!vals.is_empty()).then(|| vals.iter().sum::<f64>() / vals.len() as f64);
            let worst = c
                .iter()
                .filter_map(|p| p.label)
                .max_by_key(|l| match l {
                    Label::Blunder => 3,
                    Label::Mistake => 2,
                    Label::Inaccuracy => 1,
                    _ => 0,
                })
                .unwrap_or(Label::None);
            (v, worst)
        })
        .collect();
    let name_w = b.sides.iter().map(|s| s.len()).max().unwrap_or(0);
    let plies =
        if per == 1 { "one column per move".to_string() } else { format!("one column per {per} moves") };
    let _ = writeln!(
        out,
        "{}",
        ink.bold(&format!("Evaluation ({} leads above the line, {} below; {plies})", b.sides[0], b.sides[1]))
    );
    const EIGHTHS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let (c0, c1) = (side_colour(b, 0), side_colour(b, 1));
    for row in (0..HALF).rev() {
        let label = if row == HALF - 1 { b.sides[0].as_str() } else { "" };
        let bars: String = cols
            .iter()
            .map(|(v, _)| {
                let fill = v.map_or(0.0, |v| v.max(0.0) * HALF as f64 - row as f64).clamp(0.0, 1.0);
                EIGHTHS[(fill * 8.0).round() as usize]
            })
            .collect();
        let _ = writeln!(out, " {label:>name_w$} │{}", ink.fg(bars.trim_end(), c0));
    }
    let line: String = cols.iter().map(|(v, _)| if v.is_none() { '·' } else { '─' }).collect();
    let axis = format!(" {:>name_w$} ┼{}", "", ink.dim(&line));
    let _ = writeln!(out, "{axis}");
    for row in 0..HALF {
        let label = if row == HALF - 1 { b.sides[1].as_str() } else { "" };
        let bars: String = cols
            .iter()
            .map(|(v, _)| {
                let fill = v.map_or(0.0, |v| (-v).max(0.0) * HALF as f64 - row as f64);
                if fill >= 0.75 {
                    '█'
                } else if fill >= 0.25 {
                    '▀'
                } else {
                    ' '
                }
            })
            .collect();
        let _ = writeln!(out, " {label:>name_w$} │{}", ink.fg(bars.trim_end(), c1));
    }
    let mut marks = format!(" {:>name_w$}  ", "");
    for (_, l) in &cols {
        let m = match l {
            Label::Inaccuracy => "i",
            Label::Mistake => "M",
            Label::Blunder => "B",
            _ => " ",
        };
        marks.push_str(&ink.fg(m, label_colour(*l)));
    }
    let _ = writeln!(out, "{}", marks.trim_end());
    // Ticks at the first column and every tenth move.
    let mut ruler = vec![' '; cols.len() + 4];
    let mut at = 0;
    while at < cols.len() {
        let tick = (at * per + 1).to_string();
        if ruler[at..].iter().take(tick.len() + 1).all(|&c| c == ' ') {
            for (i, ch) in tick.chars().enumerate() {
                ruler[at + i] = ch;
            }
        }
        at = if at == 0 { 9 } else { at + 10 };
    }
    let ruler: String = ruler.into_iter().collect();
    let _ = writeln!(out, " {:>name_w$}  {}", "", ink.dim(ruler.trim_end()));
    let _ = writeln!(out, " {:>name_w$}  {}", "", ink.dim("i inaccuracy, M mistake, B blunder"));
}

/// Each inaccuracy, mistake and blunder with the better move.
fn mistakes(out: &mut String, b: &Board, r: &Review, ink: &Ink) {
    let bad: Vec<&PlyLine> = r
        .plies
        .iter()
        .filter(|p| matches!(p.label, Some(Label::Inaccuracy | Label::Mistake | Label::Blunder)))
        .collect();
    if bad.is_empty() {
        let _ = writeln!(out, "{}", ink.bold("No inaccuracy, mistake or blunder."));
        return;
    }
    let _ = writeln!(out, "{}", ink.bold("Mistakes and better moves"));
    for p in bad {
        let l = p.label.unwrap_or(Label::None);
        let side = b.sides.iter().position(|s| *s == p.side).unwrap_or(0);
        let mut line = format!(
            "  {:>3}. {} {}{} {}",
            p.ply.div_ceil(2),
            ink.fg(&p.side, side_colour(b, side)),
            move_text(b, &p.mv),
            ink.glyph(l),
            ink.fg(l.word(), label_colour(l)),
        );
        if let Some(v) = p.get("value") {
            let _ = write!(line, ": value {v}");
        }
        if let Some(best) = p.get("best") {
            let _ = write!(line, "; better {}", ink.bold(&move_text(b, best)));
            if let Some(bv) = p.get("bestvalue") {
                let _ = write!(line, " (value {bv})");
            }
        }
        if let Some(lost) = p.get("lost") {
            let _ = write!(line, "; about {lost} guesses lost");
        }
        for note in p.get("note").unwrap_or("").split(',').filter(|n| !n.is_empty()) {
            let words = match note {
                "impossible" => "it could not be the code, and a possible code was as good",
                "nothing-new" => "it told nothing new",
                other => other,
            };
            let _ = write!(line, "; {words}");
        }
        let _ = writeln!(out, "{line}");
    }
}

/// After a game of `meeple play`: "Review this game? [y/N]" at a
/// terminal, and the review if the answer is yes.
/// Offers the review of the game just over; each side's accuracy (side 0,
/// side 1) if it was reviewed.
pub fn offer(client: &mut Client, term: &mut term::Term) -> Option<[Option<f64>; 2]> {
    if !term.interactive() {
        return None;
    }
    match term.read("Review this game? [y/N] ") {
        term::Input::Line(l)
            if l.trim().eq_ignore_ascii_case("y") || l.trim().eq_ignore_ascii_case("yes") =>
        {
            let reviewed = client
                .line("board json")
                .map_err(|e| e.to_string())
                .and_then(|b| Board::parse(&b))
                .and_then(|b| collect(client, None).map(|r| (b, r)));
            match reviewed {
                Ok((b, r)) => {
                    term.say(&draw(&b, &r, None, term.color));
                    Some(accuracies(&b, &r))
                }
                Err(e) => {
                    term.say(&format!("No review: {e}"));
                    None
                }
            }
        }
        _ => None,
    }
}

/// Each side's accuracy in a review (side 0, side 1), from its `side`
/// lines (`accuracy A` or `accuracy none`).
pub fn accuracies(b: &Board, r: &Review) -> [Option<f64>; 2] {
    [0, 1].map(|s| {
        let i = r.sides.iter().position(|kv| kv.first().is_some_and(|(_, n)| *n == b.sides[s]))?;
        r.side(i, "accuracy")?.parse::<f64>().ok().filter(|a| (0.0..=100.0).contains(a))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(family: &str, sides: [&str; 2]) -> Board {
        Board {
            family: family.into(),
            game_type: family.into(),
            sides: [sides[0].into(), sides[1].into()],
            state: format!("{}Wins", sides[0]),
            ..Board::default()
        }
    }

    /// Each side's accuracy is read from its `side` line, by name.
    #[test]
    fn accuracies_are_read_by_side() {
        let b = board("Connect4", ["Red", "Yellow"]);
        let kv = |n: &str, a: &str| vec![("name".to_string(), n.to_string()), ("accuracy".into(), a.into())];
        let r = Review { plies: Vec::new(), sides: vec![kv("Yellow", "71.5"), kv("Red", "none")] };
        assert_eq!(accuracies(&b, &r), [None, Some(71.5)]);
    }

    /// The drawing of a known reply: every move with its glyph, the graph
    /// with a column per ply and its marks, each mistake with the better
    /// move, the accuracies.
    #[test]
    fn a_reply_is_drawn() {
        let lines = [
            "ply 1 side White move wQ label best value 30 best wQ bestvalue 30 accuracy 100.0 graph 0.100",
            "ply 2 side Black move bQ_wQ- label blunder value -300 best bA1_wQ- bestvalue -20 accuracy 30.0 graph 0.900",
            "ply 3 side White move wA1_-wQ label inaccuracy value 250 best wB1_wQ/ bestvalue 300 accuracy 80.0 graph 0.700",
            "ply 4 side Black move pass label forced graph -0.500",
        ];
        let r = Review {
            plies: lines.iter().map(|l| PlyLine::parse(l).unwrap()).collect(),
            sides: vec![
                vec![
                    ("name".into(), "White".into()),
                    ("inaccuracy".into(), "1".into()),
                    ("accuracy".into(), "88.0".into()),
                ],
                vec![
                    ("name".into(), "Black".into()),
                    ("blunder".into(), "1".into()),
                    ("accuracy".into(), "30.0".into()),
                ],
            ],
        };
        let text = draw(&board("Hive", ["White", "Black"]), &r, Some(200), false);
        assert!(text.contains("  1. wQ"), "{text}");
        assert!(text.contains("bQ wQ-??"), "{text}");
        assert!(text.contains("wA1 -wQ?!"), "{text}");
        assert!(text.contains(" Bi"), "the marks of plies 2 and 3: {text}");
        assert!(text.contains("better bA1 wQ- (value -20)"), "{text}");
        assert!(text.contains("White: accuracy 88.0% (1 inaccuracy)"), "{text}");
        assert!(text.contains("Black: accuracy 30.0% (1 blunder)"), "{text}");
        // Ply 2's column reaches the top row (0.9 of 4 rows), ply 4's goes
        // below the line.
        let rows: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("Evaluation")).skip(1).collect();
        assert!(rows[0].starts_with(" White │"), "{rows:?}");
        assert_eq!(rows[0].chars().nth(9), Some('▅'), "{rows:?}");
        assert!(rows[5].ends_with('▀') || rows[5].ends_with('█'), "{rows:?}");
        assert!(!text.contains('\x1b'), "no colour asked");
        let coloured = draw(&board("Hive", ["White", "Black"]), &r, Some(200), true);
        assert!(coloured.contains("\x1b[38;5;196m??"), "a blunder in red");
    }
}
