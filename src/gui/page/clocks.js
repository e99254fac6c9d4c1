// Clocks: each side's time left (a clock or a time per move counts down;
// without a limit the time of the turn counts up), ticking between the
// server's states. The server keeps the time; the page only shows it.

import { $ } from './dom.js';
import { S } from './state.js';
import { clockText } from './words.js';

// A side's clock now: {text, cls}.
export function clockOf(side) {
  const st = S.st;
  if (!st || !st.clocks) return { text: '', cls: '' };
  const c = st.clocks;
  const since = Date.now() - S.stateAt;
  const running = c.running === side && !st.result;
  const left = c.left[side];
  if (left === null || left === undefined) {
    if (!running) return { text: '', cls: 'idle' };
    return { text: clockText(c.used[side] + since).replace(/\.\d$/, ''), cls: 'up running' };
  }
  let now = running ? left - since : left;
  // With loss on time a clock stops at zero: the side has lost.
  if (c.flag && now < 0) now = 0;
  let cls = running ? 'running' : 'idle';
  if (now <= 0) cls += ' out';
  else if (now < 10000) cls += ' low';
  return { text: clockText(now), cls };
}

export function tickClocks() {
  for (const side of [0, 1]) {
    const el = document.querySelector(`.clock[data-side="${side}"]`);
    if (!el) continue;
    const c = clockOf(side);
    el.textContent = c.text;
    el.className = 'clock ' + c.cls;
  }
  const st = S.st;
  const bar = $('think-bar'), txt = $('think-text');
  // The bar shows an engine's search: it is gone without an engine in the
  // game, and keeps its place (empty) between the engine's searches.
  const engines = !!(st && st.board && !st.result && st.players.some((p) => p.kind === 'engine'));
  $('think-clock').hidden = !engines;
  $('think-clock').classList.toggle('idle', !(engines && st.searching));
  if (!st || !st.searching || st.result) {
    bar.style.width = '0';
    txt.textContent = '';
    return;
  }
  const s = st.searching;
  const el = (s.elapsed || 0) + (Date.now() - S.stateAt);
  const who = st.board.sides[s.side];
  const m = /^movetime (\d+)$/.exec(s.limit || '');
  if (m) {
    const lim = parseInt(m[1], 10);
    bar.style.width = Math.min(100, 100 * el / lim) + '%';
    txt.textContent = `${who} thinks: ${(el / 1000).toFixed(1)} of ${(lim / 1000).toFixed(1)} s`;
  } else {
    bar.style.width = '100%';
    txt.textContent = `${who} thinks (${s.limit}): ${(el / 1000).toFixed(1)} s`;
  }
}
