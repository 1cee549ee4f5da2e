package transport

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// openapiDocsHeld is how many OpenAPI documents h keeps, of accounts and
// of anonymous ?langs= alike.
func openapiDocsHeld(h *Handler) int {
	n := 0
	h.schemas.Range(func(k, _ any) bool {
		if _, ok := k.(openapiKey); ok {
			n++
		}
		return true
	})
	return n + h.anonDocs.held()
}

// TestOpenAPIAnonymousBounded: openapi.json without a token takes any
// ?langs= list, so the handler keeps only a few of those documents (a
// client asking for list after list cannot fill the memory: a list of
// hundreds of languages is megabytes), and still answers each one right,
// concurrent askers of one list included.
func TestOpenAPIAnonymousBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	get := func(list string) *httptest.ResponseRecorder {
		return e.do(httptest.NewRequest(http.MethodGet, "/api/bw/v2/openapi.json?langs="+list, nil))
	}
	var lists []string
	for a := 'a'; a <= 'c'; a++ {
		for b := 'a'; b <= 'h'; b++ {
			lists = append(lists, "en,"+string(a)+string(b))
		}
	}
	for _, list := range lists {
		if w := get(list); w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", list, w.Code, w.Body)
		}
	}
	if n := openapiDocsHeld(e.h); n > anonymousDocs {
		t.Errorf("after %d lists asked without a token, %d documents kept; want at most %d", len(lists), n, anonymousDocs)
	}
	want := map[string][]byte{}
	for _, list := range []string{lists[0], lists[len(lists)-1], "en"} {
		want[list] = servedOpenAPI(t, list, "http://example.com")
	}
	var wg sync.WaitGroup
	for _, list := range []string{lists[0], lists[len(lists)-1], lists[0], "en"} {
		wg.Go(func() {
			if w := get(list); w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), want[list]) {
				t.Errorf("%s: %d, not the document of %s", list, w.Code, list)
			}
		})
	}
	wg.Wait()
	// An account's document is kept beside them, as before.
	if w := e.send("admin", http.MethodGet, "/api/bw/v2/openapi.json", "", nil); w.Code != http.StatusOK ||
		!bytes.Equal(w.Body.Bytes(), servedOpenAPI(t, "en,it,de", "http://example.com")) {
		t.Errorf("with a token: %d, not the document of en,it,de", w.Code)
	}
	if n := openapiDocsHeld(e.h); n > anonymousDocs+1 {
		t.Errorf("%d documents kept; want at most %d", n, anonymousDocs+1)
	}
}
