package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/client"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// Login, the claims, validate, an explicit refresh, logout; a wrong
// password; a refresh token revoked by logout.
func TestAuth(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c, err := client.New(e.url+"/", &client.Options{HTTPClient: e.http})
		must(t, err)
		if _, err := c.Validate(ctx); !errors.Is(err, client.ErrLoginRequired) {
			t.Fatalf("validate before login: %v, want ErrLoginRequired", err)
		}
		err = c.Login(ctx, "admin", "wrong password")
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnauthorized || apiErr.Fail != "Unauthorized" || !errors.Is(err, client.ErrUnauthorized) {
			t.Fatalf("wrong password: %#v", err)
		}
		must(t, c.Login(ctx, "admin", testenv.Password))
		claims, ok := c.Claims()
		if !ok || claims.Subject != "admin" || claims.Account != "acme" || claims.Lang != "en" || !slices.Equal(claims.Langs, []string{"en", "it"}) ||
			!claims.ExpiresAt().Equal(e.clock.Now().Add(15*time.Minute)) {
			t.Fatalf("claims %+v", claims)
		}
		valid, err := c.Validate(ctx)
		must(t, err)
		if valid.ID != claims.ID || valid.Type != "access" || !slices.Equal(valid.Perms, []string{"*"}) {
			t.Fatalf("validate %+v, want %+v", valid, claims)
		}
		before := c.Tokens()
		must(t, c.Refresh(ctx))
		after := c.Tokens()
		if after.Access == before.Access || after.Refresh == before.Refresh || e.refreshes.Load() != 1 {
			t.Fatalf("refresh: tokens %v -> %v, %d refreshes", before, after, e.refreshes.Load())
		}
		// Another process keeps the session and logs it out.
		other, err := client.New(e.url, &client.Options{HTTPClient: e.http})
		must(t, err)
		must(t, other.SetTokens(after))
		if _, err := other.Validate(ctx); err != nil {
			t.Fatal(err)
		}
		must(t, other.Logout(ctx))
		if other.Tokens() != (client.Tokens{}) {
			t.Fatal("logout kept the tokens")
		}
		if _, err := other.Validate(ctx); !errors.Is(err, client.ErrLoginRequired) {
			t.Fatalf("after logout: %v", err)
		}
		// The access token still works until it expires; the refresh
		// token does not.
		if _, err := c.Validate(ctx); err != nil {
			t.Fatal(err)
		}
		err = c.Refresh(ctx)
		if !errors.Is(err, client.ErrLoginRequired) || !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnauthorized ||
			apiErr.Fail != "Invalid or expired refresh token" {
			t.Fatalf("refresh after logout: %v", err)
		}
		if _, err := c.Validate(ctx); !errors.Is(err, client.ErrLoginRequired) {
			t.Fatalf("after a refused refresh: %v", err)
		}
		must(t, c.Login(ctx, "admin", testenv.Password))
		must(t, c.Logout(ctx))
		must(t, c.Logout(ctx)) // nothing left to revoke
	})
}

// Create, skip, update and delete by body, with their outcomes; reads of
// what was written; the problems of a 409.
func TestUpsert(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		walk := resource("lake-walk", "Lake walk")
		walk.LocationLat, walk.LocationLon = cms.NullOf(45.8), cms.NullOf(9.1)
		for i, want := range []cms.Outcome{cms.Created, cms.Skipped} {
			got, err := c.Upsert(ctx, walk)
			if err != nil || got != want {
				t.Fatalf("upsert %d: %v %v, want %v", i, got, err, want)
			}
		}
		// Only the fields set are sent: the location stays.
		got, err := c.Upsert(ctx, &cms.Resource{ID: "lake-walk", Title: cms.Langs[string]{"it": "Giro del lago"},
			ShortDescription: cms.Langs[cms.Null[string]]{"en": cms.NullOf("By the water")}})
		if err != nil || got != cms.Updated {
			t.Fatalf("update: %v %v", got, err)
		}
		r, etag, err := client.Get[*cms.Resource](ctx, c, "lake-walk")
		must(t, err)
		if etag == "" || r.Title["en"] != "Lake walk" || r.Title["it"] != "Giro del lago" || r.LocationLat != cms.NullOf(45.8) ||
			r.ShortDescription["en"] != cms.NullOf("By the water") || r.ShortDescription["it"] != cms.Nil[string]() ||
			r.TimeLastUpdate != "2026-11-22 11:00:00" || r.URLAlias["en"] != "/lake-walk" {
			t.Fatalf("read back %+v", r)
		}
		// A record read can be written back: a Skip.
		if got, err := c.Upsert(ctx, r); err != nil || got != cms.Skipped {
			t.Fatalf("write back: %v %v", got, err)
		}
		// Every problem of a refused record.
		_, err = c.Upsert(ctx, &cms.Resource{ID: "lake-walk", LocationZoom: cms.NullOf[int64](30), MapIDs: cms.NullOf([]string{"nomap"})})
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.Status != http.StatusConflict || !errors.Is(err, client.ErrConflict) {
			t.Fatalf("problems: %v", err)
		}
		want := []cms.Problem{
			{Kind: cms.KindResource, ID: "lake-walk", Field: "locationZoom", Text: "must be an integer between 2 and 25"},
			{Kind: cms.KindResource, ID: "lake-walk", Field: "mapIds[0]", Text: "Map nomap does not exist"},
		}
		if !slices.Equal(apiErr.Problems, want) || apiErr.Fail != want[0].String()+"\n"+want[1].String() {
			t.Fatalf("problems %q %+v", apiErr.Fail, apiErr.Problems)
		}
		// Other kinds, and a delete by body.
		if got, err := c.Upsert(ctx, &cms.Map{ID: "lakes", Title: cms.Langs[string]{"en": "Lakes"}}); err != nil || got != cms.Created {
			t.Fatalf("map: %v %v", got, err)
		}
		if got, err := c.Upsert(ctx, &cms.Map{ID: "lakes", DeleteIrreversibly: cms.Some(true)}); err != nil || got != cms.Deleted {
			t.Fatalf("delete by body: %v %v", got, err)
		}
		if _, _, err := c.Get(ctx, cms.KindMap, "lakes", client.Published(cms.PublishedAny)); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("deleted map: %v", err)
		}
	})
}

