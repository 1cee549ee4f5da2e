package cms

import (
	"context"
	"slices"
	"strings"
	"time"
)

// AuditEntry is one change to an account's users, permissions, languages
// or webhooks (DECISIONS §18).
type AuditEntry struct {
	// ID orders the entries of an account (newest highest).
	ID      int64
	Account string
	Time    time.Time
	// User is who did it: the user acting through the API or the admin,
	// "" for the service or an operator's command (shown as "operator").
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

// The bounds of AuditParams.Limit.
const (
	DefaultAuditLimit = 50
	MaxAuditLimit     = 1000
)

// Audit lists the caller's account's audit entries, newest first (needs
// user:read). Errors: CodeUnauthorized, CodeForbidden, CodeMalformed for
// a limit outside 1..1000 or a negative Before.
func (s *Service) Audit(ctx context.Context, p AuditParams) (AuditPage, error) {
	caller, err := s.caller(ctx, AreaUser, ActionRead)
	if err != nil {
		return AuditPage{}, err
	}
	limit := p.Limit
	if limit == 0 {
		limit = DefaultAuditLimit
	}
	if limit < 1 || limit > MaxAuditLimit {
		return AuditPage{}, &Error{Code: CodeMalformed, Message: "limit: want 1 to 1000"}
	}
	if p.Before < 0 {
		return AuditPage{}, &Error{Code: CodeMalformed, Message: "before: want a position of the audit list"}
	}
	// One more than the page tells whether a page follows.
	entries, err := s.store.ListAudit(ctx, caller.Account, p.Before, limit+1)
	if err != nil {
		return AuditPage{}, err
	}
	page := AuditPage{Entries: entries}
	if len(entries) > limit {
		page.Entries = entries[:limit]
		page.Next = page.Entries[limit-1].ID
	}
	return page, nil
}

// audit records, in tx (the change's own transaction), that the user of
// ctx did action to target in account.
func (s *Service) audit(ctx context.Context, tx Store, account, action, target, detail string) error {
	return tx.AppendAudit(ctx, AuditEntry{Account: account, Time: s.Now(), User: changeAuthor(ctx),
		Action: action, Target: target, Detail: detail})
}

// auditUser records what an update of a user changed, from before to
// after: its perms, its password, its Disabled; nothing when nothing did.
func (s *Service) auditUser(ctx context.Context, tx Store, before, after User) error {
	if !slices.Equal(before.Perms, after.Perms) {
		detail := "perms " + permsText(before.Perms) + " -> " + permsText(after.Perms)
		if err := s.audit(ctx, tx, after.Account, "user.update", after.Name, detail); err != nil {
			return err
		}
	}
	if before.PasswordHash != after.PasswordHash {
		if err := s.audit(ctx, tx, after.Account, "user.password", after.Name, "password replaced, sessions ended"); err != nil {
			return err
		}
	}
	if before.Disabled != after.Disabled {
		action, detail := "user.enable", "enabled"
		if after.Disabled {
			action, detail = "user.disable", "disabled, sessions ended"
		}
		if err := s.audit(ctx, tx, after.Account, action, after.Name, detail); err != nil {
			return err
		}
	}
	return nil
}

// auditLanguages records what a change of an account's languages
// changed: each language added, and the default.
func (s *Service) auditLanguages(ctx context.Context, tx Store, account string, before, after Languages) error {
	for _, lang := range after.All {
		if !slices.Contains(before.All, lang) {
			detail := "languages " + langsText(before) + " -> " + langsText(after)
			if err := s.audit(ctx, tx, account, "language.add", lang, detail); err != nil {
				return err
			}
		}
	}
	if before.Default != after.Default {
		detail := "default " + before.Default + " -> " + after.Default
		if err := s.audit(ctx, tx, account, "language.default", after.Default, detail); err != nil {
			return err
		}
	}
	return nil
}

// permsText is a permission list for people: "resource:*, file:read", or
// "(none)".
func permsText(perms []string) string {
	if len(perms) == 0 {
		return "(none)"
	}
	return strings.Join(perms, ", ")
}

// langsText is an account's languages for people, the default first:
// "de, en, fr".
func langsText(l Languages) string {
	return strings.Join(append([]string{l.Default}, l.Others()...), ", ")
}
