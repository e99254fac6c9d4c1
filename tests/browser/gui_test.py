#!/usr/bin/env python3
"""The browser test of `meeple gui`: headless Chromium driven by Selenium.

Plays whole games of every game by clicking (a person against an engine
strategy, and hotseat), then a networked game between two browsers with a
spectator and a chat message. After each game it checks that the moves the
page shows and the moves clicked are the engine's GameString, and that a
fresh engine accepts that GameString as legal. Screenshots go to --out.

Run by tests/gui_browser.rs (cargo test); needs scripts/setup-test-deps.sh.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

SAFETY = 240  # seconds a single game may take before the test fails (a safety net)


def log(*a):
    print(*a, flush=True)


class Helper:
    """A separate engine process: picks moves for a 'person' who plays well
    (the test then enters them by clicking) and checks GameStrings."""

    def __init__(self, meeple, data_dir):
        self.p = subprocess.Popen([meeple, '--data-dir', data_dir], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.reply()

    def reply(self):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError('helper engine exited')
            line = line.rstrip('\n')
            if line == 'ok':
                return lines
            lines.append(line)

    def cmd(self, c):
        self.p.stdin.write(c + '\n')
        return self.reply()

    def best(self, game_string, ms=60):
        self.cmd('newgame ' + game_string)
        for line in self.cmd(f'go movetime {ms}'):
            if line.startswith('bestmove '):
                return line[len('bestmove '):]
        raise RuntimeError('no bestmove')

    def check(self, game_string):
        r = self.cmd('newgame ' + game_string)
        assert r and r[-1] == game_string, f'engine does not accept {game_string!r}: {r}'

    def close(self):
        self.p.stdin.write('quit\n')
        self.p.stdin.flush()
        self.p.wait(timeout=10)


def browser(tmp):
    o = Options()
    for a in ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
              '--disable-background-networking', '--disable-component-update', '--disable-sync',
              '--disable-dev-shm-usage', '--window-size=1400,1000',
              '--user-data-dir=' + tempfile.mkdtemp(dir=tmp)]:
        o.add_argument(a)
    o.binary_location = shutil.which('chromium') or '/usr/bin/chromium'
    return webdriver.Chrome(options=o, service=Service(shutil.which('chromedriver') or '/usr/bin/chromedriver'))


def js(d, script, *args):
    return d.execute_script(script, *args)


def click(d, el):
    # SVG groups are clicked through a DOM event (WebDriver's click wants a box).
    js(d, "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", el)


def state(d):
    # One snapshot, read at once (the page changes between two calls).
    return js(d, "return S.state ? {gs: S.state.game_string, board: S.state.board, you: S.state.you, "
                 "searching: !!S.state.searching, anim: !!S.anim, history: S.state.history, "
                 "mine: myTurn() && !S.anim} : null")


def over(st):
    return bool(st and st['board'] and (st['board']['state'].endswith('Wins') or st['board']['state'] == 'Draw'))


def my_turn(d):
    return js(d, 'return myTurn() && !S.anim')


def click_random(d, rng):
    """One random click among the highlighted choices, or the confirm."""
    conf = d.find_element(By.ID, 'confirm')
    if conf.is_displayed():
        mv = conf.get_attribute('data-move')
        conf.click()
        return mv
    sel = d.find_elements(By.CSS_SELECTOR, '[data-selectable]')
    if sel:
        click(d, rng.choice(sel))
    return None


def click_move(d, mv):
    """Enters the move `mv` by clicking its selections along the move tree."""
    sels = js(d, """
        const path = findPath(S.state.tree, arguments[0]);
        if (!path) return null;
        const out = []; let n = S.state.tree;
        for (const i of path) { n = n.children[i]; out.push((n.select || [])[0]); }
        return out;""", mv)
    assert sels is not None, f'{mv} is not in the move tree'
    for s in sels:
        if s['kind'] == 'cell':
            key = s['cell']
        elif s['kind'] == 'piece':
            key = s['piece']
        elif s['kind'] == 'symbol':
            key = f"{s['slot']}={s['symbol']}"
        else:
            key = s['label']
        els = [e for e in d.find_elements(By.CSS_SELECTOR, '[data-selectable]')
               if e.get_attribute('data-selectable') == key]
        assert els, f'nothing to click for {s} (move {mv})'
        click(d, els[0])
    conf = d.find_element(By.ID, 'confirm')
    assert conf.is_displayed() and conf.get_attribute('data-move') == mv, f'confirm shows {conf.get_attribute("data-move")} for {mv}'
    conf.click()
    return mv


def setup_game(d, family, players, options=None, game_type=None, pause=100):
    Select(d.find_element(By.ID, 'family')).select_by_value(family)
    if game_type:
        e = d.find_element(By.ID, 'game-type')
        e.clear()
        e.send_keys(game_type)
    for name, value in (options or {}).items():
        e = d.find_element(By.ID, 'opt-' + name)
        if e.tag_name == 'select':
            Select(e).select_by_value(value)
        else:
            e.clear()
            e.send_keys(value)
    for i, p in enumerate(players):
        Select(d.find_element(By.ID, f'player-{i}')).select_by_value(p.get('strategy', 'human'))
        mt = d.find_element(By.ID, f'movetime-{i}')
        mt.clear()
        mt.send_keys(str(p.get('movetime', 100)))
    e = d.find_element(By.ID, 'pause')
    e.clear()
    e.send_keys(str(pause))
    d.find_element(By.ID, 'new-game').click()
    deadline = time.time() + 30
    while time.time() < deadline:
        st = state(d)
        if st and st['board'] and st['board']['ply'] == 0 and st['board']['family'] == family:
            return
        time.sleep(0.05)
    raise AssertionError('the new game did not start')


def game_moves(gs):
    return [m for m in gs.split(';')[3:] if '=' not in m]


def play_out(drivers, rng, helper, chooser, name):
    """Clicks until the game is over. `chooser(side)` is 'random' or
    'helper' for a person's side. Returns (final state, moves clicked by ply)."""
    clicked = {}
    start = time.time()
    while True:
        assert time.time() - start < SAFETY, f'{name}: the game took too long'
        progressed = False
        for d in drivers:
            st = state(d)
            if over(st):
                return st, clicked
            if not st or not st['board'] or not st['mine']:
                continue
            ply, side = st['board']['ply'], st['board']['turn']
            try:
                if chooser(side) == 'helper':
                    mv = click_move(d, helper.best(st['gs']))
                else:
                    mv = click_random(d, rng)
            except StaleElementReferenceException:
                continue
            if mv is not None:
                clicked[ply] = mv
                # Wait for the engine to take the move.
                t = time.time()
                while time.time() - t < 30:
                    s2 = state(d)
                    if s2 and s2['board'] and s2['board']['ply'] > ply:
                        break
                    m = d.find_element(By.ID, 'message').text
                    assert not m, f'{name}: the page says {m!r} after {mv}'
                    time.sleep(0.03)
            progressed = True
        if not progressed:
            time.sleep(0.05)


