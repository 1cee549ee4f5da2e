package cms

import (
	"context"
	"time"
)

// AuditEntry is one change to an account's users, permissions, languages
// or webhooks (DECISIONS §18).
type AuditEntry struct {
	// ID orders the entries of an account (newest highest).
	ID      int64
	Account string
	Time    time.Time
	// User is who did it ("" the service or an operator's command).
	User string
	// Action names what was done: "user.create", "user.update",
	// "user.delete", "user.password", "user.disable", "user.enable",
	// "language.add", "language.default", "webhook.create",
	// "webhook.update", "webhook.delete", "webhook.disable".
	Action string
	// Target is what it was done to: a username, a language code, a
	// webhook id.
	Target string
	// Detail says what changed, for people ("perms resource:*, file:read
	// -> *"); never a password or a secret.
	Detail string
}

// AuditStore keeps the audit list.
type AuditStore interface {
	// AppendAudit adds e (its ID set by the store), inside the
	// transaction of the change it records.
	AppendAudit(ctx context.Context, e AuditEntry) error
	// ListAudit returns account's entries with ID below before (0: from
	// the newest), newest first, at most limit.
	ListAudit(ctx context.Context, account string, before int64, limit int) ([]AuditEntry, error)
}

// AuditParams select a page of the audit list, newest first.
type AuditParams struct {
	// Before is the Next of the page before (0: from the newest).
	Before int64
	// Limit: 1..1000, default 50.
	Limit int
}

// AuditPage is a page of the audit list; Next 0 when it is the last.
type AuditPage struct {
	Entries []AuditEntry
	Next    int64
}

// Audit lists the caller's account's audit entries (user:read).
func (s *Service) Audit(ctx context.Context, p AuditParams) (AuditPage, error) {
	return AuditPage{}, errNotYet
}

// audit records, in tx (the change's own transaction), that the user of
// ctx did action to target in account.
func (s *Service) audit(ctx context.Context, tx Store, account, action, target, detail string) error {
	return tx.AppendAudit(ctx, AuditEntry{Account: account, Time: s.Now(), User: changeAuthor(ctx),
		Action: action, Target: target, Detail: detail})
}
