// The page's side of the meeple engine in a Web Worker: send protocol
// lines, receive reply lines exactly as over a pipe (the banner first).
// Usable from a page or from another worker (no DOM). See protocol.md,
// "The engine in a browser".
//
//   import { MeepleEngine } from "./engine.js";
//   const engine = await MeepleEngine.start({ onLine: (l) => console.log(l) });
//   engine.send("newgame Connect4");
//   engine.send("go movetime 500");
//   engine.send("stop");              // acts within the search
//
// `stop` (and `quit`, `ponderhit`) reach a running search in one of two
// ways:
// - shared flag: where the page is cross-origin isolated (served with
//   `Cross-Origin-Opener-Policy: same-origin` and
//   `Cross-Origin-Embedder-Policy: require-corp`), a SharedArrayBuffer
//   holds a counter of the `stop` lines sent and not yet answered; the
//   search polls it as the native engine polls its stop flag;
// - fallback: otherwise the worker, busy with the search, cannot hear the
//   `stop`: this side answers for it with the best move the search has
//   reported so far (else a legal move), ends the worker, and starts a new
//   one at the same state (the lines of `restore`: options, game with its
//   history and hidden secret, dialect), to which the lines that waited
//   behind the search are sent again. The compiled module is kept, so a
//   restart costs no download and no compilation.

import { openSaves } from "./saves-store.js";

const SIGNAL_OF = { stop: "stop", quit: "stop", ponderhit: "ponderhit" };

export class MeepleEngine {
    /// Options: onLine(line), onExit(status), onRestart(reason),
    /// gameType (default game type, "Connect4"), workerUrl, wasmUrl,
    /// module (a compiled WebAssembly.Module), saves (an object with
    /// load() -> Promise<{name: text}> and put(name, text); default: the
    /// browser's IndexedDB, see saves-store.js), sharedStop (true: require
    /// the shared flag, false: never use it, default: use it where the page
    /// is cross-origin isolated), logLevel.
    static async start(options = {}) {
        const e = new MeepleEngine(options);
        await e.#boot();
        return e;
    }

    constructor(options) {
        this.options = options;
        this.onLine = options.onLine || (() => {});
        this.onExit = options.onExit || (() => {});
        this.onRestart = options.onRestart || (() => {});
        this.workerUrl = options.workerUrl || new URL("./engine-worker.js", import.meta.url);
        this.wasmUrl = options.wasmUrl || new URL("./meeple_bg.wasm", import.meta.url);
        const can = typeof SharedArrayBuffer !== "undefined" && globalThis.crossOriginIsolated === true;
        if (options.sharedStop === true && !can) {
            throw new Error("the shared stop flag needs a cross-origin isolated page (COOP/COEP headers)");
        }
        this.signals = options.sharedStop !== false && can ? new Int32Array(new SharedArrayBuffer(8)) : null;
        this.nextId = 1;
        // Lines sent to the worker and not answered yet, in order.
        this.inflight = [];
        // The first in-flight line runs a search: what a stop answers now.
        this.search = null;
        this.restore = [];
        this.savedFiles = {};
        this.exited = false;
        this.partial = "";
    }

    /// True if `stop` reaches a search through the shared flag (else the
    /// fallback ends the worker).
    get sharedStop() {
        return this.signals !== null;
    }

