//! A game review: every move of a game judged against the best one. What
//! is the same for every game is here, written once: the labels, the
//! per-move and per-game accuracy from a drop in winning chance, the
//! summary of each side, the reply lines, and the [`Reviewer`] a game's
//! own judging runs in (a budget per position, `stop`, progress). How a
//! move is valued and labelled is the game's own (`games/*/review.rs`,
//! behind [`crate::engine::Engine::review`]).
//!
//! The reply of `review` (protocol.md, "`review`"): one `ply` line per
//! ply, then one `side` line per side, then `ok`. Every line is
//! key-value tokens after its first word; a move is one token (a space
//! written `_`).

use crate::time::Instant;
use std::fmt::Write as _;
use std::sync::Arc;

use rand::rngs::StdRng;

use crate::options::OptionValues;
use crate::search::{Limits, Progress, Report, SearchCtx, StopFlag};

/// What a move is judged to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Label {
    /// As good as the best move.
    Best,
    /// Worse than the best, by less than an inaccuracy.
    Good,
    Inaccuracy,
    Mistake,
    Blunder,
    /// No choice: the only legal move (or the only one that does not lose
    /// at once, where the game says so).
    Forced,
    /// The budget did not prove enough to judge it.
    Unproven,
    /// Not judged: a move that is not a decision to judge (Mastermind's
    /// feedback).
    None,
}

impl Label {
    /// Every label, in the order of the summary line.
    pub const ALL: [Label; 8] = [
        Label::Best,
        Label::Good,
        Label::Inaccuracy,
        Label::Mistake,
        Label::Blunder,
        Label::Forced,
        Label::Unproven,
        Label::None,
    ];

    /// The label's word in the reply.
    pub fn word(self) -> &'static str {
        match self {
            Label::Best => "best",
            Label::Good => "good",
            Label::Inaccuracy => "inaccuracy",
            Label::Mistake => "mistake",
            Label::Blunder => "blunder",
            Label::Forced => "forced",
            Label::Unproven => "unproven",
            Label::None => "none",
        }
    }

    /// The label of a word of the reply.
    pub fn from_word(w: &str) -> Option<Label> {
        Label::ALL.into_iter().find(|l| l.word() == w)
    }

    /// The annotation glyph (PGN's `?!`, `?`, `??`), empty for the others.
    pub fn glyph(self) -> &'static str {
        match self {
            Label::Inaccuracy => "?!",
            Label::Mistake => "?",
            Label::Blunder => "??",
            _ => "",
        }
    }

    /// The label of a move that is not the best, by the drop in the
    /// mover's winning chance on lichess's -1..1 scale: below 0.1 good,
    /// then inaccuracy, mistake from 0.2, blunder from 0.3.
    pub fn from_drop(drop: f64) -> Label {
        if drop >= BLUNDER_DROP {
            Label::Blunder
        } else if drop >= MISTAKE_DROP {
            Label::Mistake
        } else if drop >= INACCURACY_DROP {
            Label::Inaccuracy
        } else {
            Label::Good
        }
    }

    /// True for the labels of a move that was judged against the best
    /// (they count in the accuracy).
    pub fn is_judged(self) -> bool {
        matches!(self, Label::Best | Label::Good | Label::Inaccuracy | Label::Mistake | Label::Blunder)
    }
}

/// Drops in winning chance (on -1..1) from which a move is an
/// inaccuracy, a mistake, a blunder (lichess's thresholds).
pub const INACCURACY_DROP: f64 = 0.1;
pub const MISTAKE_DROP: f64 = 0.2;
pub const BLUNDER_DROP: f64 = 0.3;

/// A winning chance on -1..1 (1: the side wins) from an evaluation `v` by
/// the logistic law of scale `k` (lichess's `2 / (1 + exp(-k v)) - 1`).
pub fn logistic_chance(v: f64, k: f64) -> f64 {
    // The same as tanh(k v / 2), which is exactly odd.
    (k * v / 2.0).tanh()
}

