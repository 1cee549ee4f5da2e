// The record list: a "select all" checkbox for the bulk actions, added
// only when scripts run (without them, each row's checkbox works alone).

const form = document.getElementById("bulk");
const head = form && form.querySelector("thead th.select");
if (head) {
  const boxes = () => [...form.querySelectorAll('tbody input[type="checkbox"][name="id"]')];
  const all = document.createElement("input");
  all.type = "checkbox";
  all.id = "select-all";
  const label = document.createElement("label");
  label.htmlFor = all.id;
  label.className = "visually-hidden";
  label.textContent = "Select all on this page";
  head.replaceChildren(all, label);
  const sync = () => {
    const list = boxes();
    const on = list.filter((b) => b.checked).length;
    all.checked = on > 0 && on === list.length;
    all.indeterminate = on > 0 && on < list.length;
  };
  all.addEventListener("change", () => {
    boxes().forEach((b) => { b.checked = all.checked; });
    sync();
  });
  form.addEventListener("change", (ev) => {
    if (ev.target !== all) sync();
  });
  sync();
}
