// Live pages: every signed-in page shows an offer on top as the server
// sends it (the shift page in its live part, with the jobs in hand), says
// aloud what someone else changed (a job given, cancelled or reassigned,
// an offer missed), and a job page reloads when its job changes. A new
// offer or alert vibrates the phone and beeps once the page has been
// touched (browsers allow neither before); until then the bar asks for
// one tap (it keeps its place when it goes: nothing moves under a finger). An offer's countdown shows the time left to answer.
const MISSED_KEY = "courier-missed";
/** A missed offer is said on the shift page for this long. */
const MISSED_FOR_MS = 8 * 3600 * 1000;

let audio;
const prompt = document.getElementById("alerts-prompt");
const touched = () => navigator.userActivation?.hasBeenActive ?? Boolean(audio);
addEventListener("pointerdown", () => {
  audio ??= window.AudioContext ? new AudioContext() : undefined;
  prompt?.classList.add("done");
}, { once: true });

function beep() {
  if (!audio) return;
  const tone = audio.createOscillator();
  const gain = audio.createGain();
  tone.frequency.value = 880;
  gain.gain.value = 0.25;
  tone.connect(gain).connect(audio.destination);
  tone.start();
  tone.stop(audio.currentTime + 0.35);
}

function ring() {
  if (!touched()) return;
  navigator.vibrate?.([300, 150, 300]);
  beep();
}

function countdown(part) {
  const offer = part?.querySelector("[data-expires]");
  const shown = offer?.querySelector("[data-countdown]");
  if (!offer || !shown) return;
  const left = Math.max(0, Math.round((Date.parse(offer.dataset.expires) - Date.now()) / 1000));
  shown.textContent = left > 0 ? `${left} s left to answer` : "Time is up";
  shown.classList.toggle("late", left <= 10);
  if (left === 0) offer.querySelectorAll("button").forEach((b) => { b.disabled = true; });
}

function tell(text) {
  const alert = document.getElementById("alert");
  if (!alert) return;
  const words = document.createElement("span");
  words.textContent = text;
  const dismiss = document.createElement("button");
  dismiss.type = "button";
  dismiss.className = "link";
  dismiss.textContent = "OK";
  dismiss.addEventListener("click", () => { alert.hidden = true; });
  alert.replaceChildren(words, dismiss);
  alert.hidden = false;
  ring();
}

/** The shift page says the last offer missed, until it is dismissed. */
export function showMissed() {
  const missed = document.getElementById("missed");
  if (!missed) return;
  let kept = null;
  try { kept = JSON.parse(localStorage.getItem(MISSED_KEY) || "null"); } catch { /* none */ }
  if (!kept || Date.now() - kept.at > MISSED_FOR_MS) { missed.hidden = true; return; }
  const dismiss = document.createElement("button");
  dismiss.type = "button";
  dismiss.className = "link";
  dismiss.textContent = "OK";
  dismiss.addEventListener("click", () => { localStorage.removeItem(MISSED_KEY); missed.hidden = true; });
  missed.replaceChildren(document.createTextNode(`${kept.text} `), dismiss);
  missed.hidden = false;
}

export function follow(root, live) {
  showMissed();
  if (touched()) prompt?.classList.add("done");
  if (!window.EventSource) return;
  const source = new EventSource(`${root}/live`);
  source.addEventListener("signed-out", (event) => { source.close(); location.assign(event.data); });
  // Where the offer shows: the shift's live part, or the banner on top.
  const shift = live === "shift" ? document.getElementById("live") : null;
  const banner = document.getElementById("offer-banner");
  const part = shift ?? banner;
  let offer = part?.querySelector("[data-offer]")?.dataset.offer;
  const shown = () => {
    const now = part.querySelector("[data-offer]")?.dataset.offer;
    if (now && now !== offer) ring();
    offer = now;
    countdown(part);
  };
  if (shift) {
    source.addEventListener("live", (event) => { shift.innerHTML = event.data; shown(); });
  } else if (banner) {
    source.addEventListener("offer", (event) => {
      banner.innerHTML = event.data;
      banner.hidden = !banner.querySelector("[data-offer]");
      shown();
    });
  }
  source.addEventListener("alert", (event) => tell(event.data));
  source.addEventListener("missed", (event) => {
    try { localStorage.setItem(MISSED_KEY, JSON.stringify({ text: event.data, at: Date.now() })); } catch { /* private mode */ }
    tell(event.data);
    showMissed();
  });
  if (live.startsWith("job:")) {
    const id = live.slice(4);
    source.addEventListener("job", (event) => {
      if (event.data !== id || window.leaving) return;
      if (window.sending) window.changed = true;
      else location.reload();
    });
  }
  countdown(part);
  setInterval(() => countdown(part), 1000);
}
