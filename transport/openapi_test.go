package transport

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"flag"
	"fmt"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var updateOpenAPI = flag.Bool("update-openapi", false, "rewrite docs/openapi.json (languages en,it,de)")

// TestOpenAPIFileFresh checks that docs/openapi.json is what OpenAPI
// generates for en,it,de, as schemagen writes it. Regenerate with
//
//	go test ./transport -run TestOpenAPIFileFresh -update-openapi
func TestOpenAPIFileFresh(t *testing.T) {
	t.Parallel()
	langs, err := cms.ParseLanguages("en,it,de")
	if err != nil {
		t.Fatal(err)
	}
	want, err := OpenAPI(langs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "docs", "openapi.json")
	if *updateOpenAPI {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is missing or stale (%v): run go test ./transport -run TestOpenAPIFileFresh -update-openapi", path, err)
	}
}

// servedOpenAPI is the document served for langs at the address at.
func servedOpenAPI(t *testing.T, list, at string) []byte {
	t.Helper()
	langs, err := cms.ParseLanguages(list)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openAPI(langs, &apiServer{URL: at, Description: servedDescription})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestOpenAPIServed: with an access token the document is the one OpenAPI
// generates for the caller's account's languages as they are now (a
// language added shows at once, to a token issued before too), with the
// address it was fetched at as its server; and openapi.json is a path
// word, never a record id.
func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	const path = "/api/bw/v2/openapi.json"
	if w := e.do(httptest.NewRequest(http.MethodGet, path, nil)); w.Code != http.StatusOK ||
		!bytes.Equal(w.Body.Bytes(), servedOpenAPI(t, "en", "http://example.com")) {
		t.Fatalf("without a token: %d, not the document of en", w.Code)
	}
	if w := e.send("admin", http.MethodPost, path, "", nil); w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET" {
		t.Errorf("POST: %d, Allow %q", w.Code, w.Header().Get("Allow"))
	}
	want := func(list string) []byte { return servedOpenAPI(t, list, "http://example.com") }
	for _, user := range []string{"admin", "reader"} { // any valid token
		w := e.send(user, http.MethodGet, path, "", nil)
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
			t.Fatalf("%s: %d %s", user, w.Code, w.Body)
		}
		if !bytes.Equal(w.Body.Bytes(), want("en,it,de")) {
			t.Errorf("%s: not the document of en,it,de", user)
		}
	}
	old := e.login("otto").AccessToken // account other: de only
	if w := e.sendWith(old, http.MethodGet, path, ""); !bytes.Equal(w.Body.Bytes(), want("de")) {
		t.Errorf("account other: %d, not the document of de", w.Code)
	}
	if _, err := e.svc.AddLanguage(t.Context(), "other", "en"); err != nil {
		t.Fatal(err)
	}
	w := e.sendWith(old, http.MethodGet, path, "")
	if !bytes.Equal(w.Body.Bytes(), want("de,en")) {
		t.Errorf("after a language was added, with a token from before: %d, not the document of de,en", w.Code)
	}
	if !bytes.Contains(w.Body.Bytes(), []byte(`"title_en"`)) {
		t.Error("the document of de,en has no title_en")
	}

	// A reserved word: refused as an id, and a path word after a kind.
	if w := e.send("admin", http.MethodPost, "/api/bw/v2/resource", `{"id":"openapi.json","title":"T"}`, nil); w.Code != http.StatusConflict ||
		!strings.Contains(w.Body.String(), "must not be a path keyword") {
		t.Errorf("create openapi.json: %d %s", w.Code, w.Body)
	}
	for _, p := range []string{"/api/bw/v2/resource/openapi.json", "/api/bw/v2/resource/lake-walk,openapi.json"} {
		if w := e.send("admin", http.MethodGet, p, "", nil); w.Code != http.StatusBadRequest {
			t.Errorf("GET %s: %d %s", p, w.Code, w.Body)
		}
	}
	if cms.ValidID("openapi.json") {
		t.Error("openapi.json is a valid id")
	}
}

// apiOperation as the test reads it from the served document.
type testOperation struct {
	path, method string
	OperationID  string `json:"operationId"`
	Parameters   []struct {
		Ref string `json:"$ref"`
	} `json:"parameters"`
	Security  *[]map[string][]string `json:"security"`
	Responses map[string]struct {
		Ref     string                     `json:"$ref"`
		Content map[string]json.RawMessage `json:"content"`
	} `json:"responses"`
}

// params are the names of the operation's parameters in the path.
func (op *testOperation) params() []string {
	var names []string
	for _, seg := range strings.Split(op.path, "/") {
		if strings.HasPrefix(seg, "{") {
			names = append(names, strings.Trim(seg, "{}"))
		}
	}
	return names
}

