// What the admin keeps in this browser (drafts, preferences), under keys
// that name the admin's prefix and the user, so that signing out removes
// exactly that user's. Pages import it by its plain name, so that every
// module shares one copy.

const prefix = document.body.dataset.prefix || "";

// storageKey is the key of one thing kept for user.
export function storageKey(user, name) {
  return `bwcms-admin:${prefix}:${user}:${name}`;
}

// forgetUser removes everything kept in this browser for user.
export function forgetUser(user) {
  const start = `bwcms-admin:${prefix}:${user}:`;
  const doomed = [];
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (k && k.startsWith(start)) doomed.push(k);
  }
  doomed.forEach((k) => localStorage.removeItem(k));
}
