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

// TestAllowedAreas: the areas beside the kinds (DECISIONS §1). "*" covers
// them all; "*:<action>" and "*:*" cover files, never webhooks or users.
func TestAllowedAreas(t *testing.T) {
	t.Parallel()
	cases := []struct {
		perms  []string
		target Target
		action Action
		want   bool
	}{
		{[]string{"*"}, AreaUser, ActionWrite, true},
		{[]string{"*"}, AreaWebhook, ActionDelete, true},
		{[]string{"*:read"}, AreaFile, ActionRead, true},
		{[]string{"*:read"}, AreaUser, ActionRead, false},
		{[]string{"*:read"}, AreaWebhook, ActionRead, false},
		{[]string{"*:*"}, AreaFile, ActionDelete, true},
		{[]string{"*:*"}, AreaUser, ActionRead, false},
		{[]string{"*:*"}, AreaWebhook, ActionWrite, false},
		{[]string{"*:*"}, KindProposal, ActionDelete, true},
		{[]string{"user:*"}, AreaUser, ActionDelete, true},
		{[]string{"user:*"}, KindResource, ActionRead, false},
		{[]string{"webhook:write"}, AreaWebhook, ActionWrite, true},
		{[]string{"webhook:write"}, AreaWebhook, ActionRead, false},
		{[]string{"file:read"}, AreaFile, ActionRead, true},
		{[]string{"file:read"}, KindResource, ActionRead, false},
		{[]string{"resource:*"}, AreaFile, ActionRead, false},
	}
	for _, c := range cases {
		if got := Allowed(c.perms, c.target, c.action); got != c.want {
			t.Errorf("Allowed(%q, %s, %s) = %v, want %v", c.perms, c.target.targetName(), c.action, got, c.want)
		}
		if got := (Principal{Perms: c.perms}).Can(c.target, c.action); got != c.want {
			t.Errorf("Can(%q, %s, %s) = %v, want %v", c.perms, c.target.targetName(), c.action, got, c.want)
		}
	}
}

// TestParsePermsAreas: permissions may name the areas; their names are
// exact.
func TestParsePermsAreas(t *testing.T) {
	t.Parallel()
	got, err := ParsePerms("file:read, webhook:write, user:*")
	if err != nil || strings.Join(got, ",") != "file:read,webhook:write,user:*" {
		t.Errorf("ParsePerms = %q, %v", got, err)
	}
	for _, bad := range []string{"files:read", "User:read", "user:edit", "webhook"} {
		if _, err := ParsePerms(bad); ErrorCode(err) != CodeInvalid || !strings.Contains(err.Error(), "file, webhook, user") {
			t.Errorf("ParsePerms(%q): %v", bad, err)
		}
	}
}
