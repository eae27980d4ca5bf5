// Location sharing while the courier is online or has a job: the phone's
// positions (watchPosition) are collected and sent in batches every few
// seconds; the page says when permission is denied or the position is stale
// (a courier whose position is over two minutes old gets no offers).
const BATCH_EVERY_MS = 5000;
const STALE_MS = 120000;
/** Asked for afresh when the phone has said nothing for this long. */
const QUIET_MS = 60000;

export function shareLocation(root, csrf, status) {
  // The shift's "Online" says whether offers can come: not while the
  // position is blocked or too old.
  const availability = document.getElementById("availability");
  const online = availability?.classList.contains("online") ? availability.textContent : null;
  const say = (text, state) => {
    if (online !== null) {
      const reaches = state === "ok" || state === "waiting";
      availability.textContent = reaches ? online : "Online, but no offers reach you: your position is not being shared.";
      availability.classList.toggle("warn", !reaches);
    }
    if (!status) return;
    status.textContent = text;
    status.dataset.state = state;
  };
  if (!("geolocation" in navigator)) {
    say("This browser cannot share your location: you get no offers.", "failed");
    return;
  }
  const batch = [];
  let last = null;
  let sent = null;
  let blocked = false;

  const show = () => {
    if (blocked) return;
    if (!last) { say("Waiting for your position…", "waiting"); return; }
    const age = Date.now() - last.timestamp;
    if (age > STALE_MS) {
      say(`Your position is ${Math.round(age / 60000)} min old: you get no offers until it updates. Check that location is on.`, "stale");
    } else if (sent) {
      say(`Sharing your location (±${Math.round(last.coords.accuracy)} m).`, "ok");
    } else {
      say("Position found; sending…", "waiting");
    }
  };

  async function send() {
    if (!batch.length || !navigator.onLine) return;
    const positions = batch.splice(0, 100);
    try {
      const response = await fetch(`${root}/positions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": csrf },
        body: JSON.stringify({ positions }),
      });
      if (response.status === 401) {
        const answer = await response.json().catch(() => ({}));
        if (answer.sign_in) location.assign(answer.sign_in);
        return;
      }
      if (response.status >= 500) batch.unshift(...positions);
      else if (response.ok) sent = Date.now();
    } catch {
      batch.unshift(...positions);
    }
    show();
  }

  const fixed = (position) => {
    blocked = false;
    last = position;
    const c = position.coords;
    batch.push({ latitude: c.latitude, longitude: c.longitude, accuracy: c.accuracy, heading: c.heading, speed: c.speed, timestamp: position.timestamp });
    if (batch.length > 500) batch.splice(0, batch.length - 500);
    if (!sent) send();
    show();
  };
  const failed = (error) => {
    if (error.code === error.PERMISSION_DENIED) {
      blocked = true;
      say("Location is blocked for this app. Allow it in the browser's site settings: without it you get no offers and customers cannot follow their delivery.", "denied");
    } else {
      show();
    }
  };
  const options = { enableHighAccuracy: true, maximumAge: 10000, timeout: 60000 };
  navigator.geolocation.watchPosition(fixed, failed, options);
  setInterval(() => {
    send();
    if (last && Date.now() - last.timestamp > QUIET_MS) {
      navigator.geolocation.getCurrentPosition(fixed, failed, { ...options, maximumAge: 0 });
    }
    show();
  }, BATCH_EVERY_MS);
  show();
}
