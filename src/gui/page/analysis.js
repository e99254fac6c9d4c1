// The analysis board and the review of a game: on request the engine
// analyses the position shown (Connect Four: every column's exact score,
// as the public solver page shows it; Mastermind: the codes still possible
// and the best guess; Hive: the best line and its evaluation); a game is
// reviewed move by move (buttons, the arrow keys, a click on a move); the
// GameString is copied, and one pasted sets up a position.

import { $, h, clear, fill, copy } from './dom.js';
import { S, over } from './state.js';
import { send } from './net.js';
import { scoreWords } from './words.js';
import { parseInfo } from './people.js';

// The board shown: a better move of the review, the reviewed one, or the
// game's.
export function shownBoard() {
  if (S.better) return S.better.board;
  return S.review ? S.review.board : S.st && S.st.board;
}

export function shownPly() {
  const b = shownBoard();
  return b ? b.ply : 0;
}

// Connect Four's column scores for the board shown, if analysed.
export function columnScores() {
  const a = S.analysis, b = shownBoard();
  if (!a || !b || a.ply !== b.ply || !b.geometry || b.geometry.kind !== 'square') return null;
  for (const l of a.lines || []) {
    const w = l.trim().split(/\s+/);
    if (w.length === b.geometry.cols && w.every((x) => /^(-?\d+|-|\?|>=-?\d+|<=-?\d+|-?\d+\.\.-?\d+)$/.test(x))) return w;
  }
  return null;
}

export function reviewTo(ply) {
  const st = S.st;
  if (!st || !st.board) return;
  const last = st.board.ply;
  // From a better move shown, the steps go from the position before it.
  const from = S.better;
  S.better = null;
  if (from && Number.isFinite(ply)) ply = Math.min(ply, from.ply);
  ply = Math.max(0, Math.min(last, ply));
  if (ply === last) { S.review = null; S.render(); return; }
  if (ply < last - st.reviewable + 1) return;
  send({ t: 'review', ply });
}

export function onReview(m) {
  if (!S.st || !S.st.board) return;
  S.review = m.ply === S.st.board.ply ? null : m;
  S.render();
}

export function renderReview() {
  const st = S.st;
  const bar = $('review');
  if (!st || !st.board || st.board.ply === 0) { bar.hidden = true; return; }
  bar.hidden = false;
  const last = st.board.ply, at = shownPly();
  $('review-pos').textContent = S.better ? `better move ${S.better.ply} shown` : S.review ? `move ${at} of ${last}` + (S.review.move ? ` (${S.review.move})` : '') : `live: ${last} ${last === 1 ? 'move' : 'moves'}`;
  $('rev-first').disabled = at === 0;
  $('rev-back').disabled = at === 0;
  $('rev-next').disabled = at >= last;
  $('rev-live').disabled = !S.review && !S.better;
}

export function renderAnalysis() {
  const st = S.st;
  const box = clear($('analysis-out'));
  const btn = $('analyse');
  const b = shownBoard();
  btn.disabled = !(st && b && S.role === 'host' && !over(b) && !st.analysing && !st.searching && !S.better);
  btn.textContent = st && st.analysing ? 'Analysing…' : 'Analyse this position';
  const a = S.analysis;
  if (!a || !b || a.ply !== b.ply) return;
  const sides = b.sides, mover = sides[b.turn], other = sides[1 - b.turn];
  const cols = columnScores();
  if (cols) {
    box.appendChild(h('p', {}, `Each column's score for ${mover} (above the board): positive wins, the larger the sooner; 0 draws; negative loses.`));
  }
  for (const l of a.lines || []) {
    let m = /^possible (at least )?(\d+)/.exec(l);
    if (m) { box.appendChild(h('p', { class: 'big', id: 'possible' }, `${m[2]} ${m[2] === '1' ? 'code is' : 'codes are'} still possible${m[1] ? ' (at least)' : ''}`)); continue; }
    m = /^codes (.*)$/.exec(l);
    if (m) { box.appendChild(h('p', { class: 'codes' }, 'They are: ', h('code', {}, m[1]))); continue; }
    m = /^guess (\S+) possible (yes|no) parts (\d+) largest (\d+) expected (\S+)/.exec(l);
    if (m) {
      box.appendChild(h('p', {}, `Guess ${m[1]} ${m[2] === 'yes' ? 'can' : 'cannot'} be the secret; its feedback splits the codes into ${m[3]} groups, at worst ${m[4]} left, ${m[5]} on average.`));
      continue;
    }
    if (cols && l.trim().split(/\s+/).length === cols.length) {
      box.appendChild(h('p', { class: 'mono', id: 'column-scores' }, cols.join(' ')));
      continue;
    }
    if (/^info /.test(l)) continue;
    box.appendChild(h('p', { class: 'mono' }, l));
  }
  const info = parseInfo(a.info || []);
  const ctx = { family: b.family, ply: b.ply, cells: b.geometry && b.geometry.kind === 'square' ? b.geometry.cols * b.geometry.rows : 0 };
  if (a.best) {
    const what = b.family === 'Mastermind' && b.turn === 0 ? 'Best guess' : 'Best move';
    box.appendChild(h('p', { class: 'big', id: 'best-move' }, `${what}: `, h('b', {}, a.best)));
  }
  if (info.score) box.appendChild(h('p', { id: 'evaluation' }, 'Evaluation: ' + scoreWords(info.score, mover, other, ctx) + (info.depth ? ` (depth ${info.depth})` : '')));
  if (info.pv && info.pv.includes(';')) box.appendChild(h('p', {}, 'Best line: ', h('code', {}, info.pv.split(';').join('  '))));
  if (a.error) box.appendChild(h('p', { class: 'bad' }, a.error));
  if (a.running) box.appendChild(h('p', { class: 'dim' }, 'thinking…'));
}

export function renderGameString() {
  const st = S.st;
  $('game-string').textContent = (st && st.game_string) || '';
  $('copy-gs').disabled = !(st && st.game_string);
}

export function wireAnalysis(newGameFrom) {
  $('analyse').addEventListener('click', () => {
    const ply = shownPly();
    send({ t: 'analyze', ply: S.review ? ply : null });
  });
  $('rev-first').addEventListener('click', () => reviewTo(0));
  $('rev-back').addEventListener('click', () => reviewTo(shownPly() - 1));
  $('rev-next').addEventListener('click', () => reviewTo(shownPly() + 1));
  $('rev-live').addEventListener('click', () => reviewTo(Infinity));
  document.addEventListener('keydown', (e) => {
    if (e.target && ['INPUT', 'TEXTAREA', 'SELECT'].includes(e.target.tagName)) return;
    if (e.key === 'ArrowLeft') { e.preventDefault(); reviewTo(shownPly() - 1); }
    if (e.key === 'ArrowRight') { e.preventDefault(); reviewTo(shownPly() + 1); }
    if (e.key === 'Home') reviewTo(0);
    if (e.key === 'End') reviewTo(Infinity);
  });
  $('copy-gs').addEventListener('click', async () => {
    const ok = await copy($('game-string').textContent);
    fill($('copy-gs'), ok ? 'Copied' : 'Copy');
    setTimeout(() => fill($('copy-gs'), 'Copy'), 1500);
  });
  $('setup-gs').addEventListener('click', () => {
    const v = $('paste-gs').value.trim();
    if (v) newGameFrom(v);
  });
}
