package cmstest

import (
	"fmt"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// testAudit: entries are numbered in the order they are appended, read
// back whole, newest first, a page at a time from a place, and an
// account reads only its own; an entry appended in a transaction that
// rolls back is not kept.
func testAudit(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	s := open(t)
	ctx := t.Context()
	var want []cms.AuditEntry
	for i := range 5 {
		for _, account := range []string{"a", "b"} {
			e := cms.AuditEntry{Account: account, Time: t0.Add(time.Duration(i) * time.Second), User: "alice",
				Action: "user.update", Target: fmt.Sprintf("user-%d", i), Detail: "perms resource:read -> *"}
			must(t, s.AppendAudit(ctx, e))
			if account == "a" {
				want = append([]cms.AuditEntry{e}, want...)
			}
		}
	}
	rollback := s.WithTx(ctx, func(tx cms.Store) error {
		if err := tx.AppendAudit(ctx, cms.AuditEntry{Account: "a", Time: t0, Action: "user.delete", Target: "gone"}); err != nil {
			return err
		}
		return fmt.Errorf("roll back")
	})
	if rollback == nil {
		t.Fatal("WithTx: want the error of fn")
	}

	all, err := s.ListAudit(ctx, "a", 0, 100)
	must(t, err)
	if len(all) != len(want) {
		t.Fatalf("ListAudit(a) = %d entries, want %d: %+v", len(all), len(want), all)
	}
	for i, got := range all {
		w := want[i]
		if got.ID <= 0 || i > 0 && got.ID >= all[i-1].ID {
			t.Errorf("entry %d: id %d, want above 0 and below the one before", i, got.ID)
		}
		if got.Account != w.Account || !got.Time.Equal(w.Time) || got.User != w.User || got.Action != w.Action ||
			got.Target != w.Target || got.Detail != w.Detail {
			t.Errorf("entry %d = %+v, want %+v", i, got, w)
		}
	}

	// Pages from a place.
	var paged []cms.AuditEntry
	before := int64(0)
	for range 10 {
		page, err := s.ListAudit(ctx, "a", before, 2)
		must(t, err)
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		before = page[len(page)-1].ID
	}
	if len(paged) != len(all) {
		t.Fatalf("paged %d entries, want %d", len(paged), len(all))
	}
	for i := range paged {
		if paged[i].ID != all[i].ID {
			t.Fatalf("paged entry %d is %d, want %d", i, paged[i].ID, all[i].ID)
		}
	}

	if none, err := s.ListAudit(ctx, "c", 0, 10); err != nil || len(none) != 0 {
		t.Fatalf("ListAudit(c) = %v, %v; want none", none, err)
	}
	b, err := s.ListAudit(ctx, "b", 0, 100)
	must(t, err)
	if len(b) != 5 {
		t.Fatalf("ListAudit(b) = %d entries, want 5", len(b))
	}
	for _, e := range b {
		if e.Account != "b" {
			t.Fatalf("ListAudit(b) gave %+v", e)
		}
	}
}
