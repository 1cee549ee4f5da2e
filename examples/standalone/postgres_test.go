package main

import (
	"strings"
	"testing"

	"github.com/bwcms/cms/adapters/postgres/pgtest"
)

// TestPostgres: the server and the commands on a PostgreSQL DSN.
func TestPostgres(t *testing.T) {
	t.Parallel()
	db := pgtest.DSN(t)
	s := startServer(t, &cli{env: map[string]string{"CMS_DB": db, "CMS_FILES": sharedFiles(t), "CMS_ADMIN_PASSWORD": "admin password"}})
	s.login(t, "admin", "admin password")
	c := &cli{env: map[string]string{"CMS_DB": db}}
	if code := c.run(t, "user", "add", "pia", "--perms", "map:read", "--password", "pia password"); code != 0 {
		t.Fatalf("user add: %d %s", code, c.stderr.String())
	}
	if cl := s.claims(t, s.login(t, "pia", "pia password").Access); cl.Acc != "default" || strings.Join(cl.Perms, ",") != "map:read" {
		t.Errorf("pia: %+v", cl)
	}
}
