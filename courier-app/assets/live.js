// Live pages: the shift page swaps in its live part (the offer, the jobs in
// hand) as the server sends it; a job page reloads when its job changes. A
// new offer vibrates the phone and beeps where the browser allows; its
// countdown shows the time left to answer.
let audio;
addEventListener("pointerdown", () => { audio ??= window.AudioContext ? new AudioContext() : undefined; }, { once: true });

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

function countdown(part) {
  const offer = part.querySelector("[data-expires]");
  const shown = offer?.querySelector("[data-countdown]");
  if (!offer || !shown) return;
  const left = Math.max(0, Math.round((Date.parse(offer.dataset.expires) - Date.now()) / 1000));
  shown.textContent = left > 0 ? `${left} s left to answer` : "Time is up";
  shown.classList.toggle("late", left <= 10);
  if (left === 0) offer.querySelectorAll("button").forEach((b) => { b.disabled = true; });
}

export function follow(root, live) {
  if (!window.EventSource) return;
  const source = new EventSource(`${root}/live`);
  source.addEventListener("signed-out", (event) => { source.close(); location.assign(event.data); });
  if (live === "shift") {
    const part = document.getElementById("live");
    let offer = part.querySelector("[data-offer]")?.dataset.offer;
    source.addEventListener("live", (event) => {
      part.innerHTML = event.data;
      const now = part.querySelector("[data-offer]")?.dataset.offer;
      if (now && now !== offer) {
        navigator.vibrate?.([300, 150, 300]);
        beep();
      }
      offer = now;
      countdown(part);
    });
    countdown(part);
    setInterval(() => countdown(part), 1000);
  } else if (live.startsWith("job:")) {
    const id = live.slice(4);
    source.addEventListener("job", (event) => {
      if (event.data === id && !window.leaving) location.reload();
    });
  }
}
