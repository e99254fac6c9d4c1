// Setting up a game: the game and its variant (Mastermind's pegs, symbols,
// blanks, repeats and rows by controls), each side's player (a person with
// a name, or an engine strategy and its level), time controls, a match of
// rounds, the engine's threads and hash; saving and loading; inviting.
// Guests and spectators see what is played instead of the host's form.

import { $, h, clear, fill, copy } from './dom.js';
import { S } from './state.js';
import { send, seatLink, watchLink } from './net.js';
import { myName } from './people.js';
import { levelWords } from './words.js';

export function currentFamily() {
  return ((S.games && S.games.games) || []).find((g) => g.family === $('family').value);
}

export function buildSetup() {
  const fam = $('family');
  const keep = fam.value;
  clear(fam);
  for (const g of S.games.games) fam.appendChild(h('option', { value: g.family }, g.family));
  if (keep) fam.value = keep;
  familyChanged();
  const lim = S.limits || { threads: 1, hash: 1024 };
  $('threads').max = lim.threads;
  $('hash').max = lim.hash;
  $('limits-hint').textContent = `at most ${lim.threads} ${lim.threads === 1 ? 'thread' : 'threads'} and ${lim.hash} MB on this server`;
}

function optionInput(o) {
  let input;
  if (o.type === 'enum') {
    input = h('select', {}, o.choices.map((c) => h('option', { value: c }, c)));
    input.value = o.default;
  } else if (o.type === 'bool') {
    // A checkbox: its value is True or False, never a string that reads as true.
    input = h('input', { type: 'checkbox' });
    input.checked = o.default === true || o.default === 'True' || o.default === 'true';
  } else {
    input = h('input', { spellcheck: 'false' });
    if (o.type === 'int') { input.type = 'number'; input.min = o.min; input.max = o.max; }
    input.value = o.default === undefined || o.default === null ? '' : String(o.default);
  }
  input.dataset.option = o.name;
  input.dataset.type = o.type;
  input.id = 'opt-' + o.name;
  return input;
}

function optionValue(el) {
  if (el.dataset.type === 'bool') return el.checked ? 'True' : 'False';
  return el.value;
}

export function familyChanged() {
  const g = currentFamily();
  if (!g) return;
  const mm = g.family === 'Mastermind';
  $('mm-controls').hidden = !mm;
  $('type-box').hidden = mm;
  $('rounds-box').hidden = !mm;
  $('game-type').value = g.default_type;
  $('type-grammar').textContent = g.type_grammar;
  const dl = clear($('common-types'));
  for (const t of g.common_types || []) dl.appendChild(h('option', { value: t }));
  const box = clear($('game-options'));
  for (const o of g.options) {
    if (o.name === 'Strategy' || (mm && (o.name === 'Codemaker' || o.name === 'Secret'))) continue;
    const input = optionInput(o);
    const l = o.type === 'bool'
      ? h('label', { class: 'check', title: o.help }, input, ' ' + o.name)
      : h('label', { title: o.help }, o.name, input);
    box.appendChild(l);
  }
  const sides = clear($('side-setup'));
  g.sides.forEach((name, i) => {
    const strategies = g.strategies.map((s) => h('option', { value: s }, `engine: ${s}`));
    const who = h('select', { id: 'player-' + i, dataset: { side: i }, onchange: () => sideChanged(i) },
      h('option', { value: 'human' }, 'person'), strategies);
    const box = h('div', { class: 'side-box', id: 'side-box-' + i },
      h('div', { class: 'side-title' }, name),
      who,
      h('label', { class: 'for-person' }, 'Name', h('input', { id: 'name-' + i, maxlength: 40, placeholder: 'for the leaderboard', spellcheck: 'false' })),
      h('div', { class: 'limits' },
        h('label', {}, 'Time', h('select', { id: 'time-' + i, onchange: () => sideChanged(i) })),
        h('label', { class: 'f-movetime' }, 'ms a move', h('input', { id: 'movetime-' + i, type: 'number', min: 1, value: 1000 })),
        h('label', { class: 'f-depth' }, 'depth', h('input', { id: 'depth-' + i, type: 'number', min: 1, value: 6 })),
        h('label', { class: 'f-clock' }, 'minutes', h('input', { id: 'minutes-' + i, type: 'number', min: 0.1, step: 0.5, value: 5 })),
        h('label', { class: 'f-clock' }, '+ s a move', h('input', { id: 'inc-' + i, type: 'number', min: 0, value: 3 })),
        h('label', { class: 'f-permove' }, 's a move', h('input', { id: 'permove-' + i, type: 'number', min: 1, value: 30 }))));
    sides.appendChild(box);
  });
  renderInviteSides();
  if (g.sides.length > 1) $('player-1').value = g.strategies[0];
  $('name-0').value = myName();
  g.sides.forEach((_, i) => sideChanged(i));
  mmChanged();
}

