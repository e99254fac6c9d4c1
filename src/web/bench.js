// The test page of the engine worker (bench.html): a console to type
// protocol lines, and `window.meepleBench`, which scripts/bench_web.py and
// the web test drive through Selenium. Times are measured here, with
// performance.now().

import { MeepleEngine } from "./engine.js";
import { memorySaves } from "./saves-store.js";

const out = document.getElementById("out");
const input = document.getElementById("line");

function show(text) {
    out.append(text + "\n");
    if (out.childNodes.length > 4000) out.textContent = "";
    out.scrollTop = out.scrollHeight;
}

const bench = {
    engine: null,
    // Every line received, with its arrival time.
    lines: [],
    watchers: [],
    restarts: 0,
    show: true,

    onLine(line) {
        const at = performance.now();
        this.lines.push({ line, at });
        if (this.show) show(line);
        for (const w of [...this.watchers]) w(line, at);
    },

    /// Starts an engine (options of MeepleEngine.start, saves in memory
    /// unless `idb`); resolves with the time it took and the stop mode.
    async start(opts = {}) {
        if (this.engine) this.engine.terminate();
        this.lines = [];
        const t0 = performance.now();
        this.engine = await MeepleEngine.start({
            ...opts,
            saves: opts.idb ? undefined : memorySaves(opts.files || {}),
            onLine: (l) => this.onLine(l),
            onRestart: () => this.restarts++,
        });
        document.getElementById("mode").textContent =
            this.engine.sharedStop ? "Stop: shared flag." : "Stop: fallback (restart).";
        return { ms: performance.now() - t0, sharedStop: this.engine.sharedStop, sinceOpen: performance.now() };
    },

    /// The first line from index `from` on matching `re` (a RegExp source),
    /// waiting up to `timeout` ms for it.
    waitFor(re, from, timeout = 600000) {
        const rx = new RegExp(re);
        const seen = this.lines.slice(from).find((l) => rx.test(l.line));
        if (seen) return Promise.resolve(seen);
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
                this.watchers = this.watchers.filter((w) => w !== watch);
                reject(new Error(`no line matching /${re}/ within ${timeout} ms`));
            }, timeout);
            const watch = (line, at) => {
                if (!rx.test(line)) return;
                clearTimeout(timer);
                this.watchers = this.watchers.filter((w) => w !== watch);
                resolve({ line, at });
            };
            this.watchers.push(watch);
        });
    },

    /// Sends `lines`, then waits for a line matching `until`: the lines
    /// received meanwhile and the time from the last line sent to it;
    /// then, if `then` is given, for a line matching it (the end of that
    /// reply: `^ok$`).
    async job(lines, until, then, timeout) {
        const from = this.lines.length;
        let sent = 0;
        for (const l of lines) {
            sent = performance.now();
            this.engine.send(l);
        }
        const end = await this.waitFor(until, from, timeout);
        const got = this.lines.slice(from).map((l) => l.line);
        const upTo = got.indexOf(end.line) + 1;
        if (then && !new RegExp(then).test(end.line)) await this.waitFor(then, from + upTo, timeout);
        return { ms: end.at - sent, lines: got.slice(0, upTo) };
    },

    /// Runs `setup`, waits for a line matching `running` (the search has
    /// begun) and `after` ms more, sends `stop` and times its `bestmove`
    /// (each wait gives up after `timeout` ms).
    async stopLatency(setup, running, after, timeout) {
        const from = this.lines.length;
        for (const l of setup) this.engine.send(l);
        await this.waitFor(running, from, timeout);
        await new Promise((r) => setTimeout(r, after));
        const mark = this.lines.length;
        const sent = performance.now();
        this.engine.send("stop");
        const end = await this.waitFor("^bestmove ", mark, timeout);
        const ok = await this.waitFor("^ok$", mark, timeout);
        return { ms: end.at - sent, line: end.line, lines: this.lines.slice(mark).map((l) => l.line), okMs: ok.at - sent };
    },
};

window.meepleBench = bench;

input.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || !bench.engine) return;
    show("> " + input.value);
    bench.engine.send(input.value);
    input.value = "";
});

// Scripts start the engine themselves; `bench.html?console` starts one
// with the browser's own storage, to type at.
if (new URLSearchParams(location.search).has("console")) {
    bench.start({ idb: true }).catch((e) => show(String(e)));
}
