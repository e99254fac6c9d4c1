#!/usr/bin/env python3
"""The web test of the engine compiled to WebAssembly: in headless
Chromium, protocol lines through the engine's Web Worker (target/web,
written by scripts/build-web.sh), served by a plain static server on the
loopback: the banner, `newgame`, `go movetime`, `stop` during a search
answered by a `bestmove` (with the shared stop flag on a cross-origin
isolated page, and with the fallback that restarts the worker on one that
is not, after which the engine is in step: same game, same saves), `quit`,
Connect Four's exact scores from benchmark positions, the saves the page
keeps, and `Threads` at most 1.

Run by tests/web.rs (cargo test); needs scripts/setup-test-deps.sh. No
assertion is about time (the figures are scripts/bench_web.py's).
"""
import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / 'scripts'))

import bench_web  # noqa: E402
from bench_web import Browser, Site, chromium, said_score  # noqa: E402

# A safety net, not a measure: a wait that fails the test instead of hanging.
SAFETY_MS = 120000


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print(f'ok: {what}', flush=True)


def c4_positions():
    """The first two positions of each benchmark set's excerpt in
    tests/data/connect4 (`<moves> <score>` lines)."""
    out = []
    for f in sorted((ROOT / 'tests/data/connect4').glob('*.txt')):
        lines = [l.split() for l in f.read_text().split('\n') if l.strip()]
        out.extend((moves, int(score)) for moves, score in lines[:2])
    return out


def stop_during_search(b, label):
    """`stop` during a long Hive search: a legal `bestmove`, then the
    engine answers in step."""
    middle = bench_web.hive_positions()[1][1]
    _, first, lines = b.stop_latency([f'newgame {middle}', 'go infinite'], '^info depth 2 ', 200, SAFETY_MS)
    check(first.startswith('bestmove '), f'{label}: stop during a search answered {first}')
    mv = first[len('bestmove '):]
    _, got = b.job([f'play {mv}'], r'^(Base\+MLP;.*|err .*|invalidmove .*)$')
    check(got[-1].startswith(middle.replace('White[16]', 'Black[16]') + ';'),
          f'{label}: the engine is in step after the stop: {got[-1][:60]}...')
    return mv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--site', default=str(ROOT / 'target/web'))
    a = ap.parse_args()
    site = Path(a.site)
    check((site / 'meeple_bg.wasm').is_file() and (site / 'engine-worker.js').is_file(),
          f'the site is built in {site}')
    isolated, plain = Site(site, True), Site(site, False)
    tmp = tempfile.mkdtemp(prefix='meeple-web-test-')
    driver = chromium(os.path.join(tmp, 'profile'))
    try:
        # ----- with the shared stop flag -----
        b = Browser(driver, isolated.url)
        check(b.started['sharedStop'], 'an isolated page shares a stop flag with the worker')
        banner = b.call('return meepleBench.lines.map((l) => l.line)')
        version = [l for l in (ROOT / 'Cargo.toml').read_text().split('\n') if l.startswith('version = ')][0]
        check(len(banner) == 3 and banner[0] == f'id meeple v{version.split(chr(34))[1]}' and banner[2] == 'ok',
              f'the banner, as over a pipe: {banner}')
        _, got = b.job(['newgame Connect4'], '^Connect4;')
        check(got[-1] == 'Connect4;NotStarted;Red[1]', f'newgame: {got[-1]}')
        _, got = b.job(['go movetime 200'], '^bestmove ')
        check(got[-1] in [f'bestmove {c}' for c in range(1, 8)], f'go movetime: {got[-1]}')
        _, got = b.job(['options'], '^ok$', then=None)
        threads = [l for l in got if l.startswith('Threads;')]
        check(threads and threads[0] == 'Threads;int;1;1;1;1', f'Threads at most 1: {threads}')
        stop_during_search(b, 'shared flag')
        for moves, score in c4_positions():
            b.job(['newgame Connect4', f'position startpos moves {moves}', 'isready'], '^readyok$')
            _, got = b.job(['go'], '^bestmove ')
            said = said_score(got)
            check(said is not None and said[0] == score, f'Connect Four {moves}: score {said} (the set: {score})')

        # ----- the fallback: no shared memory, the worker is restarted -----
        f = Browser(driver, plain.url, files={})
        check(not f.started['sharedStop'], 'a page that is not isolated uses the fallback')
        _, got = f.job(['newgame Connect4', 'play 4', 'save kept'], '^saved kept$')
        stop_during_search(f, 'fallback')
        check(f.restarts() == 1, 'the fallback restarted the worker once')
        _, got = f.job(['saves'], '^ok$', then=None)
        check('save kept Connect4;InProgress;Yellow[1];4' in got, f'the save outlives the restart: {got}')
        _, got = f.job(['load kept'], '^Connect4;')
        check(got[-1] == 'Connect4;InProgress;Yellow[1];4', f'load after the restart: {got[-1]}')
        kept = f.call('return meepleBench.engine.savedFiles')
        check('"game": "Connect4;InProgress;Yellow[1];4"' in kept.get('kept', ''),
              f'the page keeps the save file: {kept}')
        # A stop sent before the search has even begun still ends it.
        _, got = f.job(['go infinite', 'stop'], '^bestmove ')
        check(got[-1].startswith('bestmove '), f'go infinite then stop at once: {got[-1]}')
        _, got = f.job(['isready'], '^readyok$', then=None)
        check(got[-1] == 'readyok', 'the engine answers after it')
        # `quit`: the worker ends and the page is told the exit status.
        status = f.call('''const e = meepleBench.engine;
            return new Promise((resolve) => { e.onExit = resolve; e.send("quit"); });''')
        check(status == 0 and f.call('return meepleBench.engine.exited'), f'quit ends the engine: status {status}')
        errors = [m for m in b.console() + f.console() if 'panicked' in m or 'failed' in m]
        check(not errors, f'no engine failure in the console: {errors}')
    finally:
        driver.quit()
        isolated.close()
        plain.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
