package cmstest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// testLeases: a lease is held by one owner at a time, extended by its
// holder, freed by its release or its expiry (by the database's clock),
// and given to exactly one of many takers at once; a cursor is stored
// only by the holder of its lease, and kept as it was otherwise.
func testLeases(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	t.Run("OneHolder", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		take := func(owner string, want bool) {
			t.Helper()
			got, err := s.TakeLease(t.Context(), "job", owner, time.Hour)
			if err != nil || got != want {
				t.Fatalf("TakeLease(job, %s) = %v, %v; want %v", owner, got, err, want)
			}
		}
		take("a", true)
		take("b", false)
		take("a", true) // extended
		must(t, s.ReleaseLease(t.Context(), "job", "b"))
		take("b", false) // b's release of a's lease did nothing
		take("c", false)
		must(t, s.ReleaseLease(t.Context(), "job", "a"))
		take("b", true)
		take("a", false)
		take("a2", false)
		// Leases of other names are apart.
		got, err := s.TakeLease(t.Context(), "other", "a", time.Hour)
		if err != nil || !got {
			t.Fatalf("TakeLease(other, a) = %v, %v; want true", got, err)
		}
		must(t, s.ReleaseLease(t.Context(), "missing", "a"))
	})

	t.Run("Expiry", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		const ttl = 50 * time.Millisecond
		held, err := s.TakeLease(t.Context(), "job", "a", ttl)
		if err != nil || !held {
			t.Fatalf("TakeLease(a) = %v, %v", held, err)
		}
		time.Sleep(3 * ttl)
		held, err = s.TakeLease(t.Context(), "job", "b", time.Hour)
		if err != nil || !held {
			t.Fatalf("TakeLease(b) after a's lease expired = %v, %v; want true", held, err)
		}
		if held, err := s.TakeLease(t.Context(), "job", "a", time.Hour); err != nil || held {
			t.Fatalf("TakeLease(a) after b took it = %v, %v; want false", held, err)
		}
	})

	t.Run("ConcurrentTakers", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		const takers = 8
		for round := range 5 {
			name := fmt.Sprintf("job-%d", round)
			var wg sync.WaitGroup
			results := make([]bool, takers)
			errs := make([]error, takers)
			for i := range takers {
				wg.Go(func() {
					results[i], errs[i] = s.TakeLease(t.Context(), name, fmt.Sprintf("owner-%d", i), time.Hour)
				})
			}
			wg.Wait()
			holders := 0
			for i := range takers {
				if errs[i] != nil {
					t.Fatalf("TakeLease(%s, owner-%d): %v", name, i, errs[i])
				}
				if results[i] {
					holders++
				}
			}
			if holders != 1 {
				t.Fatalf("%s: %d takers at once got the lease, want 1", name, holders)
			}
		}
	})

	t.Run("Cursor", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		cursor := func(want string) {
			t.Helper()
			if got, err := s.Cursor(ctx, "job"); err != nil || got != want {
				t.Fatalf("Cursor(job) = %q, %v; want %q", got, err, want)
			}
		}
		cursor("")
		wantCode(t, s.SetCursor(ctx, "job", "a", "1"), cms.CodeConflict, "SetCursor without a lease")
		cursor("")
		if held, err := s.TakeLease(ctx, "job", "a", time.Hour); err != nil || !held {
			t.Fatalf("TakeLease(a) = %v, %v", held, err)
		}
		must(t, s.SetCursor(ctx, "job", "a", "1"))
		cursor("1")
		must(t, s.SetCursor(ctx, "job", "a", "2.5"))
		cursor("2.5")
		wantCode(t, s.SetCursor(ctx, "job", "b", "3"), cms.CodeConflict, "SetCursor by another owner")
		cursor("2.5")
		if got, err := s.Cursor(ctx, "other"); err != nil || got != "" {
			t.Fatalf("Cursor(other) = %q, %v; want none", got, err)
		}
		must(t, s.ReleaseLease(ctx, "job", "a"))
		wantCode(t, s.SetCursor(ctx, "job", "a", "4"), cms.CodeConflict, "SetCursor after the release")
		cursor("2.5") // kept across holders
		if held, err := s.TakeLease(ctx, "job", "b", time.Hour); err != nil || !held {
			t.Fatalf("TakeLease(b) = %v, %v", held, err)
		}
		cursor("2.5")
		must(t, s.SetCursor(ctx, "job", "b", "5"))
		cursor("5")
	})

	t.Run("CursorAfterExpiry", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		const ttl = 50 * time.Millisecond
		if held, err := s.TakeLease(ctx, "job", "a", ttl); err != nil || !held {
			t.Fatalf("TakeLease(a) = %v, %v", held, err)
		}
		must(t, s.SetCursor(ctx, "job", "a", "1"))
		time.Sleep(3 * ttl)
		wantCode(t, s.SetCursor(ctx, "job", "a", "2"), cms.CodeConflict, "SetCursor after the lease expired")
		if got, err := s.Cursor(ctx, "job"); err != nil || got != "1" {
			t.Fatalf("Cursor(job) = %q, %v; want 1", got, err)
		}
	})
}
