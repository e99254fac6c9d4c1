// The review of a game: the engine judges every move so far (its
// `review`, run by the table and streamed to every browser here as
// `gamereview` messages, each with the whole review). Shown as a progress
// bar with Stop, an evaluation graph (inline SVG, one point per ply: a
// click shows the board after it), the move list marked `?!`, `?`, `??`,
// and each side's accuracy and mistakes, each with the better move, which
// a click shows on the board (the position before the move with the
// better one played, its changed cells marked).

import { $, h, clear, svg, title } from './dom.js';
import { S } from './state.js';
import { send } from './net.js';
import { reviewTo, shownPly } from './analysis.js';

export const GLYPH = { inaccuracy: '?!', mistake: '?', blunder: '??' };
const BAD = ['inaccuracy', 'mistake', 'blunder'];

// Budgets a person may choose for each position; the default per family.
const BUDGETS = ['', 'movetime 100', 'movetime 200', 'movetime 500', 'movetime 1000', 'movetime 3000'];
const DEPTHS = ['depth 2', 'depth 3', 'depth 4'];
function budgets(family) {
  return family === 'Hive' ? BUDGETS.concat(DEPTHS) : BUDGETS;
}
export function defaultBudget(family) {
  return family === 'Hive' ? 'movetime 200' : '';
}

function budgetWords(b, family) {
  if (!b) return family === 'Hive' ? 'to the Depth option' : 'exact (as long as it takes)';
  if (b.startsWith('depth')) return `${b} a position`;
  const ms = Number(b.split(' ')[1]);
  return ms < 1000 ? `${ms} ms a position` : `${ms / 1000} s a position`;
}

// The review shown, if it is of the game on the table.
function current() {
  const j = S.judge, st = S.st;
  return j && st && j.game_no === st.game_no ? j : null;
}

// The judged ply `ply` (1 for the first), if judged.
export function judged(ply) {
  const j = current();
  return j ? j.moves.find((m) => m.ply === ply) || null : null;
}

export function onGameReview(m) {
  S.judge = m.none ? null : m;
  if (!S.judge) S.better = null;
  S.render();
}

// The board with the better move, from the table: cells whose pieces
// differ from the position before are marked.
export function onBetter(m) {
  if (!current() || m.game_no !== S.st.game_no || !m.board) return;
  const before = new Map(((m.before && m.before.cells) || []).map((c) => [c.id, JSON.stringify(c.pieces)]));
  const board = JSON.parse(JSON.stringify(m.board));
  for (const c of board.cells || []) {
    if ((c.pieces || []).length && before.get(c.id) !== JSON.stringify(c.pieces)) c.marked = true;
  }
  S.review = null;
  S.better = { ply: m.ply, move: m.move, board };
  S.render();
}

export function renderJudge() {
  const st = S.st, box = $('judge');
  const b = st && st.board;
  if (!b || !st.history.length) { box.hidden = true; return; }
  box.hidden = false;
  const j = current();
  const running = !!(j && j.running);
  const player = S.role && S.role !== 'spectator';
  const networked = st.host_side !== null && st.host_side !== undefined;
  const start = $('judge-start');
  start.hidden = !player;
  start.disabled = running || (networked && !st.result);
  start.textContent = j && !running ? 'Review again' : 'Review the game';
  start.title = networked && !st.result ? 'a game between people over the network is reviewed once it is over' : '';
  const sel = $('judge-limit');
  sel.parentElement.hidden = !player;
  if (sel.dataset.family !== b.family) {
    sel.dataset.family = b.family;
    clear(sel);
    for (const v of budgets(b.family)) sel.appendChild(h('option', { value: v }, budgetWords(v, b.family)));
    sel.value = defaultBudget(b.family);
  }
  sel.disabled = running;
  $('judge-stop').hidden = !(running && player);
  const bar = $('judge-progress');
  bar.hidden = !running;
  if (j) {
    bar.max = Math.max(1, j.progress.total);
    bar.value = j.progress.done;
  }
  $('judge-status').textContent = statusWords(j);
  drawGraph(j);
  renderSides(j);
}

function statusWords(j) {
  if (!j) return S.st.result ? 'See where the game was won and lost: the engine judges every move.' : 'The engine judges the moves so far.';
  const p = j.progress;
  if (j.running) return `Reviewing${j.stopped ? ' (stopping)' : ''}: ${p.done} of ${p.total || '?'} positions, ${j.moves.length} of ${j.plies} moves judged`;
  const parts = [];
  if (j.error) parts.push(`The review failed: ${j.error}.`);
  else if (j.stopped) parts.push(`Stopped: ${j.moves.length} of ${j.plies} moves judged.`);
  else parts.push(`${j.moves.length} ${j.moves.length === 1 ? 'move' : 'moves'} judged${j.finished ? '' : ' (the game so far)'}.`);
  if (j.stored) parts.push(j.stored[0].toUpperCase() + j.stored.slice(1) + '.');
  return parts.join(' ');
}

