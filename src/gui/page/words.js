// Scores, results and times in words a player understands.

// Moves left for a Connect Four score `s` (the benchmark convention: the
// winner's k-th stone scores cells/2 + 1 - k) of the side to move after
// `ply` plies: {who: 'mover'|'other'|'draw', moves}.
export function connect4Score(s, ply, cells) {
  if (s === 0) return { who: 'draw', moves: 0 };
  const k = cells / 2 + 1 - Math.abs(s);
  if (s > 0) return { who: 'mover', moves: k - Math.floor(ply / 2) };
  return { who: 'other', moves: k - Math.ceil(ply / 2) };
}

// `1 move`, `2 moves` (the number written as `shown`, if given).
export const plural = (n, w, shown) => `${shown === undefined ? n : shown} ${w}${n === 1 ? '' : 's'}`;

// One engine score (`cp 32`, `exact -3`, `mate 4`, `lowerbound 2`, `win`)
// in words, for `mover` (the side that searched) against `other`.
// `ctx`: {family, ply, cells}.
export function scoreWords(score, mover, other, ctx) {
  if (!score) return '';
  const [kind, numText] = score.trim().split(/\s+/);
  const n = parseInt(numText, 10);
  const c4 = ctx && ctx.family === 'Connect4' && ctx.cells;
  const winIn = (s) => {
    const r = connect4Score(s, ctx.ply, ctx.cells);
    if (r.who === 'draw') return 'a draw with best play';
    const who = r.who === 'mover' ? mover : other;
    return `${who} wins in ${plural(Math.max(1, r.moves), 'move')}`;
  };
  switch (kind) {
    case 'win': return `${mover} wins with best play`;
    case 'loss': return `${other} wins with best play`;
    case 'draw': return 'a draw with best play';
    case 'mate':
      if (n > 0) return `${mover} wins in ${plural(n, 'move')}`;
      if (n < 0) return `${other} wins in ${plural(-n, 'move')}`;
      return 'a draw';
    case 'exact':
      if (c4) return winIn(n);
      return n > 0 ? `${mover} wins` : n < 0 ? `${other} wins` : 'a draw with best play';
    case 'lowerbound':
      if (n > 0) return `${mover} wins (proven)`;
      if (n === 0) return `${mover} does not lose (proven)`;
      return `${mover} holds out: not lost soon (proven)`;
    case 'upperbound':
      if (n < 0) return `${other} wins (proven)`;
      if (n === 0) return `${mover} cannot win (proven)`;
      return `${mover} cannot win quickly (proven)`;
    case 'cp': {
      const v = n / 100, a = Math.abs(v);
      const ahead = v > 0 ? mover : other;
      const amount = a < 0.3 ? null : a < 1 ? 'slightly better' : a < 3 ? 'better' : 'much better';
      const sign = (v >= 0 ? '+' : '') + v.toFixed(2);
      return amount ? `${ahead} is ${amount} (${sign} for ${mover})` : `about equal (${sign} for ${mover})`;
    }
    default: return score;
  }
}

// A Connect Four column's analysis (`3`, `-2`, `0`, `-`, `>=1`, `<=0`,
// `1..3`, `?`) in words for the side to move.
export function columnWords(text, ply, cells) {
  if (text === '-') return 'full';
  if (text === '?') return 'unknown';
  if (/^-?\d+$/.test(text)) {
    const s = parseInt(text, 10);
    const r = connect4Score(s, ply, cells);
    if (r.who === 'draw') return 'draw';
    return `${r.who === 'mover' ? 'win' : 'loss'} in ${Math.max(1, r.moves)}`;
  }
  let m = /^>=(-?\d+)$/.exec(text);
  if (m) return parseInt(m[1], 10) > 0 ? 'win' : parseInt(m[1], 10) === 0 ? 'draw or win' : 'not yet known';
  m = /^<=(-?\d+)$/.exec(text);
  if (m) return parseInt(m[1], 10) < 0 ? 'loss' : parseInt(m[1], 10) === 0 ? 'draw or loss' : 'not yet known';
  m = /^(-?\d+)\.\.(-?\d+)$/.exec(text);
  if (m) {
    const [a, b] = [parseInt(m[1], 10), parseInt(m[2], 10)];
    if (a > 0) return 'win';
    if (b < 0) return 'loss';
    return 'not yet known';
  }
  return text;
}

// Milliseconds as a clock shows them: 4:05, 0:09.3 under 10 s, -0:02;
// never `-0:00.0` (a time over by less than shows is no time).
export function clockText(ms) {
  const a = Math.abs(ms);
  const m = Math.floor(a / 60000), s = (a % 60000) / 1000;
  const secs = a < 10000 ? (Math.floor(s * 10) / 10).toFixed(1).padStart(4, '0') : String(Math.floor(s)).padStart(2, '0');
  const text = `${m}:${secs}`;
  return ms < 0 && /[1-9]/.test(text) ? '-' + text : text;
}

// An engine's level in words (`movetime 300` -> `0.3 s a move`).
export function levelWords(level) {
  if (!level) return '';
  let m = /^movetime (\d+)$/.exec(level);
  if (m) return `${(parseInt(m[1], 10) / 1000).toString()} s a move`;
  m = /^depth (\d+)$/.exec(level);
  if (m) return `depth ${m[1]}`;
  m = /^clock (.+)$/.exec(level);
  if (m) return `clock ${m[1]}`;
  return level;
}