// Shows a side's fields for a person or an engine.
function sideChanged(i) {
  const engine = $('player-' + i).value !== 'human';
  const t = $('time-' + i);
  const keep = t.value;
  const choices = engine
    ? [['movetime', 'time per move'], ['depth', 'depth'], ['clock', 'clock']]
    : [['none', 'no limit'], ['clock', 'clock'], ['permove', 'time per move']];
  if (t.dataset.kind !== (engine ? 'engine' : 'person')) {
    clear(t);
    for (const [v, l] of choices) t.appendChild(h('option', { value: v }, l));
    t.dataset.kind = engine ? 'engine' : 'person';
    t.value = choices.some(([v]) => v === keep) ? keep : choices[0][0];
  }
  const box = $('side-box-' + i);
  box.classList.toggle('engine', engine);
  const v = t.value;
  for (const [cls, on] of [['f-movetime', engine && v === 'movetime'], ['f-depth', engine && v === 'depth'],
    ['f-clock', v === 'clock'], ['f-permove', !engine && v === 'permove']]) {
    for (const e of box.querySelectorAll('.' + cls)) e.hidden = !on;
  }
  box.querySelector('.for-person').hidden = engine;
}

// Mastermind's variant from its controls.
export function mastermindType() {
  const p = parseInt($('mm-pegs').value, 10) || 4, s = parseInt($('mm-symbols').value, 10) || 6;
  const rows = parseInt($('mm-rows').value, 10) || 10;
  let t = 'Mastermind';
  if (p !== 4 || s !== 6) t += `+${p}x${s}`;
  if ($('mm-style').value !== 'digits') t += '+' + $('mm-style').value;
  if ($('mm-blanks').checked) t += '+blanks';
  if (!$('mm-repeats').checked) t += '+norepeat';
  if (rows !== 10) t += `+rows${rows}`;
  return t;
}

function mmChanged() {
  $('mm-type').textContent = mastermindType();
  const s = parseInt($('mm-symbols').value, 10) || 6;
  $('mm-symbols-label').textContent = $('mm-style').value === 'colours' ? 'colours' : $('mm-style').value;
  $('mm-pegs').max = $('mm-repeats').checked ? 8 : Math.min(8, s + ($('mm-blanks').checked ? 1 : 0));
}

function timeOf(i) {
  const v = $('time-' + i).value;
  if (v === 'clock') {
    const base = Math.round(parseFloat($('minutes-' + i).value || '5') * 60000);
    return { kind: 'clock', base, inc: Math.round(parseFloat($('inc-' + i).value || '0') * 1000) };
  }
  if (v === 'permove') return { kind: 'move', ms: Math.round(parseFloat($('permove-' + i).value || '30') * 1000) };
  return { kind: 'none' };
}

