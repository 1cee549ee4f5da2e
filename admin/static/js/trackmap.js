// The track panel of the Resource form (admin/placing.go documents its
// DOM): the line of the track file on a map fitted to it, its start and
// end, the elevation profile drawn here as SVG, and the distance, ascent
// and descent measured on upload. It reads the line from the admin
// (<prefix>/file/{id}/track.geojson) when the page opens and whenever
// trackFile changes (an upload puts a new url there). Texts of the file
// (its name) are never shown; everything is set as text.

import { newMap } from "./tiles.js";

const prefix = document.body.dataset.prefix || "";
const svgNS = "http://www.w3.org/2000/svg";
// earthRadius is the one the service measures with (cms/track).
const earthRadius = 6371008.8;

const panel = document.getElementById("track-panel");
if (panel && window.L) init(panel);

function init(panel) {
  const status = document.getElementById("track-status");
  const mapBox = document.getElementById("track-map");
  const profile = document.getElementById("track-profile");
  const figures = document.getElementById("track-figures");
  const typeInput = document.getElementById(panel.dataset.typeControl);
  const fileInput = document.getElementById(panel.dataset.fileControl);
  let map = null;
  let layer = null;
  let asked = 0; // the latest request: an older answer is dropped

  const say = (text) => {
    status.textContent = text;
  };

  const clear = () => {
    if (layer) layer.remove();
    layer = null;
    mapBox.hidden = true;
    profile.hidden = true;
    profile.querySelector("svg")?.remove();
  };

  const showPanel = () => {
    const track = typeInput && typeInput.value === "TRACK";
    panel.hidden = !(track || (fileInput && fileInput.value.trim() !== ""));
    if (map && !panel.hidden) map.invalidateSize();
  };

  async function load(url, serverFigures) {
    const n = ++asked;
    clear();
    if (!serverFigures) figures.hidden = true;
    say("Reading the track…");
    let res;
    try {
      res = await fetch(url, { headers: { Accept: "application/geo+json" }, credentials: "same-origin" });
    } catch {
      if (n === asked) say("The track could not be read: the server could not be reached.");
      return;
    }
    if (n !== asked) return;
    if (res.status === 404) {
      say("This file holds no measured track, so there is nothing to draw.");
      return;
    }
    if (!res.ok) {
      say(res.status === 401 ? "Your session has ended: sign in again to see the track." : "The track could not be read. Reload the page to try again.");
      return;
    }
    let feature;
    try {
      feature = await res.json();
    } catch {
      say("The track could not be read. Reload the page to try again.");
      return;
    }
    if (n !== asked) return;
    draw(feature, serverFigures);
  }

  function draw(feature, serverFigures) {
    const lines = linesOf(feature);
    const props = feature.properties || {};
    if (lines.length === 0) {
      say("This file holds no measured track, so there is nothing to draw.");
      return;
    }
    mapBox.hidden = false;
    if (!map) {
      map = newMap(mapBox, { scrollWheelZoom: false });
    } else {
      map.invalidateSize();
    }
    const latlngs = lines.map((l) => l.map((p) => [p[1], p[0]]));
    const first = latlngs[0][0];
    const lastLine = latlngs[latlngs.length - 1];
    const last = lastLine[lastLine.length - 1];
    layer = L.featureGroup([
      L.polyline(latlngs, { className: "track-line", weight: 4 }),
      endMarker(first, "Start", "track-start"),
      endMarker(last, "End", "track-end"),
    ]).addTo(map);
    map.fitBounds(layer.getBounds(), { padding: [24, 24] });

    const hasElevation = props.hasElevation === true && lines.every((l) => l.every((p) => p.length > 2));
    if (!serverFigures) showFigures(props, hasElevation);
    if (hasElevation) {
      drawProfile(lines, props);
      say("");
    } else {
      say("This track has no elevations, so it has no profile.");
    }
  }

  function showFigures(props, hasElevation) {
    const rows = [
      ["Distance", distanceText(props.distance)],
      ["Ascent", hasElevation ? `${Math.round(props.ascent)} m` : "—"],
      ["Descent", hasElevation ? `${Math.round(props.descent)} m` : "—"],
    ];
    figures.replaceChildren(
      ...rows.map(([k, v]) => {
        const d = document.createElement("div");
        const dt = document.createElement("dt");
        const dd = document.createElement("dd");
        dt.textContent = k;
        dd.textContent = v;
        d.append(dt, dd);
        return d;
      }),
    );
    figures.hidden = false;
  }

  function drawProfile(lines, props) {
    const pts = profilePoints(lines);
    const total = pts[pts.length - 1][0];
    let lo = Infinity, hi = -Infinity;
    for (const [, e] of pts) {
      lo = Math.min(lo, e);
      hi = Math.max(hi, e);
    }
    const W = 640, H = 190, left = 56, right = 12, top = 12, bottom = 30;
    const span = Math.max(hi - lo, 10);
    const x = (d) => left + (total > 0 ? (d / total) * (W - left - right) : 0);
    const y = (e) => top + (1 - (e - lo) / span) * (H - top - bottom);
    const svg = document.createElementNS(svgNS, "svg");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("class", "track-profile-svg");
    svg.setAttribute("role", "img");
    const title = document.createElementNS(svgNS, "title");
    title.textContent = `Elevation profile: from ${Math.round(lo)} m to ${Math.round(hi)} m above sea level over ${distanceText(total)}; ascent ${Math.round(props.ascent)} m, descent ${Math.round(props.descent)} m.`;
    svg.append(title);

    let line = "";
    pts.forEach(([d, e], i) => {
      line += `${i ? "L" : "M"}${x(d).toFixed(1)} ${y(e).toFixed(1)}`;
    });
    const base = y(lo).toFixed(1);
    svg.append(
      path(`${line}L${x(total).toFixed(1)} ${base}L${x(0).toFixed(1)} ${base}Z`, "track-profile-area"),
      path(line, "track-profile-line"),
      path(`M${left} ${top}V${H - bottom}H${W - right}`, "track-profile-axis"),
      text(left - 6, y(hi) + 4, `${Math.round(hi)} m`, "end"),
      text(left - 6, y(lo) + 4, `${Math.round(lo)} m`, "end"),
      text(left, H - 10, "0", "start"),
      text(W - right, H - 10, distanceText(total), "end"),
    );
    profile.append(svg);
    document.getElementById("track-profile-caption").textContent =
      `Elevation profile: ${Math.round(lo)} m to ${Math.round(hi)} m above sea level, over ${distanceText(total)}`;
    profile.hidden = false;
  }

  // changed follows trackFile: a url of one of the admin's files is read;
  // anything else says why there is nothing to draw.
  function changed() {
    showPanel();
    const raw = fileInput.value.trim();
    asked++;
    clear();
    figures.hidden = true;
    if (raw === "") {
      say("No track file yet: upload a GPX or KML file into Track file, and its line and elevation profile show here.");
      return;
    }
    const id = fileIdOf(raw);
    if (!id) {
      say("This track file is not one uploaded here, so it was not measured and cannot be drawn. Upload it to see its line and profile.");
      return;
    }
    load(`${prefix}/file/${id}/track.geojson`, false);
  }

  if (typeInput) typeInput.addEventListener("change", showPanel);
  if (fileInput) fileInput.addEventListener("change", changed);
  if (panel.dataset.geojson) load(panel.dataset.geojson, panel.dataset.state === "measured");
}

