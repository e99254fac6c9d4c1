// meeple's browser GUI: the page's entry. It knows no game: the table
// sends the engine's `games json`, `board json` and the first level of
// `movetree json` (the levels below are asked for as a person selects);
// the state is the same for every browser, and this browser's own part
// (its role and seats) comes apart, when it changes (`me`). The rooms of
// the page are
//   net.js       the WebSocket, links and seat keys
//   board.js     drawing a position (bugs.js: Hive's pictures)
//   input.js     building a move by walking the move tree
//   clocks.js    the clocks
//   analysis.js  the analysis board, reviewing, GameStrings
//   review.js    the engine's review of the game: graph, mistakes, accuracy
//   setup.js     the new-game form, saves, invitations
//   people.js    players, names, chat, results, the leaderboard
//   words.js     scores, results and times in words
// and this file routes the server's messages and redraws.

import { $, h, clear, fill } from './dom.js';
import { S, myTurn, over, mine } from './state.js';
import { connect, send, newTableLink, forgetSeat } from './net.js';
import { drawBoard, drawHands, showStack } from './board.js';
import { legend } from './bugs.js';
import { setTree, walk, options, choose, boardChoices, renderBuilder, onLevel, findPath, wireInput } from './input.js';
import { tickClocks } from './clocks.js';
import { shownBoard, columnScores, renderAnalysis, renderReview, renderGameString, onReview, reviewTo, wireAnalysis } from './analysis.js';
import { renderJudge, onGameReview, onBetter, judged, betterCaption, GLYPH, wireJudge } from './review.js';
import { buildSetup, renderSetup, fillSaves, newGame, wireSetup } from './setup.js';
import { renderPlayers, onInfo, renderThinking, clearThinking, renderResult, renderMatch, addChat, renderLeaderboard, askLeaderboard, wirePeople, myName, nameAccepted } from './people.js';

function setStatus(text, cls) {
  $('status').textContent = text;
  $('status').className = 'status ' + (cls || '');
  // Connected, or not (reconnecting, refused): the controls follow.
  S.online = cls === 'ok';
  renderControls();
}

// Who this browser is at the table, in the top bar: its name and role,
// as they change (renamed, freed from its seat, its seat taken elsewhere).
function renderRole() {
  const role = (S.st && S.st.me && S.st.me.role) || S.role;
  if (role) S.role = role;
  const el = $('role');
  el.textContent = role ? `${S.myName || ''} (${role === 'player' ? 'guest' : role})` : '';
  el.dataset.role = role || '';
}

// Without a connection to a table (refused, closed, reconnecting) no
// control does anything: none looks as if it did. Controls switched off
// here are switched on again once connected (their own rules then apply).
function renderControls() {
  const live = S.online && !S.fatal;
  for (const el of document.querySelectorAll('[data-offline]')) {
    el.disabled = false;
    delete el.dataset.offline;
  }
  if (live) return;
  for (const el of document.querySelectorAll('header button, header input, main button, main input, main select, main textarea')) {
    if (!el.disabled) { el.disabled = true; el.dataset.offline = '1'; }
  }
}

function showMessage(text, notice) {
  $('message').textContent = text || '';
  $('message').className = 'message' + (notice ? ' notice' : '');
}

