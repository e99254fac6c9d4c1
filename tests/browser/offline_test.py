#!/usr/bin/env python3
"""The offline site (scripts/build-web.sh's site/) in headless Chromium:
served by a plain static server on the loopback (Python's http.server),
then the network cut (Chromium's Network.emulateNetworkConditions) once
the page and its service worker are in. With no network the page (the
same page as `meeple gui`'s, its table and engine in the browser) plays a
whole game of each game against the engine, analyses a Connect Four
position (the scores checked against the native engine's) and reviews
its moves, is stopped during a Hive
search and stays in step (a move after it works), saves, is reloaded
(from the service worker's cache) and loads the game, and shows the
results on its local leaderboard; at 420x900 nothing scrolls sideways.
Figures (printed, never asserted): the time from opening the page to the
engine's first move, and the Stop latency.

Run by tests/web.rs (cargo test); needs scripts/setup-test-deps.sh.
"""
import argparse
import functools
import http.server
import os
import random
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gui_test as g  # noqa: E402  (the page's helpers: clicking, states, saves)
from selenium.common.exceptions import JavascriptException, StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402


def serve(site):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                          '.wasm': 'application/wasm', '.js': 'text/javascript',
                          '.webmanifest': 'application/manifest+json'}

        def log_message(self, *a):
            pass

    s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=site))
    threading.Thread(target=s.serve_forever, daemon=True).start()
    return s, f'http://127.0.0.1:{s.server_address[1]}/'


def opened(d, timeout=60):
    """Waits for the table's welcome (its engine started)."""
    t = time.time()
    while True:
        try:
            if g.js(d, 'return !!(window.meeple && meeple.S.games)'):
                return
            fatal = g.js(d, "const f = document.getElementById('fatal'); return f && !f.hidden ? f.textContent : ''")
        except (StaleElementReferenceException, JavascriptException):
            fatal = ''  # the page is being replaced
        assert not fatal, f'the page failed: {fatal}'
        assert time.time() - t < timeout, 'the offline table did not open'
        time.sleep(0.05)


def cached(d):
    """Waits until the service worker controls the page and holds the site."""
    r = d.execute_async_script("""const done = arguments[arguments.length - 1];
        navigator.serviceWorker.ready.then(async () => {
          for (let i = 0; i < 200 && !navigator.serviceWorker.controller; i++) await new Promise((r) => setTimeout(r, 50));
          const keys = await caches.keys();
          const c = await caches.open(keys.find((k) => k.startsWith('meeple-')));
          done({controlled: !!navigator.serviceWorker.controller, files: (await c.keys()).length});
        }).catch((e) => done({error: String(e)}));""")
    assert r.get('controlled') and r.get('files', 0) > 10, f'the service worker: {r}'
    return r


def offline(d, cut=True):
    d.execute_cdp_cmd('Network.enable', {})
    d.execute_cdp_cmd('Network.emulateNetworkConditions',
                      {'offline': cut, 'latency': 0, 'downloadThroughput': -1, 'uploadThroughput': -1})


def first_move_ms(d, url):
    """From opening the page (the navigation's start) to the engine's first
    move on it, read by the page itself: a new Connect Four game with the
    engine first at 100 ms a move, asked for as soon as the table is open
    (as the form's New game would)."""
    d.get(url)
    ms = d.execute_async_script("""const done = arguments[arguments.length - 1];
        const t = setInterval(() => {
          const S = window.meeple && meeple.S;
          if (!S || !S.games) return;
          if (!S.asked) {
            S.asked = true;
            meeple.send({t: 'new', game_type: 'Connect4', pause: 0, players: [
              {kind: 'engine', strategy: 'perfect', movetime: 100}, {kind: 'human', name: 'Alice'}]});
          }
          if (S.st && S.st.board && S.st.board.ply >= 1) { clearInterval(t); done(performance.now()); }
        }, 5);""")
    opened(d)
    return ms


def games(d, out, helper, rng):
    plays = [
        ('offline-connect4', 'Connect4', [{'name': 'Alice'}, {'strategy': 'perfect', 'movetime': 100}]),
        ('offline-mastermind', 'Mastermind', [{'strategy': 'entropy', 'movetime': 100}, {'name': 'Alice'}]),
        ('offline-hive', 'Hive', [{'name': 'Alice'}, {'strategy': 'alphabeta', 'movetime': 100}]),
    ]
    for name, fam, players in plays:
        g.setup_game(d, fam, players, pause=0)
        st, clicked = g.play_out([d], rng, helper, lambda s: 'random', name)
        t = time.time()
        while 'leaderboard' not in (g.state(d)['recorded'] or ''):
            assert time.time() - t < 10, f'{name}: not recorded: {g.state(d)["recorded"]}'
            time.sleep(0.05)
        for attempt in range(3):
            try:  # the page may redraw its list of moves meanwhile
                g.check_game(d, st, clicked, helper, name)
                break
            except StaleElementReferenceException:
                if attempt == 2:
                    raise
                time.sleep(0.3)
        assert g.by_id(d, 'result').text, f'{name}: no result in words'
        g.shot(d, out, name)


def click_move(d, mv):
    """gui_test's click_move, again from where it is when the page redrew
    the element it was about to click."""
    for attempt in range(5):
        try:
            return g.click_move(d, mv)
        except StaleElementReferenceException:
            if attempt == 4:
                raise
            time.sleep(0.1)


