//! The strategy search for variants too large for the exact solver over the
//! whole game (Super Mastermind, 5 pegs x 8 colours, 32768 codes): a
//! rollout improvement of a strong base policy, exact near the leaves.
//!
//! - The **base policy** plays the exact optimum (`exact.rs`, branch and
//!   bound within the guesses left) on any set of at most `exact_max`
//!   codes, and the entropy rule's guess on larger ones.
//! - The **improved policy** searched here does the same on small sets; on
//!   a larger set it looks ahead: each of the `k` best guesses by entropy
//!   is scored by the total the base policy reaches after it (`n + the
//!   base totals of its classes`), the best is played, and its classes are
//!   searched the same way. Since the base's own guess is among those
//!   scored, the improved total is never above the base's.
//!
//! Every total respects the limit on guesses (a strategy needing more is
//! worth nothing). The search is split by the classes of the first guess,
//! which are independent: threads take them largest first, and a
//! checkpoint file keeps each finished class so a stopped search resumes.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::code::{Code, Feedback};
use super::exact::{Exact, FxBuild, INFEASIBLE, Universe};
use super::kernel::{CodeSet, Probe};
use super::spec::Spec;
use super::split::{Rule, Splitter};
use super::symmetry::Symmetry;
use super::tree::Strategy;
use crate::time::Instant;

/// A total no strategy reaches: "not within the guesses left".
const INF: u64 = u64::MAX / 4;

/// What the search is asked to do.
#[derive(Clone, Debug)]
pub struct Config {
    /// The first guess (else chosen by the look-ahead among all).
    pub opener: Option<Code>,
    /// Guesses scored by look-ahead at each large set.
    pub k: usize,
    /// Sets of at most this many codes are solved exactly.
    pub exact_max: usize,
    /// Most guesses on any secret.
    pub max_guesses: u8,
    pub threads: usize,
    /// MB for each exact solver's table of solved sets.
    pub cache_mb: usize,
    /// Sets of at least this many codes look two levels ahead: each of
    /// the `k2` best guesses by entropy is scored by the total of the
    /// one-level search after it (0: never).
    pub nest_min: usize,
    pub k2: usize,
}

/// One searcher (one per thread): the base policy's totals remembered.
struct Searcher<'a> {
    u: &'a Arc<Universe>,
    cfg: &'a Config,
    base_memo: HashMap<(Vec<u16>, u8), u64, FxBuild>,
    /// The one-level search's strategies of the sets a two-level look
    /// scored.
    one_memo: HashMap<(Vec<u16>, u8), (u64, Strategy), FxBuild>,
    stop: &'a (dyn Fn() -> bool + Sync),
}

impl<'a> Searcher<'a> {
    fn spec(&self) -> &Spec {
        &self.u.spec
    }

    fn codes(&self, set: &[u16]) -> Vec<Code> {
        set.iter().map(|&i| self.u.codes[i as usize]).collect()
    }

    /// The classes of `set` by the feedback to `g`, the win left out.
    fn classes(&self, set: &[u16], g: Code) -> Vec<(Feedback, Vec<u16>)> {
        let codes = self.codes(set);
        let cs = CodeSet::new(self.spec(), &codes);
        let mut f = vec![0u8; set.len()];
        cs.feedbacks(Probe::new(self.spec(), g), &mut f);
        let mut by = vec![Vec::new(); self.spec().feedback_slots()];
        for (i, &x) in f.iter().enumerate() {
            by[x as usize].push(set[i]);
        }
        let win = self.spec().win().index(self.spec().pegs) as usize;
        by.into_iter()
            .enumerate()
            .filter(|(x, c)| *x != win && !c.is_empty())
            .map(|(x, c)| (Feedback::from_index(self.spec().pegs, x as u8), c))
            .collect()
    }

    /// The `k` best guesses by entropy (one per class of equivalent
    /// guesses), best first.
    fn ranked(&self, set: &[u16], history: &[Code], k: usize) -> Vec<Code> {
        let spec = self.spec();
        let codes = self.codes(set);
        let sym = Symmetry::of_position(spec, history, &codes);
        let possible: Vec<Code> = codes.iter().copied().filter(|&c| sym.is_canonical(c)).collect();
        let sp = Splitter::new(spec, Rule::Entropy, &codes, &codes);
        let choices = sp.top_lazily(&possible, &mut || sym.representatives(spec), k, 1, self.stop);
        choices.into_iter().map(|c| c.code).collect()
    }

