package transport

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// statsAccess matches a Proposal's access counter, which every read by
// id counts.
var statsAccess = regexp.MustCompile(`"statsAccess":(\d+)`)

// TestReadsFromStoredBytes: reads answered from the stored bytes (whole
// records) and reads that decode them (a projection, a search by ids,
// and every read with decodeReads) answer the same status, body and
// ETag, for full and sparse records of every kind with assignments, by
// one id, by ids and through every list option; If-None-Match with the
// ETag is 304 on both.
func TestReadsFromStoredBytes(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		langs, _ := cms.NewLanguages("en", "en", "it", "de")
		codec, err := cms.NewCodec(langs)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[cms.Kind]string{}
		for _, kind := range cms.Kinds() {
			body := string(codec.AppendPatch(nil, cms.SampleRecord(kind, langs)))
			path := "/api/bw/v2/" + string(kind)
			w := e.send("admin", "POST", path, body, nil)
			if w.Code == http.StatusConflict {
				for _, m := range missingRef.FindAllStringSubmatch(w.Body.String(), -1) {
					k := map[string]string{"Resource": "resource", "Map": "map", "Map or Landing": "map", "Landing": "landing"}[m[1]]
					if r := e.send("admin", "POST", "/api/bw/v2/"+k, `{"id":"`+m[2]+`","published":true}`, nil); r.Code != 201 && r.Code != 200 {
						t.Fatalf("creating %s %s: %d %s", k, m[2], r.Code, r.Body)
					}
				}
				w = e.send("admin", "POST", path, body, nil)
			}
			if w.Code != http.StatusCreated {
				t.Fatalf("%s: create: %d %s", kind, w.Code, w.Body)
			}
			ids[kind] = cms.SampleRecord(kind, langs).RecordID()
			// A sparse one, and one in the default language only.
			for _, extra := range []string{`{"id":"sparse-1"}`, `{"id":"plain-1","published":true,"title":"Plain \"one\"","urlAlias":"/plain-` + string(kind) + `"}`} {
				if w := e.send("admin", "POST", path, extra, nil); w.Code != http.StatusCreated {
					t.Fatalf("%s: create %s: %d %s", kind, extra, w.Code, w.Body)
				}
			}
		}
		res, mp := ids[cms.KindResource], ids[cms.KindMap]
		if w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"plain-1","mapIds":["`+mp+`"],"mapSecondaryIds":["sparse-1"]}`, nil); w.Code != http.StatusAccepted {
			t.Fatalf("assigning plain-1: %d %s", w.Code, w.Body)
		}
		var paths []string
		for _, kind := range cms.Kinds() {
			k := "/api/bw/v2/" + string(kind)
			id := ids[kind]
			paths = append(paths,
				k+"/"+id, k+"/"+id+"/published/*", k+"/sparse-1/published/*", k+"/plain-1",
				k+"/"+id+",plain-1,missing,sparse-1/published/*", k+"/missing,plain-1", k+"/missing",
				k, k+"/published/*", k+"/published/0", k+"/published/*/after/plain-1/limit/2",
				k+"/published/*/updatedSince/2000-01-01T00:00:00",
				k+"/published/*?search=plain", k+"/"+id+",plain-1/published/*?search=plain",
				k+"/"+id+"/published/*/ignoreFields/title_it", k+"/published/*/fields/title,urlAlias_de", k+"/published/*/excludeFiles",
			)
		}
		paths = append(paths,
			"/api/bw/v2/resource/published/*/mapId/"+mp, "/api/bw/v2/resource/"+res+",plain-1/published/*/mapId/"+mp,
			"/api/bw/v2/resource/published/*/bbox/-180,-90,180,90", "/api/bw/v2/map/published/*/bbox/-180,-90,180,90",
			"/api/bw/v2/resource/"+res+",plain-1/published/*/bbox/-180,-90,180,90",
		)
		read := func(path string, decode bool, header map[string]string) (int, string, string) {
			t.Helper()
			e.h.decodeReads = decode
			defer func() { e.h.decodeReads = false }()
			w := e.send("admin", "GET", path, "", header)
			return w.Code, w.Body.String(), w.Header().Get("ETag")
		}
		for _, path := range paths {
			code, body, etag := read(path, false, nil)
			wantCode, want, wantTag := read(path, true, nil)
			if strings.HasPrefix(path, "/api/bw/v2/proposal/") && body != want {
				// Each read of a Proposal by ids counts one more access.
				body = statsAccess.ReplaceAllStringFunc(body, func(m string) string {
					n, _ := strconv.Atoi(statsAccess.FindStringSubmatch(m)[1])
					return `"statsAccess":` + strconv.Itoa(n+1)
				})
			}
			if code != wantCode || body != want || etag != wantTag {
				t.Errorf("GET %s:\nfrom stored bytes %d %s %s\n          decoded %d %s %s", path, code, etag, body, wantCode, wantTag, want)
			}
			if code == http.StatusOK && etag != "" {
				for _, decode := range []bool{false, true} {
					if c, b, _ := read(path, decode, map[string]string{"If-None-Match": etag}); c != http.StatusNotModified || b != "" {
						t.Errorf("GET %s If-None-Match %s (decoding %v): %d %q, want 304", path, etag, decode, c, b)
					}
				}
			}
		}
	})
}
