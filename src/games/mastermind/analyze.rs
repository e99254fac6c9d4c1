//! `analyze [guess]`: hints for a person. Reply lines:
//!
//! ```text
//! possible 23              codes consistent with every finished row
//! codes 1123 1134 ...      the codes themselves, when at most 30
//! guess 1234 possible no parts 9 largest 6 expected 3.26
//! split 0B1W=3 1B0W=5 ...  how the guess splits the possible codes
//! ```
//!
//! Without an argument on the maker's turn, the guess waiting for its
//! feedback is analysed. `possible at least N` means the count was stopped.
//!
//! One pass over the consistent codes counts them and splits them by the
//! guess, looking at the limits every 65536 codes: a limit stops both at
//! once, and the split covers exactly the codes counted.

use std::ops::ControlFlow;

use super::Mastermind;
use super::code::{Code, Feedback};
use super::consistent::for_each_consistent;
use crate::search::SearchCtx;

/// The codes are listed when there are at most this many.
const LIST_LIMIT: usize = 30;
/// Codes counted between two looks at the limits.
const CHECK_EVERY: u64 = 65536;

pub fn analyze(game: &Mastermind, args: &str, ctx: &mut SearchCtx) -> Result<Vec<String>, String> {
    let spec = game.spec();
    let guess: Option<Code> = match args.trim() {
        "" => game.pending(),
        t => Some(spec.parse_code(t).map_err(|e| e.to_string())?),
    };
    let probe = guess.map(|g| (g, spec.multiset(g)));
    let mut counts = vec![0u64; spec.feedback_slots()];
    let mut listed = Vec::new();
    let mut count = 0u64;
    let mut stopped = false;
    let p = spec.pegs;
    for_each_consistent(spec, game.rows(), &mut |c| {
        count += 1;
        if listed.len() <= LIST_LIMIT {
            listed.push(c);
        }
        if let Some((g, gm)) = probe {
            counts[super::code::score_packed(p, g.0, gm, c.0, spec.multiset(c)) as usize] += 1;
        }
        if count.is_multiple_of(CHECK_EVERY) {
            ctx.nodes = count;
            if ctx.should_stop() {
                stopped = true;
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    ctx.nodes = count;
    let mut out =
        vec![if stopped { format!("possible at least {count}") } else { format!("possible {count}") }];
    if count as usize <= LIST_LIMIT && !stopped {
        let list: Vec<String> = listed.iter().map(|&c| spec.code_text(c).to_string()).collect();
        out.push(format!("codes {}", list.join(" ")));
    }
    if let Some(g) = guess {
        let n: u64 = counts.iter().sum();
        let parts = counts.iter().filter(|&&c| c > 0).count();
        let largest = counts.iter().copied().max().unwrap_or(0);
        let expected =
            if n == 0 { 0.0 } else { counts.iter().map(|&c| (c * c) as f64).sum::<f64>() / n as f64 };
        // The guess may be the secret if it fits every finished row.
        let possible = game.rows().iter().all(|r| spec.score(r.guess, g) == r.feedback);
        out.push(format!(
            "guess {} possible {} parts {parts} largest {largest} expected {expected:.2}",
            spec.code_text(g),
            if possible { "yes" } else { "no" },
        ));
        let split: Vec<String> = counts
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(f, &c)| format!("{}={c}", Feedback::from_index(p, f as u8)))
            .collect();
        out.push(format!("split {}", split.join(" ")));
    }
    Ok(out)
}
