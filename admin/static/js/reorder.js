// Reordering in the record form: nested items (fieldset.items >
// fieldset.item) and id lists (.idlist ol > li) are dragged by a handle
// (SortableJS, vendored, loaded before this module), and their Move up /
// Move down buttons move them in the page instead of asking the server;
// either way the controls are renumbered (formlist.js) so that the posted
// order is the order shown. Without scripts the buttons work on the
// server, as before.

import { items, renumberItems, renumberIds, editableIds, editableItems, setHooks, changed, announce, focusAction } from "./formlist.js";

const form = document.getElementById("record-form");

// handle is the drag grip of an entry: for the mouse only (keyboards use
// the buttons), so hidden from assistive technology.
function handle(cls) {
  const h = document.createElement("span");
  h.className = `drag-handle ${cls}`;
  h.setAttribute("aria-hidden", "true");
  h.title = "Drag to reorder";
  return h;
}

function sortable(el, draggable, handleClass, done) {
  if (typeof window.Sortable !== "function" || el.dataset.sortable) return;
  el.dataset.sortable = "on";
  window.Sortable.create(el, {
    draggable,
    handle: "." + handleClass,
    // Pointer events rather than the browser's own drag and drop: the same
    // in every browser and on touch screens.
    forceFallback: true,
    fallbackOnBody: true,
    animation: 150,
    ghostClass: "drag-ghost",
    chosenClass: "drag-chosen",
    onUpdate: (ev) => done(ev.item),
  });
}

// ---- Nested items ----

function decorateItem(item) {
  const legend = item.querySelector(":scope > legend");
  if (!legend || legend.querySelector(".drag-handle")) return;
  const text = document.createElement("span");
  text.className = "legend-text";
  text.textContent = legend.textContent;
  legend.replaceChildren(handle("item-handle"), text);
}

// itemsChanged renumbers list after item moved and says where it went.
function itemsChanged(list, item) {
  const text = () => item.querySelector(":scope > legend .legend-text")?.textContent || "Item";
  const was = text();
  renumberItems(list);
  announce(`${was} moved: now ${text()} (not saved yet).`);
  changed(list);
}

function enhanceItems(list) {
  if (!editableItems(list)) return;
  items(list).forEach(decorateItem);
  sortable(list, "fieldset.item", "item-handle", (item) => itemsChanged(list, item));
}

// ---- Id lists ----

function decorateId(li) {
  if (li.querySelector(":scope > .drag-handle")) return;
  li.prepend(handle("id-handle"));
}

function enhanceIds(idlist) {
  if (!editableIds(idlist)) return;
  const ol = idlist.querySelector(":scope > ol");
  if (!ol) return;
  [...ol.children].forEach(decorateId);
  sortable(ol, "li", "id-handle", (li) => {
    renumberIds(idlist);
    announce(`${li.dataset.id} moved to position ${[...ol.children].indexOf(li) + 1} (not saved yet).`);
    changed(idlist);
  });
}

// ---- The move buttons, in the page ----

// move handles a click on an up:/down: button of a list; it returns
// false for any other button.
function move(btn) {
  const m = /^(up|down):/.exec(btn.value || "");
  if (!m) return false;
  const up = m[1] === "up";
  const li = btn.closest(".idlist li");
  if (li) {
    const other = up ? li.previousElementSibling : li.nextElementSibling;
    if (other) other.insertAdjacentElement(up ? "beforebegin" : "afterend", li);
    const idlist = li.closest(".idlist");
    renumberIds(idlist);
    // Moving an element takes the focus from it: give it back.
    focusAction(li.querySelector(":scope > .row-actions"), m[1]);
    announce(`${li.dataset.id} moved to position ${[...li.parentElement.children].indexOf(li) + 1} (not saved yet).`);
    changed(idlist);
    return true;
  }
  const item = btn.closest("fieldset.item");
  const list = item && item.parentElement;
  if (!list || !list.matches("fieldset.items") || btn.parentElement.parentElement !== item) return false;
  const all = items(list);
  const other = all[all.indexOf(item) + (up ? -1 : 1)];
  if (other) {
    other.insertAdjacentElement(up ? "beforebegin" : "afterend", item);
    itemsChanged(list, item);
    focusAction(item.querySelector(":scope > .row-actions"), m[1]);
  }
  return true;
}

if (form) {
  form.querySelectorAll("fieldset.items").forEach(enhanceItems);
  form.querySelectorAll(".idlist").forEach(enhanceIds);
  setHooks({
    decorate: decorateId,
    sortable: enhanceIds,
  });
  form.addEventListener("click", (ev) => {
    const btn = ev.target.closest("button[name=_action]");
    if (btn && form.contains(btn) && move(btn)) ev.preventDefault();
  });
}
