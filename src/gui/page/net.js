// Networking: the WebSocket to the table, the links that reach it, and
// the keys that keep a seat. A table is reached by its token; a seat by its
// key, which is in the holder's own link (#room=TOKEN&seat=KEY) and kept by
// the browser (localStorage), so closing the browser loses nothing.
//
// Two transports, one interface (S.ws.send, handlers.message): the
// WebSocket to `meeple gui`, or the table in this page (offline.js), used
// when the page is the offline site's (its <html data-transport="offline">,
// written by scripts/build-web.sh) or opened with #offline.

import { S } from './state.js';

const KEY_STORE = 'meeple-key';
const seatStore = (table) => 'meeple-seat-' + table;

export function parseLink() {
  const h = new URLSearchParams(location.hash.slice(1));
  return { k: h.get('k'), room: h.get('room'), seat: h.get('seat') };
}

// The link that opens a new table, if this browser has seen the server's key.
export function newTableLink() {
  const k = S.link.k || localStorage.getItem(KEY_STORE);
  return k ? `${location.origin}${location.pathname}#k=${k}` : null;
}

export function seatLink(table, key) {
  return `${location.origin}${location.pathname}#room=${table}&seat=${key}`;
}

export function watchLink(table) {
  return `${location.origin}${location.pathname}#room=${table}`;
}

let handlers = { message: () => {}, status: () => {}, fatal: () => {} };
let opened = false, fatal = false, retry = 0;

export function offline() {
  return document.documentElement.dataset.transport === 'offline' || location.hash === '#offline';
}

export function connect(h) {
  handlers = h || handlers;
  if (offline()) {
    connectOffline();
    return;
  }
  S.link = parseLink();
  const q = new URLSearchParams();
  if (S.link.room) {
    q.set('room', S.link.room);
    const me = S.link.seat || localStorage.getItem(seatStore(S.link.room));
    if (me) q.set('me', me);
  } else if (S.link.k) {
    localStorage.setItem(KEY_STORE, S.link.k);
    q.set('k', S.link.k);
  } else {
    handlers.fatal('Open the link printed by `meeple gui`, or an invitation.');
    return;
  }
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(`${proto}//${location.host}/ws?${q}`);
  S.ws = ws;
  opened = false;
  ws.onopen = () => { opened = true; retry = 0; handlers.status('connected', 'ok'); };
  ws.onmessage = (e) => {
    let m;
    try { m = JSON.parse(e.data); } catch (_) { return; }
    if (m.t === 'fatal') { fatal = true; handlers.fatal(m.text); return; }
    if (m.t === 'welcome') remember(m);
    handlers.message(m);
  };
  ws.onclose = () => {
    if (fatal) return;
    if (!opened && retry >= 2) {
      handlers.fatal('This table is gone (closed, or the link is wrong).');
      return;
    }
    retry += 1;
    handlers.status('disconnected: reconnecting…', 'bad');
    setTimeout(() => connect(handlers), Math.min(5000, 500 * retry));
  };
}

// The table in this page: messages sent before it is open wait for it.
async function connectOffline() {
  S.link = {};
  let table = null;
  const waiting = [];
  S.ws = { readyState: 1, send: (text) => (table ? table.send(text) : waiting.push(text)) };
  handlers.status('starting the engine…', '');
  const receive = (text) => {
    let m;
    try { m = JSON.parse(text); } catch (_) { return; }
    if (m.t === 'fatal') { handlers.fatal(m.text); return; }
    if (m.t === 'welcome') {
      S.table = m.table;
      if (m.networked === false) hideNetworked();
    }
    handlers.message(m);
  };
  try {
    const { openOffline } = await import('./offline.js');
    table = await openOffline(receive);
    for (const text of waiting.splice(0)) table.send(text);
    handlers.status('offline: the engine runs in this page', 'ok');
  } catch (e) {
    handlers.fatal(`The engine could not start in this browser: ${e && e.message ? e.message : e}`);
  }
}

// What needs another person (invitations, chat, the seat's role) is not in
// the offline page.
function hideNetworked() {
  for (const id of ['invite', 'invite-links', 'free', 'chat-box', 'role']) {
    const el = document.getElementById(id);
    if (!el) continue;
    const row = id === 'invite' ? el.closest('.row') : el;
    row.hidden = true;
    if (id === 'invite' && row.previousElementSibling && row.previousElementSibling.tagName === 'H2') {
      row.previousElementSibling.hidden = true;
    }
  }
}

// The table's token and this browser's key, kept: a reload, a dropped
// connection or a browser restart comes back to the same seat.
function remember(m) {
  S.table = m.table;
  localStorage.setItem(seatStore(m.table), m.me);
  if (!S.link.room || S.link.seat !== m.me) {
    if (m.role !== 'spectator') history.replaceState(null, '', `#room=${m.table}&seat=${m.me}`);
    else if (!S.link.room) history.replaceState(null, '', `#room=${m.table}`);
    S.link = parseLink();
  }
}

// This browser no longer holds a seat (freed, or taken by the link opened
// elsewhere): its stored key and its address become a spectator's.
export function forgetSeat() {
  if (!S.table) return;
  localStorage.removeItem(seatStore(S.table));
  history.replaceState(null, '', `#room=${S.table}`);
  S.link = parseLink();
}

export function send(msg) {
  if (S.ws && S.ws.readyState === 1) S.ws.send(JSON.stringify(msg));
}
