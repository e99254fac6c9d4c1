// Where the browser keeps the engine's saves: IndexedDB (database
// "meeple", object store "saves"), one record per save, its key the save's
// name and its value the text of the save file, byte for byte what
// `meeple` writes to `<data-dir>/saves/<name>.json`, so a save moves
// between the browser and the native engine as it is. Works in a page and
// in a worker. Without IndexedDB (a private window may refuse it) the
// saves live as long as the page.

const DB = "meeple";
const STORE = "saves";

function request(r) {
    return new Promise((resolve, reject) => {
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
    });
}

/// {load() -> Promise<{name: text}>, put(name, text) -> Promise}.
export async function openSaves() {
    let db = null;
    try {
        const open = indexedDB.open(DB, 1);
        open.onupgradeneeded = () => open.result.createObjectStore(STORE);
        db = await request(open);
    } catch (e) {
        console.warn(`meeple: no IndexedDB (${e}); saves last as long as the page`);
        return memorySaves();
    }
    return {
        async load() {
            const tx = db.transaction(STORE, "readonly");
            const store = tx.objectStore(STORE);
            const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
            const files = {};
            keys.forEach((k, i) => {
                if (typeof k === "string" && typeof values[i] === "string") files[k] = values[i];
            });
            return files;
        },
        put(name, text) {
            const tx = db.transaction(STORE, "readwrite");
            tx.objectStore(STORE).put(text, name);
            return new Promise((resolve, reject) => {
                tx.oncomplete = () => resolve();
                tx.onerror = () => reject(tx.error);
                tx.onabort = () => reject(tx.error);
            });
        },
    };
}

/// Saves in memory only (tests, or no IndexedDB).
export function memorySaves(files = {}) {
    const kept = { ...files };
    return {
        async load() {
            return { ...kept };
        },
        async put(name, text) {
            kept[name] = text;
        },
    };
}
