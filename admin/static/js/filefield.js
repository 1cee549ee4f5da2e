// The record form's file fields (.file-tools beside the URL input,
// admin/filefield.go). Choosing a file in "Upload" uploads it at once
// and puts its url in the field (a list of URLs gets a line per file);
// the form then sends no file. "Choose from files" opens a list of the
// account's files of the field's kind, with thumbnails, that works by
// keyboard (the ARIA listbox pattern: Down, Up, Home, End move, Enter
// chooses, Escape closes) and by mouse. Nothing is saved until Save.

import { el, uploadFile, listFiles, thumb, meta, trackLine } from "./upload.js";

const form = document.getElementById("record-form");

const kindNames = { image: "images", layer: "map layers (KML, KMZ)", track: "tracks (GPX, KML)" };

let seq = 0;

// announce says text to screen readers through the field's status line.
function setStatus(status, text, error = false) {
  status.textContent = text;
  status.classList.toggle("field-error", error);
}

// fits says why a file does not fit the field ("" when it does).
function fits(tools, f) {
  const accept = (tools.dataset.accept || "").split(",").filter(Boolean);
  const ext = "." + (f.url.split("?")[0].split(".").pop() || "").toLowerCase();
  if (accept.length && !accept.includes(ext)) {
    const names = accept.length > 1 ? `${accept.slice(0, -1).join(", ")} or ${accept[accept.length - 1]}` : accept[0];
    return `This field takes ${names} files, not a ${f.typeLabel}; the file is kept in Files.`;
  }
  if (tools.dataset.kind === "track" && !f.track) return "The file holds no track; it is kept in Files.";
  return "";
}

// put writes a file's url in the field and tells the form's other
// scripts (drafts) that it changed.
function put(tools, target, f) {
  if ("multiple" in tools.dataset) {
    const v = target.value.replace(/\s+$/, "");
    target.value = v ? `${v}\n${f.url}` : f.url;
  } else {
    target.value = f.url;
  }
  target.dispatchEvent(new Event("input", { bubbles: true }));
  target.dispatchEvent(new Event("change", { bubbles: true }));
  showTrack(tools, target, f);
}

// showTrack shows the figures of a track file chosen for a track field.
function showTrack(tools, target, f) {
  if (tools.dataset.kind !== "track") return;
  let box = tools.querySelector(".file-track");
  if (!f.track) {
    if (box) box.remove();
    return;
  }
  if (!box) {
    box = el("div", { class: "file-track", id: `${target.id}-track` });
    tools.append(box);
  }
  const dl = el("dl", { class: "figures" });
  for (const [label, value] of [["Distance", f.track.distance], ["Ascent", f.track.ascent], ["Descent", f.track.descent], ["Duration", f.track.duration || "—"]]) {
    const d = el("div");
    d.append(el("dt", {}, label), el("dd", {}, value));
    dl.append(d);
  }
  box.replaceChildren(el("p", { class: "label" }, "The track of this file"), dl,
    el("p", { class: "hint" }, "The track fields left empty are filled from this file when the record is saved."));
}

