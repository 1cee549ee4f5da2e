package cmstest

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// sameUser compares users: times as instants, no perms as an empty list.
func sameUser(got, want cms.User) bool {
	return got.Name == want.Name && got.Account == want.Account && got.PasswordHash == want.PasswordHash &&
		slices.Equal(got.Perms, want.Perms) && got.Disabled == want.Disabled && got.Changed.Equal(want.Changed) &&
		got.Created.Equal(want.Created)
}

func userNames(users []cms.User) []string {
	names := make([]string, len(users))
	for i, u := range users {
		names[i] = u.Name
	}
	return names
}

func testAccounts(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	t.Run("Accounts", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		itEn, _ := cms.NewLanguages("it", "it", "en")
		enItDe, _ := cms.NewLanguages("en", "de", "en", "it") // the default need not come first
		accounts := []cms.Account{{ID: "b-acc", Langs: itEn}, {ID: "a-acc", Langs: enItDe}, {ID: "Z-acc", Langs: langs3()}}
		for _, a := range accounts {
			must(t, s.CreateAccount(ctx, a))
		}
		wantCode(t, s.CreateAccount(ctx, cms.Account{ID: "a-acc", Langs: itEn}), cms.CodeConflict, "CreateAccount of an existing id")
		for _, want := range accounts {
			if got, err := s.GetAccount(ctx, want.ID); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("GetAccount(%s): %+v, %v; want %+v", want.ID, got, err, want)
			}
		}
		if got, _ := s.GetAccount(ctx, "a-acc"); !reflect.DeepEqual(got.Langs, enItDe) {
			t.Errorf("the conflicting CreateAccount changed a-acc: %+v", got)
		}
		_, err := s.GetAccount(ctx, "nope")
		wantCode(t, err, cms.CodeNotFound, "GetAccount of an unknown id")
		got, err := s.ListAccounts(ctx)
		must(t, err)
		want := []cms.Account{accounts[2], accounts[1], accounts[0]} // id order: "Z-acc" < "a-acc" < "b-acc"
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ListAccounts:\n got %+v\nwant %+v", got, want)
		}

		// UpdateAccount replaces the languages of one account only.
		itEnDe, _ := cms.NewLanguages("en", "it", "en", "de")
		must(t, s.UpdateAccount(ctx, cms.Account{ID: "b-acc", Langs: itEnDe}))
		if got, err := s.GetAccount(ctx, "b-acc"); err != nil || !reflect.DeepEqual(got.Langs, itEnDe) {
			t.Errorf("after UpdateAccount: %+v, %v; want langs %+v", got, err, itEnDe)
		}
		if got, _ := s.GetAccount(ctx, "a-acc"); !reflect.DeepEqual(got.Langs, enItDe) {
			t.Errorf("UpdateAccount of b-acc changed a-acc: %+v", got)
		}
		wantCode(t, s.UpdateAccount(ctx, cms.Account{ID: "nope", Langs: itEn}), cms.CodeNotFound, "UpdateAccount of an unknown id")
		if _, err := s.GetAccount(ctx, "nope"); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Errorf("UpdateAccount of an unknown id made it: %v", err)
		}
	})

	t.Run("Users", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		for _, id := range []string{"a", "b"} {
			must(t, s.CreateAccount(ctx, cms.Account{ID: id, Langs: langs3()}))
		}
		zoe := cms.User{Name: "zoe", Account: "a", PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
			Perms: []string{"resource:write", "*:read", "map:delete", "landing:*"}, Changed: time.Date(2026, 1, 2, 3, 4, 5, 6000, cet),
			Created: time.Date(2025, 12, 1, 0, 0, 0, 7000, cet)}
		users := []cms.User{
			zoe,
			{Name: "adam", Account: "b", PasswordHash: "h-adam", Changed: t0},
			{Name: "Bob", Account: "a", PasswordHash: "h-bob", Perms: []string{"*"}, Disabled: true, Changed: t0},
			{Name: "carl", Account: "a", PasswordHash: "h-carl", Perms: []string{}, Changed: t0},
		}
		for _, u := range users {
			must(t, s.CreateUser(ctx, u))
		}
		wantCode(t, s.CreateUser(ctx, cms.User{Name: "zoe", Account: "b", PasswordHash: "h", Changed: t0}), cms.CodeConflict,
			"CreateUser of an existing name in another account")
		wantCode(t, s.CreateUser(ctx, cms.User{Name: "eve", Account: "nope", PasswordHash: "h", Changed: t0}), cms.CodeNotFound,
			"CreateUser in an unknown account")
		_, err := s.GetUser(ctx, "eve")
		wantCode(t, err, cms.CodeNotFound, "GetUser of the refused user")
		for _, want := range users {
			if got, err := s.GetUser(ctx, want.Name); err != nil || !sameUser(got, want) {
				t.Errorf("GetUser(%s):\n got %+v, %v\nwant %+v", want.Name, got, err, want)
			}
		}
		if got, _ := s.GetUser(ctx, "zoe"); !sameUser(got, zoe) {
			t.Errorf("the conflicting CreateUser changed zoe: %+v", got)
		}
		_, err = s.GetUser(ctx, "ZOE")
		wantCode(t, err, cms.CodeNotFound, "GetUser is case-sensitive")

		// Name order is byte order: "Bob" < "adam" < "carl" < "zoe".
		all, err := s.ListUsers(ctx, "")
		must(t, err)
		if got := userNames(all); !slices.Equal(got, []string{"Bob", "adam", "carl", "zoe"}) {
			t.Errorf("ListUsers(all): %v", got)
		}
		inA, err := s.ListUsers(ctx, "a")
		must(t, err)
		if got := userNames(inA); !slices.Equal(got, []string{"Bob", "carl", "zoe"}) {
			t.Errorf("ListUsers(a): %v", got)
		}
		for _, u := range inA {
			if i := slices.IndexFunc(users, func(w cms.User) bool { return w.Name == u.Name }); !sameUser(u, users[i]) {
				t.Errorf("ListUsers(a) gives %+v, want %+v", u, users[i])
			}
		}
		if got, err := s.ListUsers(ctx, "c"); err != nil || len(got) != 0 {
			t.Errorf("ListUsers of an account without users: %v, %v", got, err)
		}

		// UpdateUser replaces the hash, the perms (kept in their order),
		// Disabled and Changed; nothing else.
		updated := zoe
		updated.PasswordHash, updated.Perms, updated.Disabled, updated.Changed = "new-hash", []string{"map:read", "*:write"}, true, t0.Add(time.Hour)
		moved := updated
		moved.Account = "b"
		must(t, s.UpdateUser(ctx, moved))
		if got, err := s.GetUser(ctx, "zoe"); err != nil || !sameUser(got, updated) {
			t.Errorf("after UpdateUser:\n got %+v, %v\nwant %+v", got, err, updated)
		}
		updated.Perms, updated.Disabled = nil, false
		must(t, s.UpdateUser(ctx, updated))
		if got, err := s.GetUser(ctx, "zoe"); err != nil || !sameUser(got, updated) {
			t.Errorf("after the second UpdateUser:\n got %+v, %v\nwant %+v", got, err, updated)
		}
		if got, _ := s.GetUser(ctx, "Bob"); !sameUser(got, users[2]) {
			t.Errorf("UpdateUser of zoe changed Bob: %+v", got)
		}
		wantCode(t, s.UpdateUser(ctx, cms.User{Name: "eve", Account: "a", PasswordHash: "h", Changed: t0}), cms.CodeNotFound,
			"UpdateUser of an unknown user")

		// DeleteUser removes one user; its name is free again.
		must(t, s.DeleteUser(ctx, "carl"))
		_, err = s.GetUser(ctx, "carl")
		wantCode(t, err, cms.CodeNotFound, "GetUser of a deleted user")
		wantCode(t, s.DeleteUser(ctx, "carl"), cms.CodeNotFound, "DeleteUser of a deleted user")
		inA, err = s.ListUsers(ctx, "a")
		must(t, err)
		if got := userNames(inA); !slices.Equal(got, []string{"Bob", "zoe"}) {
			t.Errorf("ListUsers(a) after deleting carl: %v", got)
		}
		must(t, s.CreateUser(ctx, cms.User{Name: "carl", Account: "b", PasswordHash: "h2", Changed: t0}))
		if got, err := s.GetUser(ctx, "carl"); err != nil || got.Account != "b" || got.PasswordHash != "h2" {
			t.Errorf("carl created again: %+v, %v", got, err)
		}
	})

	t.Run("Ready", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		if err := s.Ready(t.Context()); err != nil {
			t.Errorf("Ready of a store just opened: %v", err)
		}
	})

	t.Run("Settings", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		_, err := s.Setting(ctx, "jwt-secret")
		wantCode(t, err, cms.CodeNotFound, "Setting never set")
		if v, err := s.InitSetting(ctx, "jwt-secret", "first"); err != nil || v != "first" {
			t.Errorf("InitSetting: %q, %v; want first", v, err)
		}
		if v, err := s.InitSetting(ctx, "jwt-secret", "second"); err != nil || v != "first" {
			t.Errorf("InitSetting of a set key: %q, %v; want the first value", v, err)
		}
		if v, err := s.Setting(ctx, "jwt-secret"); err != nil || v != "first" {
			t.Errorf("Setting: %q, %v; want first", v, err)
		}
		if v, err := s.InitSetting(ctx, "other", ""); err != nil || v != "" {
			t.Errorf("InitSetting of an empty value: %q, %v", v, err)
		}
		if v, err := s.InitSetting(ctx, "other", "late"); err != nil || v != "" {
			t.Errorf("InitSetting over an empty value: %q, %v; want the empty value kept", v, err)
		}
		_, err = s.Setting(ctx, "JWT-SECRET")
		wantCode(t, err, cms.CodeNotFound, "Setting of another key")
	})
}
