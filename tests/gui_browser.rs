//! The real browser test of `meeple gui` (tests/browser/gui_test.py):
//! headless Chromium driven by Selenium plays whole games of every game by
//! clicking, and a networked game with a spectator and a chat message.
//!
//! Its tools come from `scripts/setup-test-deps.sh` (run by
//! `scripts/test.sh`, the README's test command). It is never skipped
//! silently: without the tools it fails, unless MEEPLE_SKIP_BROWSER_TEST=1
//! asks to skip it.

use std::path::Path;
use std::process::Command;

#[test]
fn browser_plays_every_game_and_a_networked_game() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if std::env::var("MEEPLE_SKIP_BROWSER_TEST").is_ok_and(|v| v == "1") {
        eprintln!("browser test skipped: MEEPLE_SKIP_BROWSER_TEST=1");
        return;
    }
    let python = root.join("target/browser-venv/bin/python");
    assert!(
        python.exists(),
        "the browser test needs Chromium and Selenium: run scripts/setup-test-deps.sh \
         (or bash scripts/test.sh), or set MEEPLE_SKIP_BROWSER_TEST=1 to skip it"
    );
    let out = root.join("target/gui-screenshots");
    let status = Command::new(&python)
        .arg(root.join("tests/browser/gui_test.py"))
        .arg("--meeple")
        .arg(env!("CARGO_BIN_EXE_meeple"))
        .arg("--out")
        .arg(&out)
        .status()
        .expect("cannot run the browser test");
    assert!(status.success(), "the browser test failed ({status}); screenshots in {}", out.display());
}
