// What every page of the courier app adds to its plain forms: the service
// worker, the phone's time zone, the network and outbox banners, forms sent
// through the outbox, live updates, location sharing and the proof form.
import * as outbox from "./outbox.js";
import { follow } from "./live.js";
import { shareLocation } from "./location.js";
import { prepareProof, setUpProof } from "./proof.js";

const body = document.body;
const root = body.dataset.root;
const path = new URL(root, location.href).pathname;

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register(`${path}/sw.js`, { scope: `${path}/` }).catch(() => {});
}

try {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone) document.cookie = `courier_tz=${encodeURIComponent(zone)}; path=${path}; max-age=31536000; samesite=lax`;
} catch { /* UTC it is */ }

// Offline: say so.
const network = document.getElementById("network");
const showNetwork = () => { network.hidden = navigator.onLine; };
addEventListener("online", showNetwork);
addEventListener("offline", showNetwork);
showNetwork();

// What waits on this phone, and what the core refused after it was sent.
const banner = document.getElementById("outbox");
const list = document.getElementById("outbox-list");
async function showOutbox() {
  const [waiting, refused] = await Promise.all([outbox.waiting(), outbox.refused()]);
  const lines = [];
  if (waiting.length) {
    lines.push(el("p", `${waiting.length} ${waiting.length === 1 ? "action waits" : "actions wait"} on this phone to be sent: ${waiting.map((i) => i.label).join(", ")}.`));
  }
  for (const item of refused) {
    const line = el("p", `Not done: ${item.label}: ${item.message} `, "refused");
    const dismiss = el("button", "OK", "link");
    dismiss.type = "button";
    dismiss.addEventListener("click", async () => { await outbox.dismiss(item.id); showOutbox(); });
    line.append(dismiss);
    lines.push(line);
  }
  banner.replaceChildren(...lines);
  banner.hidden = lines.length === 0;
  if (list) list.replaceChildren(...lines.map((l) => l.cloneNode(true)));
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  node.textContent = text;
  if (className) node.className = className;
  return node;
}

// Sends what waits; the page that made an item goes where its answer says.
const mine = new Map();
async function send() {
  const results = await outbox.flush();
  for (const [id, result] of results) {
    if (result.signIn) { location.assign(result.signIn); return; }
    const form = mine.get(id);
    if (!form) continue;
    mine.delete(id);
    if (result.redirect) { location.assign(result.redirect); return; }
    // Shown at its form: not in the banner too.
    say(form, result.refused, "refused");
    await outbox.dismiss(id);
    form.querySelectorAll("button").forEach((b) => { b.disabled = false; });
  }
  showOutbox();
}

function say(form, text, state) {
  const status = form.querySelector(".form-status");
  if (!status) return;
  status.textContent = text;
  status.className = `form-status ${state}`;
  status.hidden = false;
}

// Moves and proofs go through the outbox: kept on the phone first, then
// sent, so that one made without network is sent when it returns.
for (const form of document.querySelectorAll("form[data-outbox]")) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const buttons = form.querySelectorAll("button");
    buttons.forEach((b) => { b.disabled = true; });
    say(form, "Sending…", "sending");
    try {
      const fields = form.id === "proof-form" ? await prepareProof(form) : [...new FormData(form)];
      const id = await outbox.add({ url: form.action, label: form.dataset.outbox, multipart: form.enctype === "multipart/form-data", fields });
      mine.set(id, form);
      window.leaving = true;
      await send();
      if (mine.has(id)) {
        window.leaving = false;
        say(form, "No network: saved on this phone. It is sent by itself when the network returns.", "waiting");
      }
    } catch (error) {
      say(form, `Not saved: ${error.message}`, "refused");
      buttons.forEach((b) => { b.disabled = false; });
    }
  });
}

// Signing out: what the worker kept of this courier's pages goes too.
document.getElementById("sign-out")?.addEventListener("submit", async (event) => {
  if (!("caches" in window)) return;
  event.preventDefault();
  await caches.delete("courier-pages").catch(() => {});
  event.target.submit();
});

addEventListener("online", () => { showNetwork(); send(); });
setInterval(async () => { if ((await outbox.waiting()).length && navigator.onLine) send(); }, 10000);
showOutbox();
send();

if (body.dataset.live) follow(root, body.dataset.live);
if ("shareLocation" in body.dataset) shareLocation(root, body.dataset.csrf, document.getElementById("location"));
if (document.getElementById("proof-form")) setUpProof(document.getElementById("proof-form"));