def stop_hive(d, helper, rounds):
    """Stop during the engine's Hive search; then the engine moves again
    (Resume) and a person's move is taken: the page is in step."""
    lat = []
    g.setup_game(d, 'Hive', [{'name': 'Alice'}, {'strategy': 'alphabeta', 'movetime': 4000}], pause=0)
    for _ in range(rounds):
        st = g.wait_for(d, lambda st: st['mine'], 'the person to move')
        click_move(d, helper.best(st['gs']))
        g.wait_for(d, lambda st: st['searching'], 'the engine searching')
        time.sleep(0.5)
        # Timed by the page: from the click on Stop to the state that
        # shows the search stopped and the game paused.
        ms = d.execute_async_script("""const done = arguments[arguments.length - 1];
            const t0 = performance.now();
            document.getElementById('stop').click();
            const t = setInterval(() => {
              const st = meeple.S.st;
              if (st && !st.searching && st.paused) { clearInterval(t); done(performance.now() - t0); }
              else if (performance.now() - t0 > 30000) { clearInterval(t); done(null); }
            }, 2);""")
        assert ms is not None, 'Stop: the page was not paused within 30 s'
        lat.append(ms)
        st = g.state(d)
        ply = st['board']['ply']
        g.press(d, 'resume')
        g.wait_for(d, lambda st: st['board']['ply'] > ply, 'the engine moving after Resume', timeout=30)
    st = g.wait_for(d, lambda st: st['mine'], 'the person to move')
    mv = click_move(d, helper.best(st['gs']))
    g.wait_for(d, lambda st: st['history'][-1:] == [mv], 'the move after Stop')
    assert not g.message(d), f'after Stop: {g.message(d)}'
    helper.check(g.state(d)['gs'])
    return lat


def save_reload_load(d, url):
    if not g.by_id(d, 'table-box').get_attribute('open'):
        d.find_element(By.CSS_SELECTOR, '#table-box summary').click()
    g.press(d, 'stop')
    gs = g.state(d)['gs']
    g.set_value(g.by_id(d, 'save-name'), 'offline-1')
    g.press(d, 'save')
    t = time.time()
    while 'saved offline-1' not in g.message(d):
        assert time.time() - t < 30, f'save: {g.message(d)}'
        time.sleep(0.05)
    d.get(url)  # no network: from the service worker's cache
    opened(d)
    load(d, 'offline-1')
    st = g.wait_for(d, lambda st: st['gs'] == gs, 'the loaded game')
    g.log(f'saved, reloaded offline and loaded: {st["gs"][:80]}')


def load(d, name):
    """Loads a save with the page's Load (the list read by the page itself:
    it is redrawn as the saves come)."""
    if not g.by_id(d, 'table-box').get_attribute('open'):
        d.find_element(By.CSS_SELECTOR, '#table-box summary').click()
    has = "return [...document.querySelectorAll('#saves option')].some((o) => o.value === arguments[0])"
    t = time.time()
    while not g.js(d, has, name):
        assert time.time() - t < 30, 'the saves list'
        g.js(d, "meeple.send({t: 'saves'})")
        time.sleep(0.3)
    g.js(d, "const s = document.getElementById('saves'); s.value = arguments[0]; "
            "s.dispatchEvent(new Event('change', {bubbles: true}))", name)
    g.press(d, 'load')


def leaderboard(d):
    if not g.by_id(d, 'leaders').get_attribute('open'):
        d.find_element(By.CSS_SELECTOR, '#leaders summary').click()
    g.press(d, 'lb-refresh')
    t = time.time()
    while 'Alice' not in g.by_id(d, 'lb-people').text:
        assert time.time() - t < 10, f'the local leaderboard: {g.by_id(d, "lb-people").text!r}'
        time.sleep(0.1)
    g.log('local leaderboard:', g.by_id(d, 'lb-people').text.replace('\n', ' | ')[:200])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--site', required=True)
    ap.add_argument('--meeple', required=True, help='the native engine (picks moves, checks GameStrings)')
    ap.add_argument('--out', default=None, help='screenshots (default: a temporary folder)')
    ap.add_argument('--opens', type=int, default=3, help='page openings timed to the first engine move')
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='meeple-offline-')
    out = a.out or tmp
    os.makedirs(out, exist_ok=True)
    server, url = serve(a.site)
    helper = g.Helper(a.meeple, tempfile.mkdtemp(dir=tmp))
    rng = random.Random(44)
    d = g.browser(tmp)
    try:
        d.set_script_timeout(60)
        times = [first_move_ms(d, url)]
        # Served without COOP/COEP, before the service worker: the first
        # opening's Stop is engine.js's fallback (the worker restarted).
        plain = g.js(d, 'return crossOriginIsolated')
        lat_plain = stop_hive(d, helper, 1)
        times += [first_move_ms(d, url) for _ in range(a.opens - 1)]
        cached(d)
        offline(d)
        g.log(f'offline: cross-origin isolated (shared stop flag): {g.js(d, "return crossOriginIsolated")}')
        d.get(url)  # no network: from the service worker's cache
        opened(d)
        isolated = g.js(d, 'return crossOriginIsolated')
        games(d, out, helper, rng)
        g.connect4_analysis(d, out, helper)  # the analysis board and reviewing, as on the server
        lat = stop_hive(d, helper, 3)
        save_reload_load(d, url)
        leaderboard(d)
        g.shot(d, out, 'offline-leaderboard')
        g.log(f'FIGURE first engine move after opening the page (ms, {len(times)} openings, the first one '
              f'uncached): {[round(x) for x in times]}, median {statistics.median(times):.0f}')
        g.log(f'FIGURE Stop during a Hive search, to the page paused (ms; shared flag: {isolated}): '
              f'{[round(x) for x in lat]}; (shared flag: {plain}): {[round(x) for x in lat_plain]}')
        g.log('offline test: all passed')
    finally:
        d.quit()
        helper.close()
        server.shutdown()


if __name__ == '__main__':
    main()