// kind is the kind of a record path, "" elsewhere.
func (op *testOperation) kind() cms.Kind {
	segs := strings.Split(op.path, "/")
	if len(segs) > 4 && slices.Contains(cms.Kinds(), cms.Kind(segs[4])) {
		return cms.Kind(segs[4])
	}
	return ""
}

// apiContract reads an OpenAPI document and checks answers against it.
type apiContract struct {
	t        *testing.T
	ops      []*testOperation
	shared   map[string]bool // components/responses with content
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
	// seen: the statuses each operation answered.
	seen map[string][]int
}

const apiDocURL = "mem://openapi.json"

func newAPIContract(t *testing.T, raw []byte) *apiContract {
	t.Helper()
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Responses map[string]struct {
				Content map[string]json.RawMessage `json:"content"`
			} `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	c := &apiContract{t: t, shared: map[string]bool{}, compiled: map[string]*jsonschema.Schema{}, seen: map[string][]int{}}
	for name, r := range doc.Components.Responses {
		c.shared[name] = r.Content != nil
	}
	for path, item := range doc.Paths {
		for method, rawOp := range item {
			op := &testOperation{path: path, method: strings.ToUpper(method)}
			if err := json.Unmarshal(rawOp, op); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			c.ops = append(c.ops, op)
		}
	}
	slices.SortFunc(c.ops, func(a, b *testOperation) int { return strings.Compare(a.path+a.method, b.path+b.method) })
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c.compiler = jsonschema.NewCompiler()
	c.compiler.DefaultDraft(jsonschema.Draft2020)
	if err := c.compiler.AddResource(apiDocURL, v); err != nil {
		t.Fatal(err)
	}
	return c
}

func pointerEscape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// check fails the test unless w's status is one op documents and its body
// is valid against the document's schema for that status (empty when the
// status has no content).
func (c *apiContract) check(op *testOperation, what string, w *httptest.ResponseRecorder) {
	t := c.t
	t.Helper()
	status := fmt.Sprint(w.Code)
	c.seen[op.OperationID] = append(c.seen[op.OperationID], w.Code)
	resp, ok := op.Responses[status]
	if !ok {
		t.Errorf("%s (%s %s), %s: status %d is not documented; body %s", op.OperationID, op.method, op.path, what, w.Code, w.Body)
		return
	}
	loc := "#/paths/" + pointerEscape(op.path) + "/" + strings.ToLower(op.method) + "/responses/" + status
	hasContent := resp.Content != nil
	if resp.Ref != "" {
		name := strings.TrimPrefix(resp.Ref, "#/components/responses/")
		loc, hasContent = resp.Ref, c.shared[name]
	}
	if !hasContent {
		if w.Body.Len() != 0 {
			t.Errorf("%s, %s: %d documents no body, got %s", op.OperationID, what, w.Code, w.Body)
		}
		return
	}
	if _, isJSON := resp.Content["application/json"]; resp.Ref == "" && !isJSON {
		// Bytes (a file's): of a media type the document lists.
		mt, _, _ := mime.ParseMediaType(w.Header().Get("Content-Type"))
		if _, ok := resp.Content[mt]; !ok {
			t.Errorf("%s, %s: %d Content-Type %q is not documented", op.OperationID, what, w.Code, mt)
		}
		return
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("%s, %s: Content-Type %q", op.OperationID, what, ct)
	}
	loc += "/content/application~1json/schema"
	sch, ok := c.compiled[loc]
	if !ok {
		var err error
		if sch, err = c.compiler.Compile(apiDocURL + loc); err != nil {
			t.Fatalf("compile %s: %v", loc, err)
		}
		c.compiled[loc] = sch
	}
	body, err := jsonschema.UnmarshalJSON(bytes.NewReader(w.Body.Bytes()))
	if err != nil {
		t.Errorf("%s, %s: %d body is not JSON: %v: %s", op.OperationID, what, w.Code, err, w.Body)
		return
	}
	if err := sch.Validate(body); err != nil {
		t.Errorf("%s, %s: %d body does not match the document's schema: %v\nbody %s", op.OperationID, what, w.Code, err, w.Body)
	}
}

// apiCall is one request sent for an operation and the status it must get
// (0: any 2xx).
type apiCall struct {
	name   string
	status int
	req    *http.Request
}

// TestOpenAPIContract sends, for every operation of the served document,
// a request that succeeds and the error cases that are easy to make (401,
// 403, 400, 404, 409, 412, 413, 429, 304 ...), and checks that each answer
// has a status the document gives the operation and a body its schema for
// that status accepts.
func TestOpenAPIContract(t *testing.T) {
	t.Parallel()
	e := newFileEnv(t, envOptions{svc: func(o *cms.Options) { o.WebhookSender = &recordingSender{status: http.StatusOK} }})
	ctx := t.Context()
	if err := e.svc.CreateUser(ctx, cms.NewUser{Name: "mapper", Account: "acme", Password: testPassword, Perms: []string{"map:*"}}); err != nil {
		t.Fatal(err)
	}
	// The workers deliver webhooks' messages, so a delivery exists to retry.
	runCtx, stopRun := context.WithCancel(ctx)
	ran := make(chan struct{})
	go func() { defer close(ran); e.svc.Run(runCtx) }()
	defer func() { stopRun(); <-ran }()
	w := e.send("admin", http.MethodGet, "/api/bw/v2/openapi.json", "", nil)
	if w.Code != http.StatusOK {
		t.Fatalf("openapi.json: %d %s", w.Code, w.Body)
	}
	c := newAPIContract(t, w.Body.Bytes())
	if len(c.ops) < 60 {
		t.Fatalf("only %d operations", len(c.ops))
	}

	// Fixtures: one record of each kind and a Base to clone, a Map the
	// Resource is assigned to and the Landing shows, a batch each.
	fixture := map[cms.Kind]string{cms.KindResource: "lake-walk", cms.KindMap: "lakes", cms.KindLanding: "home-page", cms.KindProposal: "offer-one"}
	post := func(kind cms.Kind, body string) {
		t.Helper()
		if w := e.send("admin", http.MethodPost, "/api/bw/v2/"+string(kind), body, nil); w.Code != http.StatusCreated {
			t.Fatalf("fixture %s %s: %d %s", kind, body, w.Code, w.Body)
		}
	}
	post(cms.KindMap, `{"id":"lakes","title":"Lakes","published":true,"locationLat":45.8,"locationLon":9.1}`)
	post(cms.KindResource, `{"id":"lake-walk","title":"Lake walk","published":true,"locationLat":45.8,"locationLon":9.1,"mapIds":["lakes"]}`)
	post(cms.KindLanding, `{"id":"home-page","title":"Home","published":true,"mapId":"lakes"}`)
	post(cms.KindProposal, `{"id":"offer-one","title":"Offer","published":true}`)
	batchID := map[cms.Kind]string{}
	for _, kind := range cms.Kinds() {
		post(kind, `{"id":"Base","title":"Base","published":true}`)
		w := e.send("admin", http.MethodPost, "/api/bw/v2/"+string(kind)+"/batch", `[{"id":"batched","title":"B"}]`, nil)
		var receipt batchReceiptBody
		if err := json.Unmarshal(w.Body.Bytes(), &receipt); err != nil || w.Code != http.StatusCreated {
			t.Fatalf("batch fixture: %d %s", w.Code, w.Body)
		}
		batchID[kind] = receipt.BatchID
	}

	// History: a record deleted (its revisions answer a tombstone).
	post(cms.KindResource, `{"id":"gone-walk","title":"Gone"}`)
	if w := e.send("admin", http.MethodDelete, "/api/bw/v2/resource/gone-walk", "", nil); w.Code != http.StatusAccepted {
		t.Fatalf("delete fixture: %d %s", w.Code, w.Body)
	}
	// A webhook, and a delivery of it to retry.
	hook := func() string {
		t.Helper()
		w := e.send("admin", http.MethodPost, "/api/bw/v2/webhook", `{"url":"https://hooks.example.com/cms"}`, nil)
		var wh webhookObject
		if err := json.Unmarshal(w.Body.Bytes(), &wh); err != nil || w.Code != http.StatusCreated {
			t.Fatalf("webhook fixture: %d %s", w.Code, w.Body)
		}
		return wh.ID
	}
	webhookID := hook()
	post(cms.KindResource, `{"id":"hooked-walk","title":"Hooked"}`)
	deliveryID := ""
	for deadline := time.Now().Add(time.Minute); deliveryID == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var log deliveryList
		w := e.send("admin", http.MethodGet, "/api/bw/v2/webhook/"+webhookID+"/deliveries?limit=1", "", nil)
		if json.Unmarshal(w.Body.Bytes(), &log) == nil && len(log.Deliveries) > 0 {
			deliveryID = log.Deliveries[0].ID
		}
	}
	if deliveryID == "" {
		t.Fatal("no delivery of the webhook fixture")
	}

	// Files: a photo and a track to serve, one a Resource shows.
	photoFile, trackFile := e.uploaded("admin", "Lake walk.jpg", photo(t, 800, 600, 90)), e.uploaded("admin", "walk.gpx", hike(500))
	shown := e.uploaded("admin", "shown.jpg", photo(t, 64, 64, 91))
	post(cms.KindResource, `{"id":"shows-a-file","title":"Shows","image":"`+shown.URL+`"}`)

	request := func(method, path, body, user string, header ...string) *http.Request {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		if user != "" {
			r.Header.Set("Authorization", "Bearer "+e.token(user))
		}
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		return r
	}
	formRequest := func(path string, values ...string) *http.Request {
		return postForm(path, form(values...))
	}
	tooLarge := func(r *http.Request) *http.Request {
		r.ContentLength = 1 << 30
		return r
	}
	crossSite := func(r *http.Request) *http.Request {
		r.Header.Set("Sec-Fetch-Site", "cross-site")
		return r
	}
	unique := 0

	for _, op := range c.ops {
		kind := op.kind()
		k := string(kind)
		vals := map[string]string{"ids": fixture[kind], "id": fixture[kind], "mapId": "lakes", "batchId": batchID[kind],
			"published": "*", "fields": "title", "ignoreFields": "published", "limit": "10", "after": "aaa",
			"bbox": "8.5,45.5,9.5,46.2", "updatedSince": "2020-01-01T00:00:00",
			"fileId": photoFile.ID, "fileName": "lake-walk.jpg", "rev": "1", "webhookId": webhookID, "deliveryId": deliveryID}
		if strings.HasSuffix(op.path, "/track.geojson") {
			vals["fileId"] = trackFile.ID
		}
		fill := func(over map[string]string) string {
			p := op.path
			for _, name := range op.params() {
				v, ok := over[name]
				if !ok {
					v, ok = vals[name]
				}
				if !ok {
					t.Fatalf("%s: no value for the path parameter %s", op.OperationID, name)
				}
				p = strings.ReplaceAll(p, "{"+name+"}", v)
			}
			return p
		}
		path := fill(nil)
		var calls []apiCall
		add := func(name string, status int, r *http.Request) { calls = append(calls, apiCall{name, status, r}) }

		// What every operation of its kind gets.
		optional := op.Security != nil && slices.ContainsFunc(*op.Security, func(s map[string][]string) bool { return len(s) == 0 })
		if op.Security == nil || len(*op.Security) > 0 && !optional {
			add("no token", 401, request(op.method, path, "", ""))
		}
		if kind != "" {
			other := "reader" // resource:read
			if kind == cms.KindResource {
				other = "mapper" // map:*
			}
			add("without the permission", 403, request(op.method, path, "", other))
			for _, name := range op.params() {
				add("malformed "+name, 400, request(op.method, fill(map[string]string{name: "!!"}), "", "admin"))
				if name == "ids" || name == "id" || name == "batchId" {
					add("missing "+name, 404, request(op.method, fill(map[string]string{name: "missing-one"}), "", "admin"))
				}
			}
		}

		id := op.OperationID
		switch {
		case strings.HasSuffix(id, "History") && kind != "":
			add("history", 200, request(op.method, path+"?limit=2", "", "admin"))
			add("limit 0", 400, request(op.method, path+"?limit=0", "", "admin"))
		case strings.HasSuffix(id, "Revision") && kind != "":
			add("revision", 200, request(op.method, path, "", "admin"))
			add("no such revision", 404, request(op.method, fill(map[string]string{"rev": "999"}), "", "admin"))
			if kind == cms.KindResource {
				add("a tombstone", 200, request(op.method, fill(map[string]string{"id": "gone-walk"}), "", "admin"))
			}
		case id == "listChanges":
			add("the feed", 200, request(op.method, path+"?limit=2&kinds=resource,map", "", "admin"))
			add("from now", 200, request(op.method, path+"?after=now", "", "reader"))
			add("no kind readable", 403, request(op.method, path, "", "librarian"))
			add("malformed cursor", 400, request(op.method, path+"?after=x", "", "admin"))
		case id == "createWebhook":
			add("made", 201, request(op.method, path, `{"url":"https://hooks.example.com/two","events":["map.delete"]}`, "admin"))
			add("made with a secret", 201, request(op.method, path, `{"url":"https://hooks.example.com/three","secret":"whsec_`+strings.Repeat("QUFB", 8)+`"}`, "admin"))
			add("without the permission", 403, request(op.method, path, `{}`, "reader"))
			add("unknown member", 400, request(op.method, path, `{"url":"https://hooks.example.com/x","nope":1}`, "admin"))
			add("private address", 409, request(op.method, path, `{"url":"http://10.0.0.1/x"}`, "admin"))
			add("too large", 413, tooLarge(request(op.method, path, `{}`, "admin")))
		case id == "listWebhooks", id == "getWebhook":
			add("read", 200, request(op.method, path, "", "admin"))
			add("without the permission", 403, request(op.method, path, "", "reader"))
			if id == "getWebhook" {
				add("missing", 404, request(op.method, fill(map[string]string{"webhookId": "wh_missing"}), "", "admin"))
				add("trailing slash", 400, request(op.method, path+"/", "", "admin"))
			}
		case id == "updateWebhook":
			add("changed", 200, request(op.method, path, `{"enabled":true}`, "admin"))
			add("missing", 404, request(op.method, fill(map[string]string{"webhookId": "wh_missing"}), `{"enabled":true}`, "admin"))
			add("wrong type", 400, request(op.method, path, `{"enabled":"yes"}`, "admin"))
			add("not http", 409, request(op.method, path, `{"url":"ftp://hooks.example.com/"}`, "admin"))
		case id == "deleteWebhook":
			add("deleted", 202, request(op.method, fill(map[string]string{"webhookId": hook()}), "", "admin"))
			add("missing", 404, request(op.method, fill(map[string]string{"webhookId": "wh_missing"}), "", "admin"))
		case id == "listWebhookDeliveries":
			add("the log", 200, request(op.method, path+"?status=delivered", "", "admin"))
			add("bad status", 400, request(op.method, path+"?status=lost", "", "admin"))
			add("missing", 404, request(op.method, fill(map[string]string{"webhookId": "wh_missing"}), "", "admin"))
		case id == "retryWebhookDelivery":
			add("retried", 202, request(op.method, path, "", "admin"))
			add("no such delivery", 404, request(op.method, fill(map[string]string{"deliveryId": "msg_missing"}), "", "admin"))
		case id == "listAudit":
			add("the list", 200, request(op.method, path+"?limit=5", "", "admin"))
			add("without the permission", 403, request(op.method, path, "", "reader"))
			add("before 0", 400, request(op.method, path+"?before=0", "", "admin"))
		case id == "uploadFile":
			unique++
			fresh := pngImage(t, 100+unique, 80, 92)
			body, ct := multipartBody(t, "fresh.png", fresh)
			add("multipart", 201, request(op.method, path, string(body), "admin", "Content-Type", ct))
			add("the same bytes, raw", 200, request(op.method, path+"?name=again.png", string(fresh), "admin", "Content-Type", "image/png"))
			add("without the permission", 403, request(op.method, path, string(body), "reader", "Content-Type", ct))
			add("empty", 400, request(op.method, path+"?name=x.png", "", "admin"))
			add("not a file of an accepted type", 409, request(op.method, path+"?name=x.txt", "plain text", "admin", "Content-Type", "text/plain"))
			add("too large", 413, tooLarge(request(op.method, path+"?name=x.png", "x", "admin")))
		case id == "listFiles":
			add("a page", 200, request(op.method, path+"?limit=2&type=image/jpeg", "", "admin"))
			add("malformed limit", 400, request(op.method, path+"?limit=0", "", "admin"))
			add("without the permission", 403, request(op.method, path, "", "reader"))
		case id == "getFile", id == "deleteFile":
			missing := fill(map[string]string{"fileId": strings.Repeat("a", cms.FileIDLength)})
			add("without the permission", 403, request(op.method, path, "", "reader"))
			add("missing", 404, request(op.method, missing, "", "admin"))
			if id == "getFile" {
				add("get", 200, request(op.method, path, "", "admin"))
				break
			}
			unique++
			doomed := e.uploaded("admin", "doomed.png", pngImage(t, 50+unique, 50, 93))
			add("delete", 202, request(op.method, fill(map[string]string{"fileId": doomed.ID}), "", "admin"))
			add("used by a record", 409, request(op.method, fill(map[string]string{"fileId": shown.ID}), "", "admin"))
		case strings.HasSuffix(id, "FileBytes"), strings.HasSuffix(id, "FileTrack"):
			first := e.do(request(op.method, path, "", ""))
			add("no token", 200, request(op.method, path, "", ""))
			add("a bad token", 200, request(op.method, path, "", "", "Authorization", "Bearer nonsense"))
			add("Range", 206, request(op.method, path, "", "", "Range", "bytes=0-99"))
			add("Range outside", 416, request(op.method, path, "", "", "Range", "bytes=99999999-"))
			add("If-None-Match", 304, request(op.method, path, "", "", "If-None-Match", first.Header().Get("ETag")))
			add("a width not offered", 400, request(op.method, path+"?w=100", "", ""))
			if strings.HasSuffix(id, "FileBytes") {
				add("a thumbnail", 200, request(op.method, path+"?w=160", "", ""))
				add("another extension", 404, request(op.method, fill(map[string]string{"fileName": "lake-walk.png"}), "", ""))
			} else {
				add("no track", 404, request(op.method, fill(map[string]string{"fileId": photoFile.ID}), "", ""))
			}
		case strings.HasPrefix(id, "upsert"):
			unique++
			newID := fmt.Sprintf("%s-new-%d", k, unique)
			add("create", 201, request(op.method, path, `{"id":"`+newID+`","title":"New"}`, "admin"))
			add("the same again", 200, request(op.method, path, `{"id":"`+newID+`","title":"New"}`, "admin"))
			add("update", 202, request(op.method, path, `{"id":"`+newID+`","title":"Newer"}`, "admin"))
			fr := formRequest(path, "json", `{"id":"`+newID+`","title":"By form"}`)
			fr.Header.Set("Authorization", "Bearer "+e.token("admin"))
			add("update by form", 202, fr)
			var mp bytes.Buffer
			mw := multipart.NewWriter(&mp)
			mw.WriteField("json", `{"id":"`+newID+`","title":"By multipart"}`)
			mw.Close()
			mr := request(op.method, path, mp.String(), "admin", "Content-Type", mw.FormDataContentType())
			add("update by multipart form", 202, mr)
			add("problems", 409, request(op.method, path, `{"id":"`+newID+`","nope":1}`, "admin"))
			add("duplicate key", 400, request(op.method, path, `{"id":"x-1","id":"x-1"}`, "admin"))
			add("stale If-Match", 412, request(op.method, path, `{"id":"`+newID+`","title":"T"}`, "admin", "If-Match", `"stale"`))
			add("too large", 413, tooLarge(request(op.method, path, `{}`, "admin")))
			add("delete by body", 202, request(op.method, path, `{"id":"`+newID+`","deleteElementIrreversibly":true}`, "admin"))
			add("delete by body, missing", 404, request(op.method, path, `{"id":"missing-one","deleteElementIrreversibly":true}`, "admin"))
		case strings.HasPrefix(id, "list"):
			add("every record", 200, request(op.method, path, "", "admin"))
			add("query options", 200, request(op.method, path+"?ids="+fixture[kind]+",Base&published=*&fields=title&limit=10", "", "admin"))
			add("query ids, none found", 404, request(op.method, path+"?ids=missing-one", "", "admin"))
			add("malformed query option", 400, request(op.method, path+"?limit=0", "", "admin"))
		case strings.HasPrefix(id, "read"):
			add("one id", 200, request(op.method, path, "", "admin"))
			add("several ids", 200, request(op.method, fill(map[string]string{"ids": fixture[kind] + ",Base,missing-one"}), "", "admin"))
			first := e.do(request(op.method, path, "", "admin"))
			add("If-None-Match", 304, request(op.method, path, "", "admin", "If-None-Match", first.Header().Get("ETag")))
		case strings.HasPrefix(id, "delete"):
			unique++
			doomed := fmt.Sprintf("%s-doomed-%d", k, unique)
			post(kind, `{"id":"`+doomed+`","title":"Doomed"}`)
			add("stale If-Match", 412, request(op.method, fill(map[string]string{"ids": doomed}), "", "admin", "If-Match", `"stale"`))
			add("If-Match, several ids", 400, request(op.method, fill(map[string]string{"ids": doomed + ",missing-one"}), "", "admin", "If-Match", "*"))
			add("delete", 202, request(op.method, fill(map[string]string{"ids": doomed + ",missing-one"}), "", "admin"))
			if kind == cms.KindMap {
				add("a Map a Landing shows", 409, request(op.method, fill(map[string]string{"ids": "lakes"}), "", "admin"))
			}
		case strings.HasPrefix(id, "clone"):
			add("clone", 201, request(op.method, path, "", "admin"))
			if slices.Contains(op.params(), "mapId") {
				add("no such Map", 409, request(op.method, fill(map[string]string{"mapId": "no-map"}), "", "admin"))
			}
		case strings.HasPrefix(id, "submit"):
			unique++
			add("submit", 201, request(op.method, path, fmt.Sprintf(`[{"id":"%s-b-%d","title":"B"}]`, k, unique), "admin"))
			add("problems", 409, request(op.method, path, `[{"id":"x-1","nope":1}]`, "admin"))
			add("not an array", 400, request(op.method, path, `{}`, "admin"))
			add("too large", 413, tooLarge(request(op.method, path, `[]`, "admin")))
		case strings.HasPrefix(id, "get") && kind != "":
			add("get", 200, request(op.method, path, "", "admin"))
		case id == "login":
			add("login", 200, formRequest(path, "u", "admin", "p", testPassword))
			add("cross-site", 403, crossSite(formRequest(path, "u", "admin", "p", testPassword)))
			add("too large", 413, tooLarge(formRequest(path, "u", "admin")))
			for range 5 {
				add("wrong password", 401, formRequest(path, "u", "ghost", "p", "wrong password"))
			}
			add("throttled", 429, formRequest(path, "u", "ghost", "p", "wrong password"))
		case id == "validateToken", id == "getOpenAPI":
			add("valid token", 200, request(op.method, path, "", "reader"))
			add("invalid token", 401, request(op.method, path, "", "", "Authorization", "Bearer nonsense"))
			if id == "getOpenAPI" {
				add("no token", 200, request(op.method, path+"?langs=de,en", "", ""))
				add("no token, bad langs", 400, request(op.method, path+"?langs=de,,x", "", ""))
			}
		case id == "refresh":
			add("by form field", 200, formRequest(path, "refresh_token", e.login("admin").RefreshToken))
			cr := httptest.NewRequest(op.method, path, nil)
			cr.AddCookie(&http.Cookie{Name: RefreshCookie, Value: e.login("admin").RefreshToken})
			add("by cookie", 200, cr)
			add("unknown token", 401, formRequest(path, "refresh_token", "nonsense"))
			add("no token", 401, httptest.NewRequest(op.method, path, nil))
			add("cross-site", 403, crossSite(formRequest(path, "refresh_token", "nonsense")))
			add("too large", 413, tooLarge(formRequest(path, "refresh_token", "nonsense")))
		case id == "logout":
			add("logout", 200, formRequest(path, "refresh_token", e.login("admin").RefreshToken))
			add("no token", 200, httptest.NewRequest(op.method, path, nil))
			add("cross-site", 403, crossSite(formRequest(path)))
			add("too large", 413, tooLarge(formRequest(path, "refresh_token", "x")))
		case id == "getJWKS":
			add("HS256", 404, httptest.NewRequest(op.method, path, nil))
			ed := newEnv(t, envOptions{http: func(o *Options) {
				o.JWTSecret, o.EdDSAKey, o.KeyID = nil, ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32)), "k1"
			}})
			w := ed.do(httptest.NewRequest(op.method, path, nil))
			if w.Code != http.StatusOK {
				t.Errorf("jwks with EdDSA: %d %s", w.Code, w.Body)
			}
			c.check(op, "EdDSA", w)
		default:
			t.Errorf("%s (%s %s): the test sends nothing for this operation", id, op.method, op.path)
		}

		for _, call := range calls {
			w := e.do(call.req)
			if call.status == 0 && (w.Code < 200 || w.Code > 299) || call.status != 0 && w.Code != call.status {
				t.Errorf("%s, %s: %s %s: %d, want %d; body %s", id, call.name, call.req.Method, call.req.URL, w.Code, call.status, w.Body)
			}
			c.check(op, call.name, w)
		}
	}

	// Every operation answered with success at least once.
	answers := 0
	for _, op := range c.ops {
		answers += len(c.seen[op.OperationID])
		if !slices.ContainsFunc(c.seen[op.OperationID], func(s int) bool { return s >= 200 && s < 300 }) {
			t.Errorf("%s (%s %s): no success answered; statuses %v", op.OperationID, op.method, op.path, c.seen[op.OperationID])
		}
	}
	t.Logf("%d operations, %d answers checked", len(c.ops), answers)
}

// TestOpenAPIForGenerators: what generators need (DECISIONS §14): the
// read options as optional query parameters of one operation per kind
// and no option segment in any path; numbers with their formats; the
// nullable enum trackDifficulty as a bounded nullable integer.
func TestOpenAPIForGenerators(t *testing.T) {
	t.Parallel()
	langs, err := cms.ParseLanguages("en,it")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := OpenAPI(langs)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	at := func(v any, keys ...string) any {
		for _, k := range keys {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		return v
	}
	td := at(doc, "components", "schemas", "Resource", "properties", "trackDifficulty")
	if fmt.Sprint(at(td, "type")) != "[integer null]" || at(td, "minimum") != 1.0 || at(td, "maximum") != 5.0 || at(td, "enum") != nil {
		t.Errorf("trackDifficulty: %v", td)
	}
	numbers := 0
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if typ := fmt.Sprint(v["type"]); typ == "number" || typ == "[number null]" {
				numbers++
				if v["format"] != "double" {
					t.Errorf("%s: a number without format double: %v", where, v)
				}
			}
			for k, x := range v {
				walk(where+"/"+k, x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprint(where, "/", i), x)
			}
		}
	}
	walk("#", doc)
	if numbers < 5 {
		t.Errorf("only %d numbers seen", numbers)
	}
	paths, _ := at(doc, "paths").(map[string]any)
	for p := range paths {
		for _, seg := range strings.Split(p, "/") {
			if isReadOption(seg) || seg == cms.OptExcludeFiles {
				t.Errorf("path %s has an option segment", p)
			}
		}
	}
	params, _ := at(doc, "components", "parameters").(map[string]any)
	for _, kind := range cms.Kinds() {
		list, _ := at(paths, "/api/bw/v2/"+string(kind), "get", "parameters").([]any)
		var names []string
		for _, p := range list {
			ref, _ := at(p, "$ref").(string)
			q := params[strings.TrimPrefix(ref, "#/components/parameters/")]
			if at(q, "in") != "query" || at(q, "required") != nil {
				t.Errorf("%s: %s is not an optional query parameter", kind, ref)
			}
			names = append(names, fmt.Sprint(at(q, "name")))
		}
		want := "ids published fields ignoreFields excludeFiles limit after updatedSince search"
		switch kind {
		case cms.KindResource:
			want = "ids published fields ignoreFields excludeFiles mapId limit after bbox updatedSince search"
		case cms.KindMap:
			want = "ids published fields ignoreFields excludeFiles limit after bbox updatedSince search"
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("list %s: query parameters %s, want %s", kind, got, want)
		}
	}
}

// TestOpenAPIServers: the served document's servers entry is the address
// it was fetched at, base path included: the request's host; a trusted
// proxy's forwarded scheme and host; Options.PublicURL when set.
func TestOpenAPIServers(t *testing.T) {
	t.Parallel()
	servers := func(e *env, path string, header ...string) string {
		t.Helper()
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.Host = "cms.example.org:9000"
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		w := e.do(r)
		var doc struct {
			Servers []struct {
				URL       string         `json:"url"`
				Variables map[string]any `json:"variables"`
			} `json:"servers"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || w.Code != 200 || len(doc.Servers) != 1 || doc.Servers[0].Variables != nil {
			t.Fatalf("%s: %d %v %s", path, w.Code, err, w.Body.String()[:min(200, w.Body.Len())])
		}
		return doc.Servers[0].URL
	}
	plain := newEnv(t, envOptions{})
	if got := servers(plain, "/api/bw/v2/openapi.json"); got != "http://cms.example.org:9000" {
		t.Errorf("plain: %s", got)
	}
	if got := servers(plain, "/api/bw/v2/openapi.json", "X-Forwarded-Proto", "https", "X-Forwarded-Host", "evil.example"); got != "http://cms.example.org:9000" {
		t.Errorf("forwarded headers from a peer that is no trusted proxy: %s", got)
	}
	proxied := newEnv(t, envOptions{http: func(o *Options) {
		o.BasePath = "/cms"
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")} // httptest's peer
	}})
	if got := servers(proxied, "/cms/api/bw/v2/openapi.json"); got != "http://cms.example.org:9000/cms" {
		t.Errorf("base path: %s", got)
	}
	if got := servers(proxied, "/cms/api/bw/v2/openapi.json", "X-Forwarded-Proto", "https", "X-Forwarded-Host", "public.example"); got != "https://public.example/cms" {
		t.Errorf("trusted proxy, X-Forwarded-*: %s", got)
	}
	if got := servers(proxied, "/cms/api/bw/v2/openapi.json", "Forwarded", `proto=https;host="fwd.example"`); got != "https://fwd.example/cms" {
		t.Errorf("trusted proxy, Forwarded: %s", got)
	}
	public := newEnv(t, envOptions{http: func(o *Options) { o.PublicURL = "https://api.example.com/x/" }})
	if got := servers(public, "/api/bw/v2/openapi.json", "Authorization", "Bearer "+public.token("reader")); got != "https://api.example.com/x" {
		t.Errorf("PublicURL: %s", got)
	}
	for _, bad := range []string{"api.example.com", "ftp://a.example", "https://", "https://a.example/?q=1", "https://u@a.example"} {
		if _, err := NewHandler(plain.svc, &Options{JWTSecret: bytes.Repeat([]byte{1}, 32), PublicURL: bad}); err == nil ||
			!strings.Contains(err.Error(), "public URL") {
			t.Errorf("PublicURL %q: %v", bad, err)
		}
	}
}
