package admin

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

// acme is a context acting as acme's admin with the account's languages
// of now, for the store's side of a test.
func (e *env) acme() context.Context {
	e.t.Helper()
	p, err := e.svc.AccountLanguages(context.Background(), cms.Principal{Account: "acme", User: "admin", Perms: []string{"*"}})
	if err != nil {
		e.t.Fatal(err)
	}
	return cms.WithPrincipal(context.Background(), p)
}

// put stores records of kind (JSON bodies) as acme's admin.
func (e *env) put(kind cms.Kind, bodies ...string) {
	e.t.Helper()
	for _, b := range bodies {
		if _, err := e.svc.Upsert(e.acme(), kind, []byte(b), nil); err != nil {
			e.t.Fatalf("store %s %s: %v", kind, b, err)
		}
	}
}

// stored reads a record as the API answers it, without counting a visit;
// nil when there is none.
func (e *env) stored(kind cms.Kind, id string) map[string]any {
	e.t.Helper()
	ctx := e.acme()
	seq, err := e.svc.Read(ctx, kind, cms.ReadParams{IDs: []string{id}, Published: cms.PublishedAny, Uncounted: true})
	if err != nil {
		e.t.Fatal(err)
	}
	codec, err := e.svc.Codec(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	for en, err := range seq {
		if err != nil {
			e.t.Fatal(err)
		}
		var obj map[string]any
		if err := json.Unmarshal(codec.Marshal(e.svc.Wire(en)), &obj); err != nil {
			e.t.Fatal(err)
		}
		return obj
	}
	return nil
}

// storedJSON is a stored record as JSON, for comparing before and after.
func (e *env) storedJSON(kind cms.Kind, id string) string {
	e.t.Helper()
	b, err := json.Marshal(e.stored(kind, id))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// formValues is what a browser posts of the form sel of doc (without a
// button): enabled controls, checked boxes, selected options, textareas
// with CRLF line ends.
func formValues(t testing.TB, doc *goquery.Document, sel string) url.Values {
	t.Helper()
	form := doc.Find(sel)
	if form.Length() != 1 {
		t.Fatalf("%d forms %s", form.Length(), sel)
	}
	vals := url.Values{}
	form.Find("input, select, textarea").Each(func(_ int, s *goquery.Selection) {
		name := s.AttrOr("name", "")
		if _, disabled := s.Attr("disabled"); name == "" || disabled {
			return
		}
		switch goquery.NodeName(s) {
		case "input":
			switch s.AttrOr("type", "text") {
			case "submit", "button", "image", "reset":
			case "checkbox", "radio":
				if _, on := s.Attr("checked"); on {
					vals.Add(name, s.AttrOr("value", "on"))
				}
			default:
				vals.Add(name, s.AttrOr("value", ""))
			}
		case "select":
			opt := s.Find("option[selected]")
			if opt.Length() == 0 {
				opt = s.Find("option").First()
			}
			vals.Add(name, opt.AttrOr("value", opt.Text()))
		case "textarea":
			vals.Add(name, strings.ReplaceAll(s.Text(), "\n", "\r\n"))
		}
	})
	return vals
}

// open GETs a page as c and parses it, failing unless it is a 200.
func (e *env) open(c *http.Client, path string) *goquery.Document {
	e.t.Helper()
	return e.page(e.get(c, path), http.StatusOK)
}

// press posts the record form of doc to path with one button pressed
// and the changes applied.
func (e *env) press(c *http.Client, doc *goquery.Document, path, action string, change func(url.Values)) *http.Response {
	e.t.Helper()
	vals := formValues(e.t, doc, "#record-form")
	if change != nil {
		change(vals)
	}
	vals.Set("_action", action)
	return e.post(c, path, vals)
}

// must fails unless the response is a redirect to path, which it follows.
func (e *env) follow(c *http.Client, res *http.Response, path string) *goquery.Document {
	e.t.Helper()
	if res.StatusCode != http.StatusSeeOther {
		doc := e.page(res, res.StatusCode)
		e.t.Fatalf("%s: status %d, want 303; page says %q", res.Request.URL.Path, res.StatusCode, strings.Join(strings.Fields(doc.Find("main").Text()), " "))
	}
	if loc := res.Header.Get("Location"); loc != e.prefix+path {
		e.t.Fatalf("redirect to %s, want %s", loc, e.prefix+path)
	}
	return e.open(c, path)
}

func text(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }

// controlIDs names the control of each property: f- and the name with
// brackets and dots made dashes.
func controlIDOf(name string) string { return controlID(name) }

// schemaProps reads the ordered property names of a kind's schema and of
// its nested items.
func schemaProps(t *testing.T, kind cms.Kind, langs cms.Languages) ([]string, map[string][]string, map[string]bool) {
	t.Helper()
	raw, err := cms.JSONSchema(kind, langs)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	names, items, writeOnly := orderedKeys(t, doc.Properties)
	return names, items, writeOnly
}

func orderedKeys(t *testing.T, props json.RawMessage) ([]string, map[string][]string, map[string]bool) {
	dec := json.NewDecoder(strings.NewReader(string(props)))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var names []string
	items := map[string][]string{}
	writeOnly := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		name := tok.(string)
		var p struct {
			WriteOnly bool `json:"writeOnly"`
			Items     struct {
				Properties json.RawMessage `json:"properties"`
			} `json:"items"`
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		writeOnly[name] = p.WriteOnly
		if p.Items.Properties != nil {
			items[name], _, _ = orderedKeys(t, p.Items.Properties)
		}
	}
	return names, items, writeOnly
}

// oneOfEach are records of each kind with one item in every nested list,
// so that the item properties have controls too.
var oneOfEach = map[cms.Kind]string{
	cms.KindResource: `{"id":"r-1","title":"Resource one","title_it":"Risorsa uno"}`,
	cms.KindMap:      `{"id":"m-1","title":"Map one","tourMultiday":[{"dayLabels":["D1"],"title":"Day one"}]}`,
	cms.KindLanding:  `{"id":"l-1","title":"Landing one","landingBlocks":[{"title":"Block"}],"landingHotels":[{"title":"Hotels"}]}`,
	cms.KindProposal: `{"id":"p-1","title":"Proposal one","relatedContents":[{"title":"Related"}],"hotels":[{"title":"Hotel"}]}`,
}

var oneID = map[cms.Kind]string{cms.KindResource: "r-1", cms.KindMap: "m-1", cms.KindLanding: "l-1", cms.KindProposal: "p-1"}

// TestEveryPropertyHasOneLabelledControl walks every kind's schema (three
// languages, all shown) and finds for each property exactly one control
// with a visible label (a nested list: its fieldset and legend, and one
// control per property of its item), except the write-only ones notShown
// lists; and no control the schema does not name.
func TestEveryPropertyHasOneLabelledControl(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	for _, kind := range cms.Kinds() {
		e.put(kind, oneOfEach[kind])
		id := oneID[kind]
		doc := e.open(c, "/"+string(kind)+"/"+id+"/edit")
		props, items, writeOnly := schemaProps(t, kind, cms.Languages{Default: "en", All: []string{"en", "it", "de"}})
		// File inputs are the upload controls of file fields (TestEveryFileFieldHasAnUploadControl).
		controls := doc.Find("#record-form").Find("input:not([type=hidden]):not([type=file]), select, textarea, output")
		byID := map[string]int{}
		controls.Each(func(_ int, s *goquery.Selection) {
			if id := s.AttrOr("id", ""); strings.HasPrefix(id, "f-") {
				byID[id]++
			}
		})
		expected := map[string]bool{}
		check := func(prop string) {
			id := controlIDOf(prop)
			expected[id] = true
			if n := byID[id]; n != 1 {
				t.Errorf("%s: property %s has %d controls #%s, want 1", kind, prop, n, id)
				return
			}
			label := doc.Find(`label[for="` + id + `"]`)
			if label.Length() != 1 || text(label) == "" {
				t.Errorf("%s: property %s: control #%s has %d labels (%q)", kind, prop, id, label.Length(), text(label))
			}
			if label.HasClass("visually-hidden") {
				t.Errorf("%s: property %s: the label is not visible", kind, prop)
			}
		}
		for _, prop := range props {
			if writeOnly[prop] {
				if _, listed := notShown[prop]; !listed {
					t.Errorf("%s: write-only property %s is not in notShown", kind, prop)
				}
				if byID[controlIDOf(prop)] != 0 {
					t.Errorf("%s: write-only property %s has a control", kind, prop)
				}
				continue
			}
			if _, listed := notShown[prop]; listed {
				t.Errorf("%s: %s is listed in notShown but is not write-only", kind, prop)
			}
			if sub, ok := items[prop]; ok {
				fs := doc.Find(`fieldset.items[data-path="` + prop + `"]`)
				if fs.Length() != 1 || text(fs.ChildrenFiltered("legend")) == "" {
					t.Errorf("%s: nested list %s has %d fieldsets with a legend", kind, prop, fs.Length())
				}
				if fs.Find("fieldset.item").Length() != 1 {
					t.Fatalf("%s: nested list %s shows %d items, want 1", kind, prop, fs.Find("fieldset.item").Length())
				}
				for _, s := range sub {
					check(prop + "[0]." + s)
				}
				continue
			}
			check(prop)
		}
		for id := range byID {
			if !expected[id] {
				t.Errorf("%s: control #%s names no property of the schema", kind, id)
			}
		}
		// Ids are unique (labels and descriptions point at them).
		seen := map[string]bool{}
		doc.Find("[id]").Each(func(_ int, s *goquery.Selection) {
			if id := s.AttrOr("id", ""); seen[id] {
				t.Errorf("%s: id %s twice", kind, id)
			} else {
				seen[id] = true
			}
		})
		doc.Find("[aria-describedby]").Each(func(_ int, s *goquery.Selection) {
			for _, id := range strings.Fields(s.AttrOr("aria-describedby", "")) {
				if !seen[id] {
					t.Errorf("%s: %s describedby #%s, which is not on the page", kind, s.AttrOr("name", "?"), id)
				}
			}
		})
		// Every control on the page, the form's own too, has a label.
		doc.Find("main").Find("input:not([type=hidden]), select, textarea").Each(func(_ int, s *goquery.Selection) {
			id := s.AttrOr("id", "")
			if id == "" || doc.Find(`label[for="`+id+`"]`).Length() == 0 {
				t.Errorf("%s: control %s (#%s) has no label", kind, s.AttrOr("name", "?"), id)
			}
		})
	}
}

// valueOf is a control's value on a page.
func valueOf(doc *goquery.Document, name string) string {
	s := doc.Find(`#record-form [name="` + name + `"]`).First()
	if goquery.NodeName(s) == "textarea" {
		return s.Text()
	}
	return s.AttrOr("value", "")
}

// notices are the texts of a page's notices.
func notices(doc *goquery.Document) string { return text(doc.Find(".notice")) }

func sameJSON(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s changed:\n got %s\nwant %s", what, got, want)
	}
}
