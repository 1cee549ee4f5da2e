// The admin's shared behaviour on every page. Drafts and preferences are
// kept in localStorage under keys that name the admin's prefix and the
// user, so that signing out removes exactly that user's.

const prefix = document.body.dataset.prefix || "";

// storageKey is the key of one thing kept for the signed-in user.
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

const signedOut = document.querySelector("[data-signed-out]");
if (signedOut) forgetUser(signedOut.dataset.signedOut);

// Focus the first error summary so that a screen reader announces it.
const summary = document.querySelector(".error-summary");
if (summary) summary.focus();
