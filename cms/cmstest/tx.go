package cmstest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// txFixture stores a bit of everything in s, for a transaction to change:
// records with aliases, references and assignments, an account with two
// users, login failures, a setting, a refresh token and a waiting batch.
func txFixture(tb testing.TB, s cms.Store) {
	tb.Helper()
	ctx := tb.Context()
	keep := resource("keep")
	keep.POIResourceIDs = cms.NullOf([]string{"r-x"})
	put(tb, s, "a", keep)
	put(tb, s, "a", mapRecord("m-1"))
	put(tb, s, "a", &cms.Landing{ID: "l-1", Title: cms.Langs[string]{"en": "Landing l-1"}, MapID: cms.Some("m-1")})
	must(tb, s.SetMapResources(ctx, "a", "m-1", primary, []string{"keep"}))
	must(tb, s.CreateAccount(ctx, cms.Account{ID: "acc", Langs: langs3()}))
	must(tb, s.CreateUser(ctx, cms.User{Name: "zoe", Account: "acc", PasswordHash: "h", Perms: []string{"*"}, Changed: t0}))
	must(tb, s.CreateUser(ctx, cms.User{Name: "bob", Account: "acc", PasswordHash: "h", Changed: t0}))
	if r, err := s.ReserveLogin(ctx, loginAttempt("bob", "a", t0)); err != nil || !r.Allowed {
		tb.Fatalf("ReserveLogin: %+v, %v", r, err)
	}
	if _, err := s.InitSetting(ctx, "k-1", "v-1"); err != nil {
		tb.Fatal(err)
	}
	must(tb, s.CreateRefreshToken(ctx, token("tok-1", "fam-1", "zoe")))
	enqueue(tb, s, batch("b-1", t0))
}

// txWrites changes everything txFixture stored through tx, and checks that
// tx reads its own writes. It returns the first error of a write (a
// failed test must not leave fn without rolling back).
func txWrites(tb testing.TB, tx cms.Store) error {
	tb.Helper()
	ctx := tb.Context()
	fresh := resource("new")
	fresh.POIResourceIDs = cms.NullOf([]string{"r-x"})
	changed := resource("keep")
	changed.Title["en"], changed.URLAlias["en"] = "changed", "/keep-2"
	writes := []struct {
		name string
		do   func() error
	}{
		{"PutRecord new", func() error { return tx.PutRecord(ctx, entry("a", fresh, t0)) }},
		{"PutRecord replacing keep", func() error { return tx.PutRecord(ctx, entry("a", changed, t0.Add(time.Hour))) }},
		{"DeleteRecord l-1", func() error { return tx.DeleteRecord(ctx, "a", cms.KindLanding, "l-1") }},
		{"DeleteRecord m-1", func() error { return tx.DeleteRecord(ctx, "a", cms.KindMap, "m-1") }},
		{"SetMapResources", func() error { return tx.SetMapResources(ctx, "a", "m-2", primary, []string{"keep", "new"}) }},
		{"TouchRecord", func() error { return tx.TouchRecord(ctx, "a", cms.KindResource, "new", t0.Add(2*time.Hour)) }},
		{"CountAccess", func() error { return tx.CountAccess(ctx, "a", cms.KindResource, "keep", t0.Add(2*time.Hour)) }},
		{"CreateAccount", func() error { return tx.CreateAccount(ctx, cms.Account{ID: "acc-2", Langs: langs3()}) }},
		{"CreateUser", func() error {
			return tx.CreateUser(ctx, cms.User{Name: "eve", Account: "acc-2", PasswordHash: "h", Changed: t0})
		}},
		{"UpdateUser", func() error {
			return tx.UpdateUser(ctx, cms.User{Name: "zoe", Account: "acc", PasswordHash: "h-2", Disabled: true, Changed: t0.Add(time.Hour)})
		}},
		{"ReserveLogin", func() error { _, err := tx.ReserveLogin(ctx, loginAttempt("zoe", "a", t0)); return err }},
		{"ResetLoginFailures", func() error { return tx.ResetLoginFailures(ctx, "bob") }},
		{"InitSetting", func() error { _, err := tx.InitSetting(ctx, "k-2", "v-2"); return err }},
		{"CreateRefreshToken", func() error { return tx.CreateRefreshToken(ctx, token("tok-2", "fam-2", "zoe")) }},
		{"SpendRefreshToken", func() error {
			if ok, err := tx.SpendRefreshToken(ctx, tokenHash("tok-1"), t0.Add(time.Minute)); !ok || err != nil {
				return fmt.Errorf("spent %v, %w", ok, err)
			}
			return nil
		}},
		{"RevokeUserTokens", func() error { return tx.RevokeUserTokens(ctx, "zoe", t0.Add(time.Hour)) }},
		{"EnqueueBatch", func() error { return tx.EnqueueBatch(ctx, batch("b-2", t0.Add(time.Second))) }},
		{"ClaimBatch", func() error {
			if b, err := tx.ClaimBatch(ctx, "w-1", t0.Add(time.Hour), t0.Add(2*time.Hour)); err != nil || b.ID != "b-1" {
				return fmt.Errorf("claimed %+v, %w", b, err)
			}
			return nil
		}},
		// WithTx on tx joins the transaction: both see each other's writes.
		{"nested WithTx", func() error {
			return tx.WithTx(ctx, func(inner cms.Store) error {
				if e, err := inner.GetRecord(ctx, "a", cms.KindResource, "keep"); err != nil || title(tb, e) != "changed" {
					return fmt.Errorf("the nested transaction reads %v, %v; want the outer one's write", e, err)
				}
				return inner.PutRecord(ctx, entry("a", resource("inner"), t0))
			})
		}},
	}
	for _, w := range writes {
		if err := w.do(); err != nil {
			return fmt.Errorf("%s in a transaction: %w", w.name, err)
		}
	}

	// Reads through tx see the writes.
	var ids []string
	for e, err := range tx.ListRecords(ctx, cms.ListParams{Account: "a", Kind: cms.KindResource}) {
		if err != nil {
			return fmt.Errorf("ListRecords in a transaction: %w", err)
		}
		ids = append(ids, e.Record.RecordID())
	}
	if !slices.Equal(ids, []string{"inner", "keep", "new"}) {
		tb.Errorf("ListRecords in the transaction: %v", ids)
	}
	wantHolder(tb, tx, "a", cms.KindResource, "en", "/keep-2", "keep")
	wantHolder(tb, tx, "a", cms.KindResource, "en", "/resource/keep", "")
	if refs, err := tx.Referrers(ctx, "a", cms.ReferenceTargets(cms.KindResource), "r-x"); err != nil || len(refs) != 1 || refs[0].FromID != "new" {
		tb.Errorf("Referrers in the transaction: %+v, %v", refs, err)
	}
	if got, err := tx.ResourceMaps(ctx, "a", "keep", primary); err != nil || !slices.Equal(got, []string{"m-2"}) {
		tb.Errorf("ResourceMaps in the transaction: %v, %v", got, err)
	}
	if u, err := tx.GetUser(ctx, "eve"); err != nil || u.Account != "acc-2" {
		tb.Errorf("GetUser in the transaction: %+v, %v", u, err)
	}
	if v, err := tx.Setting(ctx, "k-2"); err != nil || v != "v-2" {
		tb.Errorf("Setting in the transaction: %q, %v", v, err)
	}
	return nil
}

