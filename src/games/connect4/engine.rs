//! Connect Four's engine services: options, players, `analyze` (the score
//! of every column), `meeple bench connect4`, the opening book's command,
//! `meeple solve`, `review` and the `mate N` reading of an exact score.

use std::io::{BufRead, Write};

use super::{Connect4, analysis, bench, book, perfect, players, review, solve_cmd};
use crate::engine::{Engine, StrategySpec};
use crate::options::OptionSpec;
use crate::search::SearchCtx;

impl Engine for Connect4 {
    fn options() -> Vec<OptionSpec> {
        let names: Vec<&'static str> = Self::strategies().iter().map(|s| s.name).collect();
        vec![
            OptionSpec::choice("Strategy", "perfect", &names, "Connect Four AI player"),
            OptionSpec::int("Depth", 8, 1, 64, "search depth of attack when go gives none"),
            OptionSpec::bool("Weak", false, "perfect: win/draw/loss only (faster)"),
            OptionSpec::bool("Variety", false, "perfect: random choice among equally good moves"),
            OptionSpec::bool("OwnBook", true, "perfect and analyze: answer from the opening book (7x6)"),
            OptionSpec::int(
                "Skill",
                perfect::MAX_SKILL,
                0,
                perfect::MAX_SKILL,
                "perfect: 0 random ... 20 perfect (moves drawn by score with a temperature)",
            ),
        ]
    }

    fn strategies() -> Vec<StrategySpec<Self>> {
        players::strategies()
    }
    /// `analyze [weak]`: the score of every column on one line (see
    /// `analysis.rs` for the markers).
    fn analyze(&self, args: &str, ctx: &mut SearchCtx) -> Result<Vec<String>, String> {
        let weak = match args.trim().to_ascii_lowercase().as_str() {
            "" => false,
            "weak" => true,
            other => return Err(format!("analyze takes no argument or 'weak', not '{other}'")),
        };
        if let Some(line) =
            perfect::book_for(self, ctx, 0.9).and_then(|bk| book::column_line_in(bk, self, weak))
        {
            return Ok(vec![line]);
        }
        let (mut solver, note) = perfect::make_solver(self.board.geometry(), perfect::hash_mb(ctx.options))?;
        if let Some(n) = note {
            ctx.report_text(format!("analyze: {n}"));
        }
        solver.threads = perfect::threads(ctx.options);
        solver.set_budget(perfect::budget_of(ctx, 0, 1.0));
        let line = analysis::column_line(&mut solver, self, weak);
        ctx.nodes += solver.nodes;
        Ok(vec![line])
    }
    /// `review`: every move judged exactly (see `review.rs`).
    fn review(start: &Self, moves: &[u8], rv: &mut crate::engine::review::Reviewer) -> Result<(), String> {
        review::review(start, moves, rv)
    }
    /// A win with one's k-th stone scores `C/2 + 1 - k`; the side to move
    /// has `n/2` stones (rounded down), the opponent `n/2` rounded up.
    fn mate_in(&self, exact: i32) -> Option<i32> {
        let b = &self.board;
        let half = (b.width() * b.height()) as i32 / 2;
        let n = b.moves() as i32;
        match exact {
            0 => None,
            s if s > 0 => Some(half + 1 - s - n / 2),
            s => Some(-(half + 1 + s - (n + 1) / 2)),
        }
    }

    fn book(args: &[String], out: &mut dyn Write) -> Result<(), String> {
        book::run(args, out)
    }

    fn book_cli() -> Option<clap::Command> {
        Some(book::cli())
    }

    fn bench(args: &[String], out: &mut dyn Write) -> Result<(), String> {
        bench::run(args, out)
    }

    fn bench_cli() -> clap::Command {
        bench::cli()
    }

    fn solve(&self, args: &[String], input: &mut dyn BufRead, out: &mut dyn Write) -> Result<(), String> {
        solve_cmd::run(self, args, input, out)
    }
}
