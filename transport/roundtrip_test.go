package transport

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// missingRef matches the problem of a reference to a record that does not
// exist, naming its kind and id.
var missingRef = regexp.MustCompile(`: (Resource|Map|Map or Landing|Landing) (\S+) does not exist`)

// TestFullRecordReadBackIsSkip: a fully populated record of every kind, in
// three languages, is created; read back, it posts back as a Skip, and the
// read answer carries every field once.
func TestFullRecordReadBackIsSkip(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		langs, _ := cms.NewLanguages("en", "en", "it", "de")
		codec, err := cms.NewCodec(langs)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range cms.Kinds() {
			body := string(codec.AppendPatch(nil, cms.SampleRecord(kind, langs)))
			path := "/api/bw/v2/" + string(kind)
			w := e.send("admin", "POST", path, body, nil)
			if w.Code == http.StatusConflict {
				// Create what the example names, then try again.
				for _, m := range missingRef.FindAllStringSubmatch(w.Body.String(), -1) {
					k := map[string]string{"Resource": "resource", "Map": "map", "Map or Landing": "map", "Landing": "landing"}[m[1]]
					if r := e.send("admin", "POST", "/api/bw/v2/"+k, `{"id":"`+m[2]+`"}`, nil); r.Code != 201 && r.Code != 200 {
						t.Fatalf("creating %s %s: %d %s", k, m[2], r.Code, r.Body)
					}
				}
				w = e.send("admin", "POST", path, body, nil)
			}
			if w.Code != http.StatusCreated {
				t.Fatalf("%s: create: %d %s", kind, w.Code, w.Body)
			}
			id := cms.SampleRecord(kind, langs).RecordID()
			read := e.send("admin", "GET", path+"/"+id+"/published/*", "", nil)
			if read.Code != 200 {
				t.Fatalf("%s: read: %d %s", kind, read.Code, read.Body)
			}
			back := e.send("admin", "POST", path, read.Body.String(), nil)
			if want := `{"done":"Skip ` + kind.Title() + ` ` + id + `","id":"` + id + `","new":false,"update":false}`; strings.TrimSpace(back.Body.String()) != want {
				t.Errorf("%s: posting the read record back: %d %s\nread: %s", kind, back.Code, back.Body, read.Body)
			}
			// The read matches the example field for field (read-only ones aside).
			var got cms.Record = cms.NewRecord(kind)
			if err := codec.Decode(read.Body.Bytes(), got); err != nil {
				t.Fatalf("%s: the read answer does not decode: %v", kind, err)
			}
			want := cms.SampleRecord(kind, langs)
			clearReadOnly(got)
			clearReadOnly(want)
			if g, w := string(codec.Marshal(got)), string(codec.Marshal(want)); g != w {
				t.Errorf("%s: stored record differs\n got %s\nwant %s", kind, g, w)
			}
		}
	})
}

func clearReadOnly(rec cms.Record) {
	switch r := rec.(type) {
	case *cms.Resource:
		r.TimeLastUpdate = ""
	case *cms.Map:
		r.TimeLastUpdate = ""
	case *cms.Landing:
		r.TimeLastUpdate = ""
	case *cms.Proposal:
		r.TimeLastUpdate, r.StatsAccess, r.StatsLastAccess = "", 0, cms.Null[string]{}
	}
}
