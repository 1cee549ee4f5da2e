// The record form's lists, shared by reorder.js and picker.js: nested items
// (fieldset.items > fieldset.item) and id lists (.idlist ol > li). The
// server renders both with submit buttons that move and remove entries
// (admin/form.go documents the DOM); these helpers keep that DOM as the
// server would render it after a change made in the page: control names
// and ids renumbered (landingBlocks[2].title becomes [1] when the item
// moves up), the move buttons of each position, so that what is posted is
// what is shown and the remaining submit buttons still mean what they say.
// Record text is only ever set with textContent.

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// Attributes holding control names (name, the id list's field, a button's
// action) and those holding element ids (one or a list of them).
const nameAttrs = ["name", "data-field"];
const idAttrs = ["id", "for", "data-for", "aria-describedby", "aria-labelledby", "aria-controls", "aria-activedescendant", "input"];

// renamer changes the names and ids of item `from` of list path into
// those of item `to`: path[from] -> path[to], f-path-from -> f-path-to.
function renamer(path, from, to) {
  const name = new RegExp(`(^|[^A-Za-z0-9_])${esc(path)}\\[${from}\\]`, "g");
  const id = new RegExp(`(^|\\s|#)f-${esc(path)}-${from}(?=-|\\s|$)`, "g");
  return {
    name: (s) => s.replace(name, `$1${path}[${to}]`),
    id: (s) => s.replace(id, `$1f-${path}-${to}`),
  };
}

function renameElement(el, r) {
  for (const a of nameAttrs) {
    if (el.hasAttribute(a)) el.setAttribute(a, r.name(el.getAttribute(a)));
  }
  for (const a of idAttrs) {
    if (el.hasAttribute(a)) el.setAttribute(a, r.id(el.getAttribute(a)));
  }
  if (el.tagName === "BUTTON" && el.name === "_action") el.value = r.name(el.value);
  if (el.tagName === "A" && (el.getAttribute("href") || "").startsWith("#")) el.setAttribute("href", r.id(el.getAttribute("href")));
}

function renameTree(root, r) {
  renameElement(root, r);
  for (const el of root.querySelectorAll("*")) renameElement(el, r);
}

function button(action, text, hidden) {
  const b = document.createElement("button");
  b.type = "submit";
  b.name = "_action";
  b.value = action;
  b.append(text);
  const span = document.createElement("span");
  span.className = "visually-hidden";
  span.textContent = hidden;
  b.append(span);
  return b;
}

// setActions replaces the buttons of a row, keeping the focus on the
// button of the same verb (or the nearest one left) when it was there.
function setActions(box, buttons) {
  const had = box.contains(document.activeElement) ? verbOf(document.activeElement.value) : "";
  box.replaceChildren(...buttons);
  if (had) focusAction(box, had);
}

// focusAction focuses the button of verb in a row of buttons, or the
// nearest one there is (a first item has no Move up).
export function focusAction(box, verb) {
  const order = verb === "up" ? ["up", "down", "remove"] : verb === "down" ? ["down", "up", "remove"] : ["remove", "up", "down"];
  for (const v of order) {
    const b = [...box.querySelectorAll("button")].find((x) => verbOf(x.value) === v);
    if (b) {
      b.focus();
      return;
    }
  }
}

const verbOf = (action) => (action || "").split(":")[0];

// ---- Nested items ----

export function items(list) {
  return [...list.children].filter((el) => el.matches("fieldset.item"));
}

// legendText is the element holding an item's legend text ("Block 2").
function legendText(item) {
  return item.querySelector(":scope > legend .legend-text") || item.querySelector(":scope > legend");
}

// renumberItems makes every item of list carry the names, ids, legend and
// buttons of its position, and the carried values of the languages not
// shown (hidden inputs outside the items) follow their items.
export function renumberItems(list) {
  const path = list.dataset.path;
  const form = list.form || list.closest("form");
  const all = items(list);
  const moved = new Map(); // old index -> new
  all.forEach((item, j) => {
    const from = Number(item.dataset.index);
    if (from !== j) moved.set(from, j);
  });
  if (moved.size > 0) {
    // Rename in two steps through a placeholder index, so that no name is
    // ever taken by two items at once (radio groups, label targets).
    const tmp = (i) => `${i}x`;
    all.forEach((item) => {
      const from = Number(item.dataset.index);
      if (moved.has(from)) renameTree(item, renamer(path, from, tmp(moved.get(from))));
    });
    all.forEach((item) => {
      const from = Number(item.dataset.index);
      if (moved.has(from)) {
        const to = moved.get(from);
        renameTree(item, renamer(path, tmp(to), to));
        item.dataset.index = String(to);
      }
    });
    // Values carried for languages not shown, and the error summary's links.
    const outside = form ? [...form.querySelectorAll(":scope > input[type=hidden], .error-summary a[href^='#']")] : [];
    for (const el of outside) {
      const m = (el.name || el.getAttribute("href") || "").match(new RegExp(`(?:^|[^A-Za-z0-9_])${esc(path)}(?:\\[|-)(\\d+)`));
      if (m && moved.has(Number(m[1]))) renameElement(el, renamer(path, Number(m[1]), moved.get(Number(m[1]))));
    }
  }
  all.forEach((item, j) => {
    const legend = legendText(item);
    if (legend) legend.textContent = legend.textContent.replace(/\d+\s*$/, String(j + 1));
    const box = item.querySelector(":scope > .row-actions");
    if (!box) return;
    const label = ": " + (legend ? legend.textContent.trim() : "");
    const idx = `${path}[${j}]`;
    const bs = [];
    if (j > 0) bs.push(button(`up:${idx}`, "Move up", label));
    if (j < all.length - 1) bs.push(button(`down:${idx}`, "Move down", label));
    bs.push(button(`remove:${idx}`, "Remove", label));
    setActions(box, bs);
  });
}

