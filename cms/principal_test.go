package cms

import (
	"context"
	"strings"
	"testing"
)

func TestAllowed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		perms  []string
		kind   Kind
		action Action
		want   bool
	}{
		{[]string{"*"}, KindProposal, ActionDelete, true},
		{[]string{"resource:*"}, KindResource, ActionDelete, true},
		{[]string{"resource:*"}, KindMap, ActionRead, false},
		{[]string{"*:read"}, KindLanding, ActionRead, true},
		{[]string{"*:read"}, KindLanding, ActionWrite, false},
		{[]string{"resource:read"}, KindResource, ActionRead, true},
		{[]string{"resource:read"}, KindResource, ActionWrite, false},
		{[]string{"map:write", "resource:read"}, KindMap, ActionWrite, true},
		{[]string{}, KindResource, ActionRead, false},
		{nil, KindResource, ActionRead, false},
		{[]string{"resource"}, KindResource, ActionRead, false},
		{[]string{"resource:read:x"}, KindResource, ActionRead, false},
		{[]string{"Resource:read"}, KindResource, ActionRead, false},
	}
	for _, c := range cases {
		if got := Allowed(c.perms, c.kind, c.action); got != c.want {
			t.Errorf("Allowed(%q, %s, %s) = %v, want %v", c.perms, c.kind, c.action, got, c.want)
		}
	}
}

func TestParsePerms(t *testing.T) {
	t.Parallel()
	for list, want := range map[string]string{
		"":                       "",
		"*":                      "*",
		"resource:read, map:*":   "resource:read,map:*",
		"*:delete,landing:write": "*:delete,landing:write",
		"proposal:read,*:*":      "proposal:read,*:*",
	} {
		got, err := ParsePerms(list)
		if err != nil || strings.Join(got, ",") != want || got == nil {
			t.Errorf("ParsePerms(%q) = %q, %v; want %q", list, got, err, want)
		}
	}
	for _, bad := range []string{"resource", "resource:", "resources:read", "resource:edit", "a,,b", "**", ":read", "resource:read:x"} {
		_, err := ParsePerms(bad)
		if ErrorCode(err) != CodeInvalid || !strings.Contains(err.Error(), "want *, <kind>:<action>") {
			t.Errorf("ParsePerms(%q): %v", bad, err)
		}
	}
}

func TestPrincipalContext(t *testing.T) {
	t.Parallel()
	if _, ok := PrincipalFrom(context.Background()); ok {
		t.Error("empty context has a principal")
	}
	p := Principal{Account: "acme", User: "ann", Perms: []string{"map:read"}}
	got, ok := PrincipalFrom(WithPrincipal(context.Background(), p))
	if !ok || got.User != "ann" || !got.Can(KindMap, ActionRead) || got.Can(KindMap, ActionWrite) {
		t.Errorf("got %+v %v", got, ok)
	}
}