function onMessage(m) {
  switch (m.t) {
    case 'welcome':
      S.me = m.me; S.role = m.role; S.games = m.games; S.limits = m.limits; S.myName = m.name;
      renderRole();
      clear($('chat'));
      (m.chat || []).forEach(addChat);
      buildSetup();
      if (myName()) send({ t: 'name', name: myName() });
      break;
    case 'me':
      S.mine = { role: m.role, you: m.you || [], guest_key: m.guest_key };
      if (S.st) { S.st.me = S.mine; render(); }
      break;
    case 'state': applyState(m); break;
    case 'moved':
      if (m.engine && m.select) animate(m);
      break;
    case 'info': onInfo(m); break;
    case 'thinking': clearThinking(); break;
    case 'you':
      // This browser's role or name changed: a spectator's page forgets
      // the seat it held, so that a reload does not take it back.
      if (S.role !== 'spectator' && m.role === 'spectator') forgetSeat();
      S.role = m.role; S.myName = m.name;
      nameAccepted(m.name);
      render();
      break;
    case 'chat': addChat(m); break;
    case 'saves': fillSaves(m.list); break;
    case 'tree': onLevel(m); break;
    case 'review': onReview(m); break;
    case 'analysis': S.analysis = m; render(); break;
    case 'gamereview': onGameReview(m); break;
    case 'better': onBetter(m); break;
    case 'leaderboard': renderLeaderboard(m); break;
    case 'notice': showMessage(m.text, true); if (/^saved /.test(m.text)) send({ t: 'saves' }); break;
    case 'ok': showMessage(''); break;
    case 'error': showMessage(m.text); break;
  }
}

function applyState(st) {
  const prev = S.st;
  st.me = mine();
  if (st.searching && !(prev && prev.searching && prev.searching.side === st.searching.side)) clearThinking();
  const newGame = !prev || prev.game_no !== st.game_no || st.history.length < prev.history.length;
  if (newGame) { S.review = null; S.analysis = null; S.judge = null; }
  if (newGame || (prev && prev.game_string !== st.game_string)) S.better = null;
  // A new position (or a new first level) starts the move afresh; the
  // levels asked for so far are kept while the position stays.
  if (!prev || prev.game_no !== st.game_no || prev.game_string !== st.game_string || JSON.stringify(prev.tree) !== JSON.stringify(st.tree)) setTree(st.tree);
  if (S.review && st.board && S.review.ply >= st.board.ply) S.review = null;
  S.st = st;
  S.stateAt = Date.now();
  if (st.result && !(prev && prev.result) && $('leaders').open) setTimeout(askLeaderboard, 300);
  if (st.result && !(prev && prev.result)) clearThinking();
  render();
}

function render() {
  renderRole();
  draw();
  renderControls();
}

function draw() {
  const st = S.st;
  renderSetup();
  renderPlayers();
  renderHistory();
  renderResult();
  renderMatch();
  renderReview();
  renderAnalysis();
  renderJudge();
  renderGameString();
  renderThinking();
  tickClocks();
  $('chat-box').hidden = !(st && st.room);
  const note = st && st.note;
  $('note').hidden = !note;
  $('note').textContent = note || '';
  const b = shownBoard();
  if (!st || !b) {
    $('caption').textContent = S.fatal ? 'Not connected to a table: see the message above.'
      : S.role === 'host' ? 'Choose a game and press New game.' : 'Waiting for the host to start a game.';
    clear($('board')); $('board-text').textContent = '';
    drawHands(null, new Map(), [], () => {});
    renderBuilder([]);
    $('legend-box').hidden = true;
    showStack(null);
    return;
  }
  let caption = b.caption || `${b.sides[b.turn]} to move`;
  if (S.better) caption = betterCaption() || caption;
  else if (S.review) caption = `Reviewing: ${caption}`;
  else if (st.result) caption = st.result.text;
  else if (st.paused && !over(b) && st.players[b.turn].kind === 'engine') {
    // Stopped, undone to the engine's move, or its engine restarted: say
    // what makes it move.
    caption += S.role === 'host' ? ' (paused: press Resume to let the engine move)' : ' (paused: the host resumes the game)';
  } else if (myTurn()) caption += st.paused ? ': your move (the clocks are paused)' : ': your move';
  else if (st.paused && !over(b)) caption += ' (paused)';
  $('caption').textContent = caption;
  $('caption').dataset.state = st.result ? 'over' : b.state;
  const opts = S.review || S.better ? [] : options();
  const building = myTurn() && S.path.length > 0;
  const taken = S.anim && !building ? S.anim.taken : (myTurn() ? walk(S.tree, S.path).taken : []);
  const selectable = boardChoices(opts);
  drawBoard($('board'), b, { selectable, taken, choose: chooseFromBoard, columns: columnScores(), openStack: showStack });
  drawHands(b, selectable, taken, chooseFromBoard);
  renderBuilder(opts);
  $('board').dataset.ply = b.ply;
  const kinds = [...new Set([...b.cells.flatMap((c) => c.pieces), ...(b.hands || []).flat()].map((p) => p.kind).filter(Boolean))];
  $('legend-box').hidden = !kinds.length;
  if (kinds.length && $('legend-box').dataset.kinds !== kinds.join()) {
    $('legend-box').dataset.kinds = kinds.join();
    fill($('legend-body'), legend(kinds));
  }
  const stack = $('stack-view');
  if (!stack.hidden) {
    const c = b.cells.find((x) => x.id === stack.dataset.cell);
    showStack(c && c.pieces.length > 1 ? c : null);
  }
}
S.render = render;

