package transport

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// imageURL is an image URL of exactly n characters.
func imageURL(n int) string {
	const head, tail = "https://x.org/", ".jpg"
	return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
}

// jsonList is a JSON array of n strings made by item.
func jsonList(n int, item func(i int) string) string {
	list := make([]string, n)
	for i := range list {
		list[i] = item(i)
	}
	b, _ := json.Marshal(list)
	return string(b)
}

// TestBoundsWhereContractGivesNone: URL fields without a size in the
// contract hold at most 2,000 characters, multimedia and the lists of
// category, region, stage or label ids at most 100 items (DECISIONS §13);
// one over is a 409 problem that stores nothing, the bound itself is
// accepted, and id lists that assign or reference records are not cut.
func TestBoundsWhereContractGivesNone(t *testing.T) {
	t.Parallel()
	term := func(i int) string { return "t" + strings.Repeat("x", i%5) }
	forEachStore(t, func(t *testing.T, e *env) {
		for _, c := range []struct {
			kind, field, over, at, problem string
		}{
			{"resource", "image", `"` + imageURL(2001) + `"`, `"` + imageURL(2000) + `"`, "image: must be at most 2000 characters"},
			{"resource", "mapLayerFile", `"https://x.org/` + strings.Repeat("l", 1983) + `.kml"`, `"https://x.org/` + strings.Repeat("l", 1982) + `.kml"`,
				"mapLayerFile: must be at most 2000 characters"},
			{"resource", "multimedia", jsonList(101, func(int) string { return imageURL(40) }), jsonList(100, func(int) string { return imageURL(2000) }),
				"multimedia: must have at most 100 items"},
			{"resource", "multimedia", `["` + imageURL(2001) + `"]`, `["` + imageURL(2000) + `"]`, "multimedia[0]: must be at most 2000 characters"},
			{"resource", "resourceCategories", jsonList(101, term), jsonList(100, term), "resourceCategories: must have at most 100 items"},
			{"resource", "resourceRegions", jsonList(101, term), jsonList(100, term), "resourceRegions: must have at most 100 items"},
			{"resource", "resourceStage", jsonList(101, term), jsonList(100, term), "resourceStage: must have at most 100 items"},
			{"map", "customHeaderFile", `"` + imageURL(2001) + `"`, `"` + imageURL(2000) + `"`, "customHeaderFile: must be at most 2000 characters"},
			{"map", "mapCategories", jsonList(101, term), jsonList(100, term), "mapCategories: must have at most 100 items"},
			{"map", "mapFilterCategories", jsonList(101, term), jsonList(100, term), "mapFilterCategories: must have at most 100 items"},
			{"map", "mapFilterCategoriesSecondary", jsonList(101, term), jsonList(100, term), "mapFilterCategoriesSecondary: must have at most 100 items"},
			{"map", "tourMultiday", `[{"dayLabels":` + jsonList(101, func(i int) string { return "D1" }) + `}]`,
				`[{"dayLabels":` + jsonList(100, func(i int) string { return "D1" }) + `}]`, "tourMultiday[0].dayLabels: must have at most 100 items"},
			{"landing", "landingCategories", jsonList(101, term), jsonList(100, term), "landingCategories: must have at most 100 items"},
			{"proposal", "image", `"` + imageURL(2001) + `"`, `"` + imageURL(2000) + `"`, "image: must be at most 2000 characters"},
		} {
			id := fmt.Sprintf("b-%s-%s-%d", c.kind, c.field, len(c.over))
			kind := strings.ToUpper(c.kind[:1]) + c.kind[1:]
			w := e.send("admin", "POST", "/api/bw/v2/"+c.kind, `{"id":"`+id+`","`+c.field+`":`+c.over+`}`, nil)
			want := kind + " " + id + ": " + c.problem
			if w.Code != 409 || !strings.Contains(w.Body.String(), want) {
				t.Errorf("%s over the bound: %d %.300s, want 409 with %q", c.field, w.Code, w.Body, want)
			}
			if r := e.send("admin", "GET", "/api/bw/v2/"+c.kind+"/"+id+"/published/*", "", nil); r.Code != 404 {
				t.Errorf("%s over the bound stored something: %d", c.field, r.Code)
			}
			w = e.send("admin", "POST", "/api/bw/v2/"+c.kind, `{"id":"`+id+`","`+c.field+`":`+c.at+`}`, nil)
			if w.Code != 201 {
				t.Errorf("%s at the bound: %d %.300s, want 201", c.field, w.Code, w.Body)
			}
			// Posted back: a Skip (the default-language fields only).
			read := e.send("admin", "GET", "/api/bw/v2/"+c.kind+"/"+id+"/published/*", "", nil)
			if w := e.send("admin", "POST", "/api/bw/v2/"+c.kind, read.Body.String(), nil); w.Code != 200 {
				t.Errorf("%s at the bound posted back: %d %.300s", c.field, w.Code, w.Body)
			}
		}
		// An id list is bounded by the body only: 150 references, one
		// problem per missing record, none about the list's length.
		w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"b-refs","poiResourceIds":`+jsonList(150, func(i int) string { return "r-" + strings.Repeat("0", i%3) + string(rune('a'+i%26)) + "xx" })+`}`, nil)
		if strings.Contains(w.Body.String(), "at most") {
			t.Errorf("poiResourceIds of 150 ids: %d %.300s", w.Code, w.Body)
		}
	})
}

// TestStoredOverBoundStillReads: a record stored before the bounds (here
// written to the store directly) still reads, alone and in a list by ids;
// posting it back unchanged is a 409 naming the bound, and changes
// nothing.
func TestStoredOverBoundStillReads(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		many := make([]string, 150)
		for i := range many {
			many[i] = imageURL(2500)
		}
		r := &cms.Resource{ID: "old-1", Published: cms.Some(true), Multimedia: cms.NullOf(many), Image: cms.NullOf(imageURL(3000))}
		if err := e.store.PutRecord(ctx, &cms.Entry{Account: "acme", Record: r, Updated: e.clock.Now()}); err != nil {
			t.Fatal(err)
		}
		one := e.send("admin", "GET", "/api/bw/v2/resource/old-1", "", nil)
		if one.Code != 200 || !strings.Contains(one.Body.String(), imageURL(3000)) {
			t.Fatalf("read: %d %.200s", one.Code, one.Body)
		}
		if list := e.send("admin", "GET", "/api/bw/v2/resource/old-1,none-1", "", nil); list.Code != 200 || !strings.HasPrefix(list.Body.String(), `[{"id":"old-1"`) {
			t.Fatalf("read by ids: %d %.200s", list.Code, list.Body)
		}
		w := e.send("admin", "POST", "/api/bw/v2/resource", one.Body.String(), nil)
		if w.Code != 409 || !strings.Contains(w.Body.String(), "multimedia: must have at most 100 items") ||
			!strings.Contains(w.Body.String(), "image: must be at most 2000 characters") {
			t.Errorf("posted back: %d %.300s", w.Code, w.Body)
		}
		if again := e.send("admin", "GET", "/api/bw/v2/resource/old-1", "", nil); again.Body.String() != one.Body.String() {
			t.Errorf("the refused post changed the record")
		}
	})
}

// TestHTMLLimitJudgedSanitized: HTML fields are sanitized first and their
// limits judged on what will be stored. 995 characters of French with
// apostrophes grow to 1,495 when escaped: over htmlDescription's 1,000, a
// 409 that stores nothing. Text whose stored form fits is stored, and the
// record read and posted back is a Skip.
func TestHTMLLimitJudgedSanitized(t *testing.T) {
	t.Parallel()
	// 125 apostrophes, 995 characters.
	french := strings.Repeat("C'est l'été ", 83)[:995]
	french = strings.TrimRight(french, " ")
	french += strings.Repeat(".", 995-len([]rune(french)))
	if n := len([]rune(french)); n != 995 {
		t.Fatalf("fixture has %d characters", n)
	}
	fits := strings.Repeat("Qu'il ", 98) // 588 characters, 98 apostrophes: 980 stored
	forEachStore(t, func(t *testing.T, e *env) {
		for _, kind := range []string{"resource", "landing", "proposal"} {
			body, _ := json.Marshal(map[string]any{"id": "h-over", "htmlDescription": french})
			w := e.send("admin", "POST", "/api/bw/v2/"+kind, string(body), nil)
			if w.Code != 409 || !strings.Contains(w.Body.String(), "h-over: htmlDescription: must be at most 1000 characters") {
				t.Errorf("%s: 995 characters stored as 1,495: %d %.300s", kind, w.Code, w.Body)
			}
			if r := e.send("admin", "GET", "/api/bw/v2/"+kind+"/h-over/published/*", "", nil); r.Code != 404 {
				t.Errorf("%s: the refused record was stored: %d", kind, r.Code)
			}

			body, _ = json.Marshal(map[string]any{"id": "h-fits", "htmlDescription": fits, "htmlDescription_it": french[:600]})
			if w := e.send("admin", "POST", "/api/bw/v2/"+kind, string(body), nil); w.Code != 201 {
				t.Fatalf("%s: %d %.300s", kind, w.Code, w.Body)
			}
			read := e.send("admin", "GET", "/api/bw/v2/"+kind+"/h-fits/published/*", "", nil)
			var got map[string]any
			_ = json.Unmarshal(read.Body.Bytes(), &got)
			if s, _ := got["htmlDescription"].(string); len([]rune(s)) != 980 {
				t.Errorf("%s: stored htmlDescription has %d characters, want 980", kind, len([]rune(s)))
			}
			if w := e.send("admin", "POST", "/api/bw/v2/"+kind, read.Body.String(), nil); w.Code != 200 || !strings.HasPrefix(w.Body.String(), `{"done":"Skip `) {
				t.Errorf("%s: read record posted back: %d %.300s", kind, w.Code, w.Body)
			}
			// Posted in a batch: refused at submit alike.
			body, _ = json.Marshal([]map[string]any{{"id": "h-batch", "htmlDescription": french}})
			if w := e.send("admin", "POST", "/api/bw/v2/"+kind+"/batch", string(body), nil); w.Code != 409 ||
				!strings.Contains(w.Body.String(), "h-batch: htmlDescription: must be at most 1000 characters") {
				t.Errorf("%s batch: %d %.300s", kind, w.Code, w.Body)
			}
		}
	})
}
