#!/usr/bin/env python3
"""The engine compiled to WebAssembly, measured against the native binary.

Serves target/web (scripts/build-web.sh) on the loopback and, in headless
Chromium driven by Selenium (target/browser-venv from
scripts/setup-test-deps.sh), runs the same protocol lines through the Web
Worker as through the native binary (target/release/meeple) in the same
run, and prints ratios:

- Hive: the positions of `meeple bench hive --search`, searched to a fixed
  depth on one thread: nodes per second, browser / native;
- Connect Four: the first N positions of each benchmark set (`perfect`,
  no limit; --c4-sets): the score must be the set's exact score; time per
  position;
- Mastermind 4x6 `optimal`: whole games against fixed secrets, the time of
  the codebreaker's moves;
- the size of the .wasm (raw and gzipped) and of the whole site gzipped;
  the time from opening the page to the engine's first `bestmove`;
- Stop: the time from posting `stop` during a long Hive search to its
  `bestmove`, with the shared stop flag (the page served cross-origin
  isolated) and with the fallback (not isolated: the worker is ended and
  restarted), and natively.

Usage (after `cargo build --release` and `bash scripts/build-web.sh`):
    target/browser-venv/bin/python scripts/bench_web.py [--c4-per-set N]
        [--hive-depth D] [--mm-games N] [--stops N] [--only PART...]

The helpers (the static server, the browser, the two engines) are also
used by the web test (tests/browser/web_test.py).
"""
import argparse
import gzip
import http.server
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
                  '--disable-component-update', '--disable-sync', '--no-first-run']


def log(*a):
    print(*a, flush=True)


# ----- the static site ---------------------------------------------------------