    /// The exact optimum of a small set within `left` guesses, and its
    /// strategy when asked.
    fn exact(&self, set: &[u16], history: &[Code], left: u8, tree: bool) -> Option<(u64, Option<Strategy>)> {
        let codes = self.codes(set);
        let mut e = Exact::new(self.u.clone(), &codes, history, self.cfg.cache_mb, self.stop)?;
        let (v, _) = e.solve_root(left, INFEASIBLE, 1, self.stop).ok()??;
        let s = if tree { Some(e.strategy(left, self.stop)?) } else { None };
        Some((v as u64, s))
    }

    /// The base policy's total over `set` within `left` guesses.
    fn base(&mut self, set: &[u16], history: &mut Vec<Code>, left: u8) -> u64 {
        let m = set.len();
        if left == 0 || (left == 1 && m > 1) {
            return INF;
        }
        match m {
            1 => return 1,
            2 if left >= 2 => return 3,
            _ => {}
        }
        let key = (set.to_vec(), left);
        if let Some(&v) = self.base_memo.get(&key) {
            return v;
        }
        let v = if m <= self.cfg.exact_max {
            self.exact(set, history, left, false).map_or(INF, |r| r.0)
        } else {
            match self.ranked(set, history, 1).first() {
                Some(&g) => self.value_after(set, g, history, left),
                None => INF,
            }
        };
        if !(self.stop)() {
            self.base_memo.insert(key, v);
        }
        v
    }

    /// `n + the base totals of the classes` of guess `g`.
    fn value_after(&mut self, set: &[u16], g: Code, history: &mut Vec<Code>, left: u8) -> u64 {
        let mut total = set.len() as u64;
        history.push(g);
        for (_, class) in self.classes(set, g) {
            total = total.saturating_add(self.base(&class, history, left - 1));
            if total >= INF {
                break;
            }
        }
        history.pop();
        total.min(INF)
    }

    /// The improved policy's strategy over `set` and its total: two
    /// levels of look-ahead on sets of at least `nest_min` codes, else one.
    fn improved(&mut self, set: &[u16], history: &mut Vec<Code>, left: u8) -> Option<(u64, Strategy)> {
        let m = set.len();
        if self.cfg.nest_min > 0 && m >= self.cfg.nest_min && m > self.cfg.exact_max && left > 0 {
            return self.two_levels(set, history, left);
        }
        self.one_level(set, history, left)
    }

    /// The one-level search (remembered when a two-level look asked).
    fn one_level(&mut self, set: &[u16], history: &mut Vec<Code>, left: u8) -> Option<(u64, Strategy)> {
        let m = set.len();
        if (self.stop)() || left == 0 {
            return None;
        }
        if m == 1 {
            return Some((1, Strategy::leaf(self.u.codes[set[0] as usize])));
        }
        if m <= self.cfg.exact_max {
            let (v, s) = self.exact(set, history, left, true)?;
            return Some((v, s?));
        }
        if let Some(r) = self.one_memo.get(&(set.to_vec(), left)) {
            return Some(r.clone());
        }
        let mut best: Option<(u64, Code)> = None;
        for g in self.ranked(set, history, self.cfg.k) {
            let v = self.value_after(set, g, history, left);
            if v < INF && best.is_none_or(|b| v < b.0) {
                best = Some((v, g));
            }
        }
        let (_, g) = best?;
        let mut total = set.len() as u64;
        let mut children = Vec::new();
        history.push(g);
        for (f, class) in self.classes(set, g) {
            let Some((v, s)) = self.one_level(&class, history, left - 1) else {
                history.pop();
                return None;
            };
            total += v;
            children.push((f, s));
        }
        history.pop();
        let r = (total, Strategy::node(g, children));
        if self.cfg.nest_min > 0 {
            self.one_memo.insert((set.to_vec(), left), r.clone());
        }
        Some(r)
    }

