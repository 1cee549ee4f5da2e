package admin

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

// columns are the languages of a multi-language row.
func columns(doc *goquery.Document, field string) string {
	var out []string
	doc.Find(`.ml[data-field="` + field + `"] > .ml-cols > .ml-col`).Each(func(_ int, s *goquery.Selection) {
		out = append(out, s.AttrOr("data-lang", "?"))
	})
	return strings.Join(out, ",")
}

// sixLanguages gives acme three more languages: en, it, de, fr, es, nl.
func sixLanguages(e *env) {
	e.t.Helper()
	for _, code := range []string{"fr", "es", "nl"} {
		if _, err := e.svc.AddLanguage(context.Background(), "acme", code); err != nil {
			e.t.Fatal(err)
		}
	}
}

// TestLanguagesSideBySide: with six languages a form shows the default
// and three more, the picker offers the other five, the choice is
// remembered, and a save leaves the languages not shown as stored.
func TestLanguagesSideBySide(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	sixLanguages(e)
	e.put(cms.KindResource, `{"id":"r-1","title":"Lake","title_it":"Lago","title_nl":"Meer","title_es":"Lago"}`)
	c := e.signIn("editor")
	path := editPath(cms.KindResource, "r-1")
	doc := e.open(c, path)
	if got := columns(doc, "title"); got != "en,it,de,fr" {
		t.Errorf("columns %s, want en,it,de,fr", got)
	}
	var offered, checked []string
	doc.Find(`.langpick input[name="_langs"]`).Each(func(_ int, s *goquery.Selection) {
		offered = append(offered, s.AttrOr("value", ""))
		if _, on := s.Attr("checked"); on {
			checked = append(checked, s.AttrOr("value", ""))
		}
	})
	if strings.Join(offered, ",") != "it,de,fr,es,nl" || strings.Join(checked, ",") != "it,de,fr" {
		t.Errorf("picker offers %v, checked %v", offered, checked)
	}
	if got := doc.Find("#f-title_it").AttrOr("lang", ""); got != "it" {
		t.Errorf("title_it has lang %q", got)
	}

	// A link picks languages; the choice holds on the next form.
	res := e.get(c, path+"?langs=nl,es")
	if ck := cookieOf(res, langsCookie); ck == nil || ck.Path != "/admin/" || !ck.HttpOnly {
		t.Errorf("the choice's cookie: %+v", ck)
	}
	if got := columns(e.page(res, http.StatusOK), "title"); got != "en,es,nl" {
		t.Errorf("after ?langs=nl,es: %s", got)
	}
	doc = e.open(c, path)
	if got := columns(doc, "title"); got != "en,es,nl" {
		t.Errorf("remembered: %s", got)
	}

	// The picker's boxes, four asked: three kept.
	doc = e.page(e.press(c, doc, path, "langs", func(v url.Values) {
		v["_langs"] = []string{"it", "de", "fr", "nl"}
		v.Set("title", "Lake, edited")
	}), http.StatusOK)
	if got := columns(doc, "title"); got != "en,it,de,fr" {
		t.Errorf("after picking four: %s", got)
	}
	if got := notices(doc); !strings.Contains(got, "up to three languages beside en: showing it, de, fr") {
		t.Errorf("notice %q", got)
	}
	if got := valueOf(doc, "title"); got != "Lake, edited" {
		t.Errorf("picking languages lost the editor's title: %q", got)
	}

	// Saving sends the languages shown; nl and es stay as stored.
	e.follow(c, e.press(c, doc, path, "save", func(v url.Values) { v.Set("title_fr", "Lac") }), path)
	got := e.stored(cms.KindResource, "r-1")
	for k, v := range map[string]any{"title": "Lake, edited", "title_fr": "Lac", "title_nl": "Meer", "title_es": "Lago", "title_it": "Lago"} {
		if got[k] != v {
			t.Errorf("stored %s %v, want %v", k, got[k], v)
		}
	}
}