// Every read option, one id, several, a page; the typed reads.
func TestReadOptions(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		_, err := c.Upsert(ctx, &cms.Map{ID: "lakes", Title: cms.Langs[string]{"en": "Lakes"}, Published: cms.Some(true)})
		must(t, err)
		for _, r := range []*cms.Resource{
			{ID: "a-walk", Title: cms.Langs[string]{"en": "A walk"}, Published: cms.Some(true), Image: cms.NullOf("https://img.example/a.jpg"),
				LocationLat: cms.NullOf(45.8), LocationLon: cms.NullOf(9.1), MapIDs: cms.NullOf([]string{"lakes"})},
			{ID: "b-mill", Title: cms.Langs[string]{"en": "B mill"}, LocationLat: cms.NullOf(10.0), LocationLon: cms.NullOf(10.0)},
			{ID: "c-pier", Title: cms.Langs[string]{"en": "C pier"}, Published: cms.Some(true)},
		} {
			_, err := c.Upsert(ctx, r)
			must(t, err)
		}
		e.clock.Advance(time.Hour)
		_, err = c.Upsert(ctx, &cms.Resource{ID: "c-pier", Title: cms.Langs[string]{"en": "C pier, new"}})
		must(t, err)
		ids := func(recs []cms.Record, err error) string {
			t.Helper()
			must(t, err)
			var out []string
			for _, r := range recs {
				out = append(out, r.RecordID())
			}
			return strings.Join(out, ",")
		}
		for _, tc := range []struct {
			opts []client.ReadOption
			want string
		}{
			{nil, "a-walk,c-pier"},
			{[]client.ReadOption{client.Published(cms.PublishedAny)}, "a-walk,b-mill,c-pier"},
			{[]client.ReadOption{client.Published(cms.UnpublishedOnly)}, "b-mill"},
			{[]client.ReadOption{client.Published(cms.PublishedOnly)}, "a-walk,c-pier"},
			{[]client.ReadOption{client.MapID("lakes")}, "a-walk"},
			{[]client.ReadOption{client.Published(cms.PublishedAny), client.BBox(cms.BBox{MinLon: 8.5, MinLat: 45.5, MaxLon: 9.5, MaxLat: 46.2})}, "a-walk"},
			{[]client.ReadOption{client.Published(cms.PublishedAny), client.BBox(cms.BBox{MinLon: -20, MinLat: -1.5, MaxLon: 20, MaxLat: 30})}, "b-mill"},
			{[]client.ReadOption{client.UpdatedSince(e.clock.Now())}, "c-pier"},
			{[]client.ReadOption{client.UpdatedSince(e.clock.Now().Add(time.Second))}, ""},
			{[]client.ReadOption{client.Published(cms.PublishedAny), client.Limit(2)}, "a-walk,b-mill"},
			{[]client.ReadOption{client.Published(cms.PublishedAny), client.Limit(1), client.After("a-walk")}, "b-mill"},
			// A search sends every option in the query form.
			{[]client.ReadOption{client.Search("WALK")}, "a-walk"},
			{[]client.ReadOption{client.Search("mill")}, ""},
			{[]client.ReadOption{client.Search("mill"), client.Published(cms.PublishedAny)}, "b-mill"},
			{[]client.ReadOption{client.Search("p"), client.Published(cms.PublishedAny), client.Fields("title")}, "c-pier"},
			{[]client.ReadOption{client.Search("a"), client.MapID("lakes"), client.UpdatedSince(e.clock.Now().Add(-2 * time.Hour))}, "a-walk"},
			{[]client.ReadOption{client.Search("b m"), client.Published(cms.PublishedAny),
				client.BBox(cms.BBox{MinLon: -20, MinLat: -1.5, MaxLon: 20, MaxLat: 30}), client.ExcludeFiles()}, "b-mill"},
			{[]client.ReadOption{client.Search("C PIER, new"), client.Limit(1), client.After("a-walk")}, "c-pier"},
		} {
			if got := ids(c.ListPage(ctx, cms.KindResource, tc.opts...)); got != tc.want {
				t.Errorf("ListPage %d options: %q, want %q", len(tc.opts), got, tc.want)
			}
		}
		// Projections.
		r, _, err := client.Get[*cms.Resource](ctx, c, "a-walk", client.Fields("title", "title_it", "image"), client.IgnoreFields("title_it"))
		must(t, err)
		if r.Title["en"] != "A walk" || len(r.Title) != 1 || r.Image != cms.NullOf("https://img.example/a.jpg") || r.Published.Set || r.LocationLat.Set {
			t.Fatalf("fields: %+v", r)
		}
		r, _, err = client.Get[*cms.Resource](ctx, c, "a-walk", client.ExcludeFiles())
		must(t, err)
		if r.Image.Set || !r.LocationLat.Set || !slices.Equal(r.MapIDs.Value, []string{"lakes"}) {
			t.Fatalf("excludeFiles: %+v", r)
		}
		// Several ids: in the order asked, missing and hidden ones left out;
		// none: empty; one: an object on the wire.
		if got := ids(c.GetMany(ctx, cms.KindResource, []string{"c-pier", "missing", "b-mill", "a-walk"})); got != "c-pier,a-walk" {
			t.Fatalf("GetMany: %q", got)
		}
		if got := ids(c.GetMany(ctx, cms.KindResource, []string{"c-pier", "b-mill"}, client.Published(cms.PublishedAny), client.Fields("title"))); got != "c-pier,b-mill" {
			t.Fatalf("GetMany any: %q", got)
		}
		if got := ids(c.GetMany(ctx, cms.KindResource, []string{"missing", "nothing"})); got != "" {
			t.Fatalf("GetMany none: %q", got)
		}
		if got := ids(c.GetMany(ctx, cms.KindResource, []string{"b-mill"}, client.Published(cms.PublishedAny))); got != "b-mill" {
			t.Fatalf("GetMany one: %q", got)
		}
		// Over 1000 ids: several requests, the order kept.
		many := []string{"c-pier"}
		for i := range 1000 {
			many = append(many, fmt.Sprintf("missing-%04d", i))
		}
		many = append(many, "a-walk")
		if got := ids(c.GetMany(ctx, cms.KindResource, many)); got != "c-pier,a-walk" {
			t.Fatalf("GetMany of 1002: %q", got)
		}
		// A search among named ids: their order, the others left out, one
		// id as well.
		if got := ids(c.GetMany(ctx, cms.KindResource, []string{"c-pier", "b-mill", "a-walk"}, client.Search("pier"))); got != "c-pier" {
			t.Fatalf("GetMany with a search: %q", got)
		}
		if got := ids(c.GetMany(ctx, cms.KindResource, []string{"a-walk"}, client.Search("pier"))); got != "" {
			t.Fatalf("GetMany of one id with a search: %q", got)
		}
		var searched []string
		for r, err := range c.List(ctx, cms.KindResource, client.Search("a"), client.Published(cms.PublishedAny), client.PageSize(1)) {
			must(t, err)
			searched = append(searched, r.RecordID())
		}
		if strings.Join(searched, ",") != "a-walk" {
			t.Fatalf("List with a search: %v", searched)
		}
		// Refused options.
		var apiErr *client.Error
		for _, q := range []string{"", "?!", strings.Repeat("x", cms.MaxSearchLength+1)} {
			if _, err := c.ListPage(ctx, cms.KindResource, client.Search(q)); !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest || apiErr.Fail != "Wrong request" {
				t.Fatalf("search %q: %v", q, err)
			}
		}
		if _, _, err := c.Get(ctx, cms.KindResource, "a-walk", client.Search("walk")); err == nil {
			t.Fatal("Get took a search")
		}
		if _, err := c.ListPage(ctx, cms.KindLanding, client.MapID("lakes")); !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest || apiErr.Fail != "Wrong request" {
			t.Fatalf("mapId on landings: %v", err)
		}
		if _, err := c.ListPage(ctx, cms.KindResource, client.Fields("nofield")); !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest {
			t.Fatalf("unknown field: %v", err)
		}
		if _, err := c.ListPage(ctx, cms.KindResource, client.IfNoneMatch(`"x"`)); err == nil {
			t.Fatal("IfNoneMatch on a list was taken")
		}
		if _, err := c.ListPage(ctx, "nokind"); err == nil {
			t.Fatal("an unknown kind was taken")
		}
	})
}

