//! One game at the terminal: the board drawn after every move, whose turn
//! it is, the engine answering on its own (a spinner with its depth, then
//! its move and how long it took), and the person's commands: a move in
//! the game's notation, `hint`, `undo`, `save`, `load`, `saves`, `moves`,
//! `board`, `resign`, `help`, `quit`. Ctrl-C while the engine thinks makes
//! it play its best move so far; at the prompt it says how to leave, and a
//! second one in a row leaves. Watching the engine play itself, a pause
//! follows every move and Ctrl-C pauses the game at a prompt.

use std::time::{Duration, Instant};

use super::board::{self, Board, Ending, Paint};
use super::client::{Client, Refusal, SearchEvent};
use super::record;
use super::term::{Input, Term};
use crate::text::clean;

/// Who holds a side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seat {
    Person(String),
    Engine,
}

/// The engine's identity and limits, as the results name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSeat {
    /// The strategy's canonical name.
    pub strategy: String,
    /// `go`'s limits: `movetime 1000` or `depth 6`.
    pub limits: String,
    /// The `Skill` option, if set.
    pub skill: Option<u8>,
}

impl EngineSeat {
    /// The level as the results keep it: the `go` limit, then the skill.
    pub fn level(&self) -> String {
        match self.skill {
            Some(s) => format!("{} skill {s}", self.limits),
            None => self.limits.clone(),
        }
    }
}

/// How a game ended at the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finish {
    /// By the rules, or a side resigned (`resigned` then names it).
    Over { ending: Ending, resigned: Option<usize> },
    /// The person left before the end (nothing is recorded).
    Left,
}

/// What a command at the prompt asks of the loop.
enum Act {
    Stay,
    Resume,
    Resign,
    Quit,
}

/// What the engine found.
struct Thought {
    mv: String,
    took: Duration,
    depth: Option<u32>,
    score: Option<String>,
    stopped: bool,
}

/// The game at the terminal.
pub struct Table<'a> {
    pub client: &'a mut Client,
    pub term: &'a mut Term,
    pub engine: EngineSeat,
    pub seats: [Seat; 2],
    /// Watching: the pause after each move.
    pub pause: Option<Duration>,
    /// Loading is only of this game type (a match's rounds), else of the
    /// same family.
    pub same_type: bool,
    /// The `--set` and engine options applied again after a `load`.
    pub reapply: Vec<String>,
    pub board: Board,
    pub game_string: String,
    /// Cells of the last move.
    last: Vec<String>,
    /// Moves played at this table (a game ended elsewhere is not
    /// recorded again).
    pub moves_here: usize,
    /// The GameString last saved (leaving it is not asked about).
    saved: Option<String>,
}

