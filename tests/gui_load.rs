//! A small run of the GUI server's load test (`examples/gui_load`, the
//! figures in scripts/README.md): a real `meeple gui` and real WebSocket
//! clients on the loopback. It asserts what must hold whatever the
//! machine: every reading spectator sees every move of its table, in
//! order, and the server's memory stays within bounds (at the peak, and
//! after every table has closed); never a time.

#[path = "../examples/gui_load/load.rs"]
mod load;

use crate::common::unique_dir;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_spectator_sees_every_move_in_bounded_memory() {
    let meeple = std::path::Path::new(env!("CARGO_BIN_EXE_meeple"));
    let dir = unique_dir("meeple-gui-load");
    let cfg = load::LoadCfg {
        tables: 3,
        spectators: 6,
        non_readers: 6,
        seconds: 8,
        movetime: 50,
        rejoin: 1,
        server_args: vec![],
    };
    let r = load::load(meeple, &dir, &cfg).await;
    eprintln!("{}", r.text(&cfg));
    assert!(r.moves > 0 && r.games >= cfg.tables, "{r:?}");
    assert_eq!(r.spectators, cfg.tables * cfg.spectators);
    assert_eq!(r.complete, r.spectators, "{:?}", r.mismatch);
    assert!(r.rss_peak_kb < 100 << 10, "peak RSS {} kB", r.rss_peak_kb);
    assert!(r.rss_end_kb < 60 << 10, "RSS {} kB after every table closed", r.rss_end_kb);
}

/// The reproducer, small: a big Mastermind variant, spectators who
/// never read, the host playing and taking back: small states, and the
/// server's memory back after every table closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_big_variant_with_spectators_who_never_read_stays_small() {
    let meeple = std::path::Path::new(env!("CARGO_BIN_EXE_meeple"));
    let dir = unique_dir("meeple-gui-crowd");
    let r = load::crowd(meeple, &dir, "Mastermind+4x10+blanks", 30, 4, &[]).await;
    eprintln!("{}", r.text("Mastermind+4x10+blanks", 30, 4));
    assert!(r.state_bytes < 16_000, "a state of {} bytes", r.state_bytes);
    assert!(r.rss_peak_kb < r.rss_start_kb + (40 << 10), "{r:?}");
    let dir = unique_dir("meeple-gui-waves");
    let w = load::waves(meeple, &dir, "Mastermind+4x10+blanks", 30, 2, 1, &[]).await;
    eprintln!("{w:?}");
    let first_game = w[1].1;
    assert!(w.iter().all(|(_, kb)| *kb < 2 * first_game.max(10 << 10)), "{w:?}");
}
