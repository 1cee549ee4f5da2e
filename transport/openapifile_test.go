package transport

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/bwcms/cms/cms"
)

// TestOpenAPIFileSchemas: the track of a file object is described field
// by field (a field added to the measurement without a description fails
// here), its duration may be null, and the upload takes a multipart form
// or the raw bytes.
func TestOpenAPIFileSchemas(t *testing.T) {
	t.Parallel()
	langs, err := cms.ParseLanguages("en")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := OpenAPI(langs)
	if err != nil {
		t.Fatal(err)
	}
	type schema struct {
		Type        any               `json:"type"`
		Description string            `json:"description"`
		Properties  map[string]schema `json:"properties"`
	}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"File", "FileUploadAnswer", "FileInfo"} {
		tr, ok := doc.Components.Schemas[name].Properties["track"]
		if !ok || len(tr.Properties) < 2 {
			t.Fatalf("%s: no track properties", name)
		}
		var walk func(where string, s schema)
		walk = func(where string, s schema) {
			for k, p := range s.Properties {
				if p.Description == "" {
					t.Errorf("%s.%s: no description", where, k)
				}
				walk(where+"."+k, p)
			}
		}
		walk(name+".track", tr)
		if got := fmt.Sprint(tr.Properties["duration"].Type); got != "[number null]" {
			t.Errorf("%s.track.duration: type %s", name, got)
		}
	}
	if got := fmt.Sprint(doc.Components.Schemas["FileList"].Properties["next"].Type); got != "[string null]" {
		t.Errorf("FileList.next: type %s", got)
	}
	var upload struct {
		RequestBody struct {
			Content map[string]json.RawMessage `json:"content"`
		} `json:"requestBody"`
		Security *[]any `json:"security"`
	}
	if err := json.Unmarshal(doc.Paths["/api/bw/v2/file"]["post"], &upload); err != nil {
		t.Fatal(err)
	}
	if len(upload.RequestBody.Content) != 2 || upload.RequestBody.Content["multipart/form-data"] == nil ||
		upload.RequestBody.Content["application/octet-stream"] == nil || upload.Security != nil {
		t.Errorf("upload: %+v", upload)
	}
	for _, p := range []string{"/api/bw/v2/file/{fileId}/{fileName}", "/api/bw/v2/file/{fileId}/track.geojson"} {
		for _, method := range []string{"get", "head"} {
			var op struct {
				Security *[]any `json:"security"`
			}
			if err := json.Unmarshal(doc.Paths[p][method], &op); err != nil {
				t.Fatalf("%s %s: %v", method, p, err)
			}
			if op.Security == nil || len(*op.Security) != 0 {
				t.Errorf("%s %s: security %v, want none", method, p, op.Security)
			}
		}
	}
}
