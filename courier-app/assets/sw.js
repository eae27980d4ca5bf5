// The courier app's service worker: keeps the app's shell (styles, scripts,
// icons, the offline page) so that the app opens without network and says it
// is offline, and the last copy of each job page opened, so that a job in
// hand can still be worked on offline (its moves and proof go to the outbox).
// Pages are always asked of the network first.
const VERSION = "__VERSION__";
const SHELL = `courier-shell-${VERSION}`;
const PAGES = "courier-pages";
const ROOT = new URL("./", self.location).pathname;
const SHELL_FILES = [
  "offline", "manifest.webmanifest", "assets/app.css", "assets/app.js", "assets/outbox.js",
  "assets/live.js", "assets/location.js", "assets/proof.js", "assets/icon.svg", "assets/icon-192.png",
].map((file) => ROOT + file);

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(SHELL_FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("courier-shell-") && name !== SHELL) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || !url.pathname.startsWith(ROOT)) return;
  if (request.mode === "navigate") {
    event.respondWith(page(request, url));
  } else if (SHELL_FILES.includes(url.pathname)) {
    event.respondWith(caches.match(request, { cacheName: SHELL }).then((hit) => hit || fetch(request)));
  }
});

async function page(request, url) {
  const job = url.pathname.startsWith(`${ROOT}jobs/`);
  try {
    const response = await fetch(request);
    if (job && response.ok) {
      const copy = response.clone();
      caches.open(PAGES).then((cache) => cache.put(url.pathname, copy));
    }
    return response;
  } catch {
    const kept = job ? await caches.match(url.pathname, { cacheName: PAGES }) : undefined;
    return kept || (await caches.match(`${ROOT}offline`, { cacheName: SHELL })) || Response.error();
  }
}
