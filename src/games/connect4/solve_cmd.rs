//! `meeple solve <GameType> [--weak] [--analyze]`: one position per input
//! line (column digits, 1-based; anything after the first blank is
//! ignored, so benchmark files can be fed as they are; a blank line is the
//! empty board). Prints `<position> <score>` per line, or with `--analyze`
//! `<position>` followed by the score of every column (`-` for a full
//! one). A line that is not a valid position prints
//! `<position> error: <reason>` in its place and solving goes on; so does
//! a line that is not UTF-8 (`<line, invalid bytes as U+FFFD> error: not
//! UTF-8`).

use std::io::{BufRead, Write};

use clap::Parser;

use super::Connect4;
use super::analysis::{column_line, position_score};
use super::book;
use super::solver::Solver;

#[derive(Parser, Debug)]
#[command(name = "meeple solve", about = "Solves Connect Four positions read from stdin")]
struct Args {
    /// Win/draw/loss only: prints 1, 0 or -1.
    #[arg(long)]
    weak: bool,
    /// Prints the score of every column instead of the position's.
    #[arg(long)]
    analyze: bool,
    /// Transposition table size in MB.
    #[arg(long, default_value_t = 64)]
    hash: usize,
    /// Search threads sharing the table.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    threads: u16,
    /// Do not use the opening book.
    #[arg(long)]
    no_book: bool,
    /// With --threads: plain lazy SMP (every thread runs the same tests,
    /// helpers in a perturbed move order) instead of the threshold split,
    /// for comparison.
    #[arg(long)]
    lazy_smp: bool,
}

/// `Game::solve` of Connect Four; `empty` is the board of the requested
/// size.
pub fn run(
    empty: &Connect4,
    args: &[String],
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), String> {
    let argv = std::iter::once("solve".to_string()).chain(args.iter().cloned());
    let a = Args::try_parse_from(argv).map_err(|e| e.to_string())?;
    let mut solver = Solver::new_huge(empty.board.width(), empty.board.height(), a.hash, true)
        .map_err(|e| e.to_string())?;
    solver.threads = a.threads as usize;
    solver.lazy_smp = a.lazy_smp;
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        if input.read_until(b'\n', &mut bytes).map_err(|e| e.to_string())? == 0 {
            break;
        }
        let reply = match std::str::from_utf8(&bytes) {
            Ok(line) => solve_line(empty, &mut solver, line, a.weak, a.analyze, !a.no_book),
            Err(_) => {
                let lossy = String::from_utf8_lossy(&bytes);
                let shown: String = lossy.trim_end().chars().filter(|c| !c.is_control()).collect();
                format!("{shown} error: not UTF-8")
            }
        };
        writeln!(out, "{reply}").map_err(|e| e.to_string())?;
        out.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The reply to one input line.
pub fn solve_line(
    empty: &Connect4,
    solver: &mut Solver,
    line: &str,
    weak: bool,
    analyze: bool,
    use_book: bool,
) -> String {
    let pos = line.split_whitespace().next().unwrap_or("");
    let mut g = *empty;
    if let Err(e) = g.play_sequence(pos) {
        return format!("{pos} error: {e}");
    }
    if analyze {
        if use_book && let Some(l) = book::column_line(&g, weak) {
            return format!("{pos} {l}");
        }
        return format!("{pos} {}", column_line(solver, &g, weak));
    }
    if use_book && let Some(v) = book::score(&g) {
        return format!("{pos} {}", if weak { v.signum() } else { v });
    }
    let r = position_score(solver, &g, weak);
    let v = if weak { r.lo.signum() } else { r.lo };
    format!("{pos} {v}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_str(ty: &str, args: &[&str], input: &str) -> String {
        let empty = match <Connect4 as crate::game::Game>::parse_type(ty) {
            Some(Ok(g)) => g,
            _ => panic!("type"),
        };
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let mut out = Vec::new();
        run(&empty, &args, &mut input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn solves_lines_and_reports_bad_ones() {
        let out = run_str("Connect4", &["--hash", "4"], "4455 18\n44455554221\n448\n4444444\n4455667\n");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "4455 18");
        assert_eq!(lines[1], "44455554221 -15");
        assert!(lines[2].starts_with("448 error: "), "{}", lines[2]);
        assert!(lines[3].starts_with("4444444 error: "), "{}", lines[3]);
        assert_eq!(lines[4], "4455667 -18");
        assert_eq!(lines.len(), 5);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_reported_and_solving_goes_on() {
        let empty = Connect4::standard();
        let mut out = Vec::new();
        let input: &[u8] = b"4455\n44\xff\xfe5\n\xc3\n445566\n";
        run(&empty, &["--hash".to_string(), "4".to_string()], &mut &input[..], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert_eq!(lines[0], "4455 18");
        assert_eq!(lines[1], "44\u{fffd}\u{fffd}5 error: not UTF-8");
        assert_eq!(lines[2], "\u{fffd} error: not UTF-8");
        assert_eq!(lines[3], "445566 18");
    }

    #[test]
    fn weak_and_analyze() {
        let out = run_str("Connect4", &["--weak", "--hash", "4"], "4455\n44455554221\n");
        assert_eq!(out, "4455 1\n44455554221 -1\n");
        let out = run_str("Connect4+5x4", &["--analyze", "--hash", "4"], "3333\n");
        let cols: Vec<&str> = out.trim().split(' ').collect();
        assert_eq!(cols[0], "3333");
        assert_eq!(cols[3], "-");
        assert_eq!(cols.len(), 6);
        assert!(cols.iter().skip(1).all(|c| *c == "-" || c.parse::<i32>().is_ok()), "{out}");
        let mut out = Vec::new();
        let bad = run(
            &Connect4::standard(),
            &["--hash".to_string(), "99999999999".to_string()],
            &mut "".as_bytes(),
            &mut out,
        );
        assert!(
            bad.is_err_and(|e| e.starts_with("cannot allocate"))
                || std::fs::read_to_string("/proc/sys/vm/overcommit_memory").is_ok_and(|m| m.trim() == "1")
        );
        let mut out = Vec::new();
        let bad = run(&Connect4::standard(), &["--bogus".to_string()], &mut "".as_bytes(), &mut out);
        assert!(bad.is_err());
    }
}
