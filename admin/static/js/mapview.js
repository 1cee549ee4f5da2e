// The Resource map (<prefix>/resource/?view=map): every Resource of the
// filters with a location, clustered with supercluster (window.Supercluster)
// and drawn as Leaflet circle markers on one canvas, with beside it the
// list of what is in view (the first maxListed). Choosing a marker selects
// it in the list; choosing in the list selects it on the map; the selected
// one offers its form. Titles reach the page only as text (textContent).
//
// window.__bwMapTimes holds performance.now() marks for the browser tests:
// fetched, indexed and firstDraw (from the page's start), draws (ms of each
// redraw) and moves (ms from a pan or zoom's start to its redraw's end).

import { newMap, maxZoom } from "./tiles.js";

const maxListed = 100;

// shortCount fits a count in a cluster's circle: 950, 1.2k, 12k.
const shortCount = (n) => n < 1000 ? String(n) : n < 10000 ? `${(n / 1000).toFixed(1)}k` : `${Math.round(n / 1000)}k`;

// CountMarker is a cluster: a circle with its count drawn on the same
// canvas (a DOM label each would cost more than the whole canvas when
// a view holds a thousand clusters). The count is no text of a record.
const CountMarker = L.CircleMarker.extend({
  _updatePath() {
    L.CircleMarker.prototype._updatePath.call(this);
    const ctx = this._renderer._ctx;
    if (!ctx || this._empty()) return;
    ctx.save();
    ctx.fillStyle = "#fff";
    ctx.font = "600 12px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText(this.options.count, this._point.x, this._point.y);
    ctx.restore();
  },
});
const times = (window.__bwMapTimes = { draws: [], moves: [] });
const root = document.getElementById("mapview");
if (root) start(root);

