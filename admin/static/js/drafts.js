// Drafts and the leave-page guard of the record form.
//
// While an editor edits, the form's values are kept in this browser under
// storageKey(user, "draft:<kind>:<id>") ("draft:<kind>:new" for a new
// record) with the version (ETag) they were made from. Opening the form
// again with a draft that differs from the page offers to restore it or
// discard it. Restoring posts the draft to the server, which shows it in
// the form with the version it was made from (action "restore"; nothing
// is saved): when someone else saved meanwhile, saving it shows the
// conflict view rather than overwriting. A successful save (the page
// after it has data-saved) removes the draft; signing out removes every
// draft of the user (admin.js).
//
// Leaving the page while the form holds changes not saved asks first
// (beforeunload); submitting the form does not. A page the server
// rendered from a posted form with changes (data-unsaved: an item added,
// a refused save, a restored draft) counts as changed from the start.
//
// This module runs after the form's other scripts, so that the values it
// first reads are those the page opened with.

import { storageKey } from "./storage.js";

const form = document.getElementById("record-form");
const canSave = form && form.querySelector("button[name=_action][value=save]");

// Form controls a draft keeps: those a browser would post, in order, but
// the editor's own toolbars.
function serialize() {
  const out = [];
  for (const el of form.elements) {
    if (!el.name || el.disabled || el.closest("trix-toolbar")) continue;
    const t = el.type;
    if (t === "submit" || t === "button" || t === "reset" || t === "image" || t === "file") continue;
    if ((t === "checkbox" || t === "radio") && !el.checked) continue;
    if (el.tagName === "SELECT") {
      for (const o of el.selectedOptions) out.push([el.name, o.value]);
      continue;
    }
    out.push([el.name, el.value]);
  }
  return out;
}

// The version and the button are not what an editor changed.
const meta = new Set(["_etag", "_base", "_action", "_langs"]);
const comparable = (entries) => JSON.stringify(entries.filter(([n]) => !meta.has(n)));

function read(key) {
  try {
    const d = JSON.parse(localStorage.getItem(key) || "null");
    return d && Array.isArray(d.entries) ? d : null;
  } catch {
    return null;
  }
}

function remove(key) {
  try {
    localStorage.removeItem(key);
  } catch {
    // storage refused: nothing kept either
  }
}

function el(tag, attrs = {}, text = "") {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
}

function when(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "earlier";
  const today = new Date().toDateString() === d.toDateString();
  return today
    ? d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" })
    : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

if (form && canSave && form.dataset.user) {
  const kind = form.dataset.kind;
  const key = storageKey(form.dataset.user, `draft:${kind}:${form.dataset.id || "new"}`);
  const unsavedPage = form.hasAttribute("data-unsaved");

  if (form.dataset.saved) {
    remove(key);
    if (form.dataset.saved === "created") remove(storageKey(form.dataset.user, `draft:${kind}:new`));
  }

  const initial = comparable(serialize());
  let offer = null; // the notice offering a draft, while unanswered
  let leaving = false;
  let timer = 0;

  const dirty = () => unsavedPage || comparable(serialize()) !== initial;

  const write = (draft) => {
    try {
      localStorage.setItem(key, JSON.stringify(draft));
    } catch {
      // Full or refused storage: the leave-page guard still protects the work.
    }
  };

  // persist keeps the form's values, or forgets the draft when they are
  // those the page opened with. A draft on offer is kept until the editor
  // answers. submitted marks the values a submit sends: the page the
  // server answers with, when it holds changes (data-unsaved), takes
  // their place rather than offering them.
  const persist = (submitted = false) => {
    clearTimeout(timer);
    timer = 0;
    if (offer) return;
    const entries = serialize();
    if (!unsavedPage && comparable(entries) === initial) {
      remove(key);
      return;
    }
    write({ v: 1, etag: form.dataset.etag || "", at: new Date().toISOString(), entries, submitted });
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(persist, 400);
  };

  const restore = (draft, box) => {
    box.querySelectorAll("button").forEach((b) => {
      b.disabled = true;
    });
    leaving = true;
    write({ ...draft, submitted: true });
    const f = el("form", { method: "post", action: form.action, class: "draft-restore-form" });
    f.hidden = true;
    for (const [name, value] of draft.entries) {
      if (name === "_action") continue;
      const i = el("input", { type: "hidden" });
      i.name = name;
      i.value = value;
      f.append(i);
    }
    const a = el("input", { type: "hidden", name: "_action", value: "restore" });
    f.append(a);
    document.body.append(f);
    f.submit();
  };

  const discard = (box) => {
    remove(key);
    offer = null;
    box.remove();
    const main = document.getElementById("main");
    if (main) main.focus();
    if (dirty()) persist();
  };

  const showOffer = (draft) => {
    const box = el("div", { class: "notice warn draft-offer", role: "region", "aria-labelledby": "draft-offer-text", tabindex: "-1" });
    const p = el("p", { id: "draft-offer-text" });
    const t = el("time", { datetime: draft.at || "" }, when(draft.at));
    p.append(el("strong", {}, "You have unsaved changes"), " from ", t, ", kept in this browser.");
    box.append(p);
    if ((draft.etag || "") !== (form.dataset.etag || "")) {
      box.append(el("p", { class: "draft-stale" },
        "Someone saved this record after you made them. Restored, they keep the version you started from: saving shows both versions, field by field, for you to choose."));
    }
    const actions = el("p", { class: "draft-actions" });
    const yes = el("button", { type: "button", class: "primary draft-restore" }, "Restore your unsaved changes");
    const no = el("button", { type: "button", class: "draft-discard" }, "Discard them");
    yes.addEventListener("click", () => restore(draft, box));
    no.addEventListener("click", () => discard(box));
    actions.append(yes, " ", no);
    box.append(actions);
    form.before(box);
    if (!document.querySelector(".error-summary")) box.focus();
    return box;
  };

  const draft = read(key);
  if (draft && draft.submitted && unsavedPage) {
    // The answer to this form's own submit (a button's change, a refused
    // save, a restore): the page holds the draft's values and more.
  } else if (draft && comparable(draft.entries) !== initial) {
    offer = showOffer(draft);
  } else if (draft && !unsavedPage) {
    remove(key);
  }
  if (!offer && unsavedPage) persist();

  for (const type of ["input", "change", "trix-change", "admin:changed"]) form.addEventListener(type, schedule);
  form.addEventListener("submit", () => {
    leaving = true;
    persist(true);
  });
  window.addEventListener("pagehide", () => {
    if (timer) persist();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden" && timer) persist();
  });
  window.addEventListener("pageshow", (ev) => {
    if (ev.persisted) leaving = false;
  });
  window.addEventListener("beforeunload", (ev) => {
    if (leaving || !dirty()) return;
    if (timer) persist();
    ev.preventDefault();
    ev.returnValue = "";
  });
}
