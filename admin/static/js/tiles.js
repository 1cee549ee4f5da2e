// The base layer every map of the admin shares, from the tile settings the
// layout puts on <body> (admin.Tiles). Leaflet (a classic script, window.L)
// must be loaded first: pages include partials/mapassets.tmpl in their head.
//
//   import { newMap } from "./tiles.js";
//   const map = newMap(element, { center: [46, 11], zoom: 8 });

const cfg = document.body.dataset;

// blank tells whether the maps have no base layer (offline use, tests).
export const blank = cfg.tileTemplate === "blank";

// maxZoom is the deepest zoom the tile provider serves.
export const maxZoom = Number(cfg.tileMaxZoom) || 19;

// baseLayer returns a new tile layer of the settings, or null for blank
// tiles. The tiles are fetched with the admin's origin as Referer, as the
// OpenStreetMap tile usage policy asks, although pages otherwise send no
// referrer off-site.
export function baseLayer() {
  if (blank || !cfg.tileTemplate) return null;
  return L.tileLayer(cfg.tileTemplate, {
    maxZoom,
    referrerPolicy: "strict-origin-when-cross-origin",
    crossOrigin: false,
  });
}

// newMap makes a Leaflet map in element with the base layer and the
// attribution the provider requires (built as text and a link, never
// HTML from settings). options go to L.map.
export function newMap(element, options = {}) {
  const map = L.map(element, { maxZoom, ...options });
  map.attributionControl.setPrefix(false);
  const layer = baseLayer();
  if (layer) layer.addTo(map);
  if (cfg.tileAttribution) {
    const a = document.createElement(cfg.tileAttributionUrl ? "a" : "span");
    a.textContent = cfg.tileAttribution;
    if (cfg.tileAttributionUrl) {
      a.href = cfg.tileAttributionUrl;
      a.rel = "noopener";
      a.target = "_blank";
    }
    map.attributionControl.addAttribution(a.outerHTML);
  }
  return map;
}
