// People at the table: the player panels (names, who holds a seat,
// clocks), the engine's thinking in words, the result, the match score,
// names, the chat and the leaderboard.

import { $, h, clear } from './dom.js';
import { S, over } from './state.js';
import { send } from './net.js';
import { sideMarker } from './board.js';
import { scoreWords, levelWords, plural } from './words.js';

const NAME_STORE = 'meeple-name';

export function myName() {
  return localStorage.getItem(NAME_STORE) || '';
}

// The table took a name: it is kept for next time if it is the one asked
// for (a name refused, say because the other player has it, is not).
let askedName = null;
export function nameAccepted(name) {
  if (askedName !== null && name === askedName) localStorage.setItem(NAME_STORE, name);
  askedName = null;
}

// Fields of `info` lines, the later ones over the earlier.
export function parseInfo(lines) {
  const f = {};
  for (const l of lines) {
    const words = l.split(' ');
    for (let i = 1; i < words.length; i++) {
      const w = words[i];
      if (w === 'pv') { f.pv = words.slice(i + 1).join(' '); break; }
      if (w === 'string') { f.string = words.slice(i + 1).join(' '); break; }
      if (w === 'score') {
        const kind = words[i + 1] || '';
        if (['win', 'draw', 'loss'].includes(kind)) { f.score = kind; i += 1; continue; }
        f.score = kind + ' ' + (words[i + 2] || ''); i += 2; continue;
      }
      if (['depth', 'nodes', 'nps', 'time', 'seldepth'].includes(w)) { f[w] = words[i + 1]; i++; }
    }
  }
  return f;
}

export function renderPlayers() {
  const st = S.st;
  const box = clear($('players'));
  if (!st || !st.board) return;
  const b = st.board;
  b.sides.forEach((name, i) => {
    const p = st.sides[i];
    const turn = b.turn === i && !over(b) && !st.result;
    const who = p.kind === 'engine'
      ? `engine ${p.name} · ${levelWords(p.level)}`
      : p.name + (p.holder ? ` · ${p.holder}${p.connected ? '' : ' (away)'}` : '');
    // An engine's level already says its clock.
    const tc = st.clocks && st.clocks.text[i] && !/^clock /.test(p.level || '') ? ` · ${st.clocks.text[i]}` : '';
    const d = h('div', { class: 'player' + (turn ? ' turn' : ''), id: 'player-box-' + i },
      sideMarker(b, i),
      h('div', { class: 'who-box' },
        h('b', {}, name, st.me.you.includes(i) ? ' (you)' : ''),
        h('span', { class: 'who', dataset: { side: i } }, who + tc)),
      h('span', { class: 'clock', dataset: { side: i } }));
    box.appendChild(d);
  });
}

// The engine's search, as it goes, in words. A search belongs to the
// position it searched (its game and ply).
export function onInfo(m) {
  const st = S.st;
  const at = st && st.board ? `${st.game_no}:${st.board.ply}` : '';
  if (S.infoSide !== m.side || S.info.at !== at) { S.info = { at }; S.infoSide = m.side; }
  S.info.lines = (S.info.lines || []).concat([m.line]).slice(-8);
  renderThinking();
}

// True while the search shown is of the position on the board, or of the
// one just before (the engine's move it chose): not after an undo or in
// another game.
function thinkingIsCurrent(st) {
  if (!S.info.at) return false;
  const [game, ply] = S.info.at.split(':').map(Number);
  return game === st.game_no && (ply === st.board.ply || ply === st.board.ply - 1);
}

export function renderThinking() {
  const st = S.st;
  const box = clear($('thinking'));
  if (!st || !st.board || !S.info.lines || st.result || !thinkingIsCurrent(st)) { box.textContent = '–'; return; }
  const f = parseInfo(S.info.lines);
  const b = st.board;
  const mover = b.sides[S.infoSide], other = b.sides[1 - S.infoSide];
  const ctx = { family: b.family, ply: b.ply, cells: b.geometry.kind === 'square' ? b.geometry.cols * b.geometry.rows : 0 };
  const parts = [];
  if (f.depth) parts.push('depth ' + f.depth);
  if (f.nodes) parts.push(plural(Number(f.nodes), 'position', Number(f.nodes).toLocaleString('en')));
  box.appendChild(h('div', {}, `${mover}: ` + parts.join(' · ')));
  if (f.score) box.appendChild(h('div', { class: 'score-words' }, scoreWords(f.score, mover, other, ctx)));
  if (f.pv) box.appendChild(h('div', { class: 'dim' }, 'line: ' + f.pv.split(';').join(' ')));
  if (f.string) box.appendChild(h('div', { class: 'dim' }, f.string));
}

export function clearThinking() {
  S.info = {};
  S.infoSide = null;
  renderThinking();
}

export function renderResult() {
  const st = S.st;
  const r = $('result');
  if (!st || !st.result) { r.hidden = true; return; }
  r.hidden = false;
  clear(r);
  r.appendChild(h('b', {}, st.result.text));
  if (st.recorded) r.appendChild(h('div', { class: 'small', id: 'recorded' }, st.recorded));
}