/// The accuracy of one move, 0..100, from the drop in the mover's winning
/// chance on -1..1 (0 or less: 100): lichess's formula
/// `103.1668 exp(-0.04354 d) - 3.1669` on the drop `d` in percentage
/// points of the 0..100 scale (`d = 50 * drop`), clipped to 0..100.
pub fn move_accuracy(drop: f64) -> f64 {
    if drop <= 0.0 {
        return 100.0;
    }
    let d = 50.0 * drop;
    (103.1668 * (-0.04354 * d).exp() - 3.1669).clamp(0.0, 100.0)
}

/// A side's accuracy over its judged moves: the mean of their arithmetic
/// mean and their harmonic mean (each move's accuracy taken as at least
/// 1 there), so a blunder weighs more than its share, as lichess's mix of
/// a weighted and a harmonic mean does. `None` without a judged move.
pub fn game_accuracy(moves: &[f64]) -> Option<f64> {
    if moves.is_empty() {
        return None;
    }
    let n = moves.len() as f64;
    let mean = moves.iter().sum::<f64>() / n;
    let harmonic = n / moves.iter().map(|a| 1.0 / a.max(1.0)).sum::<f64>();
    Some((mean + harmonic) / 2.0)
}

/// The judgement of one ply.
#[derive(Clone, Debug, PartialEq)]
pub struct PlyReview {
    /// 1 for the game's first move.
    pub ply: usize,
    /// 0 moves first.
    pub side: usize,
    /// The move as the game writes it.
    pub mv: String,
    pub label: Label,
    /// The move's value, from the mover's view, in the game's own terms
    /// (one token).
    pub value: Option<String>,
    /// The best move and its value (the move played, when it is the best).
    pub best: Option<String>,
    pub best_value: Option<String>,
    /// The drop in the mover's winning chance on -1..1 from the best move
    /// to the move played (0 for the best): its accuracy. `None` for a
    /// move not judged.
    pub drop: Option<f64>,
    /// The first mover's standing after the ply, -1..1 (the evaluation
    /// graph's point), if known.
    pub graph: Option<f64>,
    /// The game's own keys and values.
    pub extra: Vec<(&'static str, String)>,
}

impl PlyReview {
    /// A ply with only its move known so far.
    pub fn new(ply: usize, side: usize, mv: String) -> PlyReview {
        PlyReview {
            ply,
            side,
            mv,
            label: Label::None,
            value: None,
            best: None,
            best_value: None,
            drop: None,
            graph: None,
            extra: Vec::new(),
        }
    }

    /// The move's accuracy (0..100), for a judged move.
    pub fn accuracy(&self) -> Option<f64> {
        self.drop.filter(|_| self.label.is_judged()).map(move_accuracy)
    }

    /// The `ply` line (see the module): `side` names the sides.
    pub fn line(&self, sides: [&str; 2]) -> String {
        let mut s = format!(
            "ply {} side {} move {} label {}",
            self.ply,
            sides[self.side.min(1)],
            one_token(&self.mv),
            self.label.word()
        );
        let mut kv = |k: &str, v: &str| {
            let _ = write!(s, " {k} {}", one_token(v));
        };
        if let Some(v) = &self.value {
            kv("value", v);
        }
        if let Some(b) = &self.best {
            kv("best", b);
        }
        if let Some(v) = &self.best_value {
            kv("bestvalue", v);
        }
        if let Some(a) = self.accuracy() {
            kv("accuracy", &format!("{a:.1}"));
        }
        if let Some(g) = self.graph {
            kv("graph", &format!("{:.3}", g.clamp(-1.0, 1.0)));
        }
        for (k, v) in &self.extra {
            kv(k, v);
        }
        s
    }
}

/// A value or move as one token: a space is written `_`, an empty text
/// `-`.
fn one_token(t: &str) -> String {
    let t = t.trim();
    if t.is_empty() { "-".to_string() } else { t.split_whitespace().collect::<Vec<_>>().join("_") }
}

/// What one side did in a review: its plies, a count per label, and its
/// accuracy over the judged ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SideSummary {
    pub moves: usize,
    pub counts: [usize; Label::ALL.len()],
    pub accuracy: Option<f64>,
}

