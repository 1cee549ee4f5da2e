package cms_test

import (
	"testing"

	"github.com/bwcms/cms/cms"
)

func TestRepairAliases(t *testing.T) {
	t.Parallel()
	held := map[string]bool{"en /evil.example": true, "en /evil.example-2": true, "it /ok": true}
	taken := func(lang, alias string) (bool, error) { return held[lang+" "+alias], nil }
	r := &cms.Resource{ID: "Caffè-1", URLAlias: cms.Langs[string]{
		"en": `/\evil.example`, "it": "/ok", "de": "/\u202Egpj.exe", "fr": `/\/x`, "es": "/\u2066\u0007", "pt": "/fine",
	}}
	changed, err := cms.RepairAliases(r, taken)
	if err != nil || !changed {
		t.Fatalf("RepairAliases = %v, %v", changed, err)
	}
	want := cms.Langs[string]{"en": "/evil.example-3", "it": "/ok", "de": "/gpj.exe", "fr": "/x", "es": "/caffe-1", "pt": "/fine"}
	for lang, alias := range want {
		if r.URLAlias[lang] != alias {
			t.Errorf("%s: %q, want %q", lang, r.URLAlias[lang], alias)
		}
	}
	// An alias that keeps the rule is not touched, even where taken says
	// it is held (only records stored before the rule are repaired).
	ok := &cms.Map{ID: "m-1", URLAlias: cms.Langs[string]{"it": "/ok"}}
	if changed, err := cms.RepairAliases(ok, taken); changed || err != nil || ok.URLAlias["it"] != "/ok" {
		t.Errorf("a valid alias: %v, %v, %q", changed, err, ok.URLAlias["it"])
	}
}

// TestNormalizeAlias: widths folded, then NFC; ligatures kept; cutAlias
// (through a clone's -copy) is tested in transport.
func TestNormalizeAlias(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"/cafe\u0301":               "/caf\u00e9",
		"/\uff4d\uff45\uff4e\uff55": "/menu",
		"/\uff76\uff9e":             "/\u30ac", // halfwidth katakana ka and its voiced mark
		"/\ufb01sh":                 "/\ufb01sh",
		"/plain":                    "/plain",
	} {
		if got := cms.NormalizeAlias(in); got != want {
			t.Errorf("NormalizeAlias(%+q) = %+q, want %+q", in, got, want)
		}
		if got := cms.ValidAlias(in); got != (in == want) {
			t.Errorf("ValidAlias(%+q) = %v", in, got)
		}
	}
	r := &cms.Resource{ID: "r-1", URLAlias: cms.Langs[string]{"en": "/e\u200b\u0301", "it": "/\uff0f\u200ex"}}
	if changed, err := cms.RepairAliases(r, func(string, string) (bool, error) { return false, nil }); !changed || err != nil {
		t.Fatal(changed, err)
	}
	if r.URLAlias["en"] != "/\u00e9" || r.URLAlias["it"] != "/x" {
		t.Errorf("repaired %+q", r.URLAlias)
	}
}