// TestProblemInALanguageNotShown: a problem of a field in a language the
// form does not show is listed in the summary with a button that shows
// that language, the editor's values kept.
func TestProblemInALanguageNotShown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	sixLanguages(e)
	e.put(cms.KindResource, `{"id":"r-1","title":"Walk","resourceType":"TRACK","trackStart_nl":"Begin"}`)
	before := e.storedJSON(cms.KindResource, "r-1")
	c := e.signIn("admin")
	path := editPath(cms.KindResource, "r-1")
	doc := e.page(e.press(c, e.open(c, path), path, "save", func(v url.Values) {
		v.Set("resourceType", "POI")
		v.Set("title", "Walk, edited")
	}), http.StatusConflict)
	sameJSON(t, "r-1", e.storedJSON(cms.KindResource, "r-1"), before)
	show := doc.Find(`.error-summary button[value="show:nl"]`)
	if show.Length() != 1 || !strings.Contains(text(doc.Find(".error-summary")), "Track start (nl)") {
		t.Fatalf("summary: %s", text(doc.Find(".error-summary")))
	}
	doc = e.page(e.press(c, doc, path, "show:nl", nil), http.StatusOK)
	if got := columns(doc, "trackStart"); got != "en,it,de,nl" {
		t.Errorf("after show:nl: %s", got)
	}
	if got := valueOf(doc, "trackStart_nl"); got != "Begin" {
		t.Errorf("trackStart_nl %q", got)
	}
	if valueOf(doc, "resourceType") != "POI" || valueOf(doc, "title") != "Walk, edited" {
		t.Error("showing a language lost the editor's values")
	}
	e.follow(c, e.press(c, doc, path, "save", func(v url.Values) { v.Set("trackStart_nl", "") }), path)
	if got := e.stored(cms.KindResource, "r-1"); got["resourceType"] != "POI" || got["trackStart_nl"] != nil {
		t.Errorf("stored %v, %v", got["resourceType"], got["trackStart_nl"])
	}
}

// TestSanitizingIsShown: after a save the editor sees which HTML fields
// sanitizing changed and what it removed, once.
func TestSanitizingIsShown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	e.put(cms.KindLanding, `{"id":"l-1","title":"Page","landingBlocks":[{"title":"B"}]}`)
	c := e.signIn("admin")
	path := editPath(cms.KindLanding, "l-1")
	doc := e.follow(c, e.press(c, e.open(c, path), path, "save", func(v url.Values) {
		v.Set("htmlContent_it", `<p onclick="steal()">Ciao<script>alert(1)</script> <a href="javascript:alert(2)">x</a></p>`)
		v.Set("landingBlocks[0].htmlContent", `<p>fine</p><iframe src="https://evil.test"></iframe>`)
		v.Set("htmlDescription", `<p>written again: a & b<br>c <b>bold</b></p>`) // no notice
	}), path)
	var items []string
	doc.Find(".notice.warn li").Each(func(_ int, s *goquery.Selection) { items = append(items, text(s)) })
	want := []string{
		"HTML content (it): removed <a>, <script>, href of <a>, javascript: link in <a>, onclick of <p>",
		"Block 1, HTML content (en): removed <iframe>, src of <iframe>",
	}
	if strings.Join(items, "\n") != strings.Join(want, "\n") {
		t.Errorf("sanitizing notice:\n%s\nwant\n%s", strings.Join(items, "\n"), strings.Join(want, "\n"))
	}
	if doc.Find("main script, main iframe").Length() != 0 {
		t.Error("markup reached the page")
	}
	if got := e.stored(cms.KindLanding, "l-1")["htmlDescription"]; got == `<p>written again: a & b<br>c <b>bold</b></p>` {
		t.Errorf("htmlDescription stored as sent (%v): the test shows no re-serialization", got)
	}
	if got := e.stored(cms.KindLanding, "l-1")["htmlContent_it"]; strings.Contains(got.(string), "script") {
		t.Errorf("stored %v", got)
	}
	if doc := e.open(c, path); doc.Find(".notice").Length() != 0 {
		t.Errorf("a reload shows %q again", notices(doc))
	}
}