async function start(root) {
  const status = document.getElementById("mapview-status");
  const list = document.getElementById("mapview-list");
  const box = document.getElementById("mapview-selected");
  const boxTitle = document.getElementById("mapview-selected-title");
  const boxID = document.getElementById("mapview-selected-id");
  const open = document.getElementById("mapview-open");
  const editBase = root.dataset.editBase;

  const renderer = L.canvas({ padding: 0.2 });
  const map = newMap(document.getElementById("mapview-map"), { center: [45, 10], zoom: 3, renderer, preferCanvas: true, worldCopyJump: true });
  const layer = L.layerGroup().addTo(map);
  let highlight = null;

  let body;
  try {
    // As the page's preload asks it (no header of its own), so that the
    // answer the preload started is the one used.
    const res = await fetch(root.dataset.points);
    if (!res.ok) throw new Error(String(res.status));
    body = await res.json();
  } catch {
    status.textContent = "The Resources could not be loaded. Reload the page to try again.";
    return;
  }
  times.fetched = performance.now();

  // Columns: [id, title, type, category, published, lat, lon, lang?].
  const pts = body.points;
  const n = pts.length;
  const lat = new Float64Array(n);
  const lon = new Float64Array(n);
  const features = new Array(n);
  for (let i = 0; i < n; i++) {
    lat[i] = pts[i][5];
    lon[i] = pts[i][6];
    features[i] = { type: "Feature", properties: { i }, geometry: { type: "Point", coordinates: [lon[i], lat[i]] } };
  }
  const index = new Supercluster({ radius: 80, maxZoom: Math.min(14, maxZoom - 1) });
  index.load(features);
  times.indexed = performance.now();
  times.count = n;

  let selected = -1;

  const title = (i) => pts[i][1];
  const label = (i) => title(i) || pts[i][0];

  // textNode builds a tooltip's content as an element holding text only.
  const textNode = (text, lang) => {
    const span = document.createElement("span");
    span.textContent = text;
    if (lang) span.lang = lang;
    return span;
  };

  const bbox = () => {
    const b = map.getBounds();
    let w = b.getWest(), e = b.getEast();
    if (e - w >= 360) { w = -180; e = 180; }
    return [w, Math.max(-90, b.getSouth()), e, Math.min(90, b.getNorth())];
  };

  const draw = () => {
    const t0 = performance.now();
    layer.clearLayers();
    const zoom = Math.round(map.getZoom());
    let clusters = 0;
    for (const c of index.getClusters(bbox(), zoom)) {
      const [x, y] = c.geometry.coordinates;
      if (c.properties.cluster) {
        const count = c.properties.point_count;
        const m = new CountMarker([y, x], { renderer, radius: 10 + Math.min(8, Math.log2(count) * 0.8), color: "#fff",
          weight: 2, fillColor: "#0b5cad", fillOpacity: 1, count: shortCount(count) });
        clusters++;
        m.on("click", () => map.setView([y, x], Math.min(index.getClusterExpansionZoom(c.properties.cluster_id), maxZoom)));
        layer.addLayer(m);
        continue;
      }
      const i = c.properties.i;
      const m = L.circleMarker([y, x], { renderer, radius: 7, color: "#fff", weight: 2,
        fillColor: pts[i][4] ? "#1e6b35" : "#5b6670", fillOpacity: 1 });
      m.bindTooltip(textNode(label(i), pts[i][7]), { direction: "top" });
      m.on("click", () => { m.closeTooltip(); select(i, false); });
      layer.addLayer(m);
    }
    renderList();
    times.draws.push(performance.now() - t0);
    // What is drawn, for tests: the box and the zoom.
    root.dataset.view = JSON.stringify({ bbox: bbox(), zoom, clusters });
    root.dataset.draws = String(times.draws.length);
  };

  // renderList lists the first maxListed points in view, in id order.
  const renderList = () => {
    const [w, s, e, nn] = bbox();
    const across = w > e;
    const shown = [];
    let inView = 0;
    for (let i = 0; i < n; i++) {
      const y = lat[i], x = lon[i];
      if (y < s || y > nn || (across ? x < w && x > e : x < w || x > e)) continue;
      if (++inView <= maxListed) shown.push(i);
    }
    const items = document.createDocumentFragment();
    for (const i of shown) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.i = String(i);
      b.setAttribute("aria-pressed", String(i === selected));
      const t = document.createElement("span");
      t.textContent = label(i);
      if (!title(i)) t.className = "untitled";
      if (pts[i][7]) t.lang = pts[i][7];
      const meta = document.createElement("span");
      meta.className = "meta";
      meta.textContent = [title(i) ? pts[i][0] : "no title", body.types[pts[i][2]], body.categories[pts[i][3]],
        pts[i][4] ? "" : "not published"].filter(Boolean).join(" · ");
      b.append(t, meta);
      li.append(b);
      items.append(li);
    }
    list.replaceChildren(items);
    status.textContent = inView === 0 ? (n === 0 ? "No Resources with a location match these filters." : "No Resources in view: zoom out or pan.")
      : inView <= maxListed ? `${inView} ${inView === 1 ? "Resource" : "Resources"} in view.`
        : `${inView.toLocaleString("en")} Resources in view; the first ${maxListed} are listed. Zoom in to list the others.`;
  };

  // select makes point i the selected one: highlighted on the map (panned
  // to when out of view), pressed in the list, its form offered.
  const select = (i, fromList) => {
    selected = i;
    const at = L.latLng(lat[i], lon[i]);
    if (highlight) highlight.remove();
    highlight = L.circleMarker(at, { renderer, radius: 11, color: "#ffbf47", weight: 4, fill: false, interactive: false })
      .bindTooltip(textNode(label(i), pts[i][7]), { permanent: true, direction: "top", offset: [0, -10] })
      .addTo(map);
    boxTitle.textContent = label(i);
    boxTitle.lang = pts[i][7] || "";
    boxID.textContent = title(i) ? `(${pts[i][0]})` : "";
    open.href = editBase + encodeURIComponent(pts[i][0]) + "/edit";
    box.hidden = false;
    for (const b of list.querySelectorAll("button[aria-pressed]")) {
      b.setAttribute("aria-pressed", String(Number(b.dataset.i) === i));
    }
    if (!map.getBounds().contains(at)) map.panTo(at);
    if (!fromList) {
      const b = list.querySelector(`button[data-i="${i}"]`);
      if (b) b.scrollIntoView({ block: "nearest" });
    }
  };

  list.addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-i]");
    if (b) select(Number(b.dataset.i), true);
  });

  if (n > 0) {
    let s = 90, w = 180, nn = -90, e = -180;
    for (let i = 0; i < n; i++) {
      s = Math.min(s, lat[i]); nn = Math.max(nn, lat[i]);
      w = Math.min(w, lon[i]); e = Math.max(e, lon[i]);
    }
    map.fitBounds([[s, w], [nn, e]], { padding: [20, 20], maxZoom: 14, animate: false });
  }
  draw();
  times.firstDraw = performance.now();
  root.dataset.ready = "1";

  let moveStart = null;
  map.on("movestart zoomstart", () => { moveStart ??= performance.now(); });
  map.on("moveend", () => {
    draw();
    if (moveStart !== null) times.moves.push(performance.now() - moveStart);
    moveStart = null;
  });
}
