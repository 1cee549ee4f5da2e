// The map of a Map's form (admin/mapeditor.go): the Map's primary and
// secondary Resources, or a day's of a multi-day tour, as numbered markers
// in the order of their id lists, which it shows beside the map. The lists
// stay the form's own (reorder.js drags and moves their entries, picker.js
// adds by search): this script redraws whenever they change, so the
// numbers on the map are always the order that will be saved. It adds:
// the account's other Resources in view as candidates (choose one to add
// it), removing an entry in the page, "Use this view" for the Map's centre
// and zoom, and a choice of trackResourceId among the TRACK Resources with
// its line. Record text is set with textContent only.

import { newMap } from "./tiles.js";
import { addId, ids, idEntries, renumberIds, changed, announce } from "./formlist.js";

const form = document.getElementById("record-form");
const panel = document.getElementById("mapeditor");
const prefix = document.body.dataset.prefix || "";

const el = (tag, attrs = {}, text = "") => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
};

const hidden = (text) => el("span", { class: "visually-hidden" }, text);

// ---- The form's lists ----

const idlistOf = (field) => form.querySelector(`.idlist[data-field="${CSS.escape(field)}"]`);
const ctl = (name) => form.querySelector(`[name="${CSS.escape(name)}"]:not([type=hidden])`);

// days are the tourMultiday items in the page's order: their id list and
// a name ("Day 2: Lakes").
function days() {
  const list = form.querySelector('fieldset.items[data-path="tourMultiday"]');
  if (!list) return [];
  return [...list.children].filter((x) => x.matches("fieldset.item")).map((item, i) => {
    const title = item.querySelector(`input[name="tourMultiday[${i}].title"]`);
    const t = title ? title.value.trim() : "";
    return { index: i, idlist: idlistOf(`tourMultiday[${i}].resourceIds`), name: `Day ${i + 1}${t ? ": " + t : ""}` };
  });
}

// dayColours are those of .me-day-0 to 5 (mapeditor.css), for the lines.
const dayColours = ["#6a1b9a", "#00695c", "#ad1457", "#2e6b1f", "#4e342e", "#283593"];

// groups are the lists the map shows in the current mode, each with its
// marker style and the label of its numbers.
function groups(mode) {
  if (mode === "main") {
    return [
      { role: "primary", idlist: idlistOf("resourceIds"), cls: "me-primary", label: (k) => String(k + 1), name: "Primary", line: "#0b5cad" },
      { role: "secondary", idlist: idlistOf("secondaryResourceIds"), cls: "me-secondary", label: (k) => "S" + (k + 1), name: "Secondary" },
    ].filter((g) => g.idlist);
  }
  const all = days();
  const shown = mode === "days" ? all : all.filter((d) => String(d.index) === mode.slice(4));
  return shown.filter((d) => d.idlist).map((d) => ({
    role: "day", day: d.index, idlist: d.idlist, cls: `me-day me-day-${d.index % 6}`, line: dayColours[d.index % 6], name: d.name,
    label: (k) => (mode === "days" ? `${d.index + 1}.${k + 1}` : String(k + 1)),
  }));
}

// ---- Places: what the map knows of each Resource ----

const data = JSON.parse(panel?.dataset.initial || "{}");
const places = new Map(Object.entries(data.places || {})); // id -> place; null: no such Resource
const pending = new Map(); // id -> the request asking for it

const located = (p) => p && typeof p.lat === "number" && typeof p.lon === "number";
const titleOf = (p, id) => (p && p.title) || (p ? "(no title)" : id);

// fetchPlaces reads the places of ids the page does not know yet (added
// by search since it was made): one request for all of them. It resolves
// when every id asked is known, or its request failed.
function fetchPlaces(list) {
  const want = [...new Set(list)].filter((id) => !places.has(id) && !pending.has(id)).slice(0, 200);
  if (want.length > 0) {
    const req = (async () => {
      try {
        const res = await fetch(`${panel.dataset.placesUrl}?ids=${want.map(encodeURIComponent).join(",")}`, {
          headers: { Accept: "application/json" }, credentials: "same-origin",
        });
        const body = await res.json();
        if (!res.ok) throw new Error(body.fail || "The locations could not be read.");
        for (const p of body.places || []) places.set(p.id, p);
        for (const id of want) if (!places.has(id)) places.set(id, null);
      } catch (err) {
        status(err.message || "The locations could not be read.");
      } finally {
        want.forEach((id) => pending.delete(id));
      }
      schedule();
    })();
    want.forEach((id) => pending.set(id, req));
  }
  return Promise.all(list.filter((id) => pending.has(id)).map((id) => pending.get(id)));
}