impl<'a> Table<'a> {
    pub fn new(
        client: &'a mut Client,
        term: &'a mut Term,
        engine: EngineSeat,
        seats: [Seat; 2],
    ) -> Table<'a> {
        Table {
            client,
            term,
            engine,
            seats,
            pause: None,
            same_type: false,
            reapply: Vec::new(),
            board: Board::default(),
            game_string: String::new(),
            last: Vec::new(),
            moves_here: 0,
            saved: None,
        }
    }

    fn paint(&self) -> Paint {
        Paint { color: self.term.color }
    }

    /// Reads the position again; `changed`: the last move's cells are
    /// those that differ from the position before.
    fn refresh(&mut self, changed: bool) -> Result<(), String> {
        let json = self.client.line("board json").map_err(|e| e.to_string())?;
        let b = Board::parse(&json)?;
        self.last = if changed { b.changed_since(&self.board) } else { Vec::new() };
        self.board = b;
        Ok(())
    }

    /// The name of whoever holds `side`.
    fn who(&self, side: usize) -> String {
        match &self.seats[side] {
            Seat::Person(n) => n.clone(),
            Seat::Engine => format!("meeple ({})", self.engine.strategy),
        }
    }

    /// A side with its pieces' letter where they have one: `Red (X)`.
    fn side_name(&self, side: usize) -> String {
        let name = &self.board.sides[side];
        match board::side_letter(&self.board, side) {
            Some(l) => format!("{name} ({l})"),
            None => name.clone(),
        }
    }

    /// The board and whose turn it is.
    fn draw(&mut self) {
        let show = match self.board.geometry {
            board::Geometry::Text => self.client.command("show").map(|l| l.join("\n")).unwrap_or_default(),
            _ => String::new(),
        };
        let mut text = board::draw(&self.board, &self.last, self.paint(), &show);
        if self.board.ending().is_none() {
            let turn = self.board.turn;
            let side = &self.board.sides[turn];
            // `Red to move` with the pieces' letter: `Red (X) to move`.
            let caption = match self.board.caption.strip_prefix(side.as_str()) {
                Some(rest) => format!("{}{rest}", self.side_name(turn)),
                None if self.board.caption.is_empty() => format!("{} to move", self.side_name(turn)),
                None => self.board.caption.clone(),
            };
            text.push_str(&self.paint().bold(&format!("{caption}: {}", self.who(turn))));
        }
        self.term.say(&text);
    }

    /// Plays the game to its end, or until the person leaves.
    pub fn play(&mut self) -> Result<Finish, String> {
        self.refresh(false)?;
        self.draw();
        let mut paused = false;
        let mut interrupted_at_prompt = false;
        loop {
            if let Some(ending) = self.board.ending() {
                return Ok(Finish::Over { ending, resigned: None });
            }
            let side = self.board.turn;
            if self.seats[side] == Seat::Engine && !paused {
                let stopped = self.engine_moves()?;
                if let Some(pause) = self.pause
                    && self.board.ending().is_none()
                    && (stopped || self.wait(pause))
                {
                    paused = true;
                    self.term
                        .say("\nPaused. Enter goes on; or a move, hint, undo, save NAME, load NAME, quit.");
                }
                continue;
            }
            let prompt = if paused {
                "paused> ".to_string()
            } else {
                format!("{} ({}) > ", self.who(side), self.board.sides[side])
            };
            let words = self.completions();
            self.term.set_words(words);
            let line = match self.term.read(&prompt) {
                Input::Eof => {
                    self.term.say("End of input: the game is left unfinished (not recorded).");
                    return Ok(Finish::Left);
                }
                Input::Interrupt if interrupted_at_prompt => {
                    self.term.say("Ctrl-C twice: the game is left unfinished (not recorded).");
                    return Ok(Finish::Left);
                }
                Input::Interrupt => {
                    interrupted_at_prompt = true;
                    self.term.say(
                        "(Ctrl-C: the line is cleared. Press Ctrl-C again to leave the game, or type quit.)",
                    );
                    continue;
                }
                Input::Line(l) => l,
            };
            interrupted_at_prompt = false;
            match self.command(&line, paused)? {
                Act::Stay => {}
                Act::Resume => paused = false,
                Act::Resign => {
                    let side = self.board.turn;
                    let winner = 1 - side;
                    self.term.say(&format!("{} resigns: {} wins.", self.who(side), self.board.sides[winner]));
                    return Ok(Finish::Over { ending: Ending::Win(winner), resigned: Some(side) });
                }
                Act::Quit => return Ok(Finish::Left),
            }
        }
    }

    /// Waits `pause` between watched moves; true if Ctrl-C came.
    fn wait(&mut self, pause: Duration) -> bool {
        let end = Instant::now() + pause;
        while Instant::now() < end {
            if self.term.take_interrupt() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20).min(end.saturating_duration_since(Instant::now())));
        }
        self.term.take_interrupt()
    }

    /// The engine's move for the side to move; true if Ctrl-C stopped it.
    fn engine_moves(&mut self) -> Result<bool, String> {
        let side = self.board.turn;
        let t = self.think(&format!("{} thinks", self.side_name(side)))?;
        self.play_text(&t.mv).map_err(|e| format!("the engine's move {} was refused: {e}", t.mv))?;
        let mut about = vec![self.engine.strategy.clone(), format!("{:.2} s", t.took.as_secs_f64())];
        about.extend(t.depth.filter(|&d| d > 0).map(|d| format!("depth {d}")));
        about.extend(t.score.as_deref().map(score_words));
        if t.stopped {
            about.push("stopped by Ctrl-C".into());
        }
        self.draw_move(&format!("{} plays {} ({})", self.side_name(side), t.mv, about.join(", ")));
        Ok(t.stopped)
    }

    /// Runs the engine on the position: a spinner with its depth and time
    /// while it thinks; Ctrl-C stops it and takes its best move so far.
    fn think(&mut self, what: &str) -> Result<Thought, String> {
        const SPIN: [char; 4] = ['|', '/', '-', '\\'];
        let start = Instant::now();
        // A Ctrl-C pending from between two watched moves stops this
        // search at once (and so pauses); the prompt clears older ones.
        let mut search = self.client.go(&self.engine.limits);
        let (mut depth, mut score, mut stopped) = (None, None, false);
        let mut frame = 0;
        let mut drawn = Instant::now() - Duration::from_secs(1);
        let result = loop {
            if !stopped && self.term.take_interrupt() {
                self.client.stop(&mut search);
                stopped = true;
            }
            match self.client.next(&mut search, Duration::from_millis(50)) {
                Some(SearchEvent::Info { depth: d, score: s }) => {
                    depth = d.or(depth);
                    score = s.or(score);
                }
                Some(SearchEvent::Done(r)) => break r,
                None => {}
            }
            if start.elapsed() > Duration::from_millis(200) && drawn.elapsed() > Duration::from_millis(100) {
                drawn = Instant::now();
                frame += 1;
                let d = depth.map(|d| format!(", depth {d}")).unwrap_or_default();
                let secs = start.elapsed().as_secs_f64();
                self.term.status(&format!(
                    "{} {what}{d}, {secs:.1} s (Ctrl-C: move now)",
                    SPIN[frame % SPIN.len()]
                ));
            }
        };
        self.term.clear_status();
        if stopped {
            // A second Ctrl-C while this search was stopping is not a
            // new one.
            self.term.take_interrupt();
        }
        let mv = result.map_err(|e| format!("the engine could not move: {e}"))?;
        Ok(Thought { mv, took: start.elapsed(), depth, score, stopped })
    }

    /// Plays a move's text; the board is read again.
    fn play_text(&mut self, text: &str) -> Result<(), Refusal> {
        self.game_string = self.client.line(&format!("play {}", clean(text)))?;
        self.moves_here += 1;
        self.refresh(true).map_err(Refusal::Err)
    }

    /// The board after a move, the move said under it.
    fn draw_move(&mut self, said: &str) {
        self.term.say("");
        self.draw_with(said);
    }

    fn draw_with(&mut self, said: &str) {
        self.term.say(said);
        self.draw();
    }

    /// Tab's words: the legal moves (if they can be listed), the commands,
    /// and `load NAME` for each save.
    fn completions(&mut self) -> Vec<String> {
        let mut words: Vec<String> = match self.client.line("validmoves") {
            Ok(l) => l.split(';').map(str::to_string).filter(|m| !m.is_empty()).collect(),
            Err(_) => Vec::new(),
        };
        words.extend(COMMANDS.iter().map(|c| c.to_string()));
        words.extend(self.save_names().into_iter().map(|n| format!("load {n}")));
        words
    }

    /// The saves that can be loaded here (listed with a GameString).
    fn save_names(&mut self) -> Vec<String> {
        self.client.saves().into_iter().filter(|(_, gs)| gs.contains(';')).map(|(n, _)| n).collect()
    }

    /// Runs one line typed at the prompt.
    fn command(&mut self, line: &str, paused: bool) -> Result<Act, String> {
        let line = clean(line);
        let line = line.trim();
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        match word.to_ascii_lowercase().as_str() {
            "" if paused => return Ok(Act::Resume),
            "" => {}
            "go" | "resume" | "continue" if paused => return Ok(Act::Resume),
            "help" | "?" => self.help(),
            "hint" => self.hint()?,
            "undo" => self.undo(rest)?,
            "save" => self.save(rest),
            "load" => self.load(rest)?,
            "saves" => self.list_saves(),
            "moves" => self.list_moves(),
            "board" | "show" => self.draw(),
            "resign" => return Ok(Act::Resign),
            "quit" | "exit" => {
                self.offer_save();
                return Ok(Act::Quit);
            }
            _ => match self.play_text(line) {
                Ok(()) => {
                    let side = 1 - self.board.turn;
                    let said = format!("{} plays {}", self.side_name(side), self.last_move_text());
                    self.draw_move(&said);
                }
                Err(Refusal::InvalidMove(m)) => {
                    self.term.say(&format!("Not a move here: {m}. (Tab or `moves` lists the moves; `help`.)"))
                }
                Err(Refusal::Err(m)) => self.term.say(&format!("Cannot play '{line}': {m}")),
            },
        }
        Ok(Act::Stay)
    }

    /// The canonical text of the last move played (from the GameString).
    fn last_move_text(&self) -> String {
        let fields: Vec<&str> = self.game_string.split(';').collect();
        let moves = fields.get(3..3 + self.board.ply).unwrap_or(&[]);
        moves.last().map_or(String::new(), |m| m.to_string())
    }

    fn help(&mut self) {
        let notation = self
            .client
            .command(&format!("help {}", self.board.family))
            .map(|l| l.iter().map(|l| format!("  {}", l.trim())).collect::<Vec<_>>().join("\n"))
            .unwrap_or_default();
        self.term.say(&format!(
            "Type a move, or a command:\n\
             {HELP}\n\
             Tab completes moves and commands; arrows and Ctrl-R recall earlier lines.\n\
             Ctrl-C while the engine thinks makes it move now; at the prompt, twice leaves.\n\
             {notation}"
        ));
    }

    /// The engine's move for the side to move, not played; a person who
    /// keeps a secret code is shown the feedbacks that fit instead.
    fn hint(&mut self) -> Result<(), String> {
        let side = self.board.turn;
        if record::secret_side(&self.board.family) == Some(side) && self.seats[side] != Seat::Engine {
            let fits = self.client.line("validmoves").unwrap_or_default().replace(';', " ");
            self.term.say(&format!(
                "The engine cannot know your code. Feedbacks that fit every row so far: {fits}"
            ));
            return Ok(());
        }
        let t = self.think("thinking of a hint")?;
        let mut about = vec![format!("{} {:.2} s", self.engine.strategy, t.took.as_secs_f64())];
        about.extend(t.depth.filter(|&d| d > 0).map(|d| format!("depth {d}")));
        about.extend(t.score.as_deref().map(score_words));
        self.term.say(&format!("Hint: {} ({})", t.mv, about.join(", ")));
        Ok(())
    }

    /// `undo`: back to the previous turn of a person (two plies against
    /// the engine, one in a hotseat game or when watching); `undo N`: N
    /// plies.
    fn undo(&mut self, rest: &str) -> Result<(), String> {
        let n = if rest.is_empty() {
            let people: Vec<usize> = (0..2).filter(|&s| self.seats[s] != Seat::Engine).collect();
            (1..=2).find(|k| people.is_empty() || people.contains(&((self.board.turn + k) % 2))).unwrap_or(1)
        } else {
            match rest.parse::<usize>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    self.term.say("undo takes a number of moves (plies) of at least 1: undo 2");
                    return Ok(());
                }
            }
        };
        if n > self.board.ply {
            self.term.say(&format!(
                "Nothing to take back: undo needs {n} move{} and {} {} been played.",
                if n == 1 { "" } else { "s" },
                self.board.ply,
                if self.board.ply == 1 { "has" } else { "have" }
            ));
            return Ok(());
        }
        match self.client.line(&format!("undo {n}")) {
            Ok(gs) => {
                self.game_string = gs;
                self.refresh(false)?;
                self.draw_move(&format!("Took back {n} move{}.", if n == 1 { "" } else { "s" }));
            }
            Err(e) => self.term.say(&format!("Cannot undo: {e}")),
        }
        Ok(())
    }

    fn save(&mut self, name: &str) {
        if name.is_empty() {
            self.term.say("save takes a name: save mygame");
            return;
        }
        match self.client.command(&format!("save {name}")) {
            Ok(_) => {
                self.saved = Some(self.game_string.clone());
                self.term.say(&format!(
                    "Saved as {name}. Resume it with `load {name}` here or `meeple play --load {name}`."
                ))
            }
            Err(e) => self.term.say(&format!("Not saved: {e}")),
        }
    }

    fn load(&mut self, name: &str) -> Result<(), String> {
        if name.is_empty() {
            self.list_saves();
            self.term.say("load takes a name: load mygame");
            return Ok(());
        }
        // The save must be a game of this table: the same family (in a
        // match, the same game type).
        let found = self.client.saves().into_iter().find(|(n, _)| n == name).map(|(_, gs)| gs);
        if let Some(gs) = found.as_ref().filter(|gs| gs.contains(';')) {
            let state = gs.split(';').nth(1).unwrap_or("");
            if state == "Draw" || state.ends_with("Wins") {
                self.term.say(&format!("{name} is a finished game ({state}): nothing to play."));
                return Ok(());
            }
            let ty = gs.split(';').next().unwrap_or("");
            let family =
                crate::registry::new_game(ty).map(|g| g.family().name.to_string()).unwrap_or_default();
            let fits = if self.same_type { ty == self.board.game_type } else { family == self.board.family };
            if !fits {
                let want = if self.same_type { &self.board.game_type } else { &self.board.family };
                self.term.say(&format!(
                    "{name} is a {ty} game; this table plays {want}. Start it with `meeple play --load {name}`."
                ));
                return Ok(());
            }
        }
        let before = self.game_string.clone();
        match self.client.line(&format!("load {name}")) {
            Ok(gs) => {
                // A save too large to list is checked once loaded; a game
                // of another kind gives the table back its own.
                let ty = gs.split(';').next().unwrap_or("").to_string();
                let family =
                    crate::registry::new_game(&ty).map(|g| g.family().name.to_string()).unwrap_or_default();
                let fits =
                    if self.same_type { ty == self.board.game_type } else { family == self.board.family };
                if !fits {
                    let back = self.client.line(&format!("newgame {before}"));
                    self.term.say(&format!(
                        "{name} is a {ty} game; this table plays {}. Start it with `meeple play --load {name}`.{}",
                        if self.same_type { &self.board.game_type } else { &self.board.family },
                        if back.is_err() { " (The game here could not be restored.)" } else { "" }
                    ));
                    return Ok(());
                }
                self.game_string = gs;
                for o in self.reapply.clone() {
                    if let Err(e) = self.client.command(&o) {
                        self.term.say(&format!("After loading, '{o}' failed: {e}"));
                    }
                }
                self.refresh(false)?;
                self.draw_move(&format!("Loaded {name} ({} moves played).", self.board.ply));
            }
            Err(e) => self.term.say(&format!("Not loaded: {e}")),
        }
        Ok(())
    }

    fn list_saves(&mut self) {
        let saves = self.client.saves();
        if saves.is_empty() {
            self.term.say("No saved games yet (save NAME keeps this one).");
        } else {
            let lines: Vec<String> = saves.iter().map(|(n, gs)| format!("{n}  {gs}")).collect();
            self.term.say(&format!("Saved games:\n  {}", lines.join("\n  ")));
        }
    }

    fn list_moves(&mut self) {
        match self.client.line("validmoves") {
            Ok(l) => self.term.say(&format!("Legal moves: {}", l.replace(';', "  "))),
            Err(e) => self.term.say(&format!("Cannot list the moves: {e}")),
        }
    }

    /// Before leaving a game in progress: a name to save it under.
    fn offer_save(&mut self) {
        if self.board.ply == 0
            || self.board.ending().is_some()
            || self.saved.as_ref() == Some(&self.game_string)
        {
            return;
        }
        loop {
            let name = match self
                .term
                .read("The game is not over. Save it as (a name; Enter: leave without saving): ")
            {
                Input::Line(l) => l.trim().to_string(),
                _ => String::new(),
            };
            if name.is_empty() {
                self.term.say("Left without saving (not recorded).");
                return;
            }
            match self.client.command(&format!("save {}", clean(&name))) {
                Ok(_) => {
                    self.term.say(&format!("Saved as {name}: `meeple play --load {name}` resumes it."));
                    return;
                }
                Err(e) => self.term.say(&format!("Not saved: {e}")),
            }
        }
    }
}