// outcome is "ok" or the code of err, for snapshots.
func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	return string(cms.ErrorCode(err))
}

// snapshot describes everything txFixture and txWrites touch, one line
// per fact, to compare the states before and after a transaction.
func snapshot(tb testing.TB, s cms.Store) []string {
	tb.Helper()
	ctx := tb.Context()
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	for _, kind := range cms.Kinds() {
		for e, err := range s.ListRecords(ctx, cms.ListParams{Account: "a", Kind: kind, Published: cms.PublishedAny}) {
			must(tb, err)
			add("record %s %s %q updated %s, %d accesses", kind, e.Record.RecordID(), title(tb, e), e.Updated.UTC(), e.StatsAccess)
		}
	}
	for _, alias := range []string{"/resource/keep", "/keep-2", "/resource/new", "/resource/inner"} {
		holder, err := s.AliasHolder(ctx, "a", cms.KindResource, "en", alias)
		add("alias %s: %q %s", alias, holder, outcome(err))
	}
	for _, k := range []struct {
		kind cms.Kind
		id   string
	}{{cms.KindResource, "r-x"}, {cms.KindMap, "m-1"}} {
		refs, err := s.Referrers(ctx, "a", cms.ReferenceTargets(k.kind), k.id)
		must(tb, err)
		add("referrers of %s: %+v", k.id, refs)
	}
	for _, m := range []string{"m-1", "m-2"} {
		ids, err := s.MapResources(ctx, "a", m, primary)
		must(tb, err)
		add("Map %s: %v", m, ids)
	}
	for _, r := range []string{"keep", "new"} {
		ids, err := s.ResourceMaps(ctx, "a", r, primary)
		must(tb, err)
		add("Resource %s: %v", r, ids)
	}
	accounts, err := s.ListAccounts(ctx)
	must(tb, err)
	add("accounts %+v", accounts)
	users, err := s.ListUsers(ctx, "")
	must(tb, err)
	for _, u := range users {
		add("user %s of %s: %s %v %v %s", u.Name, u.Account, u.PasswordHash, u.Perms, u.Disabled, u.Changed.UTC())
	}
	for _, name := range []string{"zoe", "bob"} {
		n, _, err := s.LoginFailures(ctx, name, time.Time{})
		must(tb, err)
		add("login failures of %s: %d", name, n)
	}
	for _, key := range []string{"k-1", "k-2"} {
		v, err := s.Setting(ctx, key)
		add("setting %s: %q %s", key, v, outcome(err))
	}
	for _, value := range []string{"tok-1", "tok-2"} {
		tok, err := s.GetRefreshToken(ctx, tokenHash(value))
		add("token %s: used %v, revoked %v, %s", value, tok.Used.UTC(), tok.Revoked.UTC(), outcome(err))
	}
	for _, id := range []string{"b-1", "b-2"} {
		b, err := s.GetBatch(ctx, "a", cms.KindResource, id)
		if err != nil {
			add("batch %s: %s", id, cms.ErrorCode(err))
			continue
		}
		add("batch %s: %s by %q, %d attempts", id, b.Status, b.Owner, b.Attempts)
	}
	return lines
}

