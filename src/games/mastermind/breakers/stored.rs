//! The `tree` strategy: plays a strategy tree that meeple's own search
//! found and that is kept in the source, instantly; off the tree (another
//! variant, or a position the tree never reaches) it plays `optimal`.
//!
//! Kept trees, in the grammar of `tree.rs`:
//!
//! - `trees/5x8.txt`: 5 pegs x 8 symbols with repeats (Super Mastermind),
//!   all 32768 secrets in at most 7 guesses, built by
//!   `meeple bench mastermind --search` (see `BUILD_5X8`) and checked by a
//!   test and by `meeple bench mastermind --check-tree builtin`.

use std::sync::{Arc, OnceLock};

use super::super::code::Code;
use super::super::consistent::Row;
use super::super::spec::Spec;
use super::super::tree::Strategy;
use super::Breaker;
use super::optimal::{Optimal, follow};
use crate::search::SearchCtx;

/// The 5x8 tree.
const TREE_5X8: &str = include_str!("../trees/5x8.txt");

/// The command that built it.
pub const BUILD_5X8: &str = "meeple bench mastermind --game Mastermind+5x8 --search --candidates 10 --exact 30 --nest 1000 --candidates2 3 --threads 2 --out src/games/mastermind/trees/5x8.txt";

/// Most guesses the 5x8 tree uses.
pub const MAX_5X8: usize = 7;

/// The kept tree that plays `spec`, if any: same pegs, symbols and repeat
/// rule (the symbols' style does not matter), and enough rows.
pub fn builtin(spec: &Spec) -> Option<Arc<Strategy>> {
    static T5X8: OnceLock<Option<Arc<Strategy>>> = OnceLock::new();
    if (spec.pegs, spec.symbols(), spec.repeats) == (5, 8, true) && spec.rows as usize >= MAX_5X8 {
        return T5X8
            .get_or_init(|| match Strategy::parse(TREE_5X8, 5, 8) {
                Ok(t) => Some(Arc::new(t)),
                Err(e) => {
                    log::error!("the kept 5x8 strategy tree does not parse: {e}");
                    None
                }
            })
            .clone();
    }
    None
}

/// The `tree` strategy.
#[derive(Default)]
pub struct Stored {
    fallback: Optimal,
}

impl Breaker for Stored {
    fn guess(&mut self, spec: &Spec, rows: &[Row], ctx: &mut SearchCtx) -> Code {
        if let Some(g) = builtin(spec).and_then(|t| follow(&t, rows)) {
            return g;
        }
        self.fallback.guess(spec, rows, ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::mastermind::tree::evaluate;

    /// The kept 5x8 tree, scored over all 32768 secrets by the evaluator
    /// that shares no code with the search: at most 179,000 guesses in
    /// all (better than every published strategy), at most 7 on any
    /// secret.
    #[test]
    fn the_kept_5x8_tree_beats_179000() {
        let spec: Spec = "Mastermind+5x8".parse().unwrap();
        let t = builtin(&spec).expect("the tree parses");
        let e = evaluate(&t, 5, 8, true, MAX_5X8).unwrap();
        assert_eq!(e.secrets, 32768);
        assert!(e.total <= 179_000, "{}", e.line());
        assert!(e.max <= MAX_5X8);
        // Also for letters and colours, not with too few rows.
        assert!(builtin(&"Mastermind+5x8+letters".parse().unwrap()).is_some());
        assert!(builtin(&"Mastermind+5x8+rows6".parse().unwrap()).is_none());
        assert!(builtin(&"Mastermind+5x8+norepeat".parse().unwrap()).is_none());
    }
}