impl SideSummary {
    pub fn count(&self, l: Label) -> usize {
        self.counts[Label::ALL.iter().position(|&x| x == l).expect("every label is listed")]
    }
}

/// Each side's summary of the plies judged.
pub fn summarize(plies: &[PlyReview]) -> [SideSummary; 2] {
    let mut out: [SideSummary; 2] = Default::default();
    let mut acc: [Vec<f64>; 2] = Default::default();
    for p in plies {
        let s = p.side.min(1);
        out[s].moves += 1;
        let i = Label::ALL.iter().position(|&x| x == p.label).expect("every label is listed");
        out[s].counts[i] += 1;
        if let Some(a) = p.accuracy() {
            acc[s].push(a);
        }
    }
    for s in 0..2 {
        out[s].accuracy = game_accuracy(&acc[s]);
    }
    out
}

/// The `side` lines of the plies judged, first mover first.
pub fn summary_lines(plies: &[PlyReview], sides: [&str; 2]) -> Vec<String> {
    summarize(plies)
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut l = format!("side {} moves {}", sides[i], s.moves);
            for (j, label) in Label::ALL.iter().enumerate() {
                let _ = write!(l, " {} {}", label.word(), s.counts[j]);
            }
            match s.accuracy {
                Some(a) => {
                    let _ = write!(l, " accuracy {a:.1}");
                }
                None => l.push_str(" accuracy none"),
            }
            l
        })
        .collect()
}

/// What a review tells as it goes.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A ply judged (in the game's order).
    Ply(PlyReview),
    /// Positions searched so far, of all the game's.
    Progress { done: usize, total: usize },
}

/// The context a game's review runs in: the limits of each position's
/// search, the options, `stop`, and where judged plies go.
pub struct Reviewer<'a> {
    limits: Limits,
    options: &'a OptionValues,
    rng: &'a mut StdRng,
    stop: StopFlag,
    /// The whole review's progress (nodes, for the heartbeat).
    progress: Arc<Progress>,
    emit: &'a mut dyn FnMut(Event),
    nodes: u64,
}

impl<'a> Reviewer<'a> {
    /// `limits` bound each position's search, not the whole review.
    pub fn new(
        limits: Limits,
        options: &'a OptionValues,
        rng: &'a mut StdRng,
        stop: StopFlag,
        progress: Arc<Progress>,
        emit: &'a mut dyn FnMut(Event),
    ) -> Self {
        Reviewer { limits, options, rng, stop, progress, emit, nodes: 0 }
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn options(&self) -> &OptionValues {
        self.options
    }

    /// True once `stop` was received: the game's review returns, and the
    /// position being searched is not judged.
    pub fn stopped(&self) -> bool {
        self.stop.is_stopped()
    }

    /// Runs one position's search in a context of its own, whose time
    /// limit starts now (its `info` lines are not printed).
    pub fn search<R>(&mut self, f: impl FnOnce(&mut SearchCtx) -> R) -> R {
        self.search_reporting(&mut |_r: Report| {}, f)
    }

    /// [`Reviewer::search`], giving the search's progress reports (each
    /// depth's value) to `reports`.
    pub fn search_reporting<R>(
        &mut self,
        reports: &mut dyn FnMut(Report),
        f: impl FnOnce(&mut SearchCtx) -> R,
    ) -> R {
        let mut ctx = SearchCtx::with_progress(
            self.limits.clone(),
            self.options,
            self.rng,
            self.stop.clone(),
            reports,
            Progress::new(false),
        )
        .started_at(Instant::now());
        let r = f(&mut ctx);
        self.nodes += ctx.nodes;
        self.progress.add_nodes(ctx.nodes);
        r
    }

    /// Nodes searched so far by the review.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// A ply judged.
    pub fn judged(&mut self, p: PlyReview) {
        (self.emit)(Event::Ply(p))
    }

    /// `done` positions of `total` searched.
    pub fn progress(&mut self, done: usize, total: usize) {
        (self.emit)(Event::Progress { done, total })
    }
}

/// A ply line read back: its fields (for clients of the reply, such as
/// the terminal's review).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlyLine {
    pub ply: usize,
    pub side: String,
    pub mv: String,
    pub label: Option<Label>,
    pub fields: Vec<(String, String)>,
}

