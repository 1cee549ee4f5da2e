package main

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdminServed: the newcomer's admin answers at /admin/ and signs the
// printed admin in; --admin-path moves it, and empty turns it off.
func TestAdminServed(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "cms.db")
	s, password := startNewcomer(t, db)
	if !strings.Contains(s.stderr.String(), s.url+"/admin/") {
		t.Errorf("the admin's address is not logged: %s", s.stderr.String())
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	res, err := browser.PostForm(s.url+"/admin/login", url.Values{"u": {"admin"}, "p": {password}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Request.URL.Path != "/admin/" {
		t.Fatalf("sign-in ended at %s with %d", res.Request.URL.Path, res.StatusCode)
	}
	if a := s.get(t, "/admin", ""); a.status != http.StatusOK || !strings.Contains(a.body, `action="/admin/login"`) {
		t.Errorf("/admin: %d", a.status)
	}
	s.shutdown(t)

	moved := startServer(t, &cli{env: map[string]string{"CMS_ADMIN_PATH": "/editors"}}, "--db", db)
	if a := moved.get(t, "/editors/login", ""); a.status != http.StatusOK {
		t.Errorf("--admin-path /editors: %d", a.status)
	}
	if a := moved.get(t, "/admin/login", ""); a.status != http.StatusNotFound {
		t.Errorf("old path still served: %d", a.status)
	}
	moved.shutdown(t)

	off := startServer(t, &cli{env: map[string]string{}}, "--db", db, "--admin-path", "")
	if a := off.get(t, "/admin/login", ""); a.status != http.StatusNotFound {
		t.Errorf("--admin-path empty: %d", a.status)
	}
}
