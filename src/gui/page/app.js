// meeple's browser GUI. It knows no game: the server's table sends the
// engine's `games json`, `board json` and `movetree json`, and this page
// draws the board by its geometry and builds a move by walking the move
// tree, one selection (cell, piece, symbol or button) at a time.
'use strict';

const $ = (id) => document.getElementById(id);
const SVGNS = 'http://www.w3.org/2000/svg';
const S = {
  ws: null, me: null, role: null, games: null, state: null,
  path: [],          // children chosen from the tree root, in order
  anim: null,        // selections being shown for an engine move
  queue: [],         // messages held while an animation runs
  info: {}, clockTimer: null, turnStart: Date.now(), link: {},
};

function parseHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  return { k: h.get('k'), room: h.get('room') };
}

function connect() {
  S.link = parseHash();
  const q = new URLSearchParams();
  if (S.link.room) {
    q.set('room', S.link.room);
    const me = sessionStorage.getItem('meeple-me-' + S.link.room);
    if (me) q.set('me', me);
  } else if (S.link.k) {
    q.set('k', S.link.k);
  } else {
    setStatus('open the link printed by `meeple gui`', 'bad');
    return;
  }
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(`${proto}//${location.host}/ws?${q}`);
  S.ws = ws;
  ws.onopen = () => setStatus('connected', 'ok');
  ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  ws.onclose = () => {
    setStatus(S.link.room ? 'disconnected: rejoining…' : 'disconnected', 'bad');
    if (S.link.room) setTimeout(connect, 1000);
  };
}

function send(msg) {
  if (S.ws && S.ws.readyState === 1) S.ws.send(JSON.stringify(msg));
}

function setStatus(text, cls) {
  $('status').textContent = text;
  $('status').className = 'status ' + (cls || '');
}

function showMessage(text, notice) {
  $('message').textContent = text || '';
  $('message').className = 'message' + (notice ? ' notice' : '');
}

function onMessage(m) {
  if (S.anim && (m.t === 'state' || m.t === 'moved')) { S.queue.push(m); return; }
  switch (m.t) {
    case 'welcome':
      S.me = m.me; S.role = m.role; S.games = m.games;
      if (S.link.room) sessionStorage.setItem('meeple-me-' + S.link.room, m.me);
      $('role').textContent = `${m.name} (${m.role})`;
      $('role').dataset.role = m.role;
      $('chat').innerHTML = '';
      (m.chat || []).forEach(addChat);
      buildSetup();
      send({ t: 'saves' });
      break;
    case 'state': applyState(m); break;
    case 'moved':
      showMessage('');
      if (m.engine && m.tree) animate(m); 
      break;
    case 'info': onInfo(m); break;
    case 'chat': addChat(m); break;
    case 'saves': fillSaves(m.list); break;
    case 'notice': showMessage(m.text, true); send({ t: 'saves' }); break;
    case 'error': showMessage(m.text); break;
  }
}

// ----- setup ---------------------------------------------------------------

function currentFamily() {
  return (S.games && S.games.games || []).find((g) => g.family === $('family').value);
}

function buildSetup() {
  const fam = $('family');
  const keep = fam.value;
  fam.innerHTML = '';
  for (const g of S.games.games) {
    const o = document.createElement('option');
    o.value = g.family; o.textContent = g.family; fam.appendChild(o);
  }
  if (keep) fam.value = keep;
  fam.onchange = familyChanged;
  familyChanged();
  const host = S.role === 'host';
  for (const id of ['new-game', 'undo', 'stop', 'resume', 'abandon', 'save', 'load', 'invite']) $(id).disabled = !host;
  $('setup').classList.toggle('guest', !host);
}