// ---- The map ----

let map = null;
let layer = null; // the numbered markers and lines
let candLayer = null;
let trackLayer = null;
let mode = "main";
let lastKey = "";
let fitted = false;

const statusEl = document.getElementById("mapeditor-status");
function status(text) {
  statusEl.textContent = text;
}

function markerIcon(cls, label, name) {
  const div = el("div", { class: `me-marker ${cls}` });
  div.append(el("span", { "aria-hidden": "true" }, label), hidden(name));
  return L.divIcon({ html: div, className: "me-icon", iconSize: [28, 28], iconAnchor: [14, 14], popupAnchor: [0, -12] });
}

function button(text, onClick, extra = "") {
  const b = el("button", { type: "button" }, text);
  if (extra) b.append(hidden(extra));
  b.addEventListener("click", onClick);
  return b;
}

// entryPopup is what a numbered marker offers: its record, and removing
// it from its list.
function entryPopup(g, k, id, p) {
  const box = el("div", { class: "me-popup" });
  const head = el("p");
  head.append(el("strong", {}, `${g.name} ${g.label(k)}`), ": ");
  const title = el(p && p.edit ? "a" : "span", {}, titleOf(p, id));
  if (p && p.edit) title.href = p.edit;
  if (p && p.titleLang) title.setAttribute("lang", p.titleLang);
  head.append(title, " ", el("span", { class: "idlist-id" }, `(${id})`));
  box.append(head);
  if (editable(g.idlist)) {
    const actions = el("p", { class: "me-popup-actions" });
    actions.append(button("Remove from the list", () => {
      map.closePopup();
      removeEntry(g.idlist, id);
    }, ` ${id}, ${g.name}`));
    box.append(actions);
  }
  return box;
}

// draw puts the lists of the mode on the map, numbered in their order.
function draw() {
  const gs = groups(mode);
  const key = mode + "|" + gs.map((g) => ids(g.idlist).join(",")).join("|") + "|" + places.size;
  if (key === lastKey) return;
  lastKey = key;
  layer.clearLayers();
  const missing = [];
  let noLocation = 0;
  for (const g of gs) {
    const line = [];
    ids(g.idlist).forEach((id, k) => {
      if (!places.has(id)) missing.push(id);
      const p = places.get(id);
      if (!located(p)) {
        if (places.has(id)) noLocation++;
        return;
      }
      const name = `${g.name} ${g.label(k)}: ${titleOf(p, id)}`;
      const m = L.marker([p.lat, p.lon], { icon: markerIcon(g.cls, g.label(k), name), title: name, keyboard: true, riseOnHover: true });
      m.bindPopup(() => entryPopup(g, k, id, p));
      m.options.meId = id;
      m.options.meRole = g.role;
      layer.addLayer(m);
      line.push([p.lat, p.lon]);
    });
    if (g.line && line.length > 1) {
      layer.addLayer(L.polyline(line, { color: g.line, weight: 3, opacity: 0.7, dashArray: "6 6", interactive: false, className: `me-line ${g.cls}` }));
    }
  }
  badges(gs);
  if (missing.length) fetchPlaces(missing);
  if (!fitted && (missing.length === 0 || layer.getLayers().length > 0)) {
    fitted = true;
    fit(true);
  }
  drawCandidates();
  if (noLocation) status(`${noLocation} listed Resource${noLocation > 1 ? "s have" : " has"} no location: not on the map.`);
}

