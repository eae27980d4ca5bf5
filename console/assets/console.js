// Copy buttons: <button data-copy="element-id">. The page works without it.
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (source && navigator.clipboard) {
    navigator.clipboard.writeText(source.textContent.trim()).then(() => { button.textContent = "Copied"; });
  }
});