func wantSnapshot(tb testing.TB, what string, got, want []string) {
	tb.Helper()
	for _, line := range got {
		if !slices.Contains(want, line) {
			tb.Errorf("%s: unexpected %s", what, line)
		}
	}
	for _, line := range want {
		if !slices.Contains(got, line) {
			tb.Errorf("%s: missing %s", what, line)
		}
	}
}

func testTransactions(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	t.Run("RollbackOnError", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		txFixture(t, s)
		before := snapshot(t, s)
		failed := errors.New("deliberate")
		err := s.WithTx(t.Context(), func(tx cms.Store) error {
			if err := txWrites(t, tx); err != nil {
				t.Error(err)
			}
			return failed
		})
		if !errors.Is(err, failed) {
			t.Errorf("WithTx returned %v, want fn's error", err)
		}
		wantSnapshot(t, "after a transaction that failed", snapshot(t, s), before)

		// fn's *cms.Error keeps its code.
		err = s.WithTx(t.Context(), func(tx cms.Store) error {
			if err := tx.PutRecord(t.Context(), entry("a", resource("other"), t0)); err != nil {
				t.Error(err)
			}
			return &cms.Error{Code: cms.CodeInvalid, Message: "deliberate"}
		})
		wantCode(t, err, cms.CodeInvalid, "WithTx whose fn returns a *cms.Error")
		wantMissing(t, s, "a", cms.KindResource, "other")
	})

	t.Run("RollbackOnPanic", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		txFixture(t, s)
		before := snapshot(t, s)
		type deliberate struct{ n int }
		got := func() (v any) {
			defer func() { v = recover() }()
			_ = s.WithTx(t.Context(), func(tx cms.Store) error {
				if err := txWrites(t, tx); err != nil {
					t.Error(err)
				}
				panic(deliberate{42})
			})
			return nil
		}()
		if got != (deliberate{42}) {
			t.Fatalf("recovered %#v, want the panic of fn", got)
		}
		wantSnapshot(t, "after a transaction that panicked", snapshot(t, s), before)
		// The store is usable: the transaction released what it held.
		must(t, s.WithTx(t.Context(), func(tx cms.Store) error { return tx.PutRecord(t.Context(), entry("a", resource("after"), t0)) }))
		put(t, s, "a", resource("after-2"))
	})

	t.Run("Commit", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		txFixture(t, s)
		must(t, s.WithTx(t.Context(), func(tx cms.Store) error { return txWrites(t, tx) }))
		want := []string{
			fmt.Sprintf("record resource inner \"Resource inner\" updated %s, 0 accesses", t0),
			fmt.Sprintf("record resource keep \"changed\" updated %s, 1 accesses", t0.Add(time.Hour)),
			fmt.Sprintf("record resource new \"Resource new\" updated %s, 0 accesses", t0.Add(2*time.Hour)),
			`alias /resource/keep: "" not_found`,
			`alias /keep-2: "keep" ok`,
			`alias /resource/new: "new" ok`,
			`alias /resource/inner: "inner" ok`,
			"referrers of r-x: [{FromKind:resource FromID:new Field:poiResourceIds ToKind:resource ToID:r-x Single:false}]",
			"referrers of m-1: []",
			"Map m-1: []",
			"Map m-2: [keep new]",
			"Resource keep: [m-2]",
			"Resource new: [m-2]",
			fmt.Sprintf("accounts %+v", []cms.Account{{ID: "acc", Langs: langs3()}, {ID: "acc-2", Langs: langs3()}}),
			fmt.Sprintf("user bob of acc: h [] false %s", t0),
			fmt.Sprintf("user eve of acc-2: h [] false %s", t0),
			fmt.Sprintf("user zoe of acc: h-2 [] true %s", t0.Add(time.Hour)),
			"login failures of zoe: 1",
			"login failures of bob: 0",
			`setting k-1: "v-1" ok`,
			`setting k-2: "v-2" ok`,
			fmt.Sprintf("token tok-1: used %s, revoked %s, ok", t0.Add(time.Minute), t0.Add(time.Hour)),
			fmt.Sprintf("token tok-2: used %s, revoked %s, ok", time.Time{}, t0.Add(time.Hour)),
			`batch b-1: processing by "w-1", 1 attempts`,
			`batch b-2: waiting by "", 0 attempts`,
		}
		wantSnapshot(t, "after a transaction that succeeded", snapshot(t, s), want)
	})

	t.Run("CreatorsOfOneIDQueue", func(t *testing.T) {
		// GetRecord inside a transaction holds an id that has no record
		// yet: a second transaction asking for it waits for the first and
		// then sees its record, so two creators never both create.
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		asked := make(chan struct{})
		first := make(chan error, 1)
		go func() {
			first <- s.WithTx(ctx, func(tx cms.Store) error {
				if _, err := tx.GetRecord(ctx, "acc", cms.KindMap, "new-1"); cms.ErrorCode(err) != cms.CodeNotFound {
					return fmt.Errorf("first GetRecord: %v", err)
				}
				close(asked)
				time.Sleep(100 * time.Millisecond) // the second asks meanwhile
				return tx.PutRecord(ctx, &cms.Entry{Account: "acc", Record: &cms.Map{ID: "new-1"}, Updated: t0})
			})
		}()
		<-asked
		err := s.WithTx(ctx, func(tx cms.Store) error {
			_, err := tx.GetRecord(ctx, "acc", cms.KindMap, "new-1")
			return err
		})
		if err != nil {
			t.Errorf("the second creator did not see the first one's record: %v", err)
		}
		must(t, <-first)
	})

	t.Run("NestedError", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		inner := errors.New("inner")
		err := s.WithTx(t.Context(), func(tx cms.Store) error {
			if err := tx.PutRecord(t.Context(), entry("a", resource("outer"), t0)); err != nil {
				return err
			}
			err := tx.WithTx(t.Context(), func(tx2 cms.Store) error {
				if err := tx2.PutRecord(t.Context(), entry("a", resource("inner"), t0)); err != nil {
					return err
				}
				return inner
			})
			if !errors.Is(err, inner) {
				t.Errorf("nested WithTx returned %v, want its fn's error", err)
			}
			return err
		})
		if !errors.Is(err, inner) {
			t.Errorf("WithTx returned %v, want the nested error", err)
		}
		wantMissing(t, s, "a", cms.KindResource, "outer")
		wantMissing(t, s, "a", cms.KindResource, "inner")
	})

	t.Run("ConcurrentWriters", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		shared := resource("shared")
		shared.ContactPhone = cms.NullOf("0")
		put(t, s, "a", shared)
		// 16 writers, 20 puts each of their own record, every second one in
		// a transaction that also increments the shared record's counter
		// (read, add one, write back).
		const writers, puts = 16, 20
		increment := func(tx cms.Store) error {
			e, err := tx.GetRecord(ctx, "a", cms.KindResource, "shared")
			if err != nil {
				return err
			}
			r := e.Record.(*cms.Resource)
			n, err := strconv.Atoi(r.ContactPhone.Value)
			if err != nil {
				return err
			}
			r.ContactPhone = cms.NullOf(strconv.Itoa(n + 1))
			return tx.PutRecord(ctx, e)
		}
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := range puts {
					own := resource(fmt.Sprintf("own-%02d", w))
					own.ContactPhone = cms.NullOf(strconv.Itoa(i))
					var err error
					if i%2 == 0 {
						err = s.PutRecord(ctx, entry("a", own, t0.Add(time.Duration(i)*time.Second)))
					} else {
						err = s.WithTx(ctx, func(tx cms.Store) error {
							if err := tx.PutRecord(ctx, entry("a", own, t0.Add(time.Duration(i)*time.Second))); err != nil {
								return err
							}
							return increment(tx)
						})
					}
					if err != nil {
						t.Errorf("writer %d, put %d: %v", w, i, err)
						return
					}
				}
			})
		}
		wg.Wait()
		if got, want := get(t, s, "a", cms.KindResource, "shared").Record.(*cms.Resource).ContactPhone.Value, strconv.Itoa(writers*puts/2); got != want {
			t.Errorf("the shared counter is %s after %s increments: lost updates", got, want)
		}
		for w := range writers {
			e := get(t, s, "a", cms.KindResource, fmt.Sprintf("own-%02d", w))
			if got := e.Record.(*cms.Resource).ContactPhone.Value; got != strconv.Itoa(puts-1) || !e.Updated.Equal(t0.Add((puts-1)*time.Second)) {
				t.Errorf("own-%02d holds %s updated %v, want its last write %d", w, got, e.Updated, puts-1)
			}
		}
	})
}