// badges shows, beside each entry of the lists, the label of its marker
// (or that it has none).
function badges(gs) {
  const shown = new Map();
  for (const g of gs) shown.set(g.idlist, g);
  for (const idlist of form.querySelectorAll(".idlist")) {
    const g = shown.get(idlist);
    idEntries(idlist).forEach((li, k) => {
      let b = li.querySelector(":scope > .mapeditor-num");
      const p = places.get(li.dataset.id);
      if (!g) {
        if (b) b.remove();
        li.querySelector(":scope > .mapeditor-noloc")?.remove();
        return;
      }
      if (!b) {
        b = el("span", { "aria-hidden": "true" });
        li.prepend(b);
      }
      const cls = `mapeditor-num ${g.cls}`;
      if (b.className !== cls) b.className = cls;
      const label = located(p) ? g.label(k) : "–";
      if (b.textContent !== label) b.textContent = label;
      const no = li.querySelector(":scope > .mapeditor-noloc");
      if (places.has(li.dataset.id) && !located(p)) {
        if (!no && p) li.querySelector(":scope > .row-actions")?.before(el("span", { class: "mapeditor-noloc" }, "no location"));
      } else if (no) no.remove();
    });
  }
}

function fit(first) {
  const b = L.latLngBounds([]);
  layer.eachLayer((m) => m.getLatLng && b.extend(m.getLatLng()));
  if (trackLayer) trackLayer.eachLayer((l) => l.getBounds && b.extend(l.getBounds()));
  if (b.isValid()) {
    // At once, not animated: "Use this view" right after reads where it is.
    map.fitBounds(b, { padding: [30, 30], maxZoom: 15, animate: false });
    return;
  }
  if (!first) {
    status("Nothing to fit: no listed Resource has a location.");
    return;
  }
  const lat = Number(ctl("locationLat")?.value), lon = Number(ctl("locationLon")?.value), z = Number(ctl("locationZoom")?.value);
  const set = (s) => s && s.value.trim() !== "";
  if (set(ctl("locationLat")) && set(ctl("locationLon")) && Number.isFinite(lat) && Number.isFinite(lon)) {
    map.setView([lat, lon], Number.isFinite(z) && z >= 2 ? z : 10, { animate: false });
  } else {
    map.setView([30, 0], 2);
  }
}

// ---- Candidates: the account's other Resources in view ----

let near = []; // places in view
let nearMore = false;
let nearCtl = null;
let nearTimer = 0;

// viewTools makes the controls of what the map shows (no field of the
// record: they have no name and are not posted).
function viewTools() {
  const box = document.getElementById("mapeditor-view-tools");
  const show = el("span", { class: "mapeditor-show" });
  const sel = el("select", { id: "mapeditor-mode" });
  sel.append(el("option", { value: "main" }, "Primary and secondary Resources"));
  show.append(el("label", { for: "mapeditor-mode" }, "Show"), sel);
  const near = el("span", { class: "check-row" });
  const box2 = el("input", { type: "checkbox", id: "mapeditor-near" });
  box2.checked = true;
  near.append(box2, el("label", { for: "mapeditor-near" }, "Other Resources in view, to add"));
  box.append(show, near);
  return [sel, box2];
}

const [modeSel, nearBox] = panel ? viewTools() : [null, null];

// nearNote tells how many candidates are shown (not live: it changes with
// every move of the map).
function nearNote(text) {
  document.getElementById("mapeditor-near-note").textContent = text;
}

function bbox() {
  const b = map.getBounds();
  let w = b.getWest(), e = b.getEast();
  const s = Math.max(-90, b.getSouth()), n = Math.min(90, b.getNorth());
  if (e - w >= 360) {
    w = -180;
    e = 180;
  } else {
    w = L.Util.wrapNum(w, [-180, 180], true);
    e = L.Util.wrapNum(e, [-180, 180], true);
  }
  return [w, s, e, n].map((x) => x.toFixed(6)).join(",");
}

async function loadNear() {
  if (!nearBox.checked) return;
  if (nearCtl) nearCtl.abort();
  const c = new AbortController();
  nearCtl = c;
  try {
    const res = await fetch(`${panel.dataset.placesUrl}?bbox=${bbox()}`, { headers: { Accept: "application/json" }, credentials: "same-origin", signal: c.signal });
    const body = await res.json();
    if (!res.ok) throw new Error(body.fail || "The Resources in view could not be read.");
    near = body.places || [];
    nearMore = !!body.more;
    for (const p of near) if (!places.has(p.id) || places.get(p.id) === null) places.set(p.id, p);
    drawCandidates(true);
  } catch (err) {
    if (!c.signal.aborted) nearNote(err.message || "The Resources in view could not be read.");
  }
}

