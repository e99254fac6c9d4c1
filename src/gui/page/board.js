// Drawing a position from `board json`, knowing no game: a square grid
// (Connect Four), a hex grid whose pieces are bugs with stacks (Hive), rows
// of pegs with their key pegs (Mastermind), or the `show` text. What can be
// clicked comes from the move tree (input.js).

import { $, h, svg, title, clear, textColour } from './dom.js';
import { drawBug, pieceIcon } from './bugs.js';
import { columnWords } from './words.js';

function pieceCircle(g, cx, cy, r, p) {
  const c = svg('circle', { cx, cy, r, fill: p.colour, stroke: '#0008', 'stroke-width': 2 }, g);
  if (p.name) title(g, p.name);
  if (p.label) {
    const t = svg('text', { x: cx, y: cy + r * 0.32, 'text-anchor': 'middle', 'font-size': r * 0.85, fill: textColour(p.colour) }, g);
    t.textContent = p.label;
  }
  return c;
}

export function hexPoints(cx, cy, s) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = Math.PI / 180 * (60 * i - 30);
    pts.push(`${(cx + s * Math.cos(a)).toFixed(1)},${(cy + s * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(' ');
}

function findPiece(b, id) {
  if (!id || !b) return null;
  for (const c of b.cells) for (const p of c.pieces) if (p.id === id) return p;
  for (const hd of b.hands || []) for (const p of hd) if (p.id === id) return p;
  return null;
}

// A side's colour, as the board says (`side_colours`); null for sides
// without one (Mastermind's Breaker and Maker: their pegs are not theirs).
export function sideColour(b, side) {
  return (b && b.side_colours && b.side_colours[side]) || null;
}

// A side's marker beside its player: a dot in its colour, or for sides
// without a colour a neutral one with the side's initial.
export function sideMarker(b, side) {
  const colour = sideColour(b, side);
  if (colour) return h('span', { class: 'dot', dataset: { side }, style: { background: colour } });
  const name = (b && b.sides && b.sides[side]) || '';
  return h('span', { class: 'dot neutral', dataset: { side }, title: name }, name.slice(0, 1));
}

// What a selection puts on a cell while a move is being built.
function ghostFor(b, cellId, taken) {
  let piece = null;
  for (const s of taken) {
    if (s.kind === 'piece') piece = s.piece;
    if (s.kind === 'symbol' && s.cell === cellId) return { colour: s.colour || '#888', label: s.symbol, name: s.label };
    if (s.kind === 'cell' && s.cell === cellId) {
      const p = findPiece(b, piece);
      return p ? Object.assign({}, p) : { colour: sideColour(b, b.turn) || '#888', label: '' };
    }
  }
  return null;
}

// Draws `b` in the <svg> `el`. `o`: {selectable: Map('c:cell'|'p:piece' ->
// choice), taken: selections so far, choose(i), columns: analysis texts
// per column, openStack(cell)}.
export function drawBoard(el, b, o) {
  clear(el);
  $('board-text').textContent = '';
  const taken = o.taken || [];
  const chosenPieces = new Set(taken.filter((s) => s.kind === 'piece').map((s) => s.piece));
  const chosenCells = new Set(taken.filter((s) => s.kind === 'cell').map((s) => s.cell));
  const bind = (g, c) => {
    g.dataset.cell = c.id;
    const top = c.pieces[c.pieces.length - 1];
    if (top) g.dataset.piece = top.id;
    let i = o.selectable.get('c:' + c.id), key = c.id;
    if (i === undefined && top) { i = o.selectable.get('p:' + top.id); key = top.id; }
    if (i !== undefined) {
      g.classList.add('selectable');
      g.dataset.selectable = key;
      g.setAttribute('tabindex', '0');
      g.setAttribute('role', 'button');
      g.addEventListener('click', () => o.choose(i));
      g.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); o.choose(i); } });
    }
    return i !== undefined;
  };
  const geo = b.geometry;
  el.dataset.kind = geo.kind;
  if (geo.kind === 'square') drawSquare(el, b, o, geo, taken, chosenCells, bind);
  else if (geo.kind === 'hex') drawHex(el, b, o, taken, chosenPieces, chosenCells, bind);
  else if (geo.kind === 'rows') drawRows(el, b, taken, bind);
  else {
    $('board-text').textContent = b.text || '';
    el.setAttribute('viewBox', '0 0 0 0');
  }
}

function drawSquare(el, b, o, geo, taken, chosenCells, bind) {
  const s = 70, pad = 14, top = o.columns ? 44 : 0;
  const w = geo.cols * s + 2 * pad, hh = geo.rows * s + 2 * pad;
  el.setAttribute('viewBox', `0 0 ${w} ${hh + 24 + top}`);
  const root = svg('g', { transform: `translate(0 ${top})` }, el);
  svg('rect', { x: 0, y: 0, width: w, height: hh, rx: 18, fill: '#1e5bb8', stroke: '#123a78', 'stroke-width': 4 }, root);
  for (const c of b.cells) {
    const cx = pad + c.x * s + s / 2, cy = pad + c.y * s + s / 2;
    const g = svg('g', { class: 'cell' }, root);
    svg('rect', { x: cx - s / 2, y: cy - s / 2, width: s, height: s, fill: 'transparent' }, g);
    const p = c.pieces[c.pieces.length - 1];
    const ghost = ghostFor(b, c.id, taken);
    if (p) pieceCircle(g, cx, cy, s * 0.4, p);
    else if (ghost) pieceCircle(svg('g', { opacity: 0.6 }, g), cx, cy, s * 0.4, ghost);
    else svg('circle', { cx, cy, r: s * 0.4, fill: '#0e1a2c', stroke: '#0b2f66', 'stroke-width': 2 }, g);
    if (c.marked) svg('circle', { cx, cy, r: s * 0.4, class: 'marked', fill: 'none' }, g);
    if (bind(g, c)) svg('circle', { cx, cy, r: s * 0.44, class: 'hl' }, g);
    if (chosenCells.has(c.id)) svg('circle', { cx, cy, r: s * 0.46, class: 'chosen-ring' }, g);
  }
  for (let x = 0; x < geo.cols; x++) {
    const t = svg('text', { x: pad + x * s + s / 2, y: hh + 18, 'text-anchor': 'middle', 'font-size': 14, fill: '#97a3b6' }, root);
    t.textContent = x + 1;
  }
  // The analysis: each column's score above it, as the solver page shows.
  if (o.columns) {
    const cells = geo.cols * geo.rows;
    o.columns.forEach((text, x) => {
      const words = columnWords(text, b.ply, cells);
      const good = /^win/.test(words), bad = /^loss/.test(words);
      const g = svg('g', { class: 'col-score', 'data-col': x + 1, 'data-score': text }, el);
      title(g, `column ${x + 1}: ${words}`);
      svg('rect', { x: pad + x * s + 6, y: 4, width: s - 12, height: 34, rx: 8,
        fill: good ? '#2e7d32' : bad ? '#b71c1c' : text === '-' ? '#37474f' : '#455a64' }, g);
      const t = svg('text', { x: pad + x * s + s / 2, y: 27, 'text-anchor': 'middle', 'font-size': 18, fill: '#fff' }, g);
      t.textContent = text;
    });
  }
}

function drawHex(el, b, o, taken, chosenPieces, chosenCells, bind) {
  const s = 36, W = Math.sqrt(3) * s;
  const pos = (c) => [W * (c.x + c.y / 2), 1.5 * s * c.y];
  const xs = b.cells.map((c) => pos(c)[0]), ys = b.cells.map((c) => pos(c)[1]);
  const minX = Math.min(...xs) - W, maxX = Math.max(...xs) + W, minY = Math.min(...ys) - 2 * s, maxY = Math.max(...ys) + 2 * s;
  const span = Math.max(maxX - minX, (maxY - minY) * 1.3, 7 * W);
  const cx0 = (minX + maxX) / 2, cy0 = (minY + maxY) / 2;
  el.setAttribute('viewBox', `${cx0 - span / 2} ${cy0 - span / 2.6} ${span} ${span / 1.3}`);
  for (const c of b.cells) {
    const [cx, cy] = pos(c);
    const g = svg('g', { class: 'cell' }, el);
    const n = c.pieces.length;
    const top = c.pieces[n - 1];
    const ghost = ghostFor(b, c.id, taken);
    if (top) {
      // The pieces under the top one show at an offset, as a pile.
      for (let k = Math.max(0, n - 3); k < n - 1; k++) {
        const d = (n - 1 - k) * 5;
        const p = c.pieces[k];
        svg('polygon', { points: hexPoints(cx - d, cy - d, s * 0.96), fill: p.colour, stroke: '#000', 'stroke-width': 1.5, class: 'under' }, g);
      }
      svg('polygon', { points: hexPoints(cx, cy, s * 0.96), fill: top.colour, stroke: top.side === 0 ? '#b8a888' : '#000', 'stroke-width': 2 }, g);
      if (top.kind) drawBug(g, cx, cy, s * 0.7, top.kind, top.name || top.id);
      else {
        const t = svg('text', { x: cx, y: cy + s * 0.2, 'text-anchor': 'middle', 'font-size': s * 0.62, fill: textColour(top.colour) }, g);
        t.textContent = top.label;
      }
      if (c.marked) svg('polygon', { points: hexPoints(cx, cy, s * 0.9), class: 'marked-ring', fill: 'none', stroke: '#ffb74d', 'stroke-width': 2.5, 'stroke-dasharray': '5 3' }, g);
    } else {
      svg('polygon', { points: hexPoints(cx, cy, s * 0.96), fill: ghost ? ghost.colour : '#ffffff08', stroke: '#ffffff22', 'stroke-width': 1, opacity: ghost ? 0.6 : 1 }, g);
      if (ghost && ghost.kind) drawBug(svg('g', { opacity: 0.7 }, g), cx, cy, s * 0.7, ghost.kind, ghost.name);
    }
    if (bind(g, c)) svg('polygon', { points: hexPoints(cx, cy, s * 0.9), class: 'hl' }, g);
    if ((top && chosenPieces.has(top.id)) || chosenCells.has(c.id)) svg('polygon', { points: hexPoints(cx, cy, s * 0.85), class: 'chosen-ring' }, g);
    if (n > 1) {
      // A stack: its height; a click on it shows what lies under.
      const badge = svg('g', { class: 'stack-badge', 'data-stack': c.id, tabindex: 0, role: 'button' }, el);
      title(badge, `a stack of ${n}: ${c.pieces.slice().reverse().map((p) => p.name || p.id).join(', ')} (click to see)`);
      svg('circle', { cx: cx + s * 0.6, cy: cy - s * 0.55, r: 11, fill: '#ffb74d', stroke: '#000', 'stroke-width': 1.5 }, badge);
      const t = svg('text', { x: cx + s * 0.6, y: cy - s * 0.55 + 4.5, 'text-anchor': 'middle', 'font-size': 13, fill: '#000' }, badge);
      t.textContent = n;
      const open = (e) => { e.stopPropagation(); o.openStack(c); };
      badge.addEventListener('click', open);
      badge.addEventListener('keydown', (e) => { if (e.key === 'Enter') open(e); });
      if (!g.classList.contains('selectable')) g.addEventListener('click', () => o.openStack(c));
    }
  }
}

function drawRows(el, b, taken, bind) {
  const geo = b.geometry;
  const s = 46, keyW = Math.ceil(geo.slots / 2) * 16 + 20, labelW = 60;
  const w = geo.slots * s + keyW + labelW + 30, hh = geo.rows * s + 20;
  el.setAttribute('viewBox', `0 0 ${w} ${hh}`);
  svg('rect', { x: 0, y: 0, width: w, height: hh, rx: 14, fill: '#5d4037', stroke: '#3e2723', 'stroke-width': 4 }, el);
  const marks = new Map((b.marks || []).map((m) => [m.y, m]));
  const rowsWithPegs = new Set(b.cells.filter((c) => c.pieces.length).map((c) => c.y));
  const live = !(b.state.endsWith('Wins') || b.state === 'Draw');
  for (let y = 0; y < geo.rows; y++) {
    const cy = 10 + y * s + s / 2;
    const isNext = !marks.has(y) && (rowsWithPegs.has(y) || y === [...Array(geo.rows).keys()].find((r) => !rowsWithPegs.has(r)));
    if (isNext && live) svg('rect', { x: 6, y: cy - s / 2 + 2, width: w - 12, height: s - 4, rx: 10, fill: '#ffffff14' }, el);
    const n = svg('text', { x: 20, y: cy + 5, 'text-anchor': 'middle', 'font-size': 13, fill: '#d7ccc8' }, el);
    n.textContent = y + 1;
  }
  for (const c of b.cells) {
    const cx = 40 + c.x * s + s / 2, cy = 10 + c.y * s + s / 2;
    const g = svg('g', { class: 'cell' }, el);
    const p = c.pieces[c.pieces.length - 1];
    const ghost = ghostFor(b, c.id, taken);
    if (p) pieceCircle(g, cx, cy, s * 0.36, p);
    else if (ghost) pieceCircle(g, cx, cy, s * 0.36, ghost);
    else svg('circle', { cx, cy, r: s * 0.16, fill: '#2d1f1a' }, g);
    if (c.marked) svg('circle', { cx, cy, r: s * 0.44, class: 'marked', fill: 'none' }, g);
    bind(g, c);
  }
  for (const m of b.marks || []) {
    const cy = 10 + m.y * s + s / 2, x0 = 40 + geo.slots * s + 14;
    const per = Math.ceil(geo.slots / 2);
    const g = svg('g', { class: 'key-pegs' }, el);
    title(g, m.label.replace(/(\d+)B(\d+)W/, '$1 black, $2 white'));
    for (let i = 0; i < geo.slots; i++) {
      const kx = x0 + (i % per) * 16, ky = cy - 8 + Math.floor(i / per) * 16;
      const col = m.marks[i];
      svg('circle', { cx: kx, cy: ky, r: col ? 6.5 : 3, fill: col || '#2d1f1a', stroke: col ? '#000' : 'none' }, g);
    }
    const t = svg('text', { x: x0 + per * 16 + 8, y: cy + 5, 'font-size': 13, fill: '#efebe9' }, el);
    t.textContent = m.label;
  }
}

// The pieces in hand, grouped by kind; those that can be chosen light up.
export function drawHands(b, selectable, taken, choose) {
  const chosen = new Set((taken || []).filter((s) => s.kind === 'piece').map((s) => s.piece));
  for (const side of [0, 1]) {
    const box = clear($('hand-' + side));
    const pieces = ((b && b.hands) || [])[side] || [];
    for (const p of pieces) {
      const d = h('div', { class: 'chip', title: p.name || p.id, dataset: { piece: p.id } });
      if (p.kind) d.appendChild(pieceIcon(p, 40));
      else {
        d.style.background = p.colour;
        d.style.color = textColour(p.colour);
        d.textContent = p.label;
      }
      const i = selectable.get('p:' + p.id);
      if (i !== undefined) {
        d.classList.add('selectable');
        d.dataset.selectable = p.id;
        d.tabIndex = 0;
        d.setAttribute('role', 'button');
        d.addEventListener('click', () => choose(i));
        d.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); choose(i); } });
      }
      if (chosen.has(p.id)) d.classList.add('chosen');
      box.appendChild(d);
    }
  }
}

// What lies in a stack, top first.
export function showStack(cell) {
  const box = $('stack-view');
  if (!cell) { box.hidden = true; clear(box); return; }
  box.hidden = false;
  clear(box);
  box.dataset.cell = cell.id;
  box.appendChild(h('div', { class: 'stack-head' }, h('b', {}, `Stack of ${cell.pieces.length}`), ' (top first)',
    h('button', { class: 'small', id: 'stack-close', onclick: () => showStack(null) }, 'Close')));
  const list = h('ol', { class: 'stack-list' });
  for (const p of cell.pieces.slice().reverse()) {
    list.appendChild(h('li', { dataset: { piece: p.id } }, pieceIcon(p, 34), ' ', p.name || p.id));
  }
  box.appendChild(list);
}
