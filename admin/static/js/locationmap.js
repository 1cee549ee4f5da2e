// The location map of the Resource form (admin/placing.go documents its
// DOM). The controls locationLat, locationLon and locationZoom stay what
// the form saves and the keyboard way to set them; the map is an aid:
// a click places, the marker drags, "lat, lon" pasted places, and "Use
// this zoom" copies the map's zoom. Every change goes through the
// controls (with input and change events, so the drafts see it), and
// typing in them moves the marker. The save is the form's own, with its
// If-Match.

import { newMap, maxZoom } from "./tiles.js";

// defaultZoom is the zoom a place is shown at when the record has none.
const defaultZoom = 13;

const box = document.querySelector(".place[data-lat]");
if (box && window.L) init(box);

function init(box) {
  const latInput = document.getElementById(box.dataset.lat);
  const lonInput = document.getElementById(box.dataset.lon);
  const zoomInput = document.getElementById(box.dataset.zoom);
  if (!latInput || !lonInput) return;
  const editable = box.hasAttribute("data-editable");
  const area = parseArea(box.dataset.area);
  const side = box.querySelector(".place-side");
  const tools = box.querySelector(".place-tools");
  const warning = document.getElementById("place-swapped");
  side.hidden = false;
  if (tools) tools.hidden = false;
  box.classList.add("place-live");

  const map = newMap(document.getElementById("place-map"), { worldCopyJump: true });
  let marker = null;

  const here = current();
  if (here) {
    map.setView(here, zoomOf() || defaultZoom);
  } else if (area) {
    map.fitBounds([[area.s, area.w], [area.n, area.e]]);
  } else {
    map.setView([20, 0], 2);
  }
  showMarker(here);
  checkSwapped();

  // current is the location the controls hold, or null.
  function current() {
    const lat = number(latInput.value), lon = number(lonInput.value);
    if (lat === null || lon === null || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
    return L.latLng(lat, lon);
  }

  function zoomOf() {
    const z = zoomInput ? number(zoomInput.value) : null;
    return z !== null && Number.isInteger(z) && z >= 2 && z <= 25 ? Math.min(z, maxZoom) : null;
  }

  function showMarker(ll) {
    if (!ll) {
      if (marker) marker.remove();
      marker = null;
      return;
    }
    if (marker) {
      marker.setLatLng(ll);
      return;
    }
    marker = L.marker(ll, {
      draggable: editable,
      keyboard: false, // the controls are the keyboard way
      title: "Location",
      icon: L.divIcon({ className: "place-marker", html: pin(), iconSize: [24, 24], iconAnchor: [12, 24] }),
    }).addTo(map);
    if (editable) {
      marker.on("dragend", () => place(marker.getLatLng().wrap(), false));
    }
  }

  // place puts ll in the controls and on the map.
  function place(ll, pan) {
    setControl(latInput, fixed(ll.lat));
    setControl(lonInput, fixed(ll.lng));
    showMarker(ll);
    if (pan) map.setView(ll, Math.max(map.getZoom(), zoomOf() || defaultZoom));
    checkSwapped();
  }

  // checkSwapped warns (it refuses nothing) when the pair lies outside
  // the account's area and the pair reversed inside it.
  function checkSwapped() {
    if (!warning) return;
    warning.replaceChildren();
    const ll = current();
    if (!area || !ll) return;
    if (inArea(ll.lat, ll.lng) || !inArea(ll.lng, ll.lat)) return;
    const p = document.createElement("p");
    p.textContent = `Latitude and longitude look swapped: ${fixed(ll.lat)}, ${fixed(ll.lng)} is far from this account's other places, and ${fixed(ll.lng)}, ${fixed(ll.lat)} is among them.`;
    warning.append(p);
    if (editable) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "place-swap";
      b.textContent = "Swap latitude and longitude";
      b.addEventListener("click", () => {
        const now = current();
        if (now) place(L.latLng(now.lng, now.lat), true);
        latInput.focus();
      });
      warning.append(b);
    }
  }

  function inArea(lat, lon) {
    return lat >= area.s && lat <= area.n && lon >= area.w && lon <= area.e;
  }

  // Typing in the controls moves the marker (and the view, when the
  // place is out of it).
  for (const input of [latInput, lonInput]) {
    input.addEventListener("input", () => {
      const ll = current();
      showMarker(ll);
      if (ll && !map.getBounds().contains(ll)) map.panTo(ll);
      checkSwapped();
    });
  }
  if (zoomInput) {
    zoomInput.addEventListener("input", () => {
      const z = zoomOf();
      if (z !== null) map.setZoom(z);
    });
  }

  if (!editable) return;

  map.on("click", (ev) => place(ev.latlng.wrap(), false));

  const zoomButton = document.getElementById("place-zoom");
  const zoomNow = document.getElementById("place-zoom-now");
  const showZoom = () => {
    if (zoomNow) zoomNow.textContent = `The map is at zoom ${map.getZoom()}.`;
  };
  map.on("zoomend", showZoom);
  showZoom();
  if (zoomButton && zoomInput) {
    zoomButton.addEventListener("click", () => {
      setControl(zoomInput, String(Math.min(25, Math.max(2, Math.round(map.getZoom())))));
    });
  } else if (zoomButton) {
    zoomButton.hidden = true;
  }

  const paste = document.getElementById("place-paste");
  const pasteGo = document.getElementById("place-paste-go");
  const pasteError = document.getElementById("place-paste-error");
  const apply = (text) => {
    const got = parseCoordinates(text);
    if (got.error) {
      pasteError.textContent = got.error;
      pasteError.hidden = false;
      paste.setAttribute("aria-invalid", "true");
      paste.setAttribute("aria-describedby", "place-paste-hint place-paste-error");
      return;
    }
    pasteError.textContent = "";
    pasteError.hidden = true;
    paste.removeAttribute("aria-invalid");
    paste.setAttribute("aria-describedby", "place-paste-hint");
    place(L.latLng(got.lat, got.lon), true);
  };
  paste.addEventListener("paste", (ev) => {
    const text = ev.clipboardData ? ev.clipboardData.getData("text") : "";
    if (!text) return;
    ev.preventDefault();
    paste.value = text.trim();
    apply(paste.value);
  });
  paste.addEventListener("keydown", (ev) => {
    // Enter places here instead of saving the form.
    if (ev.key === "Enter") {
      ev.preventDefault();
      apply(paste.value);
    }
  });
  pasteGo.addEventListener("click", () => apply(paste.value));
}

