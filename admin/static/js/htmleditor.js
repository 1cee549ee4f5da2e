// HTML fields: each <textarea data-html> of the record form becomes a Trix
// editor (vendored; its module is loaded before this one and defines
// <trix-editor>). The textarea gives way to a hidden input of its name,
// which keeps the stored HTML exactly until the editor's content changes
// (Trix writes its own markup: a field never touched is sent as it was),
// and the editor takes the textarea's id (the error summary links to it),
// its description and language, named by its label. Files cannot be
// attached: the attach button is hidden and dropped or pasted files are
// refused. Without scripts the textarea stays.

const form = document.getElementById("record-form");

// What each editor writes to: the named input and the HTML it opened with.
const named = new WeakMap();
const opened = new WeakMap(); // Trix's serialization of the opened HTML

function enhance(ta) {
  const id = ta.id;
  const label = id ? document.querySelector(`label[for="${CSS.escape(id)}"]`) : null;
  const input = document.createElement("input");
  input.type = "hidden";
  input.name = ta.name;
  input.value = ta.value;
  const mirror = document.createElement("input");
  mirror.type = "hidden";
  mirror.id = `${id}-trix`;
  mirror.value = ta.value;
  const ed = document.createElement("trix-editor");
  ed.setAttribute("input", mirror.id);
  ed.className = "html-editor";
  for (const a of ["aria-describedby", "aria-invalid", "lang"]) {
    if (ta.hasAttribute(a)) ed.setAttribute(a, ta.getAttribute(a));
  }
  if (label) {
    if (!label.id) label.id = `${id}-label`;
    ed.setAttribute("aria-labelledby", label.id);
    // A label names only labelable elements: clicking it focuses the editor.
    label.addEventListener("click", (ev) => {
      ev.preventDefault();
      ed.focus();
    });
  }
  named.set(ed, { input, value: ta.value });
  ta.replaceWith(input, mirror, ed);
  ed.id = id;
}

// sync writes an editor's content to its named input: the HTML it opened
// with while Trix's content is what Trix made of it, else Trix's.
function sync(ed) {
  const n = named.get(ed);
  if (!n) return;
  if (!opened.has(ed)) {
    opened.set(ed, ed.value);
    return;
  }
  n.input.value = ed.value === opened.get(ed) ? n.value : ed.value;
}

if (form) {
  form.querySelectorAll("textarea[data-html]").forEach((ta) => {
    if (!ta.readOnly && !ta.disabled) enhance(ta);
  });
  form.addEventListener("trix-initialize", (ev) => {
    if (!opened.has(ev.target)) opened.set(ev.target, ev.target.value);
  });
  form.addEventListener("trix-change", (ev) => sync(ev.target));
  form.addEventListener("trix-file-accept", (ev) => ev.preventDefault());
}