    /// Two levels: the `k2` best guesses scored by the one-level search
    /// after them; the best played, its large classes searched the same
    /// way.
    fn two_levels(&mut self, set: &[u16], history: &mut Vec<Code>, left: u8) -> Option<(u64, Strategy)> {
        // The one-level search's own choice is among those scored, so two
        // levels never do worse than one.
        let one = self.one_level(set, history, left)?;
        let mut best = (one.0, one.1.guess);
        for g in self.ranked(set, history, self.cfg.k2) {
            if g == one.1.guess {
                continue;
            }
            let mut total = set.len() as u64;
            history.push(g);
            for (_, class) in self.classes(set, g) {
                let r = self.one_level(&class, history, left - 1);
                if let Some((v, s)) = &r
                    && class.len() > self.cfg.exact_max
                {
                    self.one_memo.insert((class.clone(), left - 1), (*v, s.clone()));
                }
                total = total.saturating_add(r.map_or(INF, |r| r.0));
                if total >= best.0 {
                    break;
                }
            }
            history.pop();
            if total < best.0 {
                best = (total, g);
            }
            if (self.stop)() {
                return None;
            }
        }
        if best.1 == one.1.guess {
            // Its classes: the large ones looked at two levels too.
            history.push(best.1);
            let mut total = set.len() as u64;
            let mut children = Vec::new();
            for (f, class) in self.classes(set, best.1) {
                let (v, s) = self.improved(&class, history, left - 1)?;
                total += v;
                children.push((f, s));
            }
            history.pop();
            return Some((total, Strategy::node(best.1, children)));
        }
        self.strategy_after(set, best.1, history, left)
    }

    /// The strategy playing `g` on `set`, then the improved policy.
    fn strategy_after(
        &mut self,
        set: &[u16],
        g: Code,
        history: &mut Vec<Code>,
        left: u8,
    ) -> Option<(u64, Strategy)> {
        let mut total = set.len() as u64;
        let mut children = Vec::new();
        history.push(g);
        for (f, class) in self.classes(set, g) {
            let r = self.improved(&class, history, left - 1);
            let Some((v, s)) = r else {
                history.pop();
                return None;
            };
            total += v;
            children.push((f, s));
        }
        history.pop();
        Some((total, Strategy::node(g, children)))
    }
}

/// One finished class of the first guess, as a checkpoint line keeps it.
#[derive(Clone, Debug)]
struct Done {
    feedback: Feedback,
    total: u64,
    tree: Strategy,
}

/// Reads the classes a checkpoint already holds for this search (`header`
/// must match its first line).
fn read_checkpoint(path: &std::path::Path, header: &str, spec: &Spec) -> Result<Vec<Done>, String> {
    let Ok(f) = std::fs::File::open(path) else { return Ok(Vec::new()) };
    let mut lines = std::io::BufReader::new(f).lines();
    match lines.next() {
        Some(Ok(h)) if h == header => {}
        Some(Ok(h)) => return Err(format!("checkpoint {} is of another search: {h}", path.display())),
        _ => return Ok(Vec::new()),
    }
    let mut out = Vec::new();
    for l in lines {
        let l = l.map_err(|e| e.to_string())?;
        let mut w = l.splitn(3, ' ');
        let (Some(fb), Some(t), Some(text)) = (w.next(), w.next(), w.next()) else { continue };
        let b = fb.as_bytes();
        if b.len() != 2 {
            return Err(format!("bad checkpoint line: {}", l.chars().take(60).collect::<String>()));
        }
        let feedback = Feedback { black: b[0].wrapping_sub(b'0'), white: b[1].wrapping_sub(b'0') };
        let total = t.parse().map_err(|_| format!("bad checkpoint total '{t}'"))?;
        let tree = Strategy::parse(text, spec.pegs, spec.symbols())?;
        out.push(Done { feedback, total, tree });
    }
    Ok(out)
}

/// The result of a search.
pub struct Found {
    pub tree: Strategy,
    pub total: u64,
}