// Starts a new game with the form's settings (`gameType`: a GameString
// to set up, instead of the form's type).
export function newGame(gameType) {
  const g = currentFamily();
  if (!g) return;
  const options = {};
  for (const el of document.querySelectorAll('[data-option]')) options[el.dataset.option] = optionValue(el);
  const players = g.sides.map((_, i) => {
    const v = $('player-' + i).value;
    if (v === 'human') {
      const name = $('name-' + i).value.trim() || (i === 0 || $('player-0').value !== 'human' ? myName() : '');
      return { kind: 'human', name, time: timeOf(i) };
    }
    const kind = $('time-' + i).value;
    const p = { kind: 'engine', strategy: v };
    if (kind === 'depth') p.depth = parseInt($('depth-' + i).value, 10) || 6;
    else if (kind === 'clock') p.time = timeOf(i);
    else p.movetime = parseInt($('movetime-' + i).value, 10) || 1000;
    return p;
  });
  const type = gameType || (g.family === 'Mastermind' ? mastermindType() : $('game-type').value.trim());
  const rounds = g.family === 'Mastermind' ? parseInt($('rounds').value, 10) || 1 : 1;
  S.review = null;
  // A pasted GameString may be of another game: the table then takes that
  // game's defaults (it knows the form's family) and the form follows.
  S.pasted = gameType ? { gameNo: S.st ? S.st.game_no : 0 } : null;
  send({
    t: 'new', game_type: type, family: g.family, options, players, rounds,
    pause: parseInt($('pause').value, 10) || 0,
    flag: $('flag').checked,
    engine: { threads: parseInt($('threads').value, 10) || 1, hash: parseInt($('hash').value, 10) || null },
  });
}

export function fillSaves(list) {
  const sel = clear($('saves'));
  sel.appendChild(h('option', { value: '' }, list && list.length ? '(choose a saved game)' : '(no saved games)'));
  // `save <name> <GameString>` (protocol.md, section 7); other lines
  // (`more <N> saves not listed`) are not saves.
  const saves = (list || []).filter((line) => line.startsWith('save ')).map((line) => line.slice(5));
  sel.firstChild.textContent = saves.length ? '(choose a saved game)' : '(no saved games)';
  for (const line of saves) {
    const name = line.split(' ')[0];
    sel.appendChild(h('option', { value: name }, line.length > 70 ? line.slice(0, 69) + '…' : line));
  }
}

// After a position of another game was set up, the form switches to that
// game, with its sides played as the table plays them.
function followPasted(st) {
  if (!S.pasted || !st.setup || st.game_no <= S.pasted.gameNo) return;
  S.pasted = null;
  if (st.setup.family === $('family').value) return;
  const keep = [0, 1].map((i) => ({ name: $('name-' + i) && $('name-' + i).value }));
  $('family').value = st.setup.family;
  familyChanged();
  st.setup.players.forEach((p, i) => {
    const sel = $('player-' + i);
    if (!sel) return;
    sel.value = p.kind === 'engine' && [...sel.options].some((o) => o.value === p.strategy) ? p.strategy : 'human';
    if (p.kind !== 'engine' && keep[i].name) $('name-' + i).value = keep[i].name;
    sideChanged(i);
  });
}

