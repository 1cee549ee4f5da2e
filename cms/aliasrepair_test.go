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