export function renderMatch() {
  const st = S.st;
  const box = $('match');
  if (!st || !st.match) { box.hidden = true; return; }
  box.hidden = false;
  clear(box);
  const m = st.match;
  const round = m.round - 1;
  // Match player p plays side (p + round) % 2 this round.
  const name = (p) => st.sides[(p + round) % 2].name;
  const roles = (p) => st.board ? st.board.sides[(p + round) % 2] : '';
  box.appendChild(h('div', { class: 'match-head' },
    h('b', {}, m.over ? `Match over after ${m.planned} rounds` : `Round ${m.round} of ${m.planned}`),
    h('span', { id: 'match-score' }, ` ${name(0)} ${m.points[0]} – ${m.points[1]} ${name(1)}`)));
  if (!m.over) box.appendChild(h('div', { class: 'small dim' }, `${name(0)} is ${roles(0)}, ${name(1)} is ${roles(1)} this round; the codemaker scores the rows used, plus one if the code is not broken.`));
  const rows = m.done.map((r, i) => h('tr', {}, h('td', {}, `${i + 1}`), h('td', {}, r.sides[0]), h('td', {}, `${r.points[0]}`), h('td', {}, `${r.points[1]}`)));
  if (rows.length) {
    box.appendChild(h('table', { class: 'rounds' },
      h('tr', {}, h('th', {}, 'Round'), h('th', {}, `${name(0)} was`), h('th', {}, name(0)), h('th', {}, name(1))), rows));
  }
  if (m.over) {
    const [a, b] = m.points;
    box.appendChild(h('div', { class: 'big', id: 'match-result' }, a === b ? `A draw, ${a} to ${b}` : `${a > b ? name(0) : name(1)} wins the match, ${Math.max(a, b)} to ${Math.min(a, b)}`));
  } else if (st.result && S.role !== 'spectator') {
    box.appendChild(h('button', { class: 'primary', id: 'next-round', onclick: () => send({ t: 'next' }) }, `Next round (${m.round + 1} of ${m.planned})`));
  }
}

export function addChat(m) {
  const d = h('div', { class: 'chat-line' + (m.from ? '' : ' sys') });
  if (m.from) d.appendChild(h('b', {}, m.from + ': '));
  d.appendChild(document.createTextNode(m.text));
  $('chat').appendChild(d);
  $('chat').scrollTop = $('chat').scrollHeight;
}

export function askLeaderboard() {
  send({ t: 'leaderboard', game: $('lb-game').value || null, vs: $('lb-vs').value || null });
}

// The header of a leaderboard table: short column names (the sidebar is
// narrow), the whole word on hover.
function lbHead(first, more) {
  const counts = [['W', 'won'], ['L', 'lost'], ['D', 'drawn'], ['Games', 'games played']].concat(more || []);
  return h('tr', {}, first.map((x) => h('th', {}, x))
    .concat(counts.map(([x, title]) => h('th', { title }, x))));
}

// A person's mean accuracy over their reviewed games, if any.
function accuracyCell(p) {
  const a = typeof p.accuracy === 'number' ? p.accuracy.toFixed(1) : '–';
  return h('td', { class: 'lb-acc', title: p.reviewed ? `over ${p.reviewed} reviewed ${p.reviewed === 1 ? 'game' : 'games'}` : 'no game reviewed' }, a);
}

export function renderLeaderboard(m) {
  S.leaderboard = m;
  $('lb-what').textContent = m.empty ? 'No results yet: finish a game with a person in it.' : `${m.what}, the top ten:`;
  const vs = $('lb-vs');
  const keep = vs.value;
  clear(vs);
  vs.appendChild(h('option', { value: '' }, 'any opponent'));
  for (const o of m.opponents || []) vs.appendChild(h('option', { value: o.vs }, 'against ' + o.label));
  vs.value = [...vs.options].some((o) => o.value === keep) ? keep : '';
  const people = clear($('lb-people'));
  people.appendChild(lbHead(['#', 'Name'], [['Acc', 'mean accuracy in reviewed games (0 to 100)']]));
  (m.people || []).forEach((p, i) => people.appendChild(h('tr', { class: 'lb-person' },
    h('td', {}, `${i + 1}`), h('td', {}, p.name), h('td', {}, `${p.wins}`), h('td', {}, `${p.losses}`), h('td', {}, `${p.draws}`), h('td', {}, `${p.games}`),
    accuracyCell(p))));
  const engines = clear($('lb-engines'));
  engines.appendChild(lbHead(['Engine', 'Level']));
  for (const e of m.engines || []) engines.appendChild(h('tr', { class: 'lb-engine' },
    h('td', {}, e.strategy), h('td', {}, levelWords(e.level) || '–'), h('td', {}, `${e.wins}`), h('td', {}, `${e.losses}`), h('td', {}, `${e.draws}`), h('td', {}, `${e.games}`)));
}

export function wirePeople() {
  const input = $('my-name');
  input.value = myName();
  const setName = () => {
    const v = input.value.trim();
    if (!v) return;
    askedName = v;
    send({ t: 'name', name: v });
  };
  input.addEventListener('change', setName);
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { setName(); input.blur(); } });
  $('chat-send').addEventListener('click', () => {
    const v = $('chat-text').value;
    if (v.trim()) { send({ t: 'chat', text: v }); $('chat-text').value = ''; }
  });
  $('chat-text').addEventListener('keydown', (e) => { if (e.key === 'Enter') $('chat-send').click(); });
  $('leaders').addEventListener('toggle', () => { if ($('leaders').open) askLeaderboard(); });
  $('lb-game').addEventListener('change', () => { $('lb-vs').value = ''; askLeaderboard(); });
  $('lb-vs').addEventListener('change', askLeaderboard);
  $('lb-refresh').addEventListener('click', askLeaderboard);
}