function familyChanged() {
  const g = currentFamily();
  if (!g) return;
  $('game-type').value = g.default_type;
  $('type-grammar').textContent = g.type_grammar;
  const box = $('game-options');
  box.innerHTML = '';
  for (const o of g.options) {
    if (o.name === 'Strategy') continue;
    const l = document.createElement('label');
    l.textContent = o.name;
    l.title = o.help;
    let input;
    if (o.type === 'enum') {
      input = document.createElement('select');
      for (const c of o.choices) {
        const op = document.createElement('option'); op.value = c; op.textContent = c; input.appendChild(op);
      }
    } else if (o.type === 'bool') {
      input = document.createElement('select');
      for (const c of ['True', 'False']) {
        const op = document.createElement('option'); op.value = c; op.textContent = c; input.appendChild(op);
      }
      o.default = o.default ? 'True' : 'False';
    } else {
      input = document.createElement('input');
      if (o.type === 'int') { input.type = 'number'; input.min = o.min; input.max = o.max; }
    }
    input.value = o.default;
    input.dataset.option = o.name;
    input.id = 'opt-' + o.name;
    l.appendChild(input);
    box.appendChild(l);
  }
  const sides = $('side-setup');
  sides.innerHTML = '';
  const inv = $('invite-side');
  inv.innerHTML = '';
  g.sides.forEach((name, i) => {
    const d = document.createElement('div');
    d.className = 'side-box';
    const strategies = g.strategies.map((s) => `<option value="${s}">engine: ${s}</option>`).join('');
    d.innerHTML = `<label>${name} <select id="player-${i}" data-side="${i}"><option value="human">person</option>${strategies}</select></label>
      <div class="limits"><label>ms/move <input id="movetime-${i}" type="number" min="1" value="1000"></label>
      <label>depth <input id="depth-${i}" type="number" min="1" placeholder="–"></label></div>`;
    sides.appendChild(d);
    const o = document.createElement('option'); o.value = i; o.textContent = name; inv.appendChild(o);
  });
  if (g.sides.length > 1) $('player-1').value = g.strategies[0];
}

function newGame() {
  const g = currentFamily();
  const options = {};
  for (const el of document.querySelectorAll('[data-option]')) options[el.dataset.option] = el.value;
  const players = g.sides.map((_, i) => {
    const v = $('player-' + i).value;
    if (v === 'human') return { kind: 'human' };
    const depth = parseInt($('depth-' + i).value, 10);
    const movetime = parseInt($('movetime-' + i).value, 10) || 1000;
    return depth > 0 ? { kind: 'engine', strategy: v, depth } : { kind: 'engine', strategy: v, movetime };
  });
  S.info = {};
  $('thinking').textContent = '–';
  send({ t: 'new', game_type: $('game-type').value.trim(), options, players, pause: parseInt($('pause').value, 10) || 0 });
}

function fillSaves(list) {
  const sel = $('saves');
  sel.innerHTML = '<option value="">(saved games)</option>';
  for (const line of list || []) {
    // `save <name> <GameString>` (protocol.md, section 7).
    if (!line.startsWith('save ')) continue;
    const rest = line.slice(5);
    const name = rest.split(' ')[0];
    const o = document.createElement('option'); o.value = name; o.textContent = rest.slice(0, 60); sel.appendChild(o);
  }
}

// ----- state ---------------------------------------------------------------

function applyState(st) {
  const prev = S.state;
  // The elapsed time of a search is counted from when its state arrived.
  if (st.searching) S.searchSeen = Date.now();
  // A new search: its thinking replaces the last one's.
  if (st.searching && !(S.state && S.state.searching)) { S.info = {}; $('thinking').textContent = '…'; }
  S.state = st;
  const sameTree = prev && JSON.stringify(prev.tree) === JSON.stringify(st.tree);
  if (!sameTree) S.path = [];
  if (!prev || prev.game_string !== st.game_string) S.turnStart = Date.now();
  render();
}

function myTurn() {
  const st = S.state;
  if (!st || !st.board || !st.tree || st.searching) return false;
  const b = st.board;
  if (b.state && (b.state.endsWith('Wins') || b.state === 'Draw')) return false;
  return st.you.includes(b.turn) && !st.players[b.turn].kind.startsWith('engine');
}