def check_game(d, st, clicked, helper, name):
    gs = st['gs']
    moves = game_moves(gs)
    shown = [li.text for li in d.find_elements(By.CSS_SELECTOR, '#history li')]
    assert shown == moves, f'{name}: the page shows {shown}, the GameString has {moves}'
    for ply, mv in clicked.items():
        assert moves[ply] == mv, f'{name}: clicked {mv} at ply {ply}, the GameString has {moves[ply]}'
    helper.check(gs)
    log(f'{name}: {st["board"]["state"]} after {len(moves)} plies, {len(clicked)} clicked; {gs[:100]}')


def shot(d, out, name):
    time.sleep(0.8)  # let the last animation end
    js(d, 'window.scrollTo(0, 0)')
    path = os.path.join(out, name + '.png')
    d.save_screenshot(path)
    log('screenshot', path)


def start_server(meeple, data_dir):
    p = subprocess.Popen([meeple, '--data-dir', data_dir, 'gui', '--port', '0'],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in p.stdout:
        m = re.search(r'open (http\S+)', line)
        if m:
            return p, m.group(1)
    raise RuntimeError('meeple gui printed no link')


def local_games(url, tmp, out, helper, rng):
    d = browser(tmp)
    try:
        d.get(url)
        time.sleep(0.5)
        # The page without the key is refused.
        games = [
            # (name, family, players, options, chooser for people)
            ('connect4-vs-engine', 'Connect4', [{}, {'strategy': 'perfect', 'movetime': 150}], {}, lambda s: 'random'),
            ('connect4-hotseat', 'Connect4', [{}, {}], {}, lambda s: 'helper' if s == 0 else 'random'),
            ('mastermind-breaker-vs-engine', 'Mastermind', [{}, {'strategy': 'entropy'}], {'Codemaker': 'random'},
             lambda s: 'helper'),
            ('mastermind-maker-vs-engine', 'Mastermind', [{'strategy': 'entropy', 'movetime': 200}, {}],
             {'Codemaker': 'none'}, lambda s: 'random'),
            ('mastermind-hotseat', 'Mastermind', [{}, {}], {'Codemaker': 'none'}, lambda s: 'random'),
            ('hive-vs-engine', 'Hive', [{}, {'strategy': 'alphabeta', 'movetime': 150}], {}, lambda s: 'random'),
            ('hive-hotseat', 'Hive', [{}, {}], {}, lambda s: 'helper' if s == 0 else 'random'),
        ]
        for name, fam, players, options, chooser in games:
            setup_game(d, fam, players, options)
            # A screenshot mid-game, while a move is being built.
            st, clicked = play_out([d], rng, helper, chooser, name)
            check_game(d, st, clicked, helper, name)
            shot(d, out, name)
        # Undo, save and load on a short game.
        setup_game(d, 'Connect4', [{}, {}])
        for mv in ['4', '4', '3']:
            click_move(d, mv)
            time.sleep(0.2)
        d.find_element(By.ID, 'undo').click()
        wait_for(d, lambda st: st['board']['ply'] == 2, 'undo')
        e = d.find_element(By.ID, 'save-name')
        e.clear()
        e.send_keys('browser-test')
        d.find_element(By.ID, 'save').click()
        wait_for(d, lambda st: 'saved' in d.find_element(By.ID, 'message').text, 'save')
        d.find_element(By.ID, 'abandon').click()
        wait_for(d, lambda st: st['board'] is None, 'abandon')
        wait_for(d, lambda st: any(o.get_attribute('value') == 'browser-test'
                                   for o in d.find_elements(By.CSS_SELECTOR, '#saves option')), 'saves list')
        Select(d.find_element(By.ID, 'saves')).select_by_value('browser-test')
        d.find_element(By.ID, 'load').click()
        wait_for(d, lambda st: st['board'] and st['history'] == ['4', '4'], 'load')
        log('undo, save, abandon and load: ok')
    finally:
        d.quit()


def wait_for(d, pred, what, timeout=30):
    t = time.time()
    while time.time() - t < timeout:
        st = state(d)
        try:
            if st is not None and pred(st):
                return st
        except (KeyError, TypeError):
            pass
        time.sleep(0.05)
    raise AssertionError(f'timed out waiting for {what}')


def networked_game(url, tmp, out, helper, rng):
    host, guest, spec = browser(tmp), browser(tmp), browser(tmp)
    try:
        host.get(url)
        time.sleep(0.5)
        setup_game(host, 'Connect4', [{}, {}])
        Select(host.find_element(By.ID, 'invite-side')).select_by_value('0')
        host.find_element(By.ID, 'invite').click()
        wait_for(host, lambda st: host.find_elements(By.ID, 'invite-link'), 'the invitation')
        link = host.find_element(By.ID, 'invite-link').get_attribute('value')
        assert re.search(r'#room=[0-9a-f]{32}$', link), link
        # Without the token nobody gets in.
        bad = re.sub(r'room=[0-9a-f]+', 'room=' + '0' * 32, link)
        spec.get(bad)
        time.sleep(1)
        assert spec.find_element(By.ID, 'role').text == '', 'a wrong token got in'
        guest.get(link)
        wait_for(guest, lambda st: st['you'] == [1], 'the guest seat')
        spec.get('about:blank')
        spec.get(link)
        wait_for(spec, lambda st: st['board'] is not None, 'the spectator')
        assert 'spectator' in spec.find_element(By.ID, 'role').text
        wait_for(spec, lambda st: st['you'] == [], 'spectator seats')
        # The spectator chats; the host sees it.
        spec.find_element(By.ID, 'chat-text').send_keys('good luck both')
        spec.find_element(By.ID, 'chat-send').click()
        wait_for(host, lambda st: any('good luck both' in e.text for e in host.find_elements(By.CSS_SELECTOR, '#chat .chat-line')), 'the chat')
        # A few moves, then the guest's connection drops and rejoins.
        clicked = {}
        for ply, (d, mv) in enumerate([(host, '4'), (guest, '3'), (host, '4')]):
            wait_for(d, lambda st: st['mine'], f'turn {ply}')
            clicked[ply] = click_move(d, mv)
            wait_for(spec, lambda st: st['board']['ply'] == ply + 1, f'ply {ply + 1} seen by the spectator')
        guest.refresh()
        wait_for(guest, lambda st: st['you'] == [1] and st['board']['ply'] == 3, 'the guest rejoining its seat')
        assert not spec.find_elements(By.CSS_SELECTOR, '[data-selectable]'), 'the spectator has something to click'
        st, more = play_out([host, guest], rng, helper, lambda s: 'helper' if s == 0 else 'random', 'networked')
        clicked.update(more)
        for d in (host, guest, spec):
            s = wait_for(d, lambda x: over(x), 'the end on every browser')
            assert s['gs'] == st['gs'], (s['gs'], st['gs'])
        check_game(spec, st, clicked, helper, 'networked')
        shot(host, out, 'networked-host')
        shot(spec, out, 'networked-spectator')
    finally:
        for d in (host, guest, spec):
            d.quit()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--meeple', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--seed', type=int, default=int(os.environ.get('MEEPLE_BROWSER_SEED', '14')))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix='meeple-browser-')
    rng = random.Random(a.seed)
    server, url = start_server(a.meeple, os.path.join(tmp, 'data'))
    helper = Helper(a.meeple, os.path.join(tmp, 'helper-data'))
    try:
        log('server', url.split('#')[0], 'seed', a.seed)
        local_games(url, tmp, a.out, helper, rng)
        networked_game(url, tmp, a.out, helper, rng)
        log('browser test: ok')
    finally:
        helper.close()
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    try:
        main()
    except WebDriverException as e:
        print('webdriver failure:', e, file=sys.stderr)
        sys.exit(2)
