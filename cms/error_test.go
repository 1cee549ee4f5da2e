package cms_test

import (
	"context"
	"errors"
	"testing"

	"github.com/bwcms/cms/cms"
)

// TestErrorsAreNotShared: the *cms.Error a call returns is the caller's to
// change; a caller that edits one through errors.As does not change the
// error of the next call, for the 401 of no principal and the 403 of a
// missing permission.
func TestErrorsAreNotShared(t *testing.T) {
	t.Parallel()
	svc, _ := openService(t, cheap, nil)
	noPerm := cms.WithPrincipal(t.Context(), cms.Principal{Account: "acme", User: "ann", Perms: []string{"map:read"}})
	for _, c := range []struct {
		name    string
		ctx     context.Context
		code    cms.Code
		message string
	}{
		{"no principal", t.Context(), cms.CodeUnauthorized, "Unauthorized"},
		{"no permission", noPerm, cms.CodeForbidden, "Forbidden"},
	} {
		t.Run(c.name, func(t *testing.T) {
			read := func() *cms.Error {
				t.Helper()
				_, err := svc.Read(c.ctx, cms.KindResource, cms.ReadParams{})
				e, ok := errors.AsType[*cms.Error](err)
				if !ok || e.Code != c.code || e.Message != c.message {
					t.Fatalf("Read: %v, want %s %q", err, c.code, c.message)
				}
				return e
			}
			first := read()
			first.Code, first.Message, first.Err = cms.CodeInternal, "changed by a caller", errors.New("mine")
			first.Problems = append(first.Problems, cms.Problem{Text: "mine"})
			second := read()
			if second == first || second.Err != nil || second.Problems != nil {
				t.Errorf("the second error is the first one changed: %+v", second)
			}
		})
	}
}
