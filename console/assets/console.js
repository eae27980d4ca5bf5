// Copy buttons: <button data-copy="element-id">. The page works without it.
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (source && navigator.clipboard) {
    navigator.clipboard.writeText(source.textContent.trim()).then(() => { button.textContent = "Copied"; });
  }
});

// Live pages (a delivery, the dispatch board): the server sends the page's
// live part, rendered, on every change. Without script the page refreshes
// itself.
const live = document.querySelector("[data-live]");
if (live && window.EventSource) {
  const source = new EventSource(live.dataset.live);
  source.addEventListener("update", (event) => { live.innerHTML = event.data; });
  source.addEventListener("end", () => source.close());
}

// The booking form: Enter in an address finds it, and a click on the map
// sets the chosen point's latitude and longitude (web Mercator, as the
// server drew it: map.rs). Without script the fields are typed.
document.addEventListener("keydown", (event) => {
  const address = event.target.closest && event.target.closest("input[data-find]");
  if (!address || event.key !== "Enter") return;
  event.preventDefault();
  document.getElementById(address.dataset.find + "_find").click();
});

const pick = document.querySelector("svg[data-pick]");
const sets = document.getElementById("map-sets");
if (pick && sets) {
  sets.hidden = false;
  pick.addEventListener("click", (event) => {
    const chosen = sets.querySelector("input:checked");
    if (!chosen) return;
    const screen = pick.createSVGPoint();
    screen.x = event.clientX;
    screen.y = event.clientY;
    const at = screen.matrixTransform(pick.getScreenCTM().inverse());
    const size = 256 * 2 ** Number(pick.dataset.zoom);
    const x = (at.x + Number(pick.dataset.left)) / size;
    const y = (at.y + Number(pick.dataset.top)) / size;
    const longitude = x * 360 - 180;
    const latitude = (Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) * 180) / Math.PI;
    document.getElementById(chosen.value + "_latitude").value = latitude.toFixed(6);
    document.getElementById(chosen.value + "_longitude").value = longitude.toFixed(6);
    const marker = pick.querySelector(`[data-point="${chosen.value}"]`);
    marker.setAttribute("transform", `translate(${at.x.toFixed(1)} ${at.y.toFixed(1)})`);
    marker.removeAttribute("visibility");
    // On to the next point, so that A then B is two clicks.
    const choices = [...sets.querySelectorAll("input")];
    const next = choices[choices.indexOf(chosen) + 1];
    if (next) next.checked = true;
  });
}

// Planning takes the seconds the solver was given: the form shows them
// passing (`data-progress`: the seconds, or "budget" for the chosen ones).
document.addEventListener("submit", (event) => {
  const form = event.target.closest("form[data-progress]");
  if (!form) return;
  const budget = form.querySelector("select[name=budget_seconds]");
  const seconds = Number(budget ? budget.value : form.dataset.progress) || 10;
  const bar = form.querySelector("progress");
  const text = form.querySelector("[aria-live]");
  form.querySelectorAll("button").forEach((button) => { button.disabled = true; });
  if (!bar || !text) return;
  bar.hidden = false;
  const started = Date.now();
  const tick = () => {
    const passed = Math.min((Date.now() - started) / 1000, seconds);
    bar.value = (passed / seconds) * 100;
    text.textContent = `Planning… ${Math.floor(passed)} s of ${seconds} s`;
  };
  tick();
  setInterval(tick, 250);
});

// The CSV import (`form[data-import]`): the rows are booked a part of 100
// at a time, each part's rows added to the table as it is answered, under
// a progress bar. Without script the form books them all in one request.
const importing = document.querySelector("form[data-import]");
if (importing && window.fetch) {
  importing.addEventListener("submit", async (event) => {
    event.preventDefault();
    const total = Number(importing.dataset.rows);
    const bar = document.getElementById("import-progress");
    const rows = document.getElementById("import-rows");
    const said = document.getElementById("import-said");
    importing.querySelector("button[type=submit]").disabled = true;
    bar.hidden = false;
    rows.textContent = "";
    for (let from = 0; from < total; from += 100) {
      const to = Math.min(from + 100, total);
      const body = new URLSearchParams(new FormData(importing));
      body.set("part", "1");
      body.set("from", from);
      body.set("to", to);
      said.textContent = `Importing: ${from} of ${total} rows…`;
      const answer = await fetch(importing.action, { method: "POST", body, credentials: "same-origin" }).catch(() => null);
      if (!answer || !answer.ok) {
        said.textContent = `The import stopped after ${from} of ${total} rows. Import the file again to go on: rows already booked are not booked twice.`;
        return;
      }
      rows.insertAdjacentHTML("beforeend", await answer.text());
      bar.value = to;
    }
    const booked = rows.querySelectorAll("tr.created").length;
    const refused = rows.querySelectorAll("tr.refused").length;
    said.textContent = `${booked} of ${total} rows booked` + (refused ? `, ${refused} refused.` : ".");
    const list = document.createElement("a");
    list.href = importing.dataset.list;
    list.textContent = "See the deliveries";
    said.append(" ", list);
    importing.hidden = true;
    const steps = document.querySelectorAll("ol.steps li");
    steps.forEach((step) => step.removeAttribute("aria-current"));
    steps[steps.length - 1].setAttribute("aria-current", "step");
  });
}