function listed() {
  const all = new Set();
  for (const idlist of form.querySelectorAll(".idlist")) for (const id of ids(idlist)) all.add(id);
  return all;
}

// targets are the lists a candidate may join in the current mode.
function targets() {
  if (mode === "main" || mode === "days") {
    return [
      { idlist: idlistOf("resourceIds"), what: "primary", text: "Add as primary" },
      { idlist: idlistOf("secondaryResourceIds"), what: "secondary", text: "Add as secondary" },
    ].filter((t) => t.idlist && editable(t.idlist));
  }
  const d = days().find((x) => String(x.index) === mode.slice(4));
  return d && d.idlist && editable(d.idlist) ? [{ idlist: d.idlist, what: d.name, text: `Add to Day ${d.index + 1}` }] : [];
}

function candidatePopup(p) {
  const box = el("div", { class: "me-popup" });
  const head = el("p");
  const title = el("a", { href: p.edit }, titleOf(p, p.id));
  if (p.titleLang) title.setAttribute("lang", p.titleLang);
  head.append(title, " ", el("span", { class: "idlist-id" }, `(${p.id})`));
  if (p.type) head.append(" ", el("span", { class: "badge" }, p.type));
  box.append(head);
  const actions = el("p", { class: "me-popup-actions" });
  for (const t of targets()) {
    actions.append(button(t.text, () => {
      map.closePopup();
      addEntry(t, p);
    }, `: ${titleOf(p, p.id)}`));
  }
  if (!actions.children.length) actions.append(el("span", { class: "hint" }, "Not in the lists."));
  box.append(actions);
  return box;
}

// drawCandidates shows the places in view that no list holds. Markers
// that stay are kept, so that an open popup stays open while the map
// pans under it.
const candMarkers = new Map(); // id -> marker

function candidateMarker(p) {
  const name = `Not in the lists: ${titleOf(p, p.id)} (${p.id})`;
  const div = el("div", { class: "me-marker me-candidate" });
  div.append(hidden(name));
  const m = L.marker([p.lat, p.lon], { icon: L.divIcon({ html: div, className: "me-icon", iconSize: [16, 16], iconAnchor: [8, 8] }), title: name, keyboard: true });
  m.bindPopup(() => candidatePopup(p));
  return m;
}

function drawCandidates(fresh) {
  const have = listed();
  const shown = nearBox.checked ? near.filter((p) => !have.has(p.id) && located(p)) : [];
  const keep = new Set(shown.map((p) => p.id));
  for (const [id, m] of candMarkers) {
    if (!keep.has(id)) {
      candLayer.removeLayer(m);
      candMarkers.delete(id);
    }
  }
  for (const p of shown) {
    if (candMarkers.has(p.id)) continue;
    const m = candidateMarker(p);
    candMarkers.set(p.id, m);
    candLayer.addLayer(m);
  }
  if (fresh) {
    nearNote(nearMore
      ? `More Resources are in view than are shown (${near.length}): zoom in to see the others.`
      : `${shown.length} other Resource${shown.length === 1 ? "" : "s"} in view: choose one to add it.`);
  }
}

// ---- Changing the lists ----

function editable(idlist) {
  return idlist && idlist.querySelector(".idlist-add button") !== null;
}

function addEntry(t, p) {
  if (ids(t.idlist).includes(p.id)) {
    status(`${p.id} is in that list already.`);
    return;
  }
  places.set(p.id, p);
  addId(t.idlist, { id: p.id, title: p.title, url: p.edit });
  const n = ids(t.idlist).length;
  const text = `Added ${p.id} (${p.title || "no title"}) as ${t.what}, position ${n} (not saved yet).`;
  status(text);
  announce(text);
  changed(t.idlist);
  schedule();
}

// removeEntry takes id out of idlist in the page, as the server's Remove
// would, and keeps the focus in the list.
function removeEntry(idlist, id) {
  const all = idEntries(idlist);
  const k = all.findIndex((li) => li.dataset.id === id);
  if (k < 0) return;
  all[k].remove();
  renumberIds(idlist);
  const rest = idEntries(idlist);
  const next = rest[Math.min(k, rest.length - 1)];
  const focus = next ? next.querySelector(".row-actions button[value^='remove:']") : idlist.querySelector(".idlist-add input, .picker input");
  if (focus) focus.focus();
  const text = `${id} removed from the list (not saved yet).`;
  announce(text);
  status(text);
  changed(idlist);
  schedule();
}

