// The offline site's service worker (scripts/build-web.sh writes the
// version and the list of files): every file of the site is cached when
// it is installed, so the site opens and plays with no network; each
// response it gives carries the headers that make the page cross-origin
// isolated (COOP/COEP), so that `stop` reaches a search through the shared
// flag (engine.js) from the second visit on, whatever the server sends.

const CACHE = 'meeple-@VERSION@';
const FILES = ["@FILES@"];

self.addEventListener('install', (ev) => {
  ev.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (ev) => {
  ev.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('meeple-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

function isolated(r) {
  if (!r || r.type === 'opaque' || r.status === 0) return r;
  const headers = new Headers(r.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  headers.set('Cross-Origin-Resource-Policy', 'same-origin');
  return new Response(r.body, { status: r.status, statusText: r.statusText, headers });
}

self.addEventListener('fetch', (ev) => {
  const req = ev.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== self.location.origin) return;
  ev.respondWith((async () => {
    const cache = await caches.open(CACHE);
    // The page itself, whatever its query or hash: the cached index.
    const hit = await cache.match(req, { ignoreSearch: true }) || (req.mode === 'navigate' ? await cache.match('./') : undefined);
    if (hit) return isolated(hit);
    return isolated(await fetch(req));
  })());
});