impl PlyLine {
    /// Parses a `ply` line; `None` if it is not one.
    pub fn parse(line: &str) -> Option<PlyLine> {
        let rest = line.strip_prefix("ply ")?;
        let toks: Vec<&str> = rest.split(' ').collect();
        let ply = toks.first()?.parse().ok()?;
        let mut p = PlyLine { ply, ..PlyLine::default() };
        for kv in toks[1..].chunks(2) {
            let [k, v] = kv else { return None };
            match *k {
                "side" => p.side = v.to_string(),
                "move" => p.mv = v.to_string(),
                "label" => p.label = Label::from_word(v),
                _ => p.fields.push((k.to_string(), v.to_string())),
            }
        }
        Some(p)
    }

    /// The value of a key, if the line has it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_by_drop_and_their_words() {
        assert_eq!(Label::from_drop(0.0), Label::Good);
        assert_eq!(Label::from_drop(0.099), Label::Good);
        assert_eq!(Label::from_drop(0.1), Label::Inaccuracy);
        assert_eq!(Label::from_drop(0.2), Label::Mistake);
        assert_eq!(Label::from_drop(0.35), Label::Blunder);
        for l in Label::ALL {
            assert_eq!(Label::from_word(l.word()), Some(l));
        }
        assert_eq!(Label::Blunder.glyph(), "??");
    }

    #[test]
    fn accuracy_follows_lichess() {
        assert_eq!(move_accuracy(0.0), 100.0);
        assert_eq!(move_accuracy(-0.3), 100.0);
        // A drop of 10 percentage points (0.2 on -1..1).
        assert!((move_accuracy(0.2) - 63.58).abs() < 0.05, "{}", move_accuracy(0.2));
        assert_eq!(move_accuracy(2.0), 0.0);
        assert_eq!(game_accuracy(&[]), None);
        assert_eq!(game_accuracy(&[80.0, 80.0]), Some(80.0));
        // One blunder pulls the harmonic half down hard.
        let g = game_accuracy(&[100.0, 100.0, 100.0, 0.0]).unwrap();
        assert!(g < 75.0 / 2.0 + 2.5, "{g}");
        assert!((logistic_chance(0.0, 0.01)).abs() < 1e-12);
        assert!((logistic_chance(50.0, 0.01) - (2.0 / (1.0 + (-0.5f64).exp()) - 1.0)).abs() < 1e-12);
        assert!(logistic_chance(1000.0, 0.01) > 0.99);
    }

    #[test]
    fn lines_are_tokens_and_read_back() {
        let mut p = PlyReview::new(3, 0, "wQ wS1/".into());
        p.label = Label::Mistake;
        p.value = Some("-40".into());
        p.best = Some("wA1 -wS1".into());
        p.best_value = Some("25".into());
        p.drop = Some(0.25);
        p.graph = Some(-0.2);
        p.extra.push(("note", "x y".into()));
        let l = p.line(["White", "Black"]);
        assert_eq!(
            l,
            "ply 3 side White move wQ_wS1/ label mistake value -40 best wA1_-wS1 bestvalue 25 accuracy 56.7 graph -0.200 note x_y"
        );
        let r = PlyLine::parse(&l).unwrap();
        assert_eq!(
            (r.ply, r.side.as_str(), r.mv.as_str(), r.label),
            (3, "White", "wQ_wS1/", Some(Label::Mistake))
        );
        assert_eq!(r.get("bestvalue"), Some("25"));
        assert_eq!(PlyLine::parse("side White moves 3"), None);
        let lines = summary_lines(&[p.clone(), PlyReview::new(4, 1, "pass".into())], ["White", "Black"]);
        assert_eq!(
            lines,
            [
                "side White moves 1 best 0 good 0 inaccuracy 0 mistake 1 blunder 0 forced 0 unproven 0 none 0 accuracy 56.7",
                "side Black moves 1 best 0 good 0 inaccuracy 0 mistake 0 blunder 0 forced 0 unproven 0 none 1 accuracy none",
            ]
        );
    }
}
