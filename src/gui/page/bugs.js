// Hive's bugs as pictures drawn by the page (inline SVG, no outside
// files): each bug in its own colour on its side's tile, its name on hover,
// and a legend. `board json` names each piece's kind (`queen`, `spider`,
// ...) and the piece in words (`White Spider 1`).

import { svg, title, h } from './dom.js';

const INK = '#1b1b1b';

function line(g, pts, w) {
  svg('polyline', { points: pts.map((p) => p.join(',')).join(' '), fill: 'none', stroke: INK,
    'stroke-width': w || 0.07, 'stroke-linecap': 'round', 'stroke-linejoin': 'round' }, g);
}
function ell(g, cx, cy, rx, ry, fill, extra) {
  return svg('ellipse', Object.assign({ cx, cy, rx, ry, fill, stroke: INK, 'stroke-width': 0.06 }, extra || {}), g);
}
// Legs: pairs mirrored on x, each a bent line from the body.
function legs(g, list, w) {
  for (const pts of list) {
    line(g, pts, w);
    line(g, pts.map(([x, y]) => [-x, y]), w);
  }
}

export const BUGS = {
  queen: {
    name: 'Queen Bee', colour: '#f4b400',
    moves: 'one step at a time; the game is won by surrounding the other queen',
    draw(g, c) {
      ell(g, -0.33, -0.12, 0.32, 0.17, '#e3f2fd', { transform: 'rotate(-25 -0.33 -0.12)', opacity: 0.9 });
      ell(g, 0.33, -0.12, 0.32, 0.17, '#e3f2fd', { transform: 'rotate(25 0.33 -0.12)', opacity: 0.9 });
      ell(g, 0, 0.18, 0.27, 0.48, c);
      line(g, [[-0.25, 0.1], [0.25, 0.1]], 0.09);
      line(g, [[-0.23, 0.34], [0.23, 0.34]], 0.09);
      svg('polygon', { points: '-0.07,0.62 0.07,0.62 0,0.78', fill: INK }, g);
      svg('circle', { cx: 0, cy: -0.42, r: 0.17, fill: INK }, g);
      svg('polygon', { points: '-0.16,-0.58 -0.16,-0.74 -0.08,-0.64 0,-0.76 0.08,-0.64 0.16,-0.74 0.16,-0.58',
        fill: '#ffd54f', stroke: INK, 'stroke-width': 0.04 }, g);
    },
  },
  spider: {
    name: 'Spider', colour: '#8d5524',
    moves: 'exactly three steps around the hive',
    draw(g, c) {
      legs(g, [[[0.12, -0.2], [0.45, -0.55], [0.6, -0.35]], [[0.14, -0.1], [0.55, -0.25], [0.72, 0]],
        [[0.14, 0], [0.55, 0.15], [0.68, 0.4]], [[0.12, 0.08], [0.4, 0.45], [0.45, 0.72]]]);
      ell(g, 0, 0.28, 0.3, 0.34, c);
      ell(g, 0, -0.18, 0.2, 0.2, c);
      svg('circle', { cx: -0.07, cy: -0.27, r: 0.04, fill: '#fff' }, g);
      svg('circle', { cx: 0.07, cy: -0.27, r: 0.04, fill: '#fff' }, g);
    },
  },
  beetle: {
    name: 'Beetle', colour: '#7e57c2',
    moves: 'one step, and may climb on top of other pieces',
    draw(g, c) {
      legs(g, [[[0.2, -0.15], [0.5, -0.3], [0.6, -0.5]], [[0.25, 0.1], [0.58, 0.12], [0.66, 0.3]],
        [[0.22, 0.35], [0.45, 0.55], [0.5, 0.75]]]);
      svg('path', { d: 'M -0.15 -0.42 A 0.17 0.17 0 0 1 0.15 -0.42 Z', fill: INK }, g);
      line(g, [[-0.08, -0.55], [-0.18, -0.72]], 0.06);
      line(g, [[0.08, -0.55], [0.18, -0.72]], 0.06);
      ell(g, 0, 0.12, 0.36, 0.52, c);
      line(g, [[0, -0.38], [0, 0.63]], 0.05);
      svg('circle', { cx: -0.15, cy: -0.05, r: 0.06, fill: '#ffffff66' }, g);
    },
  },
  grasshopper: {
    name: 'Grasshopper', colour: '#43a047',
    moves: 'jumps in a straight line over the pieces next to it',
    draw(g, c) {
      line(g, [[-0.06, -0.7], [-0.25, -0.95]], 0.04);
      line(g, [[0.06, -0.7], [0.25, -0.95]], 0.04);
      legs(g, [[[0.1, -0.3], [0.32, -0.42], [0.38, -0.6]], [[0.12, 0.05], [0.5, -0.25], [0.42, 0.75]]], 0.08);
      ell(g, 0, 0.05, 0.16, 0.6, c);
      svg('circle', { cx: 0, cy: -0.6, r: 0.15, fill: c, stroke: INK, 'stroke-width': 0.06 }, g);
      svg('circle', { cx: 0.07, cy: -0.63, r: 0.04, fill: INK }, g);
    },
  },
  ant: {
    name: 'Soldier Ant', colour: '#1e88e5',
    moves: 'any distance around the outside of the hive',
    draw(g, c) {
      line(g, [[-0.06, -0.62], [-0.25, -0.85]], 0.04);
      line(g, [[0.06, -0.62], [0.25, -0.85]], 0.04);
      legs(g, [[[0.08, -0.2], [0.4, -0.4], [0.5, -0.6]], [[0.1, -0.12], [0.48, -0.08], [0.62, 0.1]],
        [[0.08, -0.05], [0.38, 0.25], [0.5, 0.55]]]);
      svg('circle', { cx: 0, cy: -0.5, r: 0.16, fill: c, stroke: INK, 'stroke-width': 0.06 }, g);
      ell(g, 0, -0.13, 0.12, 0.19, c);
      ell(g, 0, 0.38, 0.23, 0.32, c);
    },
  },
  mosquito: {
    name: 'Mosquito', colour: '#9e9e9e',
    moves: 'moves as any bug it touches does',
    draw(g, c) {
      line(g, [[0, -0.5], [0, -0.88]], 0.04);
      legs(g, [[[0.06, -0.15], [0.5, -0.45], [0.7, -0.3]], [[0.07, -0.05], [0.55, 0.1], [0.78, 0.35]],
        [[0.06, 0.05], [0.35, 0.5], [0.42, 0.85]]], 0.04);
      ell(g, -0.22, 0.05, 0.28, 0.1, '#e0f7fa', { transform: 'rotate(-35 -0.22 0.05)', opacity: 0.9 });
      ell(g, 0.22, 0.05, 0.28, 0.1, '#e0f7fa', { transform: 'rotate(35 0.22 0.05)', opacity: 0.9 });
      ell(g, 0, 0.15, 0.09, 0.45, c);
      svg('circle', { cx: 0, cy: -0.38, r: 0.12, fill: c, stroke: INK, 'stroke-width': 0.05 }, g);
    },
  },
  ladybug: {
    name: 'Ladybug', colour: '#e53935',
    moves: 'two steps on top of the hive, then one down',
    draw(g, c) {
      legs(g, [[[0.3, -0.2], [0.55, -0.35]], [[0.4, 0.05], [0.66, 0.05]], [[0.32, 0.35], [0.55, 0.5]]]);
      svg('circle', { cx: 0, cy: -0.45, r: 0.2, fill: INK }, g);
      svg('circle', { cx: 0, cy: 0.1, r: 0.48, fill: c, stroke: INK, 'stroke-width': 0.06 }, g);
      line(g, [[0, -0.36], [0, 0.58]], 0.05);
      for (const [x, y, r] of [[-0.22, -0.05, 0.08], [0.22, -0.05, 0.08], [-0.25, 0.28, 0.07], [0.25, 0.28, 0.07], [-0.08, 0.42, 0.05], [0.08, 0.42, 0.05]]) {
        svg('circle', { cx: x, cy: y, r, fill: INK }, g);
      }
    },
  },
  pillbug: {
    name: 'Pillbug', colour: '#26a69a',
    moves: 'one step, and may carry a piece next to it over itself',
    draw(g, c) {
      line(g, [[-0.08, -0.58], [-0.25, -0.78]], 0.04);
      line(g, [[0.08, -0.58], [0.25, -0.78]], 0.04);
      legs(g, [[[0.3, -0.25], [0.48, -0.3]], [[0.34, 0], [0.52, 0]], [[0.32, 0.25], [0.5, 0.3]]], 0.05);
      ell(g, 0, 0.02, 0.36, 0.58, c);
      for (const y of [-0.35, -0.18, -0.01, 0.16, 0.33]) {
        const w = 0.36 * Math.sqrt(1 - (y / 0.58) ** 2);
        svg('path', { d: `M ${-w} ${y} Q 0 ${y + 0.08} ${w} ${y}`, fill: 'none', stroke: INK, 'stroke-width': 0.04 }, g);
      }
    },
  },
};

