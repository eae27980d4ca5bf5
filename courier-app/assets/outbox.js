// The outbox: what the courier did (a move, a proof with its photos), kept in
// IndexedDB until the app front answers it. Items are sent in the order they
// were made, one sender at a time across tabs (a Web Lock); a network failure
// or a 5xx leaves the item for later, an answer removes it. Sending one twice
// is harmless: a proof carries its submission id and a move made already
// answers the job as it is, so what the core records happens once.
const DB = "courier-app";
const WAITING = "outbox";
const REFUSED = "refused";

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore(WAITING, { keyPath: "id", autoIncrement: true });
      request.result.createObjectStore(REFUSED, { keyPath: "id" });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function store(name, mode, work) {
  const db = await open();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(name, mode);
    const request = work(tx.objectStore(name));
    tx.oncomplete = () => { db.close(); resolve(request?.result); };
    tx.onerror = () => { db.close(); reject(tx.error); };
  });
}

/** Keeps `item` ({url, label, multipart, fields: [[name, value]]}); its id. */
export function add(item) {
  return store(WAITING, "readwrite", (s) => s.add({ ...item, made: Date.now() }));
}

export const waiting = () => store(WAITING, "readonly", (s) => s.getAll());
export const refused = () => store(REFUSED, "readonly", (s) => s.getAll());
export const dismiss = (id) => store(REFUSED, "readwrite", (s) => s.delete(id));

function bodyOf(item) {
  if (!item.multipart) return new URLSearchParams(item.fields);
  const form = new FormData();
  for (const [name, value] of item.fields) {
    if (value instanceof Blob) form.append(name, value, value.name || name);
    else form.append(name, value);
  }
  return form;
}

/** One item sent: its answer, or null to try again later. */
async function sendOne(item) {
  let response;
  try {
    response = await fetch(item.url, { method: "POST", body: bodyOf(item), headers: { "x-courier-outbox": "1" }, credentials: "same-origin" });
  } catch {
    return null;
  }
  if (response.status >= 500) return null;
  const answer = await response.json().catch(() => ({}));
  if (response.ok) return { redirect: answer.redirect };
  return { refused: answer.error || `Refused (${response.status}).`, signIn: answer.sign_in };
}

/** Sends what waits, in order, until one cannot be sent; the answers by id. */
export async function flush() {
  // The browser knows it has no network: nothing to try.
  if (!navigator.onLine) return new Map();
  const run = async () => {
    const answers = new Map();
    for (const item of await waiting()) {
      const answer = await sendOne(item);
      if (!answer) break;
      await store(WAITING, "readwrite", (s) => s.delete(item.id));
      if (answer.refused) {
        await store(REFUSED, "readwrite", (s) => s.put({ id: item.id, label: item.label, message: answer.refused }));
      }
      answers.set(item.id, answer);
      if (answer.signIn) break;
    }
    return answers;
  };
  return navigator.locks ? navigator.locks.request("courier-outbox", run) : run();
}