/// The commands of the prompt (for Tab).
const COMMANDS: [&str; 10] =
    ["hint", "undo", "save ", "load ", "saves", "moves", "board", "resign", "help", "quit"];

const HELP: &str = "  <move>       play it (the game's notation, below)\n  \
                    hint         the engine's move for you (not played)\n  \
                    undo [N]     take back your last move and the answer (or N moves)\n  \
                    save NAME    save the game; load NAME  resume a saved game; saves  list them\n  \
                    moves        the legal moves; board  draw the board again\n  \
                    resign       give up (recorded as a loss)\n  \
                    quit         leave (the game is not recorded; you may save it first)\n  \
                    Enter or go  (when watching, paused) go on";

/// A search's score, for the side that searched, in words where it is
/// plain: `mate N`, `win`, `draw`, `loss`, `exact N` (a proven value:
/// positive wins); others as the engine wrote them (`cp 32`, bounds).
pub fn score_words(score: &str) -> String {
    let mut it = score.split_whitespace();
    match (it.next(), it.next().and_then(|n| n.parse::<i64>().ok())) {
        (Some("mate"), Some(n)) if n > 0 => format!("sees a win in {n}"),
        (Some("mate"), Some(n)) => format!("sees a loss in {}", -n),
        (Some("win"), _) => "expects to win".into(),
        (Some("loss"), _) => "expects to lose".into(),
        (Some("draw"), _) => "expects a draw".into(),
        (Some("exact"), Some(n)) if n > 0 => format!("a proven win (exact {n})"),
        (Some("exact"), Some(n)) if n < 0 => format!("a proven loss (exact {n})"),
        (Some("exact"), Some(_)) => "a proven draw (exact 0)".into(),
        _ => format!("score {score}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_scores_read_well() {
        let e = EngineSeat { strategy: "perfect".into(), limits: "movetime 1000".into(), skill: Some(12) };
        assert_eq!(e.level(), "movetime 1000 skill 12");
        assert_eq!(EngineSeat { skill: None, ..e }.level(), "movetime 1000");
        assert_eq!(score_words("mate 3"), "sees a win in 3");
        assert_eq!(score_words("mate -2"), "sees a loss in 2");
        assert_eq!(score_words("cp 32"), "score cp 32");
        assert_eq!(score_words("draw"), "expects a draw");
        assert_eq!(score_words("exact -3"), "a proven loss (exact -3)");
        assert_eq!(score_words("lowerbound 2"), "score lowerbound 2");
    }
}
