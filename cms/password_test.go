package cms

import (
	"crypto/rand"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

func TestPasswordHash(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	h := newHasher(PasswordParams{}, 2, rand.Reader)
	hash, err := h.hash(ctx, "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	// The PHC string of the default parameters: 19 MiB, 2 passes, 1 thread.
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Count(hash, "$") != 5 {
		t.Fatalf("hash = %s", hash)
	}
	if again, _ := h.hash(ctx, "correct horse"); again == hash {
		t.Error("two hashes of one password are equal: no salt")
	}
	for pw, want := range map[string]bool{"correct horse": true, "correct horsE": false, "": false} {
		match, rehash, err := h.check(ctx, hash, pw)
		if err != nil || match != want || rehash {
			t.Errorf("check(%q) = %v, %v, %v", pw, match, rehash, err)
		}
	}
	// New parameters: a matching old hash asks to be remade.
	h2 := newHasher(PasswordParams{Memory: 64, Time: 1, Threads: 1}, 2, rand.Reader)
	if match, rehash, err := h2.check(ctx, hash, "correct horse"); !match || !rehash || err != nil {
		t.Errorf("old parameters: %v %v %v", match, rehash, err)
	}
	// bcrypt hashes imported from elsewhere check, and ask to be remade.
	bc, _ := bcrypt.GenerateFromPassword([]byte("legacy pass"), bcrypt.MinCost)
	if match, rehash, err := h2.check(ctx, string(bc), "legacy pass"); !match || !rehash || err != nil {
		t.Errorf("bcrypt: %v %v %v", match, rehash, err)
	}
	if match, _, err := h2.check(ctx, string(bc), "wrong"); match || err != nil {
		t.Errorf("bcrypt wrong: %v %v", match, err)
	}
	for _, bad := range []string{"", "plain", "$argon2id$v=18$m=1,t=1,p=1$c2FsdA$a2V5", "$argon2id$v=19$m=0,t=1,p=1$c2FsdA$a2V5a2V5a2V5a2V5a2V5",
		"$argon2i$v=19$m=64,t=1,p=1$c2FsdA$a2V5a2V5a2V5a2V5a2V5"} {
		if _, _, err := h2.check(ctx, bad, "x"); err == nil {
			t.Errorf("check accepted the hash %q", bad)
		}
	}
}
