// The offline transport: the table runs in this page (the same table as
// `meeple gui`'s, compiled to WebAssembly: meeple.js and meeple_bg.wasm),
// its engine in a Web Worker (engine.js), its saves in IndexedDB
// (saves-store.js) and its results in localStorage. It speaks the very
// messages of the WebSocket, so the page does not know which it has.
// Loaded only by the offline site (scripts/build-web.sh), never by the
// server's page.

import init, { OfflineTable } from './meeple.js';
import { MeepleEngine, compile } from './engine.js';

const RESULTS_STORE = 'meeple-results';

// Opens the table; `onMessage(text)` gets each of its messages. Resolves
// to an object with send(text).
export async function openOffline(onMessage) {
  // Cached for offline use (and the COOP/COEP headers) by the service
  // worker; a page opened from a file or without one still plays.
  if ('serviceWorker' in navigator && location.protocol !== 'file:') {
    navigator.serviceWorker.register('./sw.js').catch((e) => console.warn(`meeple: no offline cache: ${e}`));
  }
  const module = await compile(new URL('./meeple_bg.wasm', import.meta.url));
  await init({ module_or_path: module });
  // What the table asks of the page (src/gui/client/worker.rs,
  // src/gui/record/local.rs).
  globalThis.meepleOffline = {
    startEngine: (onLine, onExit) => MeepleEngine.start({ onLine, onExit, module }),
    readResults: () => localStorage.getItem(RESULTS_STORE),
    writeResults: (text) => {
      try {
        localStorage.setItem(RESULTS_STORE, text);
        return true;
      } catch (e) {
        console.error(`meeple: cannot keep the results: ${e}`);
        return false;
      }
    },
  };
  return OfflineTable.open(onMessage, 'warn');
}
