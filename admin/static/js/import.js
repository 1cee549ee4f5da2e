// The import page. The form posts its file to the server (which reads
// and maps it), in the background, so that the chosen files stay chosen
// between Check and Import: the answer's result section (rendered by the
// server, record text escaped there as on any page) replaces this page's.
// An import's answer is a redirect to the batch's page, which is then
// opened. A changed mapping checks again by itself.

const form = document.getElementById("import-form");
const busy = document.getElementById("i-busy");
const kindField = document.getElementById("i-kind-field");
const fileInput = document.getElementById("i-file");

function source() {
  const checked = form.querySelector('input[name="source"]:checked');
  return checked ? checked.value : "json";
}

// The kind matters for JSON records only.
function showKind() {
  kindField.hidden = source() !== "json";
}

function clearResult() {
  const result = document.getElementById("import-result");
  if (result) result.replaceChildren();
  const err = document.getElementById("import-error");
  if (err) err.remove();
}

function setBusy(text) {
  busy.textContent = text;
  for (const b of document.querySelectorAll('button[form="import-form"], #import-form button')) b.disabled = text !== "";
}

// swap puts the answer's error and result in place of this page's.
function swap(html) {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const old = document.getElementById("import-result");
  const next = doc.getElementById("import-result");
  const oldErr = document.getElementById("import-error");
  if (oldErr) oldErr.remove();
  const err = doc.getElementById("import-error");
  if (err) form.before(document.adoptNode(err));
  if (old && next) old.replaceWith(document.adoptNode(next));
  if (doc.title) document.title = doc.title;
  const focus = document.getElementById("import-error") || document.getElementById("import-problems") || document.getElementById("import-result-h");
  if (focus) focus.focus();
}

async function send(submitter) {
  const step = submitter && submitter.value === "import" ? "import" : "check";
  const data = new FormData(form, submitter);
  setBusy(step === "import" ? "Importing: sending the file…" : "Checking the file…");
  let res;
  try {
    res = await fetch(form.action, { method: "POST", body: data, credentials: "same-origin", headers: { Accept: "text/html" } });
  } catch {
    setBusy("");
    busy.textContent = "The server could not be reached. Try again.";
    return;
  }
  // An import answers with its status page; any other redirect (to the
  // sign-in page, a session that ended) keeps this page and its files.
  const importPage = (document.body.dataset.prefix || "") + "/import/";
  if (res.redirected && step === "import" && new URL(res.url).pathname.startsWith(importPage)) {
    location.assign(res.url);
    return;
  }
  const html = await res.text();
  setBusy("");
  if (res.status === 401 || res.redirected) {
    busy.textContent = `Your session has ended: sign in again in another tab, then press ${step === "import" ? "Import" : "Check"} again.`;
    return;
  }
  swap(html);
}

if (form && busy && kindField && fileInput) {
  showKind();
  form.addEventListener("change", (ev) => {
    if (ev.target.name === "source") {
      showKind();
      clearResult();
    } else if (ev.target === fileInput) {
      clearResult();
    }
  });
  form.addEventListener("submit", (ev) => {
    if (fileInput.files.length === 0) return; // the server asks for a file
    ev.preventDefault();
    send(ev.submitter);
  });
  // A mapping changed: its records are checked again.
  document.addEventListener("change", (ev) => {
    if (ev.target instanceof HTMLSelectElement && ev.target.classList.contains("import-to") && fileInput.files.length > 0) {
      send(document.getElementById("i-check"));
    }
  });
}