function endMarker(ll, label, cls) {
  const tag = document.createElement("span");
  tag.textContent = label;
  return L.marker(ll, {
    keyboard: false,
    title: label,
    icon: L.divIcon({ className: `track-end-marker ${cls}`, html: tag, iconSize: [0, 0], iconAnchor: [0, 0] }),
  });
}

function path(d, cls) {
  const p = document.createElementNS(svgNS, "path");
  p.setAttribute("d", d);
  p.setAttribute("class", cls);
  return p;
}

function text(x, y, s, anchor) {
  const t = document.createElementNS(svgNS, "text");
  t.setAttribute("x", String(x));
  t.setAttribute("y", String(y));
  t.setAttribute("text-anchor", anchor);
  t.setAttribute("class", "track-profile-label");
  t.textContent = s;
  return t;
}

// linesOf is the GeoJSON's lines of [lon, lat, ele?] positions.
function linesOf(f) {
  const g = f && f.geometry;
  if (!g || !Array.isArray(g.coordinates)) return [];
  const lines = g.type === "LineString" ? [g.coordinates] : g.type === "MultiLineString" ? g.coordinates : [];
  return lines.filter((l) => Array.isArray(l) && l.length > 0 && l.every((p) => Array.isArray(p) && p.length >= 2));
}

// profilePoints is [distance from the start in meters, elevation] of
// every position, at most about 1,000 of them: the distance is summed
// within each line (a gap between two is not walked, as the service
// measures).
function profilePoints(lines) {
  const all = [];
  let d = 0;
  for (const l of lines) {
    l.forEach((p, i) => {
      if (i > 0) d += haversine(l[i - 1], p);
      all.push([d, p[2]]);
    });
  }
  const step = Math.ceil(all.length / 1000);
  if (step <= 1) return all;
  const out = all.filter((_, i) => i % step === 0);
  if (out[out.length - 1] !== all[all.length - 1]) out.push(all[all.length - 1]);
  return out;
}

function haversine(a, b) {
  const r = Math.PI / 180;
  const dLat = (b[1] - a[1]) * r, dLon = (b[0] - a[0]) * r;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[1] * r) * Math.cos(b[1] * r) * Math.sin(dLon / 2) ** 2;
  return 2 * earthRadius * Math.asin(Math.min(1, Math.sqrt(h)));
}

// distanceText writes meters as the server does: "850 m", "12.4 km".
function distanceText(m) {
  if (!Number.isFinite(m)) return "—";
  return m < 1000 ? `${Math.round(m)} m` : `${(m / 1000).toFixed(1)} km`;
}

// fileIdOf is the id of an admin file a url names (".../file/{id}/{name}"),
// as the server reads it (admin/filefield.go).
function fileIdOf(raw) {
  let u;
  try {
    u = new URL(raw, location.href);
  } catch {
    return "";
  }
  const m = /\/file\/([a-z2-7]{26})\/[^/]+$/.exec(u.pathname);
  return m ? m[1] : "";
}