// ---- The Map's centre and zoom ----

function useView() {
  const c = map.getCenter().wrap();
  const z = Math.min(25, Math.max(2, Math.round(map.getZoom())));
  const put = (name, v) => {
    const input = ctl(name);
    if (!input) return false;
    input.value = v;
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
    return true;
  };
  const lat = String(Number(c.lat.toFixed(6))), lon = String(Number(c.lng.toFixed(6)));
  if (put("locationLat", lat) && put("locationLon", lon) && put("locationZoom", String(z))) {
    const text = `The Map's centre is now ${lat}, ${lon} at zoom ${z} (not saved yet).`;
    status(text);
    announce(text);
  }
}

// ---- The track ----

let trackFor = "";

// trackNote says what became of the track's line, beside its choice.
function trackNote(text) {
  const note = document.getElementById("mapeditor-track-note");
  if (note) note.textContent = text;
}

async function drawTrack() {
  const input = ctl("trackResourceId");
  const id = input ? input.value.trim() : "";
  if (id === trackFor) return;
  trackFor = id;
  if (trackLayer) {
    trackLayer.remove();
    trackLayer = null;
  }
  if (!id) return;
  // Only a Resource whose file has a measured track has a line to ask for.
  if (!places.has(id)) await fetchPlaces([id]);
  if (trackFor !== id) return;
  if (!places.has(id)) return; // the request failed and said so
  const p = places.get(id);
  if (!p || !p.track) {
    trackNote(p ? `${titleOf(p, id)} (${id}) has no measured track: no line to draw.` : `There is no Resource ${id}.`);
    return;
  }
  try {
    const res = await fetch(panel.dataset.trackUrl + encodeURIComponent(id), { headers: { Accept: "application/json" }, credentials: "same-origin" });
    const body = await res.json();
    if (trackFor !== id) return;
    if (!res.ok) {
      trackNote(`Track ${id}: ${body.fail || "its line could not be read."}`);
      return;
    }
    trackLayer = L.geoJSON(body, {
      style: { color: "#c62828", weight: 4, opacity: 0.85, className: "me-track" },
      pointToLayer: (_f, latlng) => L.circleMarker(latlng, { radius: 4, color: "#c62828", interactive: false }),
      interactive: false,
    }).addTo(map);
    trackNote(`The line of ${titleOf(p, id)} (${id}) is drawn in red.`);
  } catch {
    trackNote(`Track ${id}: its line could not be read.`);
  }
}

// trackChoice puts a select of the account's TRACK Resources beside the
// trackResourceId box; choosing one fills the box.
function trackChoice() {
  const input = ctl("trackResourceId");
  if (!input) return;
  const field = input.closest(".field");
  const id = "mapeditor-track";
  const wrap = el("div", { class: "field mapeditor-track" });
  const label = el("label", { for: id }, "Choose the track from the TRACK Resources");
  const sel = el("select", { id, "aria-describedby": `${id}-hint` });
  sel.append(el("option", { value: "" }, "None"));
  const tracks = data.tracks || [];
  for (const t of tracks) sel.append(el("option", { value: t.id }, `${t.title || "(no title)"} (${t.id})`));
  const hint = el("p", { class: "hint", id: `${id}-hint` }, data.tracksMore
    ? `The first ${tracks.length} by title are listed; type the id of another in the box.`
    : tracks.length ? "Its line is drawn on the map when its file has a measured track." : "The account has no TRACK Resources.");
  const sync = () => {
    const v = input.value.trim();
    if (v && ![...sel.options].some((o) => o.value === v)) sel.append(el("option", { value: v }, v));
    sel.value = v;
  };
  sync();
  if (input.readOnly) sel.disabled = true;
  sel.addEventListener("change", () => {
    input.value = sel.value;
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
    drawTrack();
  });
  input.addEventListener("change", () => {
    sync();
    drawTrack();
  });
  wrap.append(label, hint, sel, el("p", { class: "hint", id: "mapeditor-track-note", "aria-live": "polite" }));
  field.after(wrap);
  return [field, wrap];
}