// ---- Id lists ----

export function idEntries(idlist) {
  const ol = idlist.querySelector(":scope > ol");
  return ol ? [...ol.children].filter((el) => el.tagName === "LI") : [];
}

// ids are the ids an id list holds, in order.
export function ids(idlist) {
  return idEntries(idlist).map((li) => li.dataset.id);
}

// renumberIds gives every id of the list the buttons of its position.
export function renumberIds(idlist) {
  const field = idlist.dataset.field;
  const all = idEntries(idlist);
  all.forEach((li, k) => {
    const box = li.querySelector(":scope > .row-actions");
    if (!box) return;
    const idx = `${field}[${k}]`;
    const label = " " + li.dataset.id;
    const bs = [];
    if (k > 0) bs.push(button(`up:${idx}`, "Up", label));
    if (k < all.length - 1) bs.push(button(`down:${idx}`, "Down", label));
    bs.push(button(`remove:${idx}`, "Remove", label));
    setActions(box, bs);
  });
}

// editable reports whether a list may be changed: the server renders its
// buttons only for editors.
export function editableIds(idlist) {
  return idlist.querySelector(".idlist-add button") !== null;
}

export function editableItems(list) {
  return list.querySelector(":scope > button[name=_action][value^='add:']") !== null ||
    list.querySelector(":scope > fieldset.item > .row-actions") !== null;
}

// addId appends an id to an id list as the server renders one: a hidden
// input of the list's name, the id, a link to its record with its title,
// and the buttons; the list is made when it was empty.
export function addId(idlist, entry) {
  let ol = idlist.querySelector(":scope > ol");
  if (!ol) {
    ol = document.createElement("ol");
    const add = idlist.querySelector(".idlist-add input");
    const label = add && add.id ? document.querySelector(`label[for="${CSS.escape(add.id)}"]`) : null;
    ol.setAttribute("aria-label", label ? label.textContent.trim() : "Ids");
    const none = idlist.querySelector(":scope > p.hint");
    if (none) none.replaceWith(ol);
    else idlist.prepend(ol);
    sortableHook(idlist);
  }
  const li = document.createElement("li");
  li.dataset.id = entry.id;
  const input = document.createElement("input");
  input.type = "hidden";
  input.name = idlist.dataset.field;
  input.value = entry.id;
  const idSpan = document.createElement("span");
  idSpan.className = "idlist-id";
  idSpan.textContent = entry.id;
  li.append(input, idSpan, " ");
  const title = document.createElement(entry.url ? "a" : "span");
  title.className = "idlist-title";
  if (entry.url) title.href = entry.url;
  title.textContent = entry.title || "(no title)";
  li.append(title, " ");
  const box = document.createElement("span");
  box.className = "row-actions";
  li.append(box);
  ol.append(li);
  renumberIds(idlist);
  decorate(li);
  return li;
}

// ---- Hooks of reorder.js ----

// What reorder.js adds to each entry (a drag handle) and to a list made by
// addId (dragging); no-ops until it sets them.
let decorate = () => {};
let sortableHook = () => {};

export function setHooks(h) {
  decorate = h.decorate || decorate;
  sortableHook = h.sortable || sortableHook;
}

// ---- Telling ----

// changed tells the drafts script that the form changed without an input
// event (a move, an id added).
export function changed(el) {
  el.dispatchEvent(new CustomEvent("admin:changed", { bubbles: true }));
}

// announce says text to screen readers, from a live region of the page.
export function announce(text) {
  let region = document.getElementById("form-announce");
  if (!region) {
    region = document.createElement("div");
    region.id = "form-announce";
    region.className = "visually-hidden";
    region.setAttribute("aria-live", "polite");
    document.body.append(region);
  }
  region.textContent = "";
  // A new text node after a tick, so that the same words are read again.
  setTimeout(() => {
    region.textContent = text;
  }, 50);
}
