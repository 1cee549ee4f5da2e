// Copy buttons: <button class="copy-url" data-copy="<input id>" hidden>,
// shown only when scripts run; the input stays selectable without them.

document.querySelectorAll("button.copy-url[data-copy]").forEach((b) => {
  const from = document.getElementById(b.dataset.copy);
  if (!from) return;
  const status = document.createElement("span");
  status.className = "hint copy-status";
  status.setAttribute("role", "status");
  b.after(status);
  b.hidden = false;
  b.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(from.value);
    } catch {
      from.select();
      document.execCommand("copy");
    }
    status.textContent = "Copied.";
    setTimeout(() => {
      status.textContent = "";
    }, 4000);
  });
});
