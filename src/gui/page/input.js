// Move input: a move is built by walking the move tree (`movetree json`),
// one selection at a time (a cell, a piece, a symbol or a button). The
// state carries the tree's first level only, whatever the game; the level
// below a choice that has more (`more`) is asked for when it is chosen
// (`movetree json level`), so no message carries a whole tree.

import { $, h, clear, textColour } from './dom.js';
import { S, myTurn } from './state.js';
import { send } from './net.js';

// A new position's tree (a copy: levels are added to it as they come).
export function setTree(tree) {
  S.tree = tree ? JSON.parse(JSON.stringify(tree)) : null;
  S.path = [];
  S.waitingLevel = null;
}

// The node reached by `path`, the selections taken so far and the actions
// from the start of the move.
export function walk(tree, path) {
  let node = tree;
  const taken = [...(tree.select || [])];
  const actions = [...(tree.actions || [])];
  for (const i of path) {
    node = node.children[i];
    taken.push(...(node.select || []));
    actions.push(...node.actions);
  }
  return { node, taken, actions };
}

// The node whose actions from the start are `prefix`.
function nodeAt(tree, prefix) {
  let node = tree, k = (tree.actions || []).length;
  if (!prefix.slice(0, k).every((a, j) => a === tree.actions[j])) return null;
  while (k < prefix.length) {
    const child = node.children.find((c) => c.actions.every((a, j) => prefix[k + j] === a));
    if (!child) return null;
    k += child.actions.length;
    node = child;
  }
  return k === prefix.length ? node : null;
}

// The choices open now: the children of the node reached.
export function options() {
  if (!myTurn() || S.waitingLevel) return [];
  const { node } = walk(S.tree, S.path);
  if (node.more) return [];
  return node.children.map((c, i) => ({ i, sel: (c.select || [])[0] || { kind: 'choice', label: c.actions[0] } }));
}

export function choose(i) {
  if (!myTurn() || S.waitingLevel) return;
  S.anim = null;
  S.path.push(i);
  const { node, actions } = walk(S.tree, S.path);
  if (node.more) {
    S.waitingLevel = actions.join(' ');
    send({ t: 'tree', ply: S.st.board.ply, prefix: actions });
    S.render();
    return;
  }
  // A node with a single continuation and no move of its own is taken at once.
  if (!node.final && node.children.length === 1) { choose(0); return; }
  S.render();
}

// A level of the tree has come: it hangs below its node.
export function onLevel(m) {
  if (!S.tree || !S.st || !S.st.board || m.ply !== S.st.board.ply || !m.node) return;
  const node = nodeAt(S.tree, m.prefix);
  if (!node) return;
  node.children = m.node.children || [];
  node.more = false;
  if (S.waitingLevel === m.prefix.join(' ')) {
    S.waitingLevel = null;
    const here = walk(S.tree, S.path).node;
    if (here === node && !node.final && node.children.length === 1) { choose(0); return; }
  }
  S.render();
}

export function confirmMove() {
  if (!myTurn()) return;
  const { node } = walk(S.tree, S.path);
  if (node.final && node.move) {
    send({ t: 'play', move: node.move });
    S.path = [];
  }
}

export function cancelMove() {
  S.path = [];
  S.waitingLevel = null;
  S.render();
}

// The path of `move` in the levels of the tree known so far.
export function findPath(node, move) {
  if (node.final && node.move === move) return [];
  for (let i = 0; i < (node.children || []).length; i++) {
    const p = findPath(node.children[i], move);
    if (p) return [i, ...p];
  }
  return null;
}

function selKey(sel) {
  if (sel.kind === 'cell') return 'c:' + sel.cell;
  if (sel.kind === 'piece') return 'p:' + sel.piece;
  return null;
}

// Choices that are cells or pieces, by key, for the board's drawing.
export function boardChoices(opts) {
  const m = new Map();
  for (const o of opts) { const k = selKey(o.sel); if (k) m.set(k, o.i); }
  return m;
}

// The palette (symbols, buttons), the Play and Cancel buttons, the typed move.
export function renderBuilder(opts) {
  const pal = clear($('palette'));
  const st = S.st;
  const mine = myTurn();
  for (const o of opts) {
    if (selKey(o.sel)) continue;
    const btn = h('button', { class: 'selectable', dataset: { selectable: o.sel.kind === 'symbol' ? `${o.sel.slot}=${o.sel.symbol}` : o.sel.label } });
    if (o.sel.kind === 'symbol' && o.sel.colour && o.sel.slot.startsWith('s')) {
      btn.className = 'peg selectable';
      btn.style.background = o.sel.colour;
      btn.style.color = textColour(o.sel.colour);
      btn.textContent = o.sel.symbol;
      btn.title = o.sel.label;
      btn.setAttribute('aria-label', o.sel.label);
    } else if (o.sel.kind === 'symbol' && (o.sel.slot === 'black' || o.sel.slot === 'white')) {
      btn.className = 'keypeg selectable ' + o.sel.slot;
      btn.textContent = o.sel.label;
    } else btn.textContent = o.sel.label;
    btn.addEventListener('click', () => choose(o.i));
    pal.appendChild(btn);
  }
  let node = null, actions = [];
  if (mine) ({ node, actions } = walk(S.tree, S.path));
  const canConfirm = !!(node && node.final && node.move);
  const only = canConfirm && S.path.length === 0 && !(node.children || []).length;
  const conf = $('confirm');
  conf.hidden = !canConfirm;
  conf.dataset.move = canConfirm ? node.move : '';
  conf.textContent = !canConfirm ? 'Play' : node.move === 'pass' ? 'Pass (the only move)' : only ? `Play ${node.move} (the only move)` : `Play ${node.move}`;
  conf.classList.toggle('only', only);
  $('cancel').hidden = !(mine && S.path.length);
  let hint = '';
  if (mine) hint = S.waitingLevel ? `${actions.join(' ')} … (loading the choices)` : actions.length ? actions.join(' ') + ' …' : 'your move';
  else if (st && st.tree_error && st.board && st.me.you.includes(st.board.turn)) hint = st.tree_error + ' (type the move)';
  $('prefix').textContent = hint;
  const typing = !!(st && st.board && !st.result && st.me.you.includes(st.board.turn) && !st.searching && !S.review);
  $('move-text').disabled = !typing;
  $('play-text').disabled = !typing;
}

export function wireInput() {
  $('confirm').addEventListener('click', confirmMove);
  $('cancel').addEventListener('click', cancelMove);
  const typed = () => {
    const v = $('move-text').value.trim();
    if (v) { send({ t: 'play', move: v }); $('move-text').value = ''; }
  };
  $('play-text').addEventListener('click', typed);
  $('move-text').addEventListener('keydown', (e) => { if (e.key === 'Enter') typed(); });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && S.path.length) cancelMove();
  });
}