function chooseFromBoard(i) {
  showStack(null);
  choose(i);
}

function renderHistory() {
  const st = S.st;
  const ol = clear($('history'));
  if (!st) return;
  const at = S.better ? S.better.ply - 1 : S.review ? S.review.ply : st.history.length;
  st.history.forEach((m, i) => {
    // The review's judgement: the glyph and the label's colour.
    const j = judged(i + 1);
    const glyph = j && GLYPH[j.label];
    const li = h('li', { tabindex: 0, onclick: () => reviewTo(i + 1), onkeydown: (e) => { if (e.key === 'Enter') reviewTo(i + 1); },
      'data-label': j ? j.label : null, title: j ? j.label + (j.best && j.best !== j.move ? ` (better: ${j.best})` : '') : null },
      m, glyph ? h('span', { class: 'glyph' }, glyph) : null);
    if (j) li.classList.add('j-' + j.label);
    if (i + 1 === at) li.classList.add('last');
    ol.appendChild(li);
  });
  const cur = ol.querySelector('.last');
  if (cur) ol.scrollTop = cur.offsetTop - ol.clientHeight / 2;
}

// Shows an engine's move one selection at a time (the selections along
// its path, as the table sends them). Nothing waits for it: the new
// position is shown as it comes and the person may move at once (their
// first selection ends the showing).
function animate(m) {
  const sels = m.select || [];
  // A browser that was behind may get a move before its game's state.
  if (sels.length < 2 || S.review || !S.st || S.st.game_no !== m.game_no) return;
  const anim = { taken: [] };
  S.anim = anim;
  let k = 0;
  const step = () => {
    if (S.anim !== anim) return;
    if (k < sels.length) {
      anim.taken = sels.slice(0, ++k);
      render();
      setTimeout(step, 220);
    } else {
      S.anim = null;
      render();
    }
  };
  step();
}

function fatal(text) {
  S.fatal = true;
  setStatus('closed', 'bad');
  const box = clear($('fatal'));
  box.hidden = false;
  box.appendChild(h('p', {}, text));
  const link = newTableLink();
  box.appendChild(h('p', { class: 'small' }, link
    ? 'Nothing on this page works until it reaches a table: start a new one, or open a link the host gives you.'
    : 'Nothing on this page works until it reaches a table: open the link `meeple gui` printed, or an invitation from the host.'));
  if (link) box.appendChild(h('a', { href: link, id: 'new-table', onclick: () => setTimeout(() => location.reload(), 50) }, 'Start a new table'));
  render();
}

window.addEventListener('DOMContentLoaded', () => {
  // On a narrow screen the board comes first and the form is folded.
  if (window.innerWidth < 1100) $('setup').open = false;
  wireInput();
  wireSetup();
  wirePeople();
  wireAnalysis((gs) => newGame(gs));
  wireJudge();
  window.addEventListener('hashchange', () => location.reload());
  renderControls();
  setInterval(tickClocks, 200);
  connect({ message: onMessage, status: setStatus, fatal });
});

// For the browser test and the console.
window.meeple = { S, myTurn, findPath, walk, send };