// pin is the marker's drawing: a rotated square on the icon, which
// Leaflet itself positions by its transform.
function pin() {
  const p = document.createElement("span");
  p.className = "place-pin";
  return p;
}

// setControl sets a form control's value as typing would, so that the
// form's other scripts (drafts) see the change.
function setControl(input, value) {
  if (input.value === value) return;
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  input.dispatchEvent(new Event("change", { bubbles: true }));
}

// fixed writes degrees with at most 6 decimals (about 0.1 m).
function fixed(v) {
  return String(Math.round(v * 1e6) / 1e6);
}

function number(s) {
  const t = String(s).trim();
  if (t === "") return null;
  const v = Number(t);
  return Number.isFinite(v) ? v : null;
}

function parseArea(s) {
  if (!s) return null;
  const v = s.split(",").map(Number);
  if (v.length !== 4 || v.some((x) => !Number.isFinite(x))) return null;
  return { s: v[0], w: v[1], n: v[2], e: v[3] };
}

// parseCoordinates reads "latitude, longitude" as people paste it:
//   46.07, 11.12 · 46.07 11.12 · 46.07,11.12 (decimal points; a comma,
//   spaces or both between the numbers)
//   46,07; 11,12 · 46,07 11,12 (decimal commas: a semicolon or spaces
//   between the numbers)
//   46.07° N, 11.12° E · N 46.07 E 11.12 · 11.12 E 46.07 N (hemisphere
//   letters: S and W negate, and an E/W number first is the longitude)
// It returns {lat, lon} or {error}.
export function parseCoordinates(text) {
  const bad = { error: "These are not coordinates: write the latitude, then the longitude, such as 46.07, 11.12." };
  const s = String(text).trim().toUpperCase().replace(/[°º]/g, " ").replace(/\s+/g, " ");
  if (s === "") return { error: "Paste or type coordinates first, such as 46.07, 11.12." };
  let parts;
  if (s.includes(";")) {
    parts = s.split(";");
  } else if (!s.includes(".") && /^\S*\d,\d+\S* \S*\d,\d+\S*$/.test(s.replace(/ ?([NSEW]) ?/g, "$1"))) {
    parts = joinLetters(s.split(" "));
  } else {
    parts = joinLetters(s.split(/ ?, ?| /));
  }
  parts = parts.map((p) => p.trim()).filter((p) => p !== "");
  if (parts.length !== 2) return bad;
  const read = parts.map((p) => {
    const m = /^([NSEW])? ?([-+]?\d+(?:[.,]\d+)?) ?([NSEW])?$/.exec(p);
    if (!m || (m[1] && m[3])) return null;
    const letter = m[1] || m[3] || "";
    let v = Number(m[2].replace(",", "."));
    if (letter === "S" || letter === "W") v = -Math.abs(v);
    return { v, letter };
  });
  if (read.some((r) => r === null || !Number.isFinite(r.v))) return bad;
  let [a, b] = read;
  if ((a.letter === "E" || a.letter === "W") && (b.letter === "" || b.letter === "N" || b.letter === "S")) [a, b] = [b, a];
  if (a.letter === "E" || a.letter === "W" || b.letter === "N" || b.letter === "S") return bad;
  if (Math.abs(a.v) > 90) {
    return { error: `A latitude is between -90 and 90, and ${a.v} is not: write the latitude first, then the longitude.` };
  }
  if (Math.abs(b.v) > 180) return { error: `A longitude is between -180 and 180, and ${b.v} is not.` };
  return { lat: a.v, lon: b.v };
}

// joinLetters puts a lone hemisphere letter back with its number:
// ["N", "46.07", "E", "11.12"] -> ["N 46.07", "E 11.12"]; ["46.07", "N",
// "11.12", "E"] -> ["46.07 N", "11.12 E"].
function joinLetters(parts) {
  const out = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (/^[NSEW]$/.test(p)) {
      const prev = out.length ? out[out.length - 1] : "";
      if (/\d$/.test(prev) && !/[NSEW]/.test(prev)) {
        out[out.length - 1] = prev + " " + p;
      } else if (i + 1 < parts.length) {
        out.push(p + " " + parts[++i]);
      } else {
        out.push(p);
      }
    } else {
      out.push(p);
    }
  }
  return out;
}