// Draws a bug centred at (cx, cy), `r` its radius; `name` shown on hover.
export function drawBug(parent, cx, cy, r, kind, name) {
  const b = BUGS[kind];
  const g = svg('g', { class: 'bug', 'data-kind': kind || '' }, parent);
  if (name) title(g, name);
  if (!b) return g;
  const inner = svg('g', { transform: `translate(${cx} ${cy}) scale(${r})` }, g);
  b.draw(inner, b.colour);
  return g;
}

// A small picture of a piece: its tile and its bug.
export function pieceIcon(p, size) {
  const s = svg('svg', { viewBox: '-1 -1 2 2', width: size, height: size, class: 'piece-icon' });
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = Math.PI / 180 * (60 * i - 30);
    pts.push(`${(0.96 * Math.cos(a)).toFixed(3)},${(0.96 * Math.sin(a)).toFixed(3)}`);
  }
  svg('polygon', { points: pts.join(' '), fill: p.colour, stroke: p.side === 0 ? '#b8a888' : '#000', 'stroke-width': 0.06 }, s);
  drawBug(s, 0, 0, 0.72, p.kind, p.name || p.id);
  return s;
}

// The legend: each bug of the game with its picture, name and move.
export function legend(kinds) {
  return h('ul', { class: 'legend', id: 'bug-legend' },
    kinds.filter((k) => BUGS[k]).map((k) => h('li', { dataset: { kind: k } },
      pieceIcon({ kind: k, colour: '#f3ead7', side: 0, name: BUGS[k].name }, 30),
      h('b', {}, BUGS[k].name), ' ', h('span', { class: 'dim' }, BUGS[k].moves))));
}