// ---- Modes ----


// modes fills the mode select with the days there are.
function modes() {
  const ds = days();
  const want = [["main", "Primary and secondary Resources"], ...ds.map((d) => [`day-${d.index}`, d.name])];
  if (ds.length > 1) want.push(["days", "All days, each in its colour"]);
  const have = [...modeSel.options].map((o) => o.value + "\u0000" + o.textContent).join("|");
  if (have === want.map(([v, t]) => v + "\u0000" + t).join("|")) return;
  modeSel.replaceChildren(...want.map(([v, t]) => el("option", { value: v }, t)));
  if (!want.some(([v]) => v === mode)) mode = "main";
  modeSel.value = mode;
}

// ---- Redrawing when the form changes ----

let frame = 0;
function schedule() {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    modes();
    draw();
  });
}

// ignored tells the changes of the form the map need not follow: its
// own (the map, the status, the list badges) and the picker's results.
function ignored(r) {
  const t = r.target.nodeType === 1 ? r.target : r.target.parentElement;
  if (!t || t.closest("#mapeditor-map, #mapeditor-status, .picker, .mapeditor-num, .mapeditor-noloc")) return true;
  const nodes = [...r.addedNodes, ...r.removedNodes];
  return r.type === "childList" && nodes.length > 0 && nodes.every((n) => n.nodeType === 1 && n.matches(".mapeditor-num, .mapeditor-noloc"));
}

function watch() {
  new MutationObserver((records) => {
    if (!records.every(ignored)) schedule();
  }).observe(form, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-field", "data-index"] });
  form.addEventListener("admin:changed", schedule);
  // A day's title names it in the mode select.
  form.addEventListener("input", (ev) => {
    if (ev.target.name && /^tourMultiday\[\d+\]\.title$/.test(ev.target.name)) schedule();
  });
  // Remove, in the page: the map follows without a round trip.
  form.addEventListener("click", (ev) => {
    const btn = ev.target.closest("button[name=_action]");
    const m = btn && /^remove:/.exec(btn.value || "");
    const li = m && btn.closest(".idlist li");
    if (!li || !form.contains(li)) return;
    ev.preventDefault();
    removeEntry(li.closest(".idlist"), li.dataset.id);
  });
}

// ---- Start ----

// moveIn puts the form's fields of the map beside it (they stay in the
// form, posted as before).
function moveIn() {
  const box = document.getElementById("mapeditor-lists");
  for (const field of ["resourceIds", "secondaryResourceIds"]) {
    const f = idlistOf(field)?.closest(".field");
    if (f) box.append(f);
  }
  const tr = trackChoice();
  if (tr) box.append(...tr);
  const view = el("div", { class: "mapeditor-group", role: "group", "aria-label": "The Map's centre and zoom" });
  for (const name of ["locationLat", "locationLon", "locationZoom"]) {
    const f = ctl(name)?.closest(".field");
    if (f) view.append(f);
  }
  if (view.children.length) box.append(view);
}

function start() {
  if (!form || !panel || typeof L === "undefined") return;
  panel.hidden = false;
  moveIn();
  map = newMap(document.getElementById("mapeditor-map"), { zoomControl: true });
  map.setView([30, 0], 2); // layers need a view; draw fits the map to them
  layer = L.layerGroup().addTo(map);
  candLayer = L.layerGroup().addTo(map);
  modes();
  modeSel.addEventListener("change", () => {
    mode = modeSel.value;
    lastKey = "";
    draw();
    fit(false);
  });
  nearBox.addEventListener("change", () => {
    if (nearBox.checked) loadNear();
    else {
      drawCandidates();
      nearNote("");
    }
  });
  document.getElementById("mapeditor-fit").addEventListener("click", () => fit(false));
  const viewBtn = document.getElementById("mapeditor-view");
  if (!ctl("locationLat") || ctl("locationLat").readOnly) viewBtn.disabled = true;
  viewBtn.addEventListener("click", useView);
  map.on("moveend", () => {
    clearTimeout(nearTimer);
    nearTimer = setTimeout(loadNear, 250);
  });
  watch();
  draw();
  drawTrack();
  panel.dataset.ready = "on";
}

start();