// The node reached by the chosen path, and the selections taken so far.
function walk(tree, path) {
  let node = tree;
  const taken = [...(tree.select || [])];
  for (const i of path) { node = node.children[i]; taken.push(...(node.select || [])); }
  return { node, taken };
}

function options() {
  if (!myTurn()) return [];
  const { node } = walk(S.state.tree, S.path);
  return node.children.map((c, i) => ({ i, sel: (c.select || [])[0] || { kind: 'choice', label: c.actions[0] } }));
}

function choose(i) {
  S.path.push(i);
  const { node } = walk(S.state.tree, S.path);
  // A node with a single continuation and no move of its own is taken at once.
  if (!node.final && node.children.length === 1) { choose(0); return; }
  render();
}

function confirmMove() {
  const { node } = walk(S.state.tree, S.path);
  if (node.final && node.move) { send({ t: 'play', move: node.move }); S.path = []; }
}

function selKey(sel) {
  if (sel.kind === 'cell') return 'c:' + sel.cell;
  if (sel.kind === 'piece') return 'p:' + sel.piece;
  return null;
}

// ----- drawing -------------------------------------------------------------

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

function textColour(bg) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(bg || '');
  if (!m) return '#000';
  const [r, g, b] = [1, 2, 3].map((i) => parseInt(m[i], 16));
  return (r * 299 + g * 587 + b * 114) / 1000 > 140 ? '#1a1a1a' : '#f5f5f5';
}

function render() {
  const st = S.state;
  renderPlayers();
  renderHistory();
  if (!st || !st.board) {
    $('caption').textContent = S.role === 'host' ? 'Choose a game and press New game.' : 'Waiting for the host to start a game.';
    $('board').innerHTML = ''; $('board-text').textContent = '';
    $('hand-0').innerHTML = ''; $('hand-1').innerHTML = '';
    renderBuilder([]);
    return;
  }
  const b = st.board;
  $('caption').textContent = b.caption || `${b.sides[b.turn]} to move`;
  $('caption').dataset.state = b.state;
  const opts = options();
  const anim = S.anim ? S.anim.taken : null;
  const taken = anim || (myTurn() ? walk(st.tree, S.path).taken : []);
  const selectable = new Map();
  for (const o of opts) { const k = selKey(o.sel); if (k) selectable.set(k, o.i); }
  // A click on a stack means its top piece when that piece can be chosen.
  const drawn = drawBoard(b, selectable, taken);
  drawHands(b, selectable, taken);
  renderBuilder(opts, taken);
  $('board').dataset.ply = b.ply;
  return drawn;
}

function pieceCircle(g, cx, cy, r, p) {
  el('circle', { cx, cy, r, fill: p.colour, stroke: '#0008', 'stroke-width': 2 }, g);
  if (p.label) {
    const t = el('text', { x: cx, y: cy + r * 0.32, 'text-anchor': 'middle', 'font-size': r * 0.85, fill: textColour(p.colour) }, g);
    t.textContent = p.label;
  }
}

