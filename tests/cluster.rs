//! Runs the cluster tests (`scripts/test_cluster.py`): the referee's
//! `--cluster` on a local Dask cluster of 2 workers (same records and
//! report as `--concurrency 2`), a worker killed mid-match (every game
//! stored once, no engine left running), resume and SPRT through the
//! cluster, the Connect Four book built through the cluster (the local
//! build's bytes, resumable), and an engine that kills its worker (the
//! match stops, bounded by `--cluster-wait` and `--cluster-retries`, and
//! resumes). They need Dask, which `scripts/setup-test-deps.sh`
//! installs into `target/cluster-venv` (the README's test command,
//! `bash scripts/test.sh`, runs it first).

use std::path::Path;

/// Runs the named tests of `scripts/test_cluster.py` with the cluster
/// venv's python; the groups below run in parallel.
fn run(tests: &[&str]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("target/cluster-venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `bash scripts/setup-test-deps.sh` (or `bash scripts/test.sh`) \
         to create the cluster test's virtual environment with Dask",
        python.display()
    );
    crate::common::python_script_passes(&python, "scripts/test_cluster.py", tests);
}

#[test]
fn a_match_on_a_local_cluster_has_the_records_and_report_of_concurrency() {
    run(&["Match.test_local_cluster_has_the_same_form_as_concurrency"]);
}

#[test]
fn annotated_games_are_reviewed_by_the_workers_that_played_them() {
    run(&["Match.test_games_are_annotated_by_the_worker_that_played_them"]);
}

#[test]
fn a_killed_worker_s_game_is_played_again_and_stored_once() {
    run(&["Match.test_killed_worker_game_is_played_again_once"]);
}

#[test]
fn resume_sprt_errors_and_the_book_through_the_cluster() {
    run(&["Match.test_resume_sprt_and_errors", "Book"]);
}

#[test]
fn workers_killed_by_an_engine_stop_the_match_which_then_resumes() {
    run(&["DyingWorkers"]);
}
