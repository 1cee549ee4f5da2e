// Uploading one file to the admin (POST <prefix>/file/upload, the part
// "file"), with its progress, and the pieces of a file's card that the
// media library and the record form's picker show. File names are set
// with textContent only: they are text, never HTML.

const prefix = document.body.dataset.prefix || "";

export function el(tag, attrs = {}, text = "") {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
}

// uploadFile sends file and resolves to {file, existing} or {fail}; onProgress
// gets the fraction sent (0 to 1).
export function uploadFile(file, onProgress = () => {}) {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `${prefix}/file/upload`);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.responseType = "json";
    xhr.upload.addEventListener("progress", (ev) => {
      if (ev.lengthComputable && ev.total > 0) onProgress(ev.loaded / ev.total);
    });
    xhr.addEventListener("load", () => {
      const body = xhr.response || {};
      const r = Array.isArray(body.results) ? body.results[0] : null;
      if (r && r.file && typeof r.file.url === "string") {
        resolve({ file: r.file, existing: !!r.existing });
      } else if (xhr.status === 401) {
        resolve({ fail: "Your session has ended: sign in again in another tab, then upload again." });
      } else if (xhr.status === 413) {
        resolve({ fail: (r && r.fail) || "The file is too large." });
      } else {
        resolve({ fail: (r && r.fail) || body.fail || "The upload failed. Try again." });
      }
    });
    xhr.addEventListener("error", () => resolve({ fail: "The upload failed: the server could not be reached." }));
    xhr.addEventListener("abort", () => resolve({ fail: "The upload was stopped." }));
    const data = new FormData();
    data.append("file", file, file.name);
    xhr.send(data);
  });
}

// listFiles reads a page of the account's files of a kind ("" for all).
export async function listFiles(kind, after = "", limit = 24) {
  const q = new URLSearchParams({ limit: String(limit) });
  if (kind) q.set("kind", kind);
  if (after) q.set("after", after);
  const res = await fetch(`${prefix}/file/?${q}`, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (!res.ok) {
    throw new Error(res.status === 401 ? "Your session has ended: sign in again in another tab." : "The files could not be read. Try again.");
  }
  const body = await res.json();
  return { files: Array.isArray(body.files) ? body.files : [], next: typeof body.next === "string" ? body.next : "" };
}

// sameAdmin keeps only addresses of this admin (a page link of a card).
export function sameAdmin(href) {
  return typeof href === "string" && href.startsWith(prefix + "/") ? href : "";
}

// thumb is the thumbnail of a card: its image, or its type's name.
export function thumb(card) {
  if (typeof card.thumb === "string" && card.thumb !== "" && card.thumbWidth > 0 && card.thumbHeight > 0) {
    const img = el("img", { src: card.thumb, width: String(card.thumbWidth), height: String(card.thumbHeight), alt: "" });
    return img;
  }
  return el("span", { class: "file-icon" }, card.typeLabel || "File");
}

// meta is the line under a card's name: type, size, dimensions.
export function meta(card) {
  let s = `${card.typeLabel || card.type} · ${card.size}`;
  if (card.width && card.height) s += ` · ${card.width} × ${card.height} px`;
  return s;
}

// trackLine is a track's figures as the line of a card (one span each,
// never cut inside); null without a track.
export function trackLine(card) {
  const t = card.track;
  if (!t) return null;
  const line = el("span", { class: "file-meta file-figures" });
  const parts = [t.distance, `↑ ${t.ascent}`, `↓ ${t.descent}`];
  if (t.duration) parts.push(t.duration);
  parts.forEach((p, i) => {
    if (i) line.append(" ");
    line.append(el("span", {}, p));
  });
  return line;
}