/// Runs the search; `log` gets a line per finished class; `checkpoint`
/// keeps them (and is read back first).
pub fn search(
    spec: &Spec,
    cfg: &Config,
    checkpoint: Option<&std::path::Path>,
    log: &(dyn Fn(String) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Found, String> {
    let u = Arc::new(Universe::new(spec));
    let all: Vec<u16> = (0..u.codes.len() as u16).collect();
    let start = Instant::now();
    let opener = match cfg.opener {
        Some(g) => g,
        None => {
            // Every first guess (one per class) scored by the base policy.
            let mut s =
                Searcher { u: &u, cfg, base_memo: HashMap::default(), one_memo: HashMap::default(), stop };
            let sym = Symmetry::of_position(spec, &[], &u.codes);
            let mut best: Option<(u64, Code)> = None;
            for g in sym.representatives(spec) {
                let v = s.value_after(&all, g, &mut Vec::new(), cfg.max_guesses);
                log(format!("first guess {}: base total {v}", spec.code_text(g)));
                if v < INF && best.is_none_or(|b| v < b.0) {
                    best = Some((v, g));
                }
                s.base_memo.clear();
            }
            best.ok_or("no first guess finishes within the guesses allowed")?.1
        }
    };
    let mut header = format!(
        "meeple-mastermind-search {spec} opener {} k {} exact {} max {}",
        spec.code_text(opener),
        cfg.k,
        cfg.exact_max,
        cfg.max_guesses
    );
    if cfg.nest_min > 0 {
        header.push_str(&format!(" nest {} k2 {}", cfg.nest_min, cfg.k2));
    }
    let mut done = match checkpoint {
        Some(p) => read_checkpoint(p, &header, spec)?,
        None => Vec::new(),
    };
    if let Some(p) = checkpoint
        && done.is_empty()
    {
        std::fs::write(p, format!("{header}\n")).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    }
    for d in &done {
        log(format!("class {}{}: {} (from the checkpoint)", d.feedback.black, d.feedback.white, d.total));
    }
    let classes = {
        let s = Searcher { u: &u, cfg, base_memo: HashMap::default(), one_memo: HashMap::default(), stop };
        let mut c = s.classes(&all, opener);
        c.retain(|(f, _)| !done.iter().any(|d| d.feedback == *f));
        c.sort_by_key(|(_, c)| std::cmp::Reverse(c.len()));
        c
    };
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results = Mutex::new(Vec::new());
    let file = Mutex::new(());
    crate::threads::scope(|scope| {
        for _ in 0..cfg.threads.clamp(1, 64).min(classes.len().max(1)) {
            scope.spawn(|| {
                let halt = || stop() || failed.load(Ordering::Relaxed);
                let mut s = Searcher {
                    u: &u,
                    cfg,
                    base_memo: HashMap::default(),
                    one_memo: HashMap::default(),
                    stop: &halt,
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((f, class)) = classes.get(i) else { break };
                    let t = Instant::now();
                    let mut history = vec![opener];
                    let base = s.base(class, &mut history, cfg.max_guesses - 1);
                    let Some((total, tree)) = s.improved(class, &mut history, cfg.max_guesses - 1) else {
                        failed.store(true, Ordering::Relaxed);
                        break;
                    };
                    s.base_memo.clear();
                    s.one_memo.clear();
                    log(format!(
                        "class {}{}: {} codes, total {total} (base {base}), {:.1} s, {:.0} s since the start",
                        f.black,
                        f.white,
                        class.len(),
                        t.elapsed().as_secs_f64(),
                        start.elapsed().as_secs_f64()
                    ));
                    if let Some(p) = checkpoint {
                        let _guard = file.lock().unwrap_or_else(|e| e.into_inner());
                        let line = format!("{}{} {total} {}\n", f.black, f.white, tree.to_text(spec.pegs));
                        let ok = std::fs::OpenOptions::new()
                            .append(true)
                            .open(p)
                            .and_then(|mut fh| fh.write_all(line.as_bytes()).and_then(|_| fh.flush()));
                        if let Err(e) = ok {
                            log(format!("cannot append to the checkpoint {}: {e}", p.display()));
                        }
                    }
                    results.lock().unwrap_or_else(|e| e.into_inner()).push(Done {
                        feedback: *f,
                        total,
                        tree,
                    });
                }
            });
        }
    });
    if failed.load(Ordering::Relaxed) || stop() {
        return Err("the search was stopped (or a class found no strategy within the guesses allowed)".into());
    }
    done.extend(results.into_inner().unwrap_or_else(|e| e.into_inner()));
    done.sort_by_key(|d| std::cmp::Reverse(d.feedback));
    let total = u.codes.len() as u64 + done.iter().map(|d| d.total).sum::<u64>();
    let tree = Strategy::node(opener, done.into_iter().map(|d| (d.feedback, d.tree)).collect());
    Ok(Found { tree, total })
}

#[cfg(test)]
mod tests {
    use super::super::tree::evaluate;
    use super::*;

    /// The search on a small variant, with the look-ahead doing the work
    /// above tiny exact sets: the independent evaluator agrees with its
    /// total, which lies between the exact optimum (2463 for 4x5) and the
    /// base policy's; the text form reads back; a checkpoint resumes.
    #[test]
    fn search_on_4x5_is_checked_by_the_evaluator() {
        let spec: Spec = "Mastermind+4x5".parse().unwrap();
        let dir = std::env::temp_dir().join(format!("meeple-search-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ck = dir.join("ck.txt");
        let _ = std::fs::remove_file(&ck);
        let cfg = Config {
            opener: Some(spec.parse_code("1123").unwrap()),
            k: 3,
            exact_max: 6,
            max_guesses: 7,
            threads: 2,
            cache_mb: 16,
            nest_min: 100,
            k2: 2,
        };
        let lines = Mutex::new(Vec::new());
        let log = |l: String| lines.lock().unwrap().push(l);
        let found = search(&spec, &cfg, Some(&ck), &log, &|| false).unwrap();
        let e = evaluate(&found.tree, 4, 5, true, 7).unwrap();
        assert_eq!(e.total, found.total);
        assert_eq!(e.secrets, 625);
        assert!(e.total >= 2463, "{}", e.total);
        // The base policy alone (exact on small sets, else entropy).
        let u = Arc::new(Universe::new(&spec));
        let mut s = Searcher {
            u: &u,
            cfg: &cfg,
            base_memo: HashMap::default(),
            one_memo: HashMap::default(),
            stop: &|| false,
        };
        let all: Vec<u16> = (0..625).collect();
        let base = s.value_after(&all, cfg.opener.unwrap(), &mut Vec::new(), 7);
        assert!(e.total <= base, "{} > {base}", e.total);
        let text = found.tree.to_text(4);
        let back = Strategy::parse(&text, 4, 5).unwrap();
        assert_eq!(back.to_text(4), text);
        assert_eq!(evaluate(&back, 4, 5, true, 7).unwrap(), e);
        // Resumed from the checkpoint: every class is read back.
        let lines2 = Mutex::new(Vec::new());
        let log2 = |l: String| lines2.lock().unwrap().push(l);
        let again = search(&spec, &cfg, Some(&ck), &log2, &|| false).unwrap();
        assert_eq!(again.total, found.total);
        let l2 = lines2.into_inner().unwrap();
        assert!(!l2.is_empty() && l2.iter().all(|l| l.contains("from the checkpoint")), "{l2:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_checkpoint_of_another_search_is_refused() {
        let spec: Spec = "Mastermind+3x3".parse().unwrap();
        let p = std::env::temp_dir().join(format!("meeple-ck-other-{}", std::process::id()));
        std::fs::write(&p, "meeple-mastermind-search Mastermind+3x3 opener 111 k 9 exact 2 max 7\n").unwrap();
        let cfg = Config {
            opener: None,
            k: 2,
            exact_max: 4,
            max_guesses: 7,
            threads: 1,
            cache_mb: 4,
            nest_min: 0,
            k2: 0,
        };
        let r = search(&spec, &cfg, Some(&p), &|_| {}, &|| false);
        assert!(r.is_err_and(|e| e.contains("another search")));
        std::fs::remove_file(&p).unwrap();
    }
}
