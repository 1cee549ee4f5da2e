package transport

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAliasLookAlikes: aliases are compared and stored in NFC with
// fullwidth forms folded, so look-alikes of a held alias clash with it;
// zero-width and bidirectional characters are refused and store nothing;
// a record posted back in another form of its alias is a Skip.
func TestAliasLookAlikes(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		runFlow(t, e, []step{
			// Decomposed é is stored composed.
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"nfd1","urlAlias":"/cafe\u0301"}`, status: 201},
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"nfc1","urlAlias":"/caf\u00e9"}`, status: 409,
				want: `{"fail":"Resource nfc1: urlAlias: /café is already used by Resource nfd1"}`},
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"nfd1","urlAlias":"/cafe\u0301"}`, status: 200},
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"nfd1","urlAlias":"/caf\u00e9"}`, status: 200},
			// Fullwidth letters are their ASCII letters.
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"ascii1","urlAlias":"/menu"}`, status: 201},
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"wide1","urlAlias":"/\uff4d\uff45\uff4e\uff55"}`, status: 409,
				want: `{"fail":"Resource wide1: urlAlias: /menu is already used by Resource ascii1"}`},
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"wide2","urlAlias":"/\uff4d\uff45\uff4e\uff55-2"}`, status: 201},
			// A fullwidth solidus is a solidus: "//" is refused.
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"wide3","urlAlias":"/\uff0fevil.example"}`, status: 409,
				want: `{"fail":"Resource wide3: urlAlias: must start with / (not //) and contain no spaces, control characters, backslashes, zero-width or bidirectional characters"}`},
		})
		if got := aliasOf(t, e, "nfd1", ""); got != "/caf\u00e9" {
			t.Errorf("nfd1: urlAlias %+q, want NFC", got)
		}
		if got := aliasOf(t, e, "wide2", ""); got != "/menu-2" {
			t.Errorf("wide2: urlAlias %+q, want /menu-2", got)
		}
		for _, c := range []string{`\u200b`, `\u200c`, `\u200d`, `\u2060`, `\ufeff`, `\u200e`, `\u200f`, `\u061c`, `\u202a`, `\u202e`, `\u2066`, `\u2069`} {
			runFlow(t, e, []step{
				{name: c, user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"zw1","urlAlias":"/me` + c + `nu"}`, status: 409,
					want: `{"fail":"Resource zw1: urlAlias: must start with / (not //) and contain no spaces, control characters, backslashes, zero-width or bidirectional characters"}`},
				{name: c + " stored nothing", user: "admin", method: "GET", path: "/api/bw/v2/resource/zw1/published/*", status: 404},
			})
		}
	})
}

// TestAliasLengthInCharacters: urlAlias holds 500 characters whatever
// their bytes, and a clone of a 500-character alias keeps its -copy (and
// its number), cut before the suffix at a character boundary.
func TestAliasLengthInCharacters(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, e *env) {
		long := "/" + strings.Repeat("\u00e9", 499) // 500 characters, 999 bytes
		runFlow(t, e, []step{
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"long1","urlAlias":"` + long + `"}`, status: 201},
			{user: "admin", method: "POST", path: "/api/bw/v2/resource", body: `{"id":"long2","urlAlias":"` + long + `x"}`, status: 409,
				want: `{"fail":"Resource long2: urlAlias: must be 2 to 500 characters"}`},
		})
		for i, suffix := range []string{"-copy", "-copy-2", "-copy-3"} {
			w := e.send("admin", "POST", "/api/bw/v2/resource/clone/long1", "", nil)
			if w.Code != 201 {
				t.Fatalf("clone %d: %d %s", i, w.Code, w.Body)
			}
			id, _ := field(t, w, "id").(string)
			got := aliasOf(t, e, id, "")
			// A numbered one is cut so that any number fits (18 digits).
			want := "/" + strings.Repeat("\u00e9", 499-len("-copy")) + "-copy"
			if i > 0 {
				want = "/" + strings.Repeat("\u00e9", 500-19-1-len("-copy")) + suffix
			}
			if got != want {
				t.Errorf("clone %s: urlAlias of %d characters ending %q, want %d ending %q", id,
					utf8.RuneCountInString(got), got[max(0, len(got)-12):], utf8.RuneCountInString(want), want[len(want)-12:])
			}
		}
		// A decomposed accent is not cut from its letter.
		dec := "/" + strings.Repeat("e\u0301", 300) // 601 characters, NFC 301
		if w := e.send("admin", "POST", "/api/bw/v2/resource", `{"id":"long3","urlAlias":"`+dec+`"}`, nil); w.Code != 201 {
			t.Fatalf("decomposed: %d %s", w.Code, w.Body)
		}
	})
}
