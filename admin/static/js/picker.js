// The id picker: each id list of the record form (.idlist, data-kind,
// data-field) gets a search box that finds records by words of their
// title or their id (the list's JSON answer, GET <prefix>/<kind>/?q=...)
// and adds the one chosen at the end of the list, as the server would
// render it (formlist.js). It follows the ARIA combobox pattern: the
// results are a listbox, Down and Up move through them, Enter adds, Escape
// closes the list (then clears the box). Ids already in the list are not
// offered. Record text is set with textContent only.

import { addId, ids, editableIds, changed, announce } from "./formlist.js";

const form = document.getElementById("record-form");
const prefix = document.body.dataset.prefix || "";

const kindNames = { resource: "Resource", map: "Map", landing: "Landing", proposal: "Proposal" };

// readable are the kinds the user may read: those of the menu.
function readable(kind) {
  return document.querySelector(`header nav a[href="${CSS.escape(`${prefix}/${kind}/`)}"]`) !== null;
}

function kindsOf(kind) {
  return (kind === "mapOrLanding" ? ["map", "landing"] : [kind]).filter((k) => kindNames[k] && readable(k));
}

function el(tag, attrs = {}, text = "") {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
}

let seq = 0;

function enhance(idlist) {
  const add = idlist.querySelector(".idlist-add input[type=text]");
  const kinds = kindsOf(idlist.dataset.kind);
  if (!add || add.readOnly || !editableIds(idlist) || kinds.length === 0) return;
  const base = `${add.id || "picker-" + ++seq}-find`;
  const fieldLabel = (add.id && document.querySelector(`label[for="${CSS.escape(add.id)}"]`)?.textContent.trim()) || "the list";
  const what = kinds.map((k) => kindNames[k]).join(" or ");

  const box = el("div", { class: "picker" });
  const label = el("label", { for: base }, `Find a ${what} to add`);
  label.append(el("span", { class: "visually-hidden" }, ` to ${fieldLabel}, by title or id`));
  const input = el("input", {
    type: "text", id: base, role: "combobox", autocomplete: "off", spellcheck: "false",
    "aria-autocomplete": "list", "aria-expanded": "false", "aria-controls": `${base}-list`,
    "aria-describedby": `${base}-status`, placeholder: "words of the title, or id",
  });
  const list = el("ul", { role: "listbox", id: `${base}-list`, "aria-label": `${what} found`, class: "picker-list" });
  list.hidden = true;
  const status = el("p", { id: `${base}-status`, class: "picker-status hint", "aria-live": "polite" });
  const wrap = el("div", { class: "picker-box" });
  wrap.append(input, list);
  box.append(label, wrap, status);
  idlist.append(box);

  let results = []; // {id, title, titleLang, url, kind}
  let active = -1;
  let timer = 0;
  let pending = null;

  const close = () => {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  };

  const setActive = (i) => {
    const opts = [...list.children];
    opts.forEach((o, j) => o.setAttribute("aria-selected", j === i ? "true" : "false"));
    active = i;
    if (i >= 0 && opts[i]) {
      input.setAttribute("aria-activedescendant", opts[i].id);
      opts[i].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  };

  const show = () => {
    list.replaceChildren();
    results.forEach((r, i) => {
      const opt = el("li", { role: "option", id: `${input.id}-opt-${i}`, "aria-selected": "false", class: "picker-option" });
      opt.append(el("span", { class: "idlist-id" }, r.id), " ");
      const title = el("span", { class: "picker-title" }, r.title || "(no title)");
      if (r.titleLang) title.setAttribute("lang", r.titleLang);
      opt.append(title);
      if (kinds.length > 1) opt.append(" ", el("span", { class: "badge" }, kindNames[r.kind]));
      opt.addEventListener("mousedown", (ev) => ev.preventDefault()); // keep the focus in the box
      opt.addEventListener("click", () => choose(i));
      list.append(opt);
    });
    const open = results.length > 0;
    list.hidden = !open;
    input.setAttribute("aria-expanded", String(open));
    setActive(-1);
  };

  const search = async () => {
    clearTimeout(timer);
    const q = input.value.trim();
    if (pending) pending.abort();
    if (q === "") {
      results = [];
      show();
      status.textContent = "";
      return;
    }
    const ctl = new AbortController();
    pending = ctl;
    status.textContent = "Searching…";
    try {
      const answers = await Promise.all(kinds.map(async (kind) => {
        const res = await fetch(`${prefix}/${kind}/?q=${encodeURIComponent(q)}&limit=10`, {
          headers: { Accept: "application/json" }, signal: ctl.signal, credentials: "same-origin",
        });
        if (!res.ok) throw new Error(res.status === 401 ? "Your session has ended: sign in again in another tab, then search again." : "The search failed. Try again.");
        const body = await res.json();
        return (body.rows || []).map((r) => ({ ...r, kind }));
      }));
      if (ctl.signal.aborted) return;
      const have = new Set(ids(idlist));
      const seen = new Set();
      let found = 0;
      results = [];
      for (const r of answers.flat()) {
        if (typeof r.id !== "string" || seen.has(r.id)) continue;
        seen.add(r.id);
        found++;
        if (have.has(r.id)) continue;
        const url = typeof r.edit === "string" && r.edit.startsWith(prefix + "/") ? r.edit : "";
        results.push({ id: r.id, title: typeof r.title === "string" ? r.title : "", titleLang: typeof r.titleLang === "string" ? r.titleLang : "", url, kind: r.kind });
      }
      show();
      if (results.length > 0) {
        status.textContent = `${results.length} found: Down and Up to choose, Enter to add.`;
      } else if (found > 0) {
        status.textContent = "What matches is in the list already.";
      } else {
        status.textContent = "Nothing found.";
      }
    } catch (err) {
      if (ctl.signal.aborted) return;
      results = [];
      show();
      status.textContent = err.message || "The search failed. Try again.";
    } finally {
      if (pending === ctl) pending = null;
    }
  };

  const choose = (i) => {
    const r = results[i];
    if (!r) return;
    if (ids(idlist).includes(r.id)) {
      status.textContent = `${r.id} is in the list already.`;
      return;
    }
    addId(idlist, { id: r.id, title: r.title, url: r.url });
    results = [];
    input.value = "";
    show();
    const n = ids(idlist).length;
    status.textContent = `Added ${r.id} (${r.title || "no title"}) at position ${n} (not saved yet).`;
    announce(status.textContent);
    changed(idlist);
    input.focus();
  };

  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(search, 250);
  });
  input.addEventListener("keydown", (ev) => {
    const n = results.length;
    switch (ev.key) {
      case "ArrowDown":
        ev.preventDefault();
        if (list.hidden && n > 0) {
          list.hidden = false;
          input.setAttribute("aria-expanded", "true");
        }
        if (n > 0) setActive((active + 1) % n);
        break;
      case "ArrowUp":
        ev.preventDefault();
        if (n > 0 && !list.hidden) setActive(active <= 0 ? n - 1 : active - 1);
        break;
      case "Enter":
        // Never the form's first button (Save): Enter adds, or searches.
        ev.preventDefault();
        if (!list.hidden && active >= 0) choose(active);
        else search();
        break;
      case "Escape":
        if (!list.hidden) {
          ev.preventDefault();
          close();
        } else if (input.value !== "") {
          ev.preventDefault();
          input.value = "";
          results = [];
          status.textContent = "";
        }
        break;
      case "Tab":
        close();
        break;
    }
  });
  // A browser submits a form on Enter's keypress: never from this box.
  input.addEventListener("keypress", (ev) => {
    if (ev.key === "Enter") ev.preventDefault();
  });
  input.addEventListener("blur", close);
}

if (form) form.querySelectorAll(".idlist").forEach(enhance);