// List pages with /limit and /after, holding a page; Limit caps it,
// After starts it, breaking stops it; the typed List.
func TestList(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		var all []string
		for i := range 7 {
			id := "rec-" + string(rune('a'+i))
			all = append(all, id)
			_, err := c.Upsert(ctx, resource(id, "Record "+id))
			must(t, err)
		}
		list := func(opts ...client.ReadOption) ([]string, int32) {
			t.Helper()
			before := e.pages.Load()
			var got []string
			for r, err := range client.List[*cms.Resource](ctx, c, opts...) {
				must(t, err)
				if r.Title["it"] != "Record "+r.ID+" (it)" {
					t.Fatalf("record %+v", r)
				}
				got = append(got, r.ID)
			}
			return got, e.pages.Load() - before
		}
		if got, pages := list(client.PageSize(3)); !slices.Equal(got, all) || pages != 3 {
			t.Fatalf("pages of 3: %v in %d requests", got, pages)
		}
		if got, pages := list(client.PageSize(7)); !slices.Equal(got, all) || pages != 2 {
			t.Fatalf("a full page: %v in %d requests", got, pages)
		}
		if got, pages := list(); !slices.Equal(got, all) || pages != 1 {
			t.Fatalf("default page: %v in %d requests", got, pages)
		}
		if got, pages := list(client.PageSize(2), client.Limit(5)); !slices.Equal(got, all[:5]) || pages != 3 {
			t.Fatalf("limit 5: %v in %d requests", got, pages)
		}
		if got, _ := list(client.PageSize(2), client.After("rec-c")); !slices.Equal(got, all[3:]) {
			t.Fatalf("after rec-c: %v", got)
		}
		if got, _ := list(client.Published(cms.UnpublishedOnly)); len(got) != 0 {
			t.Fatalf("unpublished: %v", got)
		}
		before := e.pages.Load()
		n := 0
		for _, err := range c.List(ctx, cms.KindResource, client.PageSize(2)) {
			must(t, err)
			if n++; n == 3 {
				break
			}
		}
		if pages := e.pages.Load() - before; pages != 2 {
			t.Fatalf("stopped after 3 records: %d requests", pages)
		}
		for _, err := range c.List(ctx, cms.KindResource, client.PageSize(1001)) {
			if err == nil {
				t.Fatal("page size 1001 was taken")
			}
		}
	})
}

