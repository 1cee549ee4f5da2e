package cms

import (
	"slices"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"Città di Castello":     {"citta", "di", "castello"},
		"CITTÀ":                 {"citta"},
		"Straße 5":              {"strasse", "5"},
		"ＡＢＣ Ｃafé":              {"abc", "cafe"},
		"L'Aquila, ÉTÉ—2026":    {"l", "aquila", "ete", "2026"},
		"ﬁord ㎆ İstanbul":       {"fiord", "mb", "istanbul"},
		"Ὀδυσσεύς":              {"οδυσσευσ"}, // final sigma folded
		"東京 タワー":                {"東京", "タワー"},
		"  --  ":                nil,
		"poi-00123":             {"poi", "00123"},
		strings.Repeat("a", 50): {strings.Repeat("a", maxTermWord)},
	} {
		if got := Words(in); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
	// Folding twice changes nothing, so a folded word searched finds itself.
	for _, s := range []string{"Città", "Straße", "ＡＢＣ", "ǰ", "İ", "ﬃ", "Ὀδυσσεύς"} {
		if once := Fold(s); Fold(once) != once {
			t.Errorf("Fold(%q) = %q, again %q", s, once, Fold(once))
		}
	}
}

func TestIndexTerms(t *testing.T) {
	t.Parallel()
	r := &Resource{ID: "poi-00123", Title: Langs[string]{"en": "Lake Como", "it": "Lago di Como", "de": ""},
		ResourceType: Some("LAKE"), ResourceCategories: NullOf([]string{"water", "nature"})}
	got := indexTerms(r)
	want := []string{"c:nature", "c:water", "t:en:lake como", "t:it:lago di como", "u:",
		"w:00123", "w:como", "w:di", "w:lago", "w:lake", "w:poi", "w:poi00123", "y:LAKE"}
	if !slices.Equal(got, want) {
		t.Errorf("terms:\n got %q\nwant %q", got, want)
	}
	if got := MissingTerms(got, []string{"en", "it", "de", "fr"}); !slices.Equal(got, []string{"m:de", "m:fr"}) {
		t.Errorf("missing: %q", got)
	}
	r.Published = Some(true)
	if slices.Contains(indexTerms(r), "u:") {
		t.Error("a published record is marked unpublished")
	}
	before := indexTerms(r)
	r.Title["en"] = "Lake Como, north"
	if TitledChange(before, indexTerms(r)) {
		t.Error("a new title in a language that had one changed the titled languages")
	}
	r.Title["de"] = "Comer See"
	if !TitledChange(before, indexTerms(r)) {
		t.Error("a title in a new language did not change the titled languages")
	}
	if key := TitleKey("t:it:lago di como"); key != "lago di como" {
		t.Errorf("TitleKey: %q", key)
	}
	if v := TermValue("y:LAKE"); v != "LAKE" {
		t.Errorf("TermValue: %q", v)
	}
}

func TestSearchTerms(t *testing.T) {
	t.Parallel()
	terms := indexTerms(&Resource{ID: "poi-00123", Title: Langs[string]{"en": "Lake Como", "it": "Città di Como"}})
	for q, want := range map[string]bool{
		"lake": true, "LAK": true, "città": true, "cit di": true, "como lake poi": true, "poi-001": true,
		"poi00": true, "00123": true, "akE": false, "lake garda": false, "comox": false, "p o i": false,
	} {
		ranges, err := SearchTerms(q)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if got := MatchTerms(terms, ranges); got != want {
			t.Errorf("%q matches %v, want %v", q, got, want)
		}
	}
	// A word another word starts with asks nothing more; longest first.
	ranges, _ := SearchTerms("co como c COMO lake")
	if len(ranges) != 2 || ranges[0].From != "w:como" || ranges[1].From != "w:lake" {
		t.Errorf("ranges: %+v", ranges)
	}
	for _, q := range []string{"", " ", "!?", strings.Repeat("x", MaxSearchLength+1), "a b c d e f g h i", "\xff"} {
		if _, err := SearchTerms(q); ErrorCode(err) != CodeMalformed {
			t.Errorf("%q: %v, want CodeMalformed", q, err)
		}
	}
	if _, err := SearchTerms(strings.Repeat("é", MaxSearchLength)); err != nil {
		t.Errorf("200 characters: %v", err)
	}
}