class Site:
    """A static server of `directory` on 127.0.0.1 (a port of its own).
    `isolated`: with the headers that make a page cross-origin isolated
    (COOP/COEP), so it may share memory with its workers."""

    def __init__(self, directory, isolated):
        directory = str(directory)

        class Handler(http.server.SimpleHTTPRequestHandler):
            extensions_map = {'.wasm': 'application/wasm', '.js': 'text/javascript',
                              '.html': 'text/html', '.json': 'application/json', '': 'application/octet-stream'}

            def __init__(self, *a, **kw):
                super().__init__(*a, directory=directory, **kw)

            def end_headers(self):
                self.send_header('Cache-Control', 'no-store')
                if isolated:
                    self.send_header('Cross-Origin-Opener-Policy', 'same-origin')
                    self.send_header('Cross-Origin-Embedder-Policy', 'require-corp')
                super().end_headers()

            def log_message(self, *a):
                pass

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.url = f'http://127.0.0.1:{self.server.server_address[1]}/'
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def chromium(user_data_dir):
    """Headless Chromium (Debian's, with its chromedriver)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    o = Options()
    for a in CHROMIUM_FLAGS + [f'--user-data-dir={user_data_dir}', '--window-size=1000,800']:
        o.add_argument(a)
    o.binary_location = shutil.which('chromium') or '/usr/bin/chromium'
    o.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    d = webdriver.Chrome(options=o, service=Service(shutil.which('chromedriver') or '/usr/bin/chromedriver'))
    d.set_script_timeout(3600)
    return d


# ----- the two engines, one interface -------------------------------------------


class Browser:
    """The engine worker of bench.html in one page (window.meepleBench)."""

    def __init__(self, driver, url, **start):
        self.d = driver
        self.d.get(url + 'bench.html')
        self.started = self.call('return meepleBench.start(arguments[0])', start)

    def call(self, body, *args):
        # An async script: `body` returns a value or a promise.
        script = ('const done = arguments[arguments.length - 1];'
                  f'Promise.resolve((function() {{ {body} }}).apply(null, Array.from(arguments).slice(0, -1)))'
                  '.then((v) => done({ok: v}), (e) => done({err: String(e && e.stack || e)}));')
        r = self.d.execute_async_script(script, *args)
        if 'err' in r:
            raise RuntimeError(f'in the page: {r["err"]}')
        return r['ok']

    def quiet(self):
        self.call('meepleBench.show = false;')

    def job(self, lines, until, then='^ok$', timeout=600000):
        """Sends `lines`, returns (ms from the last one to the first line
        matching `until`, the lines received up to it); then waits for a
        line matching `then` (the end of that reply), if given."""
        r = self.call('return meepleBench.job(arguments[0], arguments[1], arguments[2], arguments[3])',
                      lines, until, then, timeout)
        return r['ms'], r['lines']

    def stop_latency(self, setup, running, after_ms, timeout=600000):
        r = self.call('return meepleBench.stopLatency(arguments[0], arguments[1], arguments[2], arguments[3])',
                      setup, running, after_ms, timeout)
        return r['ms'], r['line'], r['lines']

    def self_play(self, setup, max_plies):
        r = self.call(SELF_PLAY_JS, setup, max_plies)
        return r['ms'], r['plies'], r['final']

    def restarts(self):
        return self.call('return meepleBench.restarts')

    def console(self):
        try:
            return [e['message'] for e in self.d.get_log('browser')]
        except Exception:
            return []


# The same game loop in the page: `go`, play its move, until the game is
# over; the time of the `go`s only.
SELF_PLAY_JS = r'''
const [setup, maxPlies] = arguments;
const b = meepleBench;
return (async () => {
    let final = (await b.job(setup.concat(["isready"]), "^readyok$", "^ok$")).lines
        .filter((l) => l.includes(";")).pop() || "";
    let ms = 0, plies = 0;
    while (plies < maxPlies && !/;(\w*Wins|Draw);/.test(final + ";")) {
        const g = await b.job(["go"], "^bestmove ", "^ok$");
        ms += g.ms;
        const mv = g.lines[g.lines.length - 1].slice("bestmove ".length);
        const r = await b.job(["play " + mv], "^(ok|err .*|invalidmove .*)$");
        final = r.lines.filter((l) => l.includes(";")).pop() || final;
        plies++;
    }
    return {ms, plies, final};
})();
'''


class Native:
    """The native binary on pipes, with the same interface."""

    def __init__(self, meeple):
        self.p = subprocess.Popen([str(meeple)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._until('^ok$', 60)  # the banner

    def _read(self):
        for line in self.p.stdout:
            self.q.put((line.rstrip('\n'), time.perf_counter()))
        self.q.put((None, time.perf_counter()))

    def _until(self, pattern, timeout=600):
        rx = re.compile(pattern)
        got = []
        end = time.monotonic() + timeout
        while True:
            line, at = self.q.get(timeout=max(0.01, end - time.monotonic()))
            if line is None:
                raise RuntimeError(f'the native engine ended; lines: {got[-5:]}')
            got.append(line)
            if rx.search(line):
                return at, got

    def send(self, line):
        self.p.stdin.write(line + '\n')
        self.p.stdin.flush()

    def job(self, lines, until, then='^ok$', timeout=600):
        sent = 0
        for l in lines:
            sent = time.perf_counter()
            self.send(l)
        at, got = self._until(until, timeout)
        if then and not re.search(then, got[-1]):
            self._until(then, timeout)
        return (at - sent) * 1000, got

    def stop_latency(self, setup, running, after_ms):
        for l in setup:
            self.send(l)
        self._until(running)
        time.sleep(after_ms / 1000)
        sent = time.perf_counter()
        self.send('stop')
        at, got = self._until('^bestmove ')
        self._until('^ok$')
        return (at - sent) * 1000, got[-1], got

    def self_play(self, setup, max_plies):
        _, got = self.job(setup + ['isready'], '^readyok$')
        final = ([l for l in got if ';' in l] or [''])[-1]
        ms, plies = 0.0, 0
        while plies < max_plies and not re.search(r';(\w*Wins|Draw);', final + ';'):
            t, lines = self.job(['go'], '^bestmove ')
            ms += t
            mv = lines[-1][len('bestmove '):]
            _, got = self.job([f'play {mv}'], r'^(ok|err .*|invalidmove .*)$', then=None)
            final = ([l for l in got if ';' in l] or [final])[-1]
            plies += 1
        return ms, plies, final

    def close(self):
        try:
            self.send('quit')
            self.p.wait(10)
        except Exception:
            self.p.kill()


# ----- what is measured -------------------------------------------------------------


def hive_positions():
    """The positions of `meeple bench hive --search` (name, GameString),
    read from their one definition, src/games/hive/searchbench.rs."""
    text = (ROOT / 'src/games/hive/searchbench.rs').read_text()
    consts = dict(re.findall(r'pub const (\w+): &str = "([^"]*)";', text))
    body = text[text.index('pub const POSITIONS'):]
    body = body[:body.index('\n];')]
    out = []
    for name, raw, plain, const in re.findall(r'\(\s*"([\w-]+)",\s*(?:r"([^"]*)"|"([^"]*)"|(\w+))\s*,?\s*\)', body):
        # A plain Rust string escapes its backslashes; a raw one does not.
        gs = raw or (plain or consts.get(const, '')).replace('\\\\', '\\')
        out.append((name, gs))
    if len(out) < 4:
        raise RuntimeError(f'could not read the Hive bench positions (found {len(out)})')
    return out


def last_info(lines):
    info = [l for l in lines if l.startswith('info depth')]
    if not info:
        raise RuntimeError(f'no info line in {lines[-5:]}')
    f = info[-1].split()
    get = lambda k: int(f[f.index(k) + 1])
    return get('nodes'), get('time'), info[-1]


def hive(engines, depth, repeat):
    """nodes/s on each position, each engine (one thread, 64 MB table):
    the best of `repeat` searches, the engines taking turns (the machine
    is shared: the best is the least disturbed)."""
    rows = []
    for name, gs in hive_positions():
        row = {'position': name}
        for _ in range(repeat):
            for label, e in engines.items():
                lines = ['setoption name Threads value 1', 'setoption name Hash value 64', f'newgame {gs}',
                         'setoption name Strategy value alphabeta', 'isready']
                e.job(lines, '^readyok$')
                ms, got = e.job([f'go depth {depth}'], '^bestmove ')
                nodes, t, info = last_info(got)
                nps = round(nodes * 1000 / max(t, 1))
                if label not in row or nps > row[label]['nps']:
                    row[label] = {'nodes': nodes, 'engine_ms': t, 'wall_ms': round(ms, 1), 'nps': nps,
                                  'best': got[-1]}
        rows.append(row)
    return rows


def c4_positions(per_set, directory):
    sets = {}
    for f in sorted(p for p in Path(directory).iterdir() if p.is_file()):
        rows = []
        for line in f.read_text().split('\n')[:per_set]:
            if line.strip():
                moves, score = line.split()
                rows.append((moves, int(score)))
        sets[f.name] = rows
    return sets


def said_score(lines):
    """The exact score `perfect`'s `go` reported: (score, 0); or, at the
    opening book's depth, where it prints `info string perfect: the book's
    value, ...` and `score lowerbound v` for the book's exact value v,
    (v, 1); None if neither."""
    for l in reversed(lines):
        m = re.search(r' score exact (-?\d+)', l)
        if m:
            return int(m.group(1)), 0
        m = re.search(r' score lowerbound (-?\d+)', l)
        if m and any("the book's value" in x for x in lines):
            return int(m.group(1)), 1
    return None


def connect4(engines, per_set, directory, hash_mb, repeat):
    """`perfect` with no limit on the first positions of every set: the
    exact score, and the time per position (of the quickest of `repeat`
    passes over the set, the engines taking turns)."""
    out = {}
    for name, rows in c4_positions(per_set, directory).items():
        res = {}
        for _ in range(repeat):
            for label, e in engines.items():
                size = [f'setoption name Hash value {hash_mb}'] if hash_mb else []
                e.job(['setoption name Threads value 1'] + size + ['newgame Connect4', 'isready'], '^readyok$')
                total, wrong, booked, times = 0.0, [], 0, []
                for moves, score in rows:
                    e.job([f'position startpos moves {moves}', 'isready'], '^readyok$')
                    ms, got = e.job(['go'], '^bestmove ')
                    total += ms
                    times.append(round(ms, 1))
                    said = said_score(got)
                    if said is None:
                        wrong.append((moves, score, got[-2:]))
                    elif said[0] != score:
                        wrong.append((moves, score, said[0]))
                    booked += said[1]
                per = round(total / max(len(rows), 1), 2)
                prev = res.get(label)
                if prev is None or per < prev['ms_per_position']:
                    res[label] = {'positions': len(rows), 'ms_per_position': per,
                                  'wrong': (prev or {}).get('wrong', []) + wrong,
                                  'book_value_lowerbound': booked, 'ms': times}
                else:
                    prev['wrong'] += wrong
        out[name] = res
    return out


MM_SECRETS = ['1234', '6543', '1122', '3456', '5161', '2222', '4321', '6611', '2356', '1645']


def mastermind(engines, games, repeat):
    """Whole games of `optimal` against fixed secrets, one player for
    them all: the time of the codebreaker's moves (the quickest of
    `repeat` passes, each with a new player)."""
    out = {}
    for _ in range(repeat):
        for label, e in engines.items():
            total, plies = 0.0, 0
            # A new player for each pass: `optimal` keeps what it decided,
            # from game to game.
            e.job(['newgame Mastermind', 'setoption name Strategy value random'], '^ok$')
            for secret in MM_SECRETS[:games]:
                setup = ['setoption name Threads value 1', 'newgame Mastermind',
                         'setoption name Strategy value optimal', f'setoption name Secret value {secret}',
                         'newgame Mastermind']
                ms, n, final = e.self_play(setup, 40)
                if 'Wins' not in final:
                    raise RuntimeError(f'{label}: Mastermind game against {secret} did not end: {final}')
                total += ms
                plies += n
            if label not in out or total < out[label]['ms']:
                out[label] = {'games': games, 'moves': plies, 'ms': round(total, 1)}
    return out


def stops(engine, n, after_ms=400):
    """The time from `stop` to `bestmove` during a long Hive search, n times."""
    times = []
    for i in range(n):
        setup = ['setoption name Threads value 1', f'newgame {hive_positions()[1][1]}', 'go infinite']
        ms, line, _ = engine.stop_latency(setup, '^info depth 3 ', after_ms + 100 * i)
        if not line.startswith('bestmove '):
            raise RuntimeError(f'stop answered {line}')
        times.append(round(ms, 1))
    return times


def site_sizes(site):
    wasm = site / 'meeple_bg.wasm'
    raw = wasm.stat().st_size
    gz = len(gzip.compress(wasm.read_bytes(), 9))
    total = sum(len(gzip.compress(p.read_bytes(), 9)) for p in site.iterdir() if p.is_file())
    return {'wasm_bytes': raw, 'wasm_gzip_bytes': gz, 'site_gzip_bytes': total}


def ratio(a, b):
    return round(a / b, 3) if b else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--site', default=str(ROOT / 'target/web'))
    ap.add_argument('--meeple', default=str(ROOT / 'target/release/meeple'))
    ap.add_argument('--c4-sets', default=str(ROOT / 'tests/data/connect4'),
                    help='a folder of Connect Four benchmark sets, `<moves> <score>` per line '
                         '(default: the excerpts of the six standard sets in tests/data/connect4; '
                         'give the folder of the whole sets, Test_L1_R1 ... Test_L3_R1, to use them)')
    ap.add_argument('--c4-per-set', type=int, default=20)
    ap.add_argument('--c4-hash', type=int, help='Hash (MB) for Connect Four (default: the engine\'s)')
    ap.add_argument('--hive-depth', type=int, default=6)
    ap.add_argument('--mm-games', type=int, default=5)
    ap.add_argument('--stops', type=int, default=5)
    ap.add_argument('--repeat', type=int, default=3,
                    help='each speed figure is the best of this many runs, the engines taking turns')
    ap.add_argument('--only', nargs='*', default=['size', 'first', 'hive', 'connect4', 'mastermind', 'stop'])
    ap.add_argument('--json', help='also write the results here')
    ap.add_argument('--verbose', action='store_true', help='every position\'s time')
    a = ap.parse_args()
    site = Path(a.site)
    results = {'command': ' '.join(sys.argv)}
    if 'size' in a.only:
        results['size'] = site_sizes(site)
        log('size:', results['size'])
    isolated, plain = Site(site, True), Site(site, False)
    tmp = tempfile.mkdtemp(prefix='meeple-bench-web-')
    driver = chromium(os.path.join(tmp, 'profile'))
    native = Native(a.meeple)
    try:
        if 'first' in a.only:
            # A fresh page: from its opening to the first move of Connect
            # Four's `perfect` at `go movetime 100`.
            firsts = []
            for _ in range(3):
                b = Browser(driver, isolated.url)
                ms, _ = b.job(['newgame Connect4', 'go movetime 100'], '^bestmove ')
                since_open = b.call('return performance.now()')
                firsts.append({'engine_ready_ms': round(b.started['ms'], 1),
                               'go_to_bestmove_ms': round(ms, 1),
                               'open_to_bestmove_ms': round(since_open, 1)})
            results['first_move'] = firsts
            log('first move:', firsts)
        b = Browser(driver, isolated.url)
        b.quiet()
        if not b.started['sharedStop']:
            raise RuntimeError('the isolated page did not get the shared stop flag')
        engines = {'browser': b, 'native': native}
        if 'hive' in a.only:
            rows = hive(engines, a.hive_depth, a.repeat)
            for r in rows:
                r['nps_ratio'] = ratio(r['browser']['nps'], r['native']['nps'])
                log(f"hive {r['position']}: depth {a.hive_depth} browser {r['browser']['nps']} n/s, native "
                    f"{r['native']['nps']} n/s, ratio {r['nps_ratio']} (nodes {r['browser']['nodes']} / "
                    f"{r['native']['nodes']})")
            tb = sum(r['browser']['nodes'] for r in rows) * 1000 / sum(max(r['browser']['engine_ms'], 1) for r in rows)
            tn = sum(r['native']['nodes'] for r in rows) * 1000 / sum(max(r['native']['engine_ms'], 1) for r in rows)
            results['hive'] = {'depth': a.hive_depth, 'positions': rows, 'browser_nps': round(tb),
                               'native_nps': round(tn), 'nps_ratio': ratio(tb, tn)}
            log(f'hive total: browser {round(tb)} n/s, native {round(tn)} n/s, ratio {ratio(tb, tn)}')
        if 'connect4' in a.only:
            c4 = connect4(engines, a.c4_per_set, a.c4_sets, a.c4_hash, a.repeat)
            for name, r in c4.items():
                r['time_ratio'] = ratio(r['browser']['ms_per_position'], r['native']['ms_per_position'])
                log(f"connect4 {name}: {r['browser']['positions']} positions, browser "
                    f"{r['browser']['ms_per_position']} ms, native {r['native']['ms_per_position']} ms, "
                    f"ratio {r['time_ratio']}, wrong scores: browser {r['browser']['wrong']} "
                    f"native {r['native']['wrong']} (the book's value as lowerbound: "
                    f"{r['browser']['book_value_lowerbound']})")
                if a.verbose:
                    log(f"  browser ms {r['browser']['ms']}\n  native  ms {r['native']['ms']}")
            results['connect4'] = c4
        if 'mastermind' in a.only:
            mm = mastermind(engines, a.mm_games, a.repeat)
            mm['time_ratio'] = ratio(mm['browser']['ms'], mm['native']['ms'])
            results['mastermind'] = mm
            log('mastermind 4x6 optimal:', mm)
        if 'stop' in a.only:
            st = {'shared_flag': stops(b, a.stops), 'native': stops(native, a.stops)}
            fb = Browser(driver, plain.url)
            fb.quiet()
            if fb.started['sharedStop']:
                raise RuntimeError('the page that is not isolated has a shared stop flag')
            st['fallback'] = stops(fb, a.stops)
            st['fallback_restarts'] = fb.restarts()
            # The restarted engine is in step: the same game, and it plays.
            ms, lines = fb.job(['validmoves', 'go depth 2'], '^bestmove ')
            st['after_fallback'] = lines[-1]
            results['stop'] = st
            log('stop -> bestmove (ms):', st)
    finally:
        native.close()
        driver.quit()
        isolated.close()
        plain.close()
        shutil.rmtree(tmp, ignore_errors=True)
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == '__main__':
    sys.exit(main())