// A call whose access token expired refreshes once and is sent again;
// a 403 refreshes too, and permissions granted meanwhile then hold.
func TestRefreshAndRetry(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		first := c.Tokens()
		e.expire()
		if got, err := c.Upsert(ctx, resource("lake-walk", "Lake walk")); err != nil || got != cms.Created {
			t.Fatalf("upsert with an expired token: %v %v", got, err)
		}
		if e.refreshes.Load() != 1 || c.Tokens() == first {
			t.Fatalf("%d refreshes", e.refreshes.Load())
		}
		if _, _, err := c.Get(ctx, cms.KindResource, "lake-walk"); err != nil || e.refreshes.Load() != 1 {
			t.Fatalf("read: %v, %d refreshes", err, e.refreshes.Load())
		}

		reader := e.client("reader")
		_, err := reader.Upsert(ctx, resource("old-mill", "Old mill"))
		if !errors.Is(err, client.ErrForbidden) || e.refreshes.Load() != 2 {
			t.Fatalf("reader writes: %v, %d refreshes", err, e.refreshes.Load())
		}
		must(t, e.svc.SetPerms(ctx, "reader", []string{"resource:*"}))
		if got, err := reader.Upsert(ctx, resource("old-mill", "Old mill")); err != nil || got != cms.Created || e.refreshes.Load() != 3 {
			t.Fatalf("after a grant: %v %v, %d refreshes", got, err, e.refreshes.Load())
		}
	})
}