function enhance(tools) {
  const target = document.getElementById(tools.dataset.for);
  if (!target) return;
  const status = el("p", { class: "hint file-status", id: `${target.id}-file-status`, "aria-live": "polite" });
  tools.append(status);

  const fileInput = tools.querySelector("input[type=file]");
  if (fileInput) {
    const send = tools.querySelector(".file-upload-send");
    if (send) send.hidden = true; // the upload starts when a file is chosen
    fileInput.addEventListener("change", async () => {
      const files = [...fileInput.files];
      if (files.length === 0) return;
      const bar = el("progress", { max: "100", value: "0", "aria-label": "Upload progress" });
      const done = [];
      const refused = [];
      for (const file of files) {
        setStatus(status, `Uploading ${file.name}…`);
        status.append(" ", bar);
        bar.value = 0;
        const r = await uploadFile(file, (x) => {
          bar.value = Math.round(x * 100);
        });
        const why = r.file ? fits(tools, r.file) : r.fail;
        if (why) {
          refused.push(`"${file.name}" was not uploaded into this field. ${why}`);
          continue;
        }
        put(tools, target, r.file);
        done.push(file.name);
      }
      fileInput.value = "";
      const parts = [];
      if (done.length) parts.push(`Uploaded ${done.join(", ")}: the url is in the field (not saved yet).`);
      parts.push(...refused);
      setStatus(status, parts.join(" "), refused.length > 0);
    });
  }

  if ("choose" in tools.dataset && tools.dataset.kind) {
    const base = `file-pick-${++seq}`;
    const open = el("button", { type: "button", class: "file-choose", "aria-expanded": "false", "aria-controls": base }, "Choose from files");
    open.append(el("span", { class: "visually-hidden" }, ` for ${document.querySelector(`label[for="${CSS.escape(target.id)}"]`)?.textContent.trim() || "this field"}`));
    const panel = el("div", { class: "file-picker", id: base });
    panel.hidden = true;
    const label = el("p", { class: "label", id: `${base}-label` }, `Your ${kindNames[tools.dataset.kind] || "files"}`);
    const hint = el("p", { class: "hint", id: `${base}-hint` }, "Down and Up to move, Enter to choose, Escape to close.");
    const list = el("ul", { role: "listbox", tabindex: "0", class: "file-options", "aria-labelledby": `${base}-label`, "aria-describedby": `${base}-hint` });
    const more = el("button", { type: "button", class: "file-more" }, "More files");
    more.hidden = true;
    const pstatus = el("p", { class: "hint", role: "status" });
    panel.append(label, hint, list, more, pstatus);
    const upload = tools.querySelector(".file-upload");
    if (upload) upload.after(open);
    else tools.prepend(open);
    tools.append(panel);

    let files = [];
    let next = "";
    let active = -1;

    const setActive = (i) => {
      const opts = [...list.children];
      if (opts.length === 0) return;
      i = Math.max(0, Math.min(i, opts.length - 1));
      opts.forEach((o, j) => o.setAttribute("aria-selected", j === i ? "true" : "false"));
      active = i;
      list.setAttribute("aria-activedescendant", opts[i].id);
      opts[i].scrollIntoView({ block: "nearest" });
    };

    const render = (from) => {
      files.slice(from).forEach((f, k) => {
        const i = from + k;
        const opt = el("li", { role: "option", id: `${base}-opt-${i}`, "aria-selected": "false", class: "file-option" });
        const pic = el("span", { class: "file-thumb" });
        pic.append(thumb(f));
        const text = el("span", { class: "file-option-text" });
        text.append(el("span", { class: "file-name" }, f.name), el("span", { class: "file-meta" }, meta(f)));
        const t = trackLine(f);
        if (t) text.append(t);
        opt.append(pic, text);
        opt.addEventListener("mousedown", (ev) => ev.preventDefault());
        opt.addEventListener("click", () => choose(i));
        list.append(opt);
      });
    };

    const load = async () => {
      pstatus.textContent = "Loading…";
      try {
        const page = await listFiles(tools.dataset.kind, next);
        const from = files.length;
        files = files.concat(page.files);
        next = page.next;
        render(from);
        more.hidden = !next;
        pstatus.textContent = files.length ? `${files.length} files${next ? ", more to load" : ""}.` : "No files of this kind yet: upload one.";
        return from;
      } catch (err) {
        pstatus.textContent = err.message;
        return -1;
      }
    };

    const close = (focus = true) => {
      panel.hidden = true;
      open.setAttribute("aria-expanded", "false");
      if (focus) open.focus();
    };

    const choose = (i) => {
      const f = files[i];
      if (!f) return;
      const why = fits(tools, f);
      if (why) {
        pstatus.textContent = `${f.name}: ${why}`;
        return;
      }
      put(tools, target, f);
      close();
      setStatus(status, `Chose ${f.name}: its url is in the field (not saved yet).`);
    };

    open.addEventListener("click", async () => {
      if (!panel.hidden) {
        close();
        return;
      }
      panel.hidden = false;
      open.setAttribute("aria-expanded", "true");
      if (files.length === 0) await load();
      list.focus();
      if (files.length) setActive(Math.max(active, 0));
    });
    more.addEventListener("click", async () => {
      const from = await load();
      if (from >= 0 && from < files.length) {
        list.focus();
        setActive(from);
      }
    });
    list.addEventListener("keydown", (ev) => {
      const n = files.length;
      switch (ev.key) {
        case "ArrowDown":
        case "ArrowRight":
          ev.preventDefault();
          if (n) setActive(active + 1);
          break;
        case "ArrowUp":
        case "ArrowLeft":
          ev.preventDefault();
          if (n) setActive(active - 1);
          break;
        case "Home":
          ev.preventDefault();
          if (n) setActive(0);
          break;
        case "End":
          ev.preventDefault();
          if (n) setActive(n - 1);
          break;
        case "Enter":
        case " ":
          // Never the form's first button (Save).
          ev.preventDefault();
          if (active >= 0) choose(active);
          break;
        case "Escape":
          ev.preventDefault();
          close();
          break;
      }
    });
    list.addEventListener("keypress", (ev) => {
      if (ev.key === "Enter") ev.preventDefault();
    });
    list.addEventListener("focus", () => {
      if (active < 0 && files.length) setActive(0);
    });
  }
}

if (form) form.querySelectorAll(".file-tools").forEach(enhance);