// The evaluation graph: the first mover's standing after each ply, -1..1.
function drawGraph(j) {
  const box = clear($('judge-graph'));
  if (!j || !j.moves.length) return;
  const W = 600, H = 130, pad = 8, n = Math.max(j.plies, 1);
  const x = (ply) => pad + (W - 2 * pad) * (ply / n);
  const y = (g) => H / 2 - (H / 2 - pad) * Math.max(-1, Math.min(1, g));
  const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'graph', role: 'img', 'aria-label': 'the evaluation graph: the first side up, the second down' });
  svg('rect', { x: 0, y: 0, width: W, height: H / 2, class: 'graph-top' }, g);
  svg('rect', { x: 0, y: H / 2, width: W, height: H / 2, class: 'graph-bottom' }, g);
  const sides = S.st.board.sides || [];
  const t0 = svg('text', { x: 6, y: 16, class: 'graph-side' }, g); t0.textContent = sides[0] || '';
  const t1 = svg('text', { x: 6, y: H - 6, class: 'graph-side' }, g); t1.textContent = sides[1] || '';
  svg('line', { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: 'graph-mid' }, g);
  let last = 0;
  const pts = [[x(0), y(0)]];
  const marks = [];
  for (const m of j.moves) {
    const known = typeof m.graph === 'number';
    if (known) last = m.graph;
    pts.push([x(m.ply), y(last)]);
    marks.push({ m, cx: x(m.ply), cy: y(last), known });
  }
  const d = pts.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(' ');
  svg('polygon', { points: `${x(0)},${H / 2} ${d} ${pts[pts.length - 1][0].toFixed(1)},${H / 2}`, class: 'graph-area' }, g);
  svg('polyline', { points: d, class: 'graph-line' }, g);
  const at = S.better ? S.better.ply - 1 : shownPly();
  if (at > 0) svg('line', { x1: x(at), y1: 0, x2: x(at), y2: H, class: 'graph-now' }, g);
  for (const { m, cx, cy, known } of marks) {
    const p = svg('g', { class: `graph-pt ${m.label}`, 'data-ply': m.ply, tabindex: 0, role: 'button' }, g);
    svg('circle', { cx, cy, r: 9, class: 'graph-hit' }, p);
    svg('circle', { cx, cy, r: BAD.includes(m.label) ? 5 : 3, class: 'graph-dot' + (known ? '' : ' unknown') }, p);
    title(p, `${m.ply}. ${m.move}: ${m.label}${m.best && m.best !== m.move ? ` (better: ${m.best})` : ''}`);
    p.addEventListener('click', () => reviewTo(m.ply));
    p.addEventListener('keydown', (e) => { if (e.key === 'Enter') reviewTo(m.ply); });
  }
  box.appendChild(g);
}

function count(n, word) {
  return `${n} ${n === 1 ? word : word === 'inaccuracy' ? 'inaccuracies' : word + 's'}`;
}

// Each side's accuracy and its mistakes, with the better moves.
function renderSides(j) {
  const box = clear($('judge-sides'));
  if (!j || !j.moves.length) return;
  const names = S.st.board.sides || [];
  names.forEach((name, s) => {
    const sum = j.sides[s];
    const mine = j.moves.filter((m) => m.side === name);
    const bad = mine.filter((m) => BAD.includes(m.label));
    const acc = sum ? (typeof sum.accuracy === 'number' ? sum.accuracy.toFixed(1) : '–')
      : (() => { const a = mine.filter((m) => typeof m.accuracy === 'number'); return a.length ? `${(a.reduce((t, m) => t + m.accuracy, 0) / a.length).toFixed(1)} so far` : '–'; })();
    const counts = BAD.map((l) => count(mine.filter((m) => m.label === l).length, l)).join(', ');
    const list = h('ol', { class: 'judge-list' });
    for (const m of bad) {
      const shown = S.better && S.better.ply === m.ply;
      const better = m.best && m.best !== m.move;
      list.appendChild(h('li', {},
        h('button', { class: `judge-mistake ${m.label}${shown ? ' shown' : ''}`, 'data-ply': m.ply, 'data-label': m.label, disabled: j.running || !better,
          title: better ? 'show the better move on the board' : '', onclick: () => send({ t: 'better', ply: m.ply }) },
        h('span', { class: 'judge-ply' }, `${m.ply}.`), ' ', h('b', {}, `${m.move}${GLYPH[m.label]}`), ` ${m.label}`,
        better ? h('span', { class: 'judge-best' }, ' — better ', h('b', {}, m.best)) : null)));
    }
    box.appendChild(h('div', { class: 'judge-side', 'data-side': s },
      h('div', { class: 'judge-head' }, h('span', { class: 'side-title' }, name), ' ',
        h('span', { class: 'judge-acc', 'data-side': s }, `accuracy ${acc}`)),
      h('div', { class: 'hint' }, counts),
      bad.length ? list : h('div', { class: 'hint' }, j.running ? '' : 'no mistakes')));
  });
}

// The caption while a better move is shown.
export function betterCaption() {
  const bt = S.better, m = bt && judged(bt.ply);
  if (!m) return null;
  return `Move ${bt.ply}: ${bt.move} instead of ${m.move} ${GLYPH[m.label] || ''} (${m.label})`;
}

export function wireJudge() {
  $('judge-start').addEventListener('click', () => send({ t: 'judge', limit: $('judge-limit').value }));
  $('judge-stop').addEventListener('click', () => send({ t: 'judgestop' }));
}