// Concurrent calls that meet an expired token share one refresh: the
// service runs without grace, so a second refresh with the spent token
// would revoke the login.
func TestConcurrentRefresh(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		_, err := c.Upsert(ctx, resource("lake-walk", "Lake walk"))
		must(t, err)
		e.expire()
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for i := range 16 {
			wg.Go(func() {
				var err error
				switch i % 3 {
				case 0:
					_, _, err = c.Get(ctx, cms.KindResource, "lake-walk")
				case 1:
					_, err = c.ListPage(ctx, cms.KindResource)
				default:
					_, err = c.Validate(ctx)
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			must(t, err)
		}
		if n := e.refreshes.Load(); n != 1 {
			t.Fatalf("%d refreshes, want 1", n)
		}
		// The login lives on.
		e.expire()
		if _, err := c.Validate(ctx); err != nil || e.refreshes.Load() != 2 {
			t.Fatalf("next refresh: %v", err)
		}
	})
}

// The call that started a refresh gives up (its context ends) while the
// refresh is under way: the refresh still ends and its tokens are kept,
// for the call that waits with it and for later ones.
func TestRefreshOutlivesItsCaller(t *testing.T) {
	e := newEnv(t, testenv.OpenSQLiteMemory)
	ctx := t.Context()
	c := e.client("admin")
	hold := make(chan struct{})
	e.holdRefresh.Store(&hold)
	e.expire()
	first, cancel := context.WithCancel(ctx)
	firstDone := make(chan error)
	go func() {
		_, err := c.Validate(first)
		firstDone <- err
	}()
	for e.refreshes.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	second := make(chan error)
	go func() {
		_, err := c.Validate(ctx)
		second <- err
	}()
	cancel()
	if err := <-firstDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call: %v", err)
	}
	close(hold)
	if err := <-second; err != nil {
		t.Fatalf("the call that waited: %v", err)
	}
	if _, err := c.Validate(ctx); err != nil || e.refreshes.Load() != 1 {
		t.Fatalf("after: %v, %d refreshes", err, e.refreshes.Load())
	}
}

// The access token expires between two pages of a list: the next page
// refreshes and the list goes on where it was.
func TestTokenExpiresMidList(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		var want []string
		for _, id := range []string{"aa1", "aa2", "aa3", "aa4", "aa5"} {
			want = append(want, id)
			_, err := c.Upsert(ctx, resource(id, id))
			must(t, err)
		}
		var got []string
		for r, err := range c.List(ctx, cms.KindResource, client.PageSize(2)) {
			must(t, err)
			got = append(got, r.RecordID())
			if len(got) == 2 {
				e.expire()
			}
		}
		if !slices.Equal(got, want) || e.refreshes.Load() != 1 {
			t.Fatalf("list %v, %d refreshes", got, e.refreshes.Load())
		}
	})
}

// A refresh the server refuses (the login was revoked) is an error that
// says a new login is needed, and so is every call after it, without a
// request; a new login works.
func TestRefreshRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		must(t, e.svc.SetPassword(ctx, "admin", testenv.Password+" changed")) // revokes every login of admin
		e.expire()
		_, err := c.Upsert(ctx, resource("lake-walk", "Lake walk"))
		var apiErr *client.Error
		if !errors.Is(err, client.ErrLoginRequired) || !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnauthorized {
			t.Fatalf("upsert: %v", err)
		}
		if !strings.Contains(err.Error(), "a new login is needed") {
			t.Fatalf("error text %q", err)
		}
		for r, err := range c.List(ctx, cms.KindResource) {
			if r != nil || !errors.Is(err, client.ErrLoginRequired) {
				t.Fatalf("list: %v %v", r, err)
			}
		}
		if e.refreshes.Load() != 1 {
			t.Fatalf("%d refreshes", e.refreshes.Load())
		}
		must(t, c.Login(ctx, "admin", testenv.Password+" changed"))
		if _, err := c.Upsert(ctx, resource("lake-walk", "Lake walk")); err != nil {
			t.Fatal(err)
		}
	})
}

