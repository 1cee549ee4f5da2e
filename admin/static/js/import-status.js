// An import's page follows its batch: it asks the page's own address for
// the figures (JSON) every half second until the batch is done or
// failed. The bar never moves backwards: a batch taken up again after a
// failure starts a new attempt, counted from 0, which gets a new bar and
// is said in words. Screen readers hear the start, each quarter, a
// restart and the end, not every tick. At the end the server's outcome
// section (escaped there) replaces this page's.

const box = document.getElementById("import-progress");
const every = 500;

function el(tag, attrs = {}, text = "") {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
}

function follow() {
  const count = Number(box.dataset.count) || 0;
  const state = document.getElementById("import-state");
  const counter = document.getElementById("import-count");
  const label = document.getElementById("import-bar-label");
  const announce = document.getElementById("import-announce");
  let bar = document.getElementById("import-bar");
  let attempt = Number(box.dataset.attempt) || 0;
  let status = box.dataset.status;
  let shown = Number(bar.value) || 0;
  let quarter = count > 0 ? Math.floor((4 * shown) / count) : 0;
  let failures = 0;

  const say = (text) => {
    announce.textContent = text;
  };

  // restart replaces the bar with a new one at 0, for attempt n.
  const restart = (n) => {
    const next = el("progress", { id: "import-bar", max: String(count), value: "0", "data-attempt": String(n), "aria-describedby": "import-count" });
    bar.replaceWith(next);
    bar = next;
    shown = 0;
    quarter = 0;
    label.textContent = `Records applied, attempt ${n}`;
    say(`The import was interrupted and started again (attempt ${n}); its records are counted again from 0.`);
  };

  const finish = async (d) => {
    document.getElementById("import-refresh")?.remove();
    if (d.status === "done") {
      say(`Import done: ${d.created} created, ${d.updated} updated, ${d.skipped} skipped.`);
    } else {
      say(`Import failed, nothing was imported: ${d.error || "no reason given"}`);
    }
    try {
      const res = await fetch(location.pathname, { credentials: "same-origin", headers: { Accept: "text/html" } });
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      const next = doc.getElementById("import-outcome");
      const old = document.getElementById("import-outcome");
      if (next && old) old.replaceWith(document.adoptNode(next));
      const st = doc.getElementById("import-state");
      if (st) state.textContent = st.textContent;
    } catch {
      state.textContent += " Reload the page to see each record.";
    }
  };

  const show = (d) => {
    if (d.attempt > attempt) {
      if (attempt > 0) restart(d.attempt);
      attempt = d.attempt;
    }
    const value = d.status === "done" ? count : Math.max(shown, Math.min(d.processed, count));
    if (value !== shown) {
      bar.value = value;
      shown = value;
    }
    counter.textContent = `${shown} of ${count}`;
    if (d.status !== status) {
      if (d.status === "processing") say("Import started.");
      status = d.status;
    }
    if (d.status === "processing") {
      state.textContent = attempt > 1
        ? `Started again after an interruption (attempt ${attempt}), counting from 0: ${shown} of ${count} records applied.`
        : `Importing: ${shown} of ${count} records applied.`;
      const q = count > 0 ? Math.floor((4 * shown) / count) : 0;
      if (q > quarter && q < 4) say(`${q * 25}% imported.`);
      quarter = Math.max(quarter, q);
    } else if (d.status === "waiting") {
      state.textContent = "Waiting to start.";
    }
  };

  const tick = async () => {
    let d;
    try {
      const res = await fetch(location.pathname, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (res.status === 401) {
        state.textContent = "Your session has ended: sign in again in another tab; this page goes on then.";
        setTimeout(tick, 5000);
        return;
      }
      if (!res.ok) throw new Error(String(res.status));
      d = await res.json();
      failures = 0;
    } catch {
      failures++;
      if (failures === 3) state.textContent = "The server does not answer; still trying…";
      setTimeout(tick, Math.min(5000, every * 2 ** failures));
      return;
    }
    show(d);
    if (d.status === "done" || d.status === "error") {
      finish(d);
      return;
    }
    setTimeout(tick, every);
  };

  tick();
}

if (box && box.dataset.status !== "done" && box.dataset.status !== "error") follow();