// The host's form, or what is played for the others (before this page
// knows its role, as for a page refused, it stays as it is).
export function renderSetup() {
  const st = S.st;
  const host = S.role === 'host';
  const other = !!S.role && !host;
  $('setup-form').hidden = other;
  $('table-box').hidden = other;
  $('setup-summary').textContent = other ? 'The game' : 'New game';
  for (const id of ['new-game', 'undo', 'stop', 'resume', 'abandon']) $(id).hidden = other;
  const view = clear($('setup-view'));
  view.hidden = !other;
  if (other) {
    if (!st || !st.setup) view.appendChild(h('p', {}, 'Waiting for the host to start a game.'));
    else {
      const s = st.setup;
      view.appendChild(h('p', {}, h('b', {}, s.game_type), s.rounds > 1 ? ` · a match of ${s.rounds} rounds` : ''));
      (st.board ? st.board.sides : ['first', 'second']).forEach((side, i) => {
        const p = st.sides[i];
        const who = p.kind === 'engine' ? `engine ${p.name} (${levelWords(p.level)})` : p.name;
        const tc = st.clocks && st.clocks.text[i] && !/^clock /.test(p.level || '') ? `, clock ${st.clocks.text[i]}` : '';
        view.appendChild(h('p', {}, `${side}: ${who}${tc}`));
      });
      if (s.flag) view.appendChild(h('p', {}, 'Loss on time.'));
    }
  }
  if (!st) return;
  followPasted(st);
  $('stop').disabled = !host || !st.board || !!st.result || (st.paused && !st.searching);
  $('resume').disabled = !host || !st.paused || !!st.result;
  $('resume').classList.toggle('primary', host && st.paused && !st.result && !!st.board);
  $('undo').disabled = !host || !st.history.length;
  $('abandon').disabled = !host || !st.board;
  $('resign').hidden = !(st.board && !st.result && st.me.you.length && !st.match);
  renderInvite();
}

// "I play": the sides of the game on the table (a loaded game or a pasted
// position may be of another game than the form's), else the form's.
function renderInviteSides() {
  const st = S.st;
  const g = currentFamily();
  const sides = st && st.board ? st.board.sides : g ? g.sides : [];
  const sel = $('invite-side');
  if (sel.dataset.sides === sides.join('|')) return;
  const keep = sel.value;
  clear(sel);
  sides.forEach((name, i) => sel.appendChild(h('option', { value: i }, name)));
  sel.value = keep && keep < sides.length ? keep : '0';
  sel.dataset.sides = sides.join('|');
}

function renderInvite() {
  const st = S.st;
  renderInviteSides();
  const box = clear($('invite-links'));
  $('free').hidden = !(st && st.room);
  if (!st || !st.room || S.role !== 'host') return;
  const row = (label, link, id) => {
    const input = h('input', { readonly: true, value: link, id, class: 'link' });
    const btn = h('button', { class: 'small', onclick: async () => { fill(btn, (await copy(link, input)) ? 'Copied' : 'Copy'); } }, 'Copy');
    return h('div', { class: 'link-row' }, h('div', { class: 'hint' }, label), h('div', { class: 'row' }, input, btn));
  };
  if (st.me.guest_key) box.appendChild(row('For the other player (their seat is in this link):', seatLink(st.room, st.me.guest_key), 'invite-link'));
  box.appendChild(row('For spectators:', watchLink(st.room), 'watch-link'));
}

export function wireSetup() {
  $('family').addEventListener('change', familyChanged);
  for (const id of ['mm-pegs', 'mm-symbols', 'mm-style', 'mm-blanks', 'mm-repeats', 'mm-rows']) $(id).addEventListener('change', mmChanged);
  $('new-game').addEventListener('click', () => newGame());
  $('start').addEventListener('click', () => newGame());
  $('undo').addEventListener('click', () => send({ t: 'undo' }));
  $('stop').addEventListener('click', () => send({ t: 'stop' }));
  $('resume').addEventListener('click', () => send({ t: 'resume' }));
  $('abandon').addEventListener('click', () => { S.review = null; send({ t: 'abandon' }); });
  $('resign').addEventListener('click', () => send({ t: 'resign' }));
  $('save').addEventListener('click', () => send({ t: 'save', name: $('save-name').value }));
  $('load').addEventListener('click', () => { if ($('saves').value) { S.review = null; send({ t: 'load', name: $('saves').value }); } });
  $('table-box').addEventListener('toggle', () => { if ($('table-box').open) send({ t: 'saves' }); });
  $('invite').addEventListener('click', () => send({ t: 'invite', side: parseInt($('invite-side').value, 10) }));
  $('free').addEventListener('click', () => send({ t: 'free' }));
}