// ETag, If-None-Match (304) and If-Match (412).
func TestConditional(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		_, err := c.Upsert(ctx, resource("lake-walk", "Lake walk"))
		must(t, err)
		_, etag, err := c.Get(ctx, cms.KindResource, "lake-walk", client.Fields("title"))
		must(t, err)
		rec, same, err := c.Get(ctx, cms.KindResource, "lake-walk", client.IfNoneMatch(etag))
		if rec != nil || same != etag || !errors.Is(err, client.ErrNotModified) {
			t.Fatalf("If-None-Match: %v %q %v", rec, same, err)
		}
		if got, err := c.Upsert(ctx, resource("lake-walk", "Walk round the lake"), client.IfMatch(etag)); err != nil || got != cms.Updated {
			t.Fatalf("If-Match: %v %v", got, err)
		}
		_, err = c.Upsert(ctx, resource("lake-walk", "Lake walk"), client.IfMatch(etag))
		var apiErr *client.Error
		if !errors.Is(err, client.ErrPreconditionFailed) || !errors.As(err, &apiErr) || apiErr.Fail != "Precondition failed" {
			t.Fatalf("stale If-Match: %v", err)
		}
		r, newer, err := client.Get[*cms.Resource](ctx, c, "lake-walk", client.IfNoneMatch(etag))
		if err != nil || newer == etag || r.Title["en"] != "Walk round the lake" {
			t.Fatalf("changed record: %v %q %v", r, newer, err)
		}
		if _, err := c.Upsert(ctx, resource("new-pier", "New pier"), client.IfMatch("*")); !errors.Is(err, client.ErrPreconditionFailed) {
			t.Fatalf("If-Match * of a missing record: %v", err)
		}
	})
}

// Delete: all, some (the partial result), none existing (404), none
// deletable (409 with the ids).
func TestDelete(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		for _, rec := range []cms.Record{
			resource("scratch", "Scratch"), resource("scratch-2", "Scratch 2"),
			&cms.Map{ID: "lakes", Title: cms.Langs[string]{"en": "Lakes"}},
			&cms.Map{ID: "hills", Title: cms.Langs[string]{"en": "Hills"}},
			&cms.Landing{ID: "lakes-home", Title: cms.Langs[string]{"en": "Lakes"}, MapID: cms.Some("lakes")},
		} {
			_, err := c.Upsert(ctx, rec)
			must(t, err)
		}
		res, err := c.Delete(ctx, cms.KindResource, "scratch", "missing")
		if err != nil || res.Deleted != 1 || !slices.Equal(res.Failed, []string{"missing"}) {
			t.Fatalf("partial: %+v %v", res, err)
		}
		if _, err := c.Delete(ctx, cms.KindResource, "scratch"); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("none exists: %v", err)
		}
		res, err = c.Delete(ctx, cms.KindMap, "hills", "lakes")
		if err != nil || res.Deleted != 1 || !slices.Equal(res.Failed, []string{"lakes"}) {
			t.Fatalf("a map a landing names: %+v %v", res, err)
		}
		_, err = c.Delete(ctx, cms.KindMap, "lakes")
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.Status != http.StatusConflict || !slices.Equal(apiErr.Failed, []string{"lakes"}) ||
			apiErr.Fail != "Deletion of 1 Maps not done" || apiErr.Problems != nil {
			t.Fatalf("none deleted: %#v", err)
		}
		if res, err := c.Delete(ctx, cms.KindResource, "scratch-2"); err != nil || res.Deleted != 1 || res.Failed != nil {
			t.Fatalf("all: %+v %v", res, err)
		}
		if _, err := c.Delete(ctx, cms.KindResource); err == nil {
			t.Fatal("a delete of no ids was sent")
		}
	})
}

// Clone, to a Map; a missing record; the default Base.
func TestClone(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		_, err := c.Upsert(ctx, &cms.Map{ID: "lakes", Title: cms.Langs[string]{"en": "Lakes"}})
		must(t, err)
		_, err = c.Upsert(ctx, resource("lake-walk", "Lake walk"))
		must(t, err)
		id, err := c.Clone(ctx, cms.KindResource, "lake-walk", "lakes")
		if err != nil || id != "lake-walk-copy" {
			t.Fatalf("clone: %q %v", id, err)
		}
		r, _, err := client.Get[*cms.Resource](ctx, c, id, client.Published(cms.PublishedAny))
		must(t, err)
		if r.Published.Value || r.Title["en"] != "Lake walk" || !slices.Equal(r.MapIDs.Value, []string{"lakes"}) {
			t.Fatalf("the clone: %+v", r)
		}
		if id, err := c.Clone(ctx, cms.KindResource, "lake-walk", ""); err != nil || id != "lake-walk-copy-2" {
			t.Fatalf("second clone: %q %v", id, err)
		}
		var apiErr *client.Error
		if _, err := c.Clone(ctx, cms.KindResource, "", ""); !errors.As(err, &apiErr) || apiErr.Status != http.StatusNotFound ||
			apiErr.Fail != "There is no Resource Base to clone" {
			t.Fatalf("clone of Base: %v", err)
		}
		if _, err := c.Clone(ctx, cms.KindResource, "lake-walk", "nomap"); !errors.Is(err, client.ErrConflict) {
			t.Fatalf("clone to a missing map: %v", err)
		}
	})
}

