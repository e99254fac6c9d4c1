//! The engine compiled to WebAssembly, in a real browser
//! (tests/browser/web_test.py): `scripts/build-web.sh` builds the site in
//! target/web (installing the wasm target and wasm-bindgen-cli the first
//! time), then headless Chromium plays protocol lines through the engine's
//! Web Worker: the banner, a search, `stop` during a search (shared flag
//! and fallback), Connect Four's exact scores, saves. Then the offline site
//! (tests/browser/offline_test.py): served by Python's http.server, the
//! network cut once it is loaded, the GUI's page with its table and engine
//! in the browser plays a whole game of each game, is stopped during a
//! Hive search, saves, reloads from its service worker, loads, and shows
//! the local leaderboard, at 420x900 with no sideways scrolling.
//!
//! Its tools are the browser test's (`scripts/setup-test-deps.sh`, run by
//! `scripts/test.sh`); MEEPLE_SKIP_BROWSER_TEST=1 skips it with that test.

use std::path::Path;
use std::process::Command;

#[test]
fn the_engine_answers_in_a_web_worker() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if std::env::var("MEEPLE_SKIP_BROWSER_TEST").is_ok_and(|v| v == "1") {
        eprintln!("web test skipped: MEEPLE_SKIP_BROWSER_TEST=1");
        return;
    }
    let python = root.join("target/browser-venv/bin/python");
    assert!(
        python.exists(),
        "the web test needs Chromium and Selenium: run scripts/setup-test-deps.sh \
         (or bash scripts/test.sh), or set MEEPLE_SKIP_BROWSER_TEST=1 to skip it"
    );
    let site = root.join("target/web-test");
    let status = Command::new("bash")
        .arg(root.join("scripts/build-web.sh"))
        .arg("--out")
        .arg(&site)
        .current_dir(root)
        .status()
        .expect("cannot run scripts/build-web.sh");
    assert!(status.success(), "scripts/build-web.sh failed ({status})");
    let status = Command::new(&python)
        .arg(root.join("tests/browser/web_test.py"))
        .arg("--site")
        .arg(&site)
        .status()
        .expect("cannot run the web test");
    assert!(status.success(), "the web test failed ({status})");
    let status = Command::new(&python)
        .arg(root.join("tests/browser/offline_test.py"))
        .arg("--site")
        .arg(site.join("site"))
        .arg("--meeple")
        .arg(env!("CARGO_BIN_EXE_meeple"))
        .arg("--out")
        .arg(root.join("target/offline-test-shots"))
        .status()
        .expect("cannot run the offline site's test");
    assert!(status.success(), "the offline site's test failed ({status})");
}
