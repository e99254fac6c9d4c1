// The page's state, shared by its rooms: what the server last said and
// what the person is doing (building a move, reviewing a position).

export const S = {
  ws: null, me: null, role: null, table: null, games: null, limits: null,
  st: null,          // the table's last state (with `me`, this browser's own part)
  mine: null,        // this browser's own part of the state: {role, you, guest_key}
  tree: null,        // the move tree being walked (levels added as they come)
  path: [],          // children chosen from the tree's root, in order
  waitingLevel: null, // the prefix whose level was asked for
  anim: null,        // selections being shown for an engine's move: {sels, taken}
  info: {}, infoSide: null,
  analysis: null,    // the last analysis
  review: null,      // {ply, board, move} while reviewing a past position
  judge: null,       // the engine's review of the game (the last `gamereview`)
  better: null,      // {ply, move, board}: a better move of the review shown
  stateAt: Date.now(), // when the last state came (clocks count from it)
  link: {},
  leaderboard: null,
};

// Rooms that need the page redrawn call S.render() (set by app.js).
S.render = () => {};

export function over(board) {
  return !!board && !!board.state && (board.state.endsWith('Wins') || board.state === 'Draw');
}

// True when this browser may move now.
export function myTurn() {
  const st = S.st;
  if (!st || !st.board || !S.tree || st.searching || st.result || S.review || S.better) return false;
  const b = st.board;
  if (over(b)) return false;
  return st.me.you.includes(b.turn) && st.players[b.turn].kind !== 'engine';
}

// This browser's own part of the state (sent apart, only when it changes).
export function mine() {
  return S.mine || { role: S.role, you: [], guest_key: null };
}

export function family() {
  return S.st && S.st.board ? S.st.board.family : null;
}
