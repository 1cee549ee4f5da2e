// The admin's shared behaviour on every page. What is kept per user in
// this browser is in storage.js; signing out removes it.

import { forgetUser } from "./storage.js";

export { storageKey, forgetUser } from "./storage.js";

const signedOut = document.querySelector("[data-signed-out]");
if (signedOut) forgetUser(signedOut.dataset.signedOut);

// Focus the first error summary so that a screen reader announces it.
const summary = document.querySelector(".error-summary");
if (summary) summary.focus();
