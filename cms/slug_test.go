package cms

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
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

func TestSplitAlias(t *testing.T) {
	t.Parallel()
	for alias, want := range map[string]struct {
		base string
		n    int64
	}{
		"/lake":                  {"/lake", 1},
		"/lake-2":                {"/lake", 2},
		"/lake-12":               {"/lake", 12},
		"/route-66-3":            {"/route-66", 3},
		"/lake-1":                {"/lake-1", 1},
		"/lake-0":                {"/lake-0", 1},
		"/lake-02":               {"/lake-02", 1},
		"/lake2":                 {"/lake2", 1},
		"/lake-":                 {"/lake-", 1},
		"/-5":                    {"/", 5},
		"123":                    {"123", 1},
		"/x-999999999999999999":  {"/x", 999999999999999999},
		"/x-1000000000000000000": {"/x-1000000000000000000", 1},
		"/caffè-7":               {"/caffè", 7},
		"/a-b-c-" + "9":          {"/a-b-c", 9},
		"":                       {"", 1},
	} {
		base, n := SplitAlias(alias)
		if base != want.base || n != want.n {
			t.Errorf("SplitAlias(%q) = %q, %d; want %q, %d", alias, base, n, want.base, want.n)
		}
		if got := numberedAlias(base, n); got != alias && n > 1 {
			t.Errorf("numberedAlias(%q, %d) = %q, want %q", base, n, got, alias)
		}
	}
}

// aliasIndex is the part of a Store uniqueAlias asks, over a map of the
// aliases held; it counts the questions.
type aliasIndex struct {
	Store
	held  map[string]bool
	asked int
}

func (a *aliasIndex) LockAlias(context.Context, string, Kind, string, string) error { return nil }

func (a *aliasIndex) AliasHolder(_ context.Context, _ string, _ Kind, _, alias string) (string, error) {
	a.asked++
	if a.held[alias] {
		return "r", nil
	}
	return "", &Error{Code: CodeNotFound}
}

func (a *aliasIndex) AliasNumbers(_ context.Context, p AliasNumberParams) (map[string]int64, error) {
	a.asked++
	top := map[string]int64{}
	for alias := range a.held {
		if base, n := SplitAlias(alias); slices.Contains(p.Bases, base) && n > top[base] && (p.Below == 0 || n < p.Below) {
			top[base] = n
		}
	}
	return top, nil
}

func TestUniqueAlias(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	idx := &aliasIndex{held: map[string]bool{"/lake": true, "/lake-2": true, "/lake-7": true, "/route-66": true, "/lake-1": true}}
	for first, want := range map[string]string{
		"/free":     "/free",
		"/lake":     "/lake-8", // after the highest number, in two questions
		"/route-66": "/route-66-2",
		"/lake-2":   "/lake-2-2",
	} {
		idx.asked = 0
		got, err := uniqueAlias(ctx, idx, "a", KindResource, "en", first, "")
		if err != nil || got != want {
			t.Errorf("uniqueAlias(%q) = %q, %v; want %q", first, got, err, want)
		}
		if idx.asked > 2 {
			t.Errorf("uniqueAlias(%q) asked %d questions, want at most 2", first, idx.asked)
		}
	}
	// A long base is cut so any number fits 500 characters, without a
	// dangling dash or a split character.
	long := "/" + strings.Repeat("é", 490) + "-" + strings.Repeat("x", 30)
	idx.held[cutAlias(long, 500)] = true
	got, err := uniqueAlias(ctx, idx, "a", KindResource, "en", long, "")
	if err != nil || utf8.RuneCountInString(got) > 500 || !strings.HasSuffix(got, "-2") || strings.Contains(got, "--") || !strings.HasPrefix(got, "/é") || !utf8.ValidString(got) {
		t.Errorf("long alias: %q (%d characters), %v", got, utf8.RuneCountInString(got), err)
	}
	idx.held[got] = true
	if next, _ := uniqueAlias(ctx, idx, "a", KindResource, "en", long, ""); next != strings.TrimSuffix(got, "-2")+"-3" {
		t.Errorf("next long alias: %q", next)
	}
	// The last number taken (by hand): the next after the highest below
	// the run of numbers that ends there, one question a number of it.
	idx.held["/x"], idx.held["/x-999999999999999999"], idx.held["/x-999999999999999998"] = true, true, true
	idx.held["/x-5"] = true
	idx.asked = 0
	if got, err := uniqueAlias(ctx, idx, "a", KindResource, "en", "/x", ""); err != nil || got != "/x-6" {
		t.Errorf("last number taken: %q, %v; want /x-6", got, err)
	}
	if idx.asked != 4 {
		t.Errorf("last number taken: %d questions, want 4", idx.asked)
	}
	if got, err := uniqueAlias(ctx, idx, "a", KindResource, "en", "/x-999999999999999999", ""); err != nil || got != "/x-999999999999999999-2" {
		t.Errorf("the last number's alias: %q, %v", got, err)
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
