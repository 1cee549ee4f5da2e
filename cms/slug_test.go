package cms

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Caffè Nero!":           "caffe-nero",
		"  Über  den   Wolken ": "uber-den-wolken",
		"Straße":                "stra-e", // ß has no decomposition: outside a-z, it separates
		"ﬁord":                  "fiord",  // the ligature decomposes (NFKD)
		"ＡＢＣ１２３":                "abc123", // full-width letters too
		"Crème brûlée — 2024":   "creme-brulee-2024",
		"日本語":                   "",
		"🙂 smile":               "smile",
		"---":                   "",
		"":                      "",
		"a--b__c":               "a-b-c",
		"ÅNGSTRÖM":              "angstrom",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUniqueAlias(t *testing.T) {
	t.Parallel()
	held := map[string]bool{"/lake": true, "/lake-2": true}
	got, err := UniqueAlias("/lake", func(c string) (bool, error) { return held[c], nil })
	if err != nil || got != "/lake-3" {
		t.Errorf("UniqueAlias = %q, %v; want /lake-3", got, err)
	}
	if got, _ := UniqueAlias("/free", func(string) (bool, error) { return false, nil }); got != "/free" {
		t.Errorf("a free alias: %q", got)
	}
	// A long base is cut so the suffix fits 500 characters, without a
	// dangling dash or a split character.
	long := "/" + strings.Repeat("é", 240) + "-" + strings.Repeat("x", 30)
	got, err = UniqueAlias(long, func(c string) (bool, error) { return c == long || len(c) == 500 && !strings.HasSuffix(c, "-3"), nil })
	if err != nil || len(got) > 500 || !strings.HasSuffix(got, "-3") || strings.Contains(got, "--") || !strings.HasPrefix(got, "/é") {
		t.Errorf("long alias: %q (%d bytes), %v", got, len(got), err)
	}
	// The store's error stops the search.
	boom := errors.New("boom")
	if _, err := UniqueAlias("/x", func(string) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("error: %v", err)
	}
	// Everything taken: an error, not a loop.
	if _, err := UniqueAlias("/x", func(string) (bool, error) { return true, nil }); err == nil {
		t.Error("no error when every alias is taken")
	}
	n := 0
	UniqueAlias("/x", func(c string) (bool, error) { n++; return c != "/x-"+strconv.Itoa(7), nil })
	if n != 7 {
		t.Errorf("asked %d candidates, want 7", n)
	}
}

var slugShape = regexp.MustCompile(`^([a-z0-9]+(-[a-z0-9]+)*)?$`)

func FuzzSlug(f *testing.F) {
	for _, s := range []string{"Caffè Nero!", "Straße", "ﬁ", "日本", "a--b", " x ", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Slug(s)
		if !slugShape.MatchString(got) {
			t.Fatalf("Slug(%q) = %q", s, got)
		}
		if again := Slug(got); again != got {
			t.Fatalf("Slug(Slug(%q)) = %q, not %q", s, again, got)
		}
	})
}
