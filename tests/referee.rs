//! Runs the referee's own tests (`scripts/test_referee.py`, Python 3
//! standard library only) so that `cargo test` covers the referee too. The
//! built engine is passed as `MEEPLE_BIN`, so the Python tests also play
//! real meeple processes (as engines and as the arbiter).

#[test]
fn referee_python_tests_pass() {
    crate::common::python_tests_pass("scripts/test_referee.py");
}
