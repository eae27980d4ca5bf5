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
  // While the outbox sends, a change of this page's job (made by what is
  // sent) waits for the answers, which may lead elsewhere.
  window.sending = true;
  const results = await outbox.flush().finally(() => { window.sending = false; });
  for (const [id, result] of results) {
    if (result.signIn) { location.assign(result.signIn); return; }
    const form = mine.get(id);
    // A job finished from the phone's outbox after this page was opened
    // again: on to the shift, as if its form had been sent from here.
    if (!form && result.redirect?.includes("?ended=") && document.querySelector("[data-step]")) {
      window.leaving = true;
      location.assign(result.redirect);
      return;
    }
    if (!form) continue;
    mine.delete(id);
    // Leaving: a live reload of this page must not undo the navigation.
    if (result.redirect) { window.leaving = true; location.assign(result.redirect); return; }
    // Shown at its form: not in the banner too.
    say(form, result.refused, "refused");
    await outbox.dismiss(id);
    form.querySelectorAll("button").forEach((b) => { b.disabled = false; });
  }
  if (window.changed && !window.leaving) { location.reload(); return; }
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
        showQueuedSteps();
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

// A job in hand worked without network: each step waiting on the phone is
// done as far as this page is concerned, so the next one shows (its proof
// page is kept on the phone from when the job page was last opened online).
async function showQueuedSteps() {
  const steps = [...document.querySelectorAll("[data-step]")];
  if (!steps.length) return;
  const jobPath = `${path}/jobs/${steps[0].dataset.job}/`;
  const queued = new Set();
  for (const item of await outbox.waiting()) {
    const url = new URL(item.url, location.href);
    if (!url.pathname.startsWith(jobPath)) continue;
    const move = item.fields.find(([name]) => name === "move");
    if (move) queued.add(`move:${move[1]}`);
    const proof = url.pathname.slice(jobPath.length).match(/^proof\/(\w+)$/);
    if (proof) queued.add(`proof:${proof[1]}`);
  }
  let next = steps.findIndex((step) => !queued.has(step.dataset.step));
  if (next < 0) next = steps.length;
  steps.forEach((step, at) => { step.hidden = at !== next; });
}

// The proof pages of the job on show, kept on the phone while the network
// is there, for a dropoff without one.
async function keepProofPages() {
  if (!navigator.onLine || !("caches" in window)) return;
  const links = [...document.querySelectorAll("a[data-proof]")].map((a) => a.getAttribute("href"));
  if (!links.length) return;
  const cache = await caches.open("courier-pages");
  await Promise.all(links.map((link) => cache.add(link).catch(() => {})));
}

// The page shown for a page not kept, without network: it lists the job
// pages kept on this phone and leaves as soon as the network returns.
async function listKeptJobs() {
  const list = document.getElementById("kept-jobs");
  if (!list || !("caches" in window)) return;
  const cache = await caches.open("courier-pages");
  const links = [];
  for (const request of await cache.keys()) {
    const url = new URL(request.url);
    const job = url.pathname.match(/\/jobs\/([^/]+)$/);
    if (!job) continue;
    const link = document.createElement("a");
    link.className = "job-link";
    link.href = url.pathname;
    link.textContent = `Job …${job[1].slice(-6)}`;
    const item = document.createElement("li");
    item.append(link);
    links.push(item);
  }
  list.replaceChildren(...links);
  document.getElementById("kept-jobs-title").hidden = links.length === 0;
  // Back to the page asked for once it answers (an "online" event alone
  // is no proof: a browser may fire one without network).
  const back = async () => {
    try {
      if ((await fetch(location.href, { cache: "no-store" })).ok) location.reload();
    } catch { /* still none */ }
  };
  addEventListener("online", back);
  setInterval(back, 5000);
}

addEventListener("online", () => { showNetwork(); send(); });
setInterval(async () => { if ((await outbox.waiting()).length && navigator.onLine) send(); }, 10000);
showOutbox();
send();
showQueuedSteps();
keepProofPages();
listKeptJobs();

if (body.dataset.live) follow(root, body.dataset.live);
if ("shareLocation" in body.dataset) shareLocation(root, body.dataset.csrf, document.getElementById("location"));
if (document.getElementById("proof-form")) setUpProof(document.getElementById("proof-form"));
