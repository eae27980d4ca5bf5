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
