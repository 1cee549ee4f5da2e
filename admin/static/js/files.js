// The media library's pages. The upload form sends each file on its own,
// with a progress bar beside its name, then shows beside it what the
// server said (the service's text when refused) and puts the new files
// at the top of the list; without scripts the form sends them all at
// once and the page answers the same. A file's page gets a Copy button
// for its url.

import { el, uploadFile, thumb, meta, trackLine, sameAdmin } from "./upload.js";
import "./copy.js";

const form = document.getElementById("file-upload");
const input = document.getElementById("f-file");
const progress = document.getElementById("upload-progress");
const summary = document.getElementById("upload-summary");

// card builds a file's entry of the list as the server renders it.
function card(f) {
  const li = el("li", { class: "file-card", "data-id": f.id });
  const page = sameAdmin(f.page);
  const a = el("a", { class: "file-thumb", href: page, tabindex: "-1", "aria-hidden": "true" });
  a.append(thumb(f));
  li.append(a, el("a", { class: "file-name", href: page }, f.name), el("span", { class: "file-meta" }, meta(f)));
  const t = trackLine(f);
  if (t) li.append(t);
  return li;
}

function addToList(f) {
  let grid = document.querySelector("ul.file-grid");
  if (!grid) {
    grid = el("ul", { class: "file-grid", "aria-label": "Files, newest first" });
    const empty = form.parentElement.querySelector(".file-filters + p");
    if (empty) empty.replaceWith(grid);
    else document.querySelector(".file-filters").after(grid);
  }
  const old = grid.querySelector(`li[data-id="${CSS.escape(f.id)}"]`);
  if (old) old.remove();
  grid.prepend(card(f));
}

async function uploadAll(files) {
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  progress.hidden = false;
  progress.replaceChildren();
  summary.textContent = "";
  const rows = files.map((file) => {
    const li = el("li", { class: "upload-row" });
    const bar = el("progress", { max: "100", value: "0", "aria-label": `Uploading ${file.name}` });
    const status = el("span", { class: "upload-status" }, "waiting");
    li.append(el("span", { class: "file-name" }, file.name), " ", bar, " ", status);
    progress.append(li);
    return { file, li, bar, status };
  });
  let refused = 0;
  for (const row of rows) {
    row.status.textContent = "uploading…";
    const r = await uploadFile(row.file, (x) => {
      row.bar.value = Math.round(x * 100);
    });
    row.bar.remove();
    if (r.file) {
      row.status.textContent = r.existing ? "already in Files as " : "uploaded as ";
      row.status.append(el("a", { href: sameAdmin(r.file.page) }, r.file.id));
      row.li.classList.add("done");
      addToList(r.file);
    } else {
      refused++;
      row.status.textContent = `${r.fail} (nothing was stored)`;
      row.status.classList.add("field-error");
      row.li.classList.add("refused");
    }
  }
  summary.textContent = refused ? `${rows.length - refused} of ${rows.length} uploaded; ${refused} refused.` : `${rows.length} uploaded.`;
  input.value = "";
  button.disabled = false;
}

if (form && input && progress && summary) {
  form.addEventListener("submit", (ev) => {
    const files = [...input.files];
    if (files.length === 0) return; // the server says to choose one
    ev.preventDefault();
    uploadAll(files);
  });
}
