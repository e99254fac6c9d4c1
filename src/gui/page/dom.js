// Building the page's elements. Every text that comes from the server or
// from another person goes in as text (textContent, attributes set one by
// one), never as HTML: nothing here parses markup.

const SVGNS = 'http://www.w3.org/2000/svg';

export const $ = (id) => document.getElementById(id);

// An HTML element: h('button', {class: 'x', onclick: f}, 'text', child...).
export function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  set(e, attrs);
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return e;
}

// An SVG element, appended to `parent` if given.
export function svg(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// An SVG <title>: the name shown on hover.
export function title(parent, text) {
  const t = svg('title', {}, parent);
  t.textContent = text;
  return t;
}

function set(e, attrs) {
  for (const k in attrs || {}) {
    const v = attrs[k];
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k === 'style') Object.assign(e.style, v);
    else if (v === true) e.setAttribute(k, '');
    else e.setAttribute(k, String(v));
  }
}

export function clear(e) {
  while (e.firstChild) e.removeChild(e.firstChild);
  return e;
}

// Replaces an element's children.
export function fill(e, ...children) {
  clear(e);
  for (const c of children.flat()) if (c) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  return e;
}

// Black or white text on a background colour.
export function textColour(bg) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(bg || '');
  if (!m) return '#000';
  const [r, g, b] = [1, 2, 3].map((i) => parseInt(m[i], 16));
  return (r * 299 + g * 587 + b * 114) / 1000 > 140 ? '#1a1a1a' : '#f5f5f5';
}

// Copies text to the clipboard (or selects it where that is not allowed).
export async function copy(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (_) {
    if (input) { input.focus(); input.select(); }
    try { return document.execCommand('copy'); } catch (_) { return false; }
  }
}
