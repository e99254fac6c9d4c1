// The meeple engine in a Web Worker (a module worker): the protocol of
// the native binary, a line at a time. `engine.js` (the page's side) is
// its one client; protocol.md, "The engine in a browser", describes the
// messages.
//
// In:  {t: "init", module?, wasm?, gameType, saves, restore, greet,
//       logLevel, signals?}     once, first
//      {t: "line", id, line, signal?}   one protocol line; `signal` is
//                                        "stop" or "ponderhit" when the
//                                        page counted it in `signals`
// Out: {t: "ready"} | {t: "error", message}
//      {t: "out", text}            reply lines exactly as over a pipe
//      {t: "search", reply}        a search runs; what a stop would answer
//      {t: "saved", name, text}    a save to keep
//      {t: "done", id, restore?, exit?}  the line is answered; the lines
//                                        that rebuild the state, if they
//                                        changed; the exit status on quit
//      {t: "crash", id, message}   the engine failed; this worker is done

import init, { Engine } from "./meeple.js";

let engine = null;
// Counters the page raises for `stop`/`quit` (0) and `ponderhit` (1) and
// this worker lowers once it has answered the line: a search polls them.
let signals = null;
let waiting = [];
let lastRestore = "";
let searched = false;
let dead = false;

self.meepleHost = {
    output: (text) => postMessage({ t: "out", text }),
    stopPending: () => signals !== null && Atomics.load(signals, 0) > 0,
    ponderhitPending: () => signals !== null && Atomics.load(signals, 1) > 0,
    searching: (reply) => {
        searched = true;
        postMessage({ t: "search", reply });
    },
    saved: (name, text) => postMessage({ t: "saved", name, text }),
};

function answer(m) {
    if (dead) return;
    searched = false;
    let exit;
    try {
        exit = engine.line(m.line);
    } catch (e) {
        dead = true;
        postMessage({ t: "crash", id: m.id, message: String(e && e.stack || e) });
        return;
    } finally {
        if (signals !== null && m.signal === "stop") Atomics.sub(signals, 0, 1);
        if (signals !== null && m.signal === "ponderhit") Atomics.sub(signals, 1, 1);
    }
    const done = { t: "done", id: m.id };
    // A search changes nothing the lines hold.
    if (!searched) {
        const restore = engine.restore_lines();
        const key = restore.join("\n");
        if (key !== lastRestore) {
            lastRestore = key;
            done.restore = restore;
        }
    }
    if (exit !== undefined) {
        done.exit = exit;
        dead = true;
    }
    postMessage(done);
}

self.onmessage = async (e) => {
    const m = e.data;
    if (m.t === "init") {
        try {
            await init({ module_or_path: m.module || m.wasm || new URL("./meeple_bg.wasm", import.meta.url) });
            if (m.signals) signals = new Int32Array(m.signals);
            const restore = m.restore || [];
            lastRestore = restore.join("\n");
            engine = new Engine(m.gameType || "Connect4", JSON.stringify(m.saves || {}), restore,
                m.greet !== false, m.logLevel || "warn");
        } catch (err) {
            postMessage({ t: "error", message: String(err && err.stack || err) });
            return;
        }
        postMessage({ t: "ready" });
        const queued = waiting;
        waiting = [];
        for (const q of queued) answer(q);
    } else if (m.t === "line") {
        if (engine === null) waiting.push(m);
        else answer(m);
    }
};
