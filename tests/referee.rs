//! Runs the referee's own tests (`scripts/test_referee.py`, Python 3
//! standard library only) so that `cargo test` covers the referee too. The
//! built engine is passed as `MEEPLE_BIN`, so the Python tests also play
//! real meeple processes (as engines and as the arbiter).

use std::process::Command;

#[test]
fn referee_python_tests_pass() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new("python3")
        .arg("scripts/test_referee.py")
        .current_dir(root)
        .env("MEEPLE_BIN", env!("CARGO_BIN_EXE_meeple"))
        .output()
        .expect("python3 must be installed to run the referee's tests");
    assert!(
        output.status.success(),
        "referee tests failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