// The schemas in the account's languages, and /full with the records.
func TestSchemas(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		_, err := c.Upsert(ctx, &cms.Map{ID: "lakes", Title: cms.Langs[string]{"en": "Lakes", "it": "Laghi"}})
		must(t, err)
		one, err := c.Schema(ctx, cms.KindMap, false)
		must(t, err)
		many, err := c.Schema(ctx, cms.KindMap, true)
		must(t, err)
		if !strings.Contains(string(one), `"title_it"`) || !strings.Contains(string(many), `"array"`) || string(one) == string(many) {
			t.Fatalf("schemas:\n%.300s\n%.300s", one, many)
		}
		schema, recs, err := c.SchemaFull(ctx, cms.KindMap)
		must(t, err)
		if string(schema) != strings.TrimSpace(string(one)) || len(recs) != 1 || recs[0].(*cms.Map).Title["it"] != "Laghi" {
			t.Fatalf("full: %d records, schema equal %v", len(recs), string(schema) == string(one))
		}
	})
}

// A batch submitted and waited for: the callback sees waiting,
// processing and done with the counts; a refused batch; one that fails
// when applied; an unknown id.
func TestBatch(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client("admin")
		_, err := c.Upsert(ctx, resource("lake-walk", "Lake walk"))
		must(t, err)
		_, err = c.Upsert(ctx, resource("old-mill", "Old mill"))
		must(t, err)
		e.store.armed.Store(true)
		var seen []client.Batch
		var release sync.Once
		b, err := c.RunBatch(ctx, cms.KindResource, []cms.Record{
			resource("lake-walk", "Lake walk"),
			&cms.Resource{ID: "old-mill", POIResourceIDs: cms.NullOf([]string{"lake-walk"})},
			resource("new-pier", "New pier"),
		}, func(b client.Batch) {
			seen = append(seen, b)
			switch b.Status {
			case cms.BatchWaiting:
				e.runWorkers() // workers start only now, so waiting is seen
			case cms.BatchProcessing: // seen again when processed moves
				release.Do(func() { close(e.store.release) }) // the worker holds it until seen processing
			}
		})
		must(t, err)
		var states []cms.BatchStatus
		processed := -1
		for _, s := range seen {
			if len(states) == 0 || states[len(states)-1] != s.Status {
				states = append(states, s.Status)
			}
			if s.Count != 3 || s.ID != b.ID || s.Kind != cms.KindResource || s.DateRequest == "" || s.Processed < processed ||
				(s.Status == cms.BatchProcessing) != (s.Attempt == 1) {
				t.Fatalf("state %+v after processed %d", s, processed)
			}
			processed = s.Processed
		}
		if !slices.Equal(states, []cms.BatchStatus{cms.BatchWaiting, cms.BatchProcessing, cms.BatchDone}) {
			t.Fatalf("states %v", states)
		}
		if b.Status != cms.BatchDone || b.Created != 1 || b.Updated != 1 || b.Skipped != 1 || !b.Finished() || b.Processed != 3 ||
			b != seen[len(seen)-1] {
			t.Fatalf("done: %+v", b)
		}
		r, _, err := client.Get[*cms.Resource](ctx, c, "old-mill")
		must(t, err)
		if !slices.Equal(r.POIResourceIDs.Value, []string{"lake-walk"}) {
			t.Fatalf("applied: %+v", r.POIResourceIDs)
		}

		// Refused whole before anything is queued.
		_, err = c.SubmitBatch(ctx, cms.KindResource, []cms.Record{&cms.Resource{ID: "old-mill", POIResourceIDs: cms.NullOf([]string{"lake-wlak"})}})
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || len(apiErr.Problems) != 1 || apiErr.Problems[0].Field != "poiResourceIds[0]" {
			t.Fatalf("refused batch: %v", err)
		}
		// Checked only (dryRun): the same refusal, or the count; nothing
		// stored either way.
		_, err = c.CheckBatch(ctx, cms.KindResource, []cms.Record{resource("dry-run", "Dry run"),
			&cms.Resource{ID: "old-mill", POIResourceIDs: cms.NullOf([]string{"lake-wlak"})}})
		if !errors.As(err, &apiErr) || apiErr.Status != 409 || len(apiErr.Problems) != 1 || apiErr.Problems[0].ID != "old-mill" {
			t.Fatalf("checked batch with a problem: %v", err)
		}
		n, err := c.CheckBatch(ctx, cms.KindResource, []cms.Record{resource("dry-run", "Dry run"),
			&cms.Resource{ID: "old-mill", POIResourceIDs: cms.NullOf([]string{"dry-run"})}})
		if err != nil || n != 2 {
			t.Fatalf("checked batch: %d, %v; want 2", n, err)
		}
		if _, _, err := client.Get[*cms.Resource](ctx, c, "dry-run"); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("a checked batch stored its record: %v", err)
		}
		if _, err := c.CheckBatch(ctx, cms.KindResource, []cms.Record{&cms.Map{ID: "lakes"}}); err == nil {
			t.Fatal("a map in a checked batch of resources was sent")
		}
		if _, err := c.SubmitBatch(ctx, cms.KindResource, []cms.Record{&cms.Map{ID: "lakes"}}); err == nil {
			t.Fatal("a map in a batch of resources was sent")
		}
		// Fails when applied: the Map it names is gone by then (on
		// SQLite every write waits for a running batch, so the delete
		// races nothing; the batch is checked at submit).
		_, err = c.Upsert(ctx, &cms.Map{ID: "lakes", Title: cms.Langs[string]{"en": "Lakes"}})
		must(t, err)
		e.store.release = make(chan struct{})
		e.store.armed.Store(true) // after release: the worker reads it once armed
		sub, err := c.SubmitBatch(ctx, cms.KindResource, []cms.Record{&cms.Resource{ID: "lake-walk", MapIDs: cms.NullOf([]string{"lakes"})}})
		must(t, err)
		_, err = c.Delete(ctx, cms.KindMap, "lakes")
		must(t, err)
		close(e.store.release)
		b, err = c.WaitBatch(ctx, cms.KindResource, sub.ID, nil)
		if !errors.Is(err, client.ErrBatchFailed) || b.Status != cms.BatchError || b.Error == "" || !strings.Contains(err.Error(), b.Error) {
			t.Fatalf("failed batch: %+v %v", b, err)
		}
		if _, err := c.BatchStatus(ctx, cms.KindResource, "no-such-batch"); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("unknown batch: %v", err)
		}
	})
}

