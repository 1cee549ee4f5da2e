package admin

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/gorilla/mux"
)

// TestMountOnRouters: the admin under /x/admin on the routers hosts use,
// given the whole path or the path http.StripPrefix leaves, answers its
// sign-in page with links inside the prefix, and redirects the bare
// prefix to the overview.
func TestMountOnRouters(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/x/admin"})
	gorilla := mux.NewRouter()
	gorilla.PathPrefix("/x/admin").Handler(e.h)
	chiRouter := chi.NewRouter()
	chiRouter.Mount("/x/admin", e.h)
	strip := http.NewServeMux()
	strip.Handle("/x/admin/", http.StripPrefix("/x/admin", e.h))
	for name, host := range map[string]http.Handler{"gorilla": gorilla, "chi": chiRouter, "StripPrefix": strip} {
		rec := httptest.NewRecorder()
		host.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x/admin/login", nil))
		if rec.Code != http.StatusOK {
			t.Errorf("%s: status %d", name, rec.Code)
			continue
		}
		doc := e.page(rec.Result(), http.StatusOK)
		if action, _ := doc.Find("form").Attr("action"); action != "/x/admin/login" {
			t.Errorf("%s: form action %q", name, action)
		}
	}
	rec := httptest.NewRecorder()
	gorilla.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x/admin", nil))
	if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/x/admin/" {
		t.Errorf("bare prefix: %d %q", rec.Code, rec.Header().Get("Location"))
	}
}
