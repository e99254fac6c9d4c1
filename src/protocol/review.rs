//! `review`: every move of the current game judged (protocol.md,
//! "`review`"), on the search thread like `analyze`: `ply` lines as the
//! plies are judged, `info review ...` progress, then one `side` line per
//! side and `ok`. `stop` ends it with what was judged so far. The judging
//! is the game's (`crate::engine::Engine::review`); the lines are
//! `crate::engine::review`'s.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use crate::time::Instant;

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::clock;
use super::command::{GoParams, REVIEW_USAGE};
use super::output::Out;
use crate::engine::review::{Event, PlyReview, Reviewer, summary_lines};
use crate::options::OptionValues;
use crate::registry::AnyGame;
use crate::search::{Limits, Progress, StopFlag};
use crate::text::clean;

/// The limits of each position's search from `review`'s tokens: `depth`,
/// `nodes` and `movetime` (less `Move Overhead`); anything else is
/// refused.
pub(super) fn limits(p: &GoParams, overhead: Duration) -> Result<Limits, String> {
    let clock_or_mode = p.wtime.is_some()
        || p.btime.is_some()
        || p.winc.is_some()
        || p.binc.is_some()
        || p.movestogo.is_some()
        || p.mate.is_some()
        || p.infinite
        || p.ponder
        || !p.searchmoves.is_empty();
    if !p.unknown.is_empty() || clock_or_mode {
        let words = if p.unknown.is_empty() { String::new() } else { format!(" '{}'", p.unknown.join(" ")) };
        return Err(format!(
            "review: unknown, incomplete or unusable tokens{words}; usage: {REVIEW_USAGE} (each a limit per position)"
        ));
    }
    Ok(Limits {
        depth: p.depth,
        nodes: p.nodes,
        movetime: p.movetime.map(|t| clock::budget(Duration::from_millis(t), overhead)),
        from_clock: false,
        infinite: false,
    })
}

/// Runs the review of `game` on this thread, writing its `ply` lines and
/// progress to `out` as they come; returns the last lines (the `side`
/// lines, or an `err` line when nothing could be judged), each ending
/// with a line break.
#[allow(clippy::too_many_arguments)]
pub(super) fn run<W: Write + Send + 'static>(
    game: &dyn AnyGame,
    limits: Limits,
    options: &OptionValues,
    seed: u64,
    stop: StopFlag,
    progress: Arc<Progress>,
    out: &Out<W>,
    start: Instant,
) -> Result<String, String> {
    let sides = game.side_names();
    let mut judged: Vec<PlyReview> = Vec::new();
    let mut rng = StdRng::seed_from_u64(seed);
    let heartbeat = progress.clone();
    let mut emit = |e: Event| {
        let line = match &e {
            Event::Ply(p) => clean(&p.line(sides)),
            Event::Progress { done, total } => format!(
                "info review positions {done} of {total} time {} nodes {}",
                start.elapsed().as_millis(),
                heartbeat.nodes()
            ),
        };
        {
            let mut o = out.lock();
            let _ = writeln!(o, "{line}").and_then(|_| o.flush());
        }
        heartbeat.note_heartbeat(start.elapsed().as_millis() as u64);
        if let Event::Ply(p) = e {
            judged.push(p);
        }
    };
    let mut rv = Reviewer::new(limits, options, &mut rng, stop, progress.clone(), &mut emit);
    let r = game.review(&mut rv);
    drop(rv);
    match r {
        Err(e) if judged.is_empty() => Err(e),
        r => {
            if let Err(e) = r {
                log::warn!("review stopped after {} plies: {e}", judged.len());
            }
            let mut text = String::new();
            for l in summary_lines(&judged, sides) {
                text.push_str(&clean(&l));
                text.push('\n');
            }
            Ok(text)
        }
    }
}