function hexPoints(cx, cy, s) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = Math.PI / 180 * (60 * i - 30);
    pts.push(`${(cx + s * Math.cos(a)).toFixed(1)},${(cy + s * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(' ');
}

function ghostFor(cellId, taken) {
  // A selection placing something at this cell: a symbol, or a piece moved there.
  let piece = null;
  for (const s of taken) {
    if (s.kind === 'piece') piece = s.piece;
    if (s.kind === 'symbol' && s.cell === cellId) return { colour: s.colour || '#888', label: s.symbol };
    if (s.kind === 'cell' && s.cell === cellId) {
      const p = findPiece(piece);
      return p ? { colour: p.colour, label: p.label } : { colour: S.state.board.sides ? sideColour(S.state.board.turn) : '#888', label: '' };
    }
  }
  return null;
}

function sideColour(side) {
  const b = S.state && S.state.board;
  if (!b) return '#888';
  for (const c of b.cells) for (const p of c.pieces) if (p.side === side) return p.colour;
  for (const p of (b.hands || [])[side] || []) return p.colour;
  return side === 0 ? '#e53935' : '#fdd835';
}

function findPiece(id) {
  if (!id || !S.state.board) return null;
  const b = S.state.board;
  for (const c of b.cells) for (const p of c.pieces) if (p.id === id) return p;
  for (const h of b.hands || []) for (const p of h) if (p.id === id) return p;
  return null;
}

function drawBoard(b, selectable, taken) {
  const svg = $('board');
  svg.innerHTML = '';
  $('board-text').textContent = '';
  const geo = b.geometry;
  const chosenPieces = new Set(taken.filter((s) => s.kind === 'piece').map((s) => s.piece));
  const chosenCells = new Set(taken.filter((s) => s.kind === 'cell').map((s) => s.cell));
  const clickable = (node, key, i) => {
    node.classList.add('selectable');
    node.dataset.selectable = key;
    node.addEventListener('click', () => choose(i));
  };
  const bindCell = (g, c) => {
    g.dataset.cell = c.id;
    const top = c.pieces[c.pieces.length - 1];
    if (top) g.dataset.piece = top.id;
    let i = selectable.get('c:' + c.id), key = c.id;
    if (i === undefined && top) { i = selectable.get('p:' + top.id); key = top.id; }
    if (i !== undefined) clickable(g, key, i);
    return i !== undefined;
  };
  if (geo.kind === 'square') {
    const s = 70, pad = 14;
    const w = geo.cols * s + 2 * pad, h = geo.rows * s + 2 * pad;
    svg.setAttribute('viewBox', `0 0 ${w} ${h + 24}`);
    el('rect', { x: 0, y: 0, width: w, height: h, rx: 18, fill: '#1e5bb8', stroke: '#123a78', 'stroke-width': 4 }, svg);
    for (const c of b.cells) {
      const cx = pad + c.x * s + s / 2, cy = pad + c.y * s + s / 2;
      const g = el('g', { class: 'cell' }, svg);
      el('rect', { x: cx - s / 2, y: cy - s / 2, width: s, height: s, fill: 'transparent' }, g);
      const p = c.pieces[c.pieces.length - 1];
      const ghost = ghostFor(c.id, taken);
      if (p) pieceCircle(g, cx, cy, s * 0.4, p);
      else if (ghost) { const gg = el('g', { opacity: 0.6 }, g); pieceCircle(gg, cx, cy, s * 0.4, ghost); }
      else el('circle', { cx, cy, r: s * 0.4, fill: '#0e1a2c', stroke: '#0b2f66', 'stroke-width': 2 }, g);
      if (c.marked) el('circle', { cx, cy, r: s * 0.4, class: 'marked', fill: 'none' }, g);
      if (bindCell(g, c)) el('circle', { cx, cy, r: s * 0.44, class: 'hl' }, g);
      if (chosenCells.has(c.id)) el('circle', { cx, cy, r: s * 0.46, class: 'chosen-ring' }, g);
    }
    for (let x = 0; x < geo.cols; x++) {
      const t = el('text', { x: pad + x * s + s / 2, y: h + 18, 'text-anchor': 'middle', 'font-size': 14, fill: '#97a3b6' }, svg);
      t.textContent = x + 1;
    }
  } else if (geo.kind === 'hex') {
    const s = 36, W = Math.sqrt(3) * s;
    const pos = (c) => [W * (c.x + c.y / 2), 1.5 * s * c.y];
    const xs = b.cells.map((c) => pos(c)[0]), ys = b.cells.map((c) => pos(c)[1]);
    const minX = Math.min(...xs) - W, maxX = Math.max(...xs) + W, minY = Math.min(...ys) - 2 * s, maxY = Math.max(...ys) + 2 * s;
    const span = Math.max(maxX - minX, (maxY - minY) * 1.3, 7 * W);
    const cx0 = (minX + maxX) / 2, cy0 = (minY + maxY) / 2;
    svg.setAttribute('viewBox', `${cx0 - span / 2} ${cy0 - span / 2.6} ${span} ${span / 1.3}`);
    for (const c of b.cells) {
      const [cx, cy] = pos(c);
      const g = el('g', { class: 'cell' }, svg);
      const top = c.pieces[c.pieces.length - 1];
      const ghost = ghostFor(c.id, taken);
      if (top) {
        el('polygon', { points: hexPoints(cx, cy, s * 0.96), fill: top.colour, stroke: top.side === 0 ? '#b8a888' : '#000', 'stroke-width': 2 }, g);
        drawBug(g, cx, cy, s, top);
        if (c.pieces.length > 1) {
          el('circle', { cx: cx + s * 0.55, cy: cy - s * 0.5, r: 9, fill: '#ffb74d' }, g);
          const t = el('text', { x: cx + s * 0.55, y: cy - s * 0.5 + 4, 'text-anchor': 'middle', 'font-size': 11, fill: '#000' }, g);
          t.textContent = c.pieces.length;
        }
        if (c.marked) el('polygon', { points: hexPoints(cx, cy, s * 0.9), fill: 'none', stroke: '#ffb74d', 'stroke-width': 2, 'stroke-dasharray': '4 3' }, g);
      } else {
        el('polygon', { points: hexPoints(cx, cy, s * 0.96), fill: ghost ? ghost.colour : '#ffffff08', stroke: '#ffffff22', 'stroke-width': 1, opacity: ghost ? 0.6 : 1 }, g);
        if (ghost && ghost.label) { const t = el('text', { x: cx, y: cy + 6, 'text-anchor': 'middle', 'font-size': 16, fill: textColour(ghost.colour) }, g); t.textContent = ghost.label; }
      }
      if (bindCell(g, c)) el('polygon', { points: hexPoints(cx, cy, s * 0.9), class: 'hl' }, g);
      if ((top && chosenPieces.has(top.id)) || chosenCells.has(c.id)) el('polygon', { points: hexPoints(cx, cy, s * 0.85), class: 'chosen-ring' }, g);
    }
  } else if (geo.kind === 'rows') {
    const s = 46, keyW = Math.ceil(geo.slots / 2) * 16 + 20, labelW = 60;
    const w = geo.slots * s + keyW + labelW + 30, h = geo.rows * s + 20;
    svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
    el('rect', { x: 0, y: 0, width: w, height: h, rx: 14, fill: '#5d4037', stroke: '#3e2723', 'stroke-width': 4 }, svg);
    const active = b.state === 'InProgress' || b.state === 'NotStarted' ? Math.max(0, ...b.cells.filter((c) => c.pieces.length).map((c) => c.y + 1), 0) : -1;
    const marks = new Map((b.marks || []).map((m) => [m.y, m]));
    const rowsWithPegs = new Set(b.cells.filter((c) => c.pieces.length).map((c) => c.y));
    for (let y = 0; y < geo.rows; y++) {
      const cy = 10 + y * s + s / 2;
      const isNext = !marks.has(y) && (rowsWithPegs.has(y) || y === [...Array(geo.rows).keys()].find((r) => !rowsWithPegs.has(r)));
      if (isNext && b.state !== 'BreakerWins' && !b.state.endsWith('Wins')) el('rect', { x: 6, y: cy - s / 2 + 2, width: w - 12, height: s - 4, rx: 10, fill: '#ffffff14' }, svg);
      const n = el('text', { x: 20, y: cy + 5, 'text-anchor': 'middle', 'font-size': 13, fill: '#d7ccc8' }, svg);
      n.textContent = y + 1;
    }
    for (const c of b.cells) {
      const cx = 40 + c.x * s + s / 2, cy = 10 + c.y * s + s / 2;
      const g = el('g', { class: 'cell' }, svg);
      const p = c.pieces[c.pieces.length - 1];
      const ghost = ghostFor(c.id, taken);
      if (p) pieceCircle(g, cx, cy, s * 0.36, p);
      else if (ghost) pieceCircle(g, cx, cy, s * 0.36, ghost);
      else el('circle', { cx, cy, r: s * 0.16, fill: '#2d1f1a' }, g);
      bindCell(g, c);
    }
    for (const m of b.marks || []) {
      const cy = 10 + m.y * s + s / 2, x0 = 40 + geo.slots * s + 14;
      const per = Math.ceil(geo.slots / 2);
      for (let i = 0; i < geo.slots; i++) {
        const kx = x0 + (i % per) * 16, ky = cy - 8 + Math.floor(i / per) * 16;
        const col = m.marks[i];
        el('circle', { cx: kx, cy: ky, r: col ? 6.5 : 3, fill: col || '#2d1f1a', stroke: col ? '#000' : 'none' }, svg);
      }
      const t = el('text', { x: x0 + per * 16 + 8, y: cy + 5, 'font-size': 13, fill: '#efebe9' }, svg);
      t.textContent = m.label;
    }
  } else {
    $('board-text').textContent = b.text || '';
    svg.setAttribute('viewBox', '0 0 0 0');
  }
}

// Hive-like pieces: the label big, side shown by the tile's colour.
function drawBug(g, cx, cy, s, p) {
  const fill = textColour(p.colour);
  const t = el('text', { x: cx, y: cy + s * 0.2, 'text-anchor': 'middle', 'font-size': s * 0.62, fill }, g);
  t.textContent = p.label;
}

function drawHands(b, selectable, taken) {
  const chosen = new Set(taken.filter((s) => s.kind === 'piece').map((s) => s.piece));
  for (const side of [0, 1]) {
    const box = $('hand-' + side);
    box.innerHTML = '';
    for (const p of (b.hands || [])[side] || []) {
      const d = document.createElement('div');
      d.className = 'chip';
      d.style.background = p.colour;
      d.style.color = textColour(p.colour);
      d.textContent = p.label;
      d.title = p.id;
      d.dataset.piece = p.id;
      const i = selectable.get('p:' + p.id);
      if (i !== undefined) { d.classList.add('selectable'); d.dataset.selectable = p.id; d.onclick = () => choose(i); }
      if (chosen.has(p.id)) d.classList.add('chosen');
      box.appendChild(d);
    }
  }
}

function renderBuilder(opts, taken) {
  const pal = $('palette');
  pal.innerHTML = '';
  const st = S.state;
  const mine = myTurn();
  for (const o of opts) {
    if (selKey(o.sel)) continue;
    const btn = document.createElement('button');
    btn.dataset.selectable = o.sel.kind === 'symbol' ? `${o.sel.slot}=${o.sel.symbol}` : o.sel.label;
    btn.classList.add('selectable');
    if (o.sel.kind === 'symbol') {
      if (o.sel.colour && o.sel.slot.startsWith('s')) {
        btn.className = 'peg selectable';
        btn.style.background = o.sel.colour;
        btn.style.color = textColour(o.sel.colour);
        btn.textContent = o.sel.symbol;
        btn.title = o.sel.label;
      } else btn.textContent = o.sel.label;
    } else btn.textContent = o.sel.label;
    btn.onclick = () => choose(o.i);
    pal.appendChild(btn);
  }
  let node = null;
  if (mine) node = walk(st.tree, S.path).node;
  const canConfirm = !!(node && node.final && node.move);
  $('confirm').hidden = !canConfirm;
  $('confirm').textContent = canConfirm ? `Play ${node.move}` : 'Play';
  $('confirm').dataset.move = canConfirm ? node.move : '';
  $('cancel').hidden = !(mine && S.path.length);
  const acts = [];
  if (mine) {
    let n = st.tree; acts.push(...n.actions);
    for (const i of S.path) { n = n.children[i]; acts.push(...n.actions); }
  }
  let hint = '';
  if (st && st.tree_error && mine === false && st.board && st.you.includes(st.board.turn)) hint = st.tree_error + ' (type the move)';
  $('prefix').textContent = mine ? (acts.length ? acts.join(' ') + ' …' : 'your move') : hint;
  $('move-text').disabled = !(st && st.board && st.you.includes(st.board.turn) && !st.searching);
}

function renderPlayers() {
  const st = S.state;
  const box = $('players');
  box.innerHTML = '';
  if (!st || !st.board) return;
  const b = st.board;
  b.sides.forEach((name, i) => {
    const p = st.players[i] || { kind: 'human' };
    const d = document.createElement('div');
    d.className = 'player' + (b.turn === i && !(b.state.endsWith('Wins') || b.state === 'Draw') ? ' turn' : '');
    d.id = 'player-box-' + i;
    const who = p.kind === 'engine' ? `${p.strategy}${p.depth ? ' depth ' + p.depth : ' ' + (p.movetime || 1000) + ' ms'}` : (st.host_side === null ? 'person' : (st.host_side === i ? 'host' : 'guest'));
    d.innerHTML = `<span class="dot" style="background:${sideColour(i)}"></span><b>${name}</b><span class="who">${who}${st.you.includes(i) ? ' · you' : ''}</span>`;
    box.appendChild(d);
  });
}

function renderHistory() {
  const st = S.state;
  const ol = $('history');
  ol.innerHTML = '';
  if (!st) return;
  st.history.forEach((m, i) => {
    const li = document.createElement('li');
    li.textContent = m;
    if (i === st.history.length - 1) li.className = 'last';
    ol.appendChild(li);
  });
  ol.scrollTop = ol.scrollHeight;
  $('game-string').textContent = st.game_string || '';
  $('stop').disabled = S.role !== 'host' || !st.board;
  $('resume').disabled = S.role !== 'host' || !st.paused;
  $('undo').disabled = S.role !== 'host' || !st.history.length;
  if (st.room) {
    $('chat-box').hidden = false;
    const base = location.origin + location.pathname;
    $('invite-links').innerHTML = `Invitation (the other side, then spectators):<br><input id="invite-link" readonly value="${base}#room=${st.room}">`;
    if (S.role === 'host' && !S.link.room) {
      // The host's page now belongs to the room: a reload or a dropped
      // connection rejoins it as the host.
      sessionStorage.setItem('meeple-me-' + st.room, S.me);
      history.replaceState(null, '', '#room=' + st.room);
      S.link = { room: st.room };
    }
  }
}

// ----- engine --------------------------------------------------------------

function onInfo(m) {
  const l = m.line;
  const f = {};
  const words = l.split(' ');
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (w === 'pv') { f.pv = words.slice(i + 1).join(' '); break; }
    if (w === 'string') { f.string = words.slice(i + 1).join(' '); break; }
    if (w === 'score') {
      // `win`, `draw`, `loss` stand alone; `cp`, `mate`, `exact` and the
      // bounds take a number.
      const kind = words[i + 1] || '';
      if (['win', 'draw', 'loss'].includes(kind)) { f.score = kind; i += 1; continue; }
      f.score = kind + ' ' + (words[i + 2] || ''); i += 2; continue;
    }
    if (['depth', 'nodes', 'nps', 'time', 'seldepth'].includes(w)) { f[w] = words[i + 1]; i++; }
  }
  Object.assign(S.info, f);
  const parts = [];
  if (S.info.depth) parts.push('depth ' + S.info.depth);
  if (S.info.score) parts.push('score ' + S.info.score.trim());
  if (S.info.nodes) parts.push('nodes ' + S.info.nodes);
  let text = parts.join('  ');
  if (S.info.pv) text += '\npv ' + S.info.pv;
  if (S.info.string) text += '\n' + S.info.string;
  $('thinking').textContent = text || l;
}

function tickClock() {
  const st = S.state;
  const bar = $('clock-bar'), txt = $('clock-text');
  if (!st || !st.board) { bar.style.width = '0'; txt.textContent = ''; return; }
  if (st.searching) {
    const el = (st.searching.elapsed || 0) + (Date.now() - S.searchSeen);
    const lim = st.searching.limit.movetime;
    if (lim) {
      bar.style.width = Math.min(100, 100 * el / lim) + '%';
      txt.textContent = `${st.board.sides[st.searching.side]} thinking ${(el / 1000).toFixed(1)} / ${(lim / 1000).toFixed(1)} s`;
    } else {
      bar.style.width = '100%';
      txt.textContent = `${st.board.sides[st.searching.side]} thinking to depth ${st.searching.limit.depth}: ${(el / 1000).toFixed(1)} s`;
    }
  } else if (st.board.state.endsWith('Wins') || st.board.state === 'Draw') {
    bar.style.width = '0'; txt.textContent = st.board.state;
  } else {
    bar.style.width = '0';
    txt.textContent = `${st.board.sides[st.board.turn]}: ${((Date.now() - S.turnStart) / 1000).toFixed(0)} s${st.paused ? ' (paused)' : ''}`;
  }
}

// Shows an engine's move one selection at a time, on the tree it was chosen from.
function animate(m) {
  const path = findPath(m.tree, m.move);
  if (!path || !S.state) return;
  const sels = [];
  let n = m.tree;
  sels.push(...(n.select || []));
  for (const i of path) { n = n.children[i]; sels.push(...(n.select || [])); }
  const saved = S.state;
  S.anim = { taken: [] };
  S.state = Object.assign({}, saved, { tree: m.tree });
  let k = 0;
  const step = () => {
    if (k < sels.length) {
      S.anim.taken = sels.slice(0, ++k);
      render();
      setTimeout(step, 260);
    } else {
      S.anim = null;
      S.state = saved;
      const q = S.queue; S.queue = [];
      q.forEach(onMessage);
      render();
    }
  };
  step();
}

function findPath(node, move) {
  if (node.final && node.move === move) return [];
  for (let i = 0; i < node.children.length; i++) {
    const p = findPath(node.children[i], move);
    if (p) return [i, ...p];
  }
  return null;
}

// ----- chat ----------------------------------------------------------------

function addChat(m) {
  const d = document.createElement('div');
  if (!m.from) { d.className = 'sys'; d.textContent = m.text; }
  else { const b = document.createElement('b'); b.textContent = m.from + ': '; d.appendChild(b); d.appendChild(document.createTextNode(m.text)); }
  d.classList.add('chat-line');
  $('chat').appendChild(d);
  $('chat').scrollTop = $('chat').scrollHeight;
}

// ----- wiring --------------------------------------------------------------

window.addEventListener('DOMContentLoaded', () => {
  $('new-game').onclick = newGame;
  $('confirm').onclick = confirmMove;
  $('cancel').onclick = () => { S.path = []; render(); };
  $('undo').onclick = () => send({ t: 'undo' });
  $('stop').onclick = () => send({ t: 'stop' });
  $('resume').onclick = () => send({ t: 'resume' });
  $('abandon').onclick = () => send({ t: 'abandon' });
  $('save').onclick = () => send({ t: 'save', name: $('save-name').value });
  $('load').onclick = () => { if ($('saves').value) send({ t: 'load', name: $('saves').value }); };
  $('invite').onclick = () => send({ t: 'invite', side: parseInt($('invite-side').value, 10) });
  $('play-text').onclick = () => { const v = $('move-text').value.trim(); if (v) { send({ t: 'play', move: v }); $('move-text').value = ''; } };
  $('chat-send').onclick = () => { const v = $('chat-text').value; if (v.trim()) { send({ t: 'chat', text: v }); $('chat-text').value = ''; } };
  $('chat-text').addEventListener('keydown', (e) => { if (e.key === 'Enter') $('chat-send').click(); });
  window.addEventListener('hashchange', () => location.reload());
  setInterval(tickClock, 200);
  connect();
});