// A language added to the account reaches the client's codec at the next
// refresh: the new variants are then sent and read.
func TestLanguagesFollowToken(t *testing.T) {
	e := newEnv(t, testenv.OpenSQLiteMemory)
	ctx := t.Context()
	c := e.client("admin")
	_, err := e.svc.AddLanguage(ctx, "acme", "de")
	must(t, err)
	// The token still names en and it: a German variant would not be
	// sent, so it is refused before anything is.
	seeweg := &cms.Resource{ID: "lake-walk", Published: cms.Some(true), Title: cms.Langs[string]{"en": "Lake walk", "de": "Seeweg"}}
	if _, err := c.Upsert(ctx, seeweg); err == nil || !strings.Contains(err.Error(), `title in "de": not a language of the session (en,it)`) {
		t.Fatalf("German before the refresh: %v", err)
	}
	if _, err := c.SubmitBatch(ctx, cms.KindResource, []cms.Record{seeweg}); err == nil {
		t.Fatal("German in a batch before the refresh was sent")
	}
	must(t, c.Refresh(ctx))
	if claims, _ := c.Claims(); !slices.Equal(claims.Langs, []string{"en", "it", "de"}) {
		t.Fatalf("langs %v", claims.Langs)
	}
	_, err = c.Upsert(ctx, seeweg)
	must(t, err)
	r, _, err := client.Get[*cms.Resource](ctx, c, "lake-walk", client.Fields("title_de"))
	must(t, err)
	if r.Title["de"] != "Seeweg" {
		t.Fatalf("title_de: %+v", r.Title)
	}
}

// Failed logins past the limit are a 429 with Retry-After.
func TestLoginThrottled(t *testing.T) {
	e := newEnv(t, testenv.OpenSQLiteMemory)
	c, err := client.New(e.url, &client.Options{HTTPClient: e.http})
	must(t, err)
	for range 5 {
		if err := c.Login(t.Context(), "admin", "wrong password"); !errors.Is(err, client.ErrUnauthorized) {
			t.Fatal(err)
		}
	}
	err = c.Login(t.Context(), "admin", testenv.Password)
	var apiErr *client.Error
	if !errors.Is(err, client.ErrTooManyRequests) || !errors.As(err, &apiErr) || apiErr.RetryAfter != 15*time.Minute ||
		apiErr.Fail != "Too many attempts" {
		t.Fatalf("throttled: %#v", err)
	}
}

// New refuses what is no base URL.
func TestNew(t *testing.T) {
	for _, bad := range []string{"", "ftp://host", "http://", "http://host/?q=1", "http://u:p@host", "%"} {
		if _, err := client.New(bad, nil); err == nil {
			t.Errorf("New(%q) was taken", bad)
		}
	}
	if _, err := client.New("http://host", &client.Options{PageSize: 1001}); err == nil {
		t.Error("PageSize 1001 was taken")
	}
}