    async #boot() {
        this.store = this.options.saves || (await openSaves());
        this.savedFiles = await this.store.load();
        this.module = this.options.module || (await compile(this.wasmUrl));
        await this.#spawn(true);
    }

    #spawn(greet) {
        const w = new Worker(this.workerUrl, { type: "module" });
        this.worker = w;
        w.onmessage = (ev) => this.#receive(w, ev.data);
        w.onerror = (ev) => this.#crash(w, String(ev.message || ev));
        return new Promise((resolve, reject) => {
            this.ready = { resolve, reject };
            w.postMessage({
                t: "init",
                module: this.module,
                gameType: this.options.gameType || "Connect4",
                saves: this.savedFiles,
                restore: this.restore,
                greet,
                logLevel: this.options.logLevel || "warn",
                signals: this.signals ? this.signals.buffer : undefined,
            });
        });
    }

    /// Sends one or more protocol lines (`\n`-separated).
    send(text) {
        if (this.exited) return;
        for (const line of String(text).split("\n")) {
            const word = line.trim().split(/\s+/)[0].toLowerCase();
            const signal = SIGNAL_OF[word];
            const m = { t: "line", id: this.nextId++, line, signal };
            if (signal && this.signals) Atomics.add(this.signals, signal === "stop" ? 0 : 1, 1);
            this.inflight.push(m);
            this.worker.postMessage(m);
            if (signal === "stop") this.#fallbackStop();
        }
    }

    /// Without the shared flag: a `stop` waits behind the search it is
    /// meant for. Once that search runs and has a move to give (now, or
    /// when its first report comes), the search is answered here and the
    /// worker restarted.
    #fallbackStop() {
        if (this.signals || !this.search || this.search.reply === null) return;
        if (this.inflight.slice(1).some((m) => m.signal === "stop")) this.#stopByRestart();
    }

    /// Ends the worker at once (no reply).
    terminate() {
        this.exited = true;
        if (this.worker) this.worker.terminate();
    }

    #emit(text) {
        const all = this.partial + text;
        const lines = all.split("\n");
        this.partial = lines.pop();
        for (const l of lines) this.onLine(l);
    }

    #receive(w, m) {
        if (w !== this.worker) return; // a worker already ended
        switch (m.t) {
            case "ready":
                this.ready.resolve();
                break;
            case "error":
                this.ready.reject(new Error(m.message));
                break;
            case "out":
                this.#emit(m.text);
                break;
            case "search":
                this.search = { id: this.inflight.length ? this.inflight[0].id : 0, reply: m.reply };
                this.#fallbackStop();
                break;
            case "saved":
                this.savedFiles[m.name] = m.text;
                Promise.resolve(this.store.put(m.name, m.text)).catch((e) =>
                    console.error(`meeple: cannot keep save '${m.name}': ${e}`));
                break;
            case "done":
                if (this.inflight.length && this.inflight[0].id === m.id) this.inflight.shift();
                this.search = null;
                if (m.restore) this.restore = m.restore;
                if (m.exit !== undefined) {
                    this.exited = true;
                    w.terminate();
                    this.onExit(m.exit);
                }
                break;
            case "crash":
                this.#crash(w, m.message);
                break;
        }
    }

    /// The fallback stop: answer for the search, restart the worker at the
    /// same state, and send it again what waited behind the search.
    #stopByRestart() {
        const reply = this.search.reply;
        this.worker.terminate();
        this.search = null;
        this.inflight.shift(); // the search's line is answered here
        this.#emit(reply);
        this.#restart("stop");
    }

    #crash(w, message) {
        if (w !== this.worker) return;
        console.error(`meeple: the engine failed: ${message}`);
        w.terminate();
        const failed = this.inflight.shift();
        // The failed line's answer: the search's move, else an error in
        // the dialect of the session (its restore lines end with `uci` or
        // `ugi` in those dialects).
        if (this.search && this.search.reply !== null) {
            this.#emit(this.search.reply);
        } else if (failed) {
            const last = this.restore[this.restore.length - 1];
            const uci = last === "uci" || last === "ugi";
            this.#emit(uci ? "info string internal error (the engine was restarted)\n"
                : "err internal error (the engine was restarted)\nok\n");
        }
        this.search = null;
        this.#restart("crash");
    }

    #restart(reason) {
        const resend = this.inflight;
        if (this.signals) {
            Atomics.store(this.signals, 0, resend.filter((m) => m.signal === "stop").length);
            Atomics.store(this.signals, 1, resend.filter((m) => m.signal === "ponderhit").length);
        }
        this.onRestart(reason);
        this.#spawn(false).catch((e) => console.error(`meeple: cannot restart the engine: ${e}`));
        // Queued in the new worker behind its set-up.
        for (const m of resend) this.worker.postMessage(m);
    }
}

/// The engine's compiled module (compiled while it downloads where the
/// server says `application/wasm`).
export async function compile(url) {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
    if (WebAssembly.compileStreaming && (r.headers.get("content-type") || "").startsWith("application/wasm")) {
        return WebAssembly.compileStreaming(r);
    }
    return WebAssembly.compile(await r.arrayBuffer());
}
