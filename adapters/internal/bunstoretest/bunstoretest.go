// Package bunstoretest holds what the tests of both adapters share about
// their schemas: older schemas to upgrade from, and the upgrade tests.
package bunstoretest

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/bwcms/cms/adapters/internal/bunstore"
	"github.com/bwcms/cms/cms"
	"github.com/uptrace/bun"
)

// FirstMigrations returns a file system holding the first n migration files
// of fsys, so tests can open a schema as an older version left it.
func FirstMigrations(fsys fs.FS, n int) (fs.FS, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	if len(entries) < n {
		return nil, fmt.Errorf("only %d migrations", len(entries))
	}
	sub := fstest.MapFS{}
	for _, e := range entries[:n] {
		data, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		sub[e.Name()] = &fstest.MapFile{Data: data}
	}
	return sub, nil
}

// WithBrokenMigration returns fsys (a FirstMigrations file system) with
// a last migration that creates the table half_made, then fails on a
// column records lacks (no_such_column): what is left of a migration
// that failed halfway.
func WithBrokenMigration(fsys fs.FS) fs.FS {
	broken := maps.Clone(fsys.(fstest.MapFS))
	broken["20991231000001_broken.tx.up.sql"] = &fstest.MapFile{Data: []byte(
		"CREATE TABLE half_made (id int);\n--bun:split\nCREATE INDEX half_made_index ON records (no_such_column);\n")}
	return broken
}

// UpgradeKeepsWaitingBatch is the test of migrations 4 and 8 both adapters run: a
// batch that waits in a schema of the first three migrations, its payload
// in the queue row, is claimed whole after the upgrade. open opens the
// database with the first n migrations (0: all of them).
func UpgradeKeepsWaitingBatch(t *testing.T, open func(n int) (*bunstore.Store, error)) {
	ctx := t.Context()
	old, err := open(3)
	if err != nil {
		t.Fatal(err)
	}
	payload := []byte(`[{"id":"r-1","title":"kept"}]`)
	_, err = old.Write().NewRaw("INSERT INTO batches (id, account, kind, payload, count, status, requested_at, status_at) "+
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?)", "b-1", "a", string(cms.KindResource), payload, 1,
		string(cms.BatchWaiting), time.Now().UnixMicro(), time.Now().UnixMicro()).Exec(ctx)
	old.Close()
	if err != nil {
		t.Fatal(err)
	}
	s, err := open(0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.ClaimBatch(ctx, "w", time.Now(), time.Now().Add(time.Minute))
	if err != nil || got.ID != "b-1" {
		t.Fatalf("claim after upgrade: %+v, %v", got, err)
	}
	if kept, err := s.BatchPayload(ctx, "b-1"); err != nil || string(kept) != string(payload) {
		t.Fatalf("payload after upgrade: %q, %v", kept, err)
	}
}

// UpgradeRepairsAliases is the test of the alias-characters data
// migration both adapters run: records stored before urlAlias refused
// backslashes and bidirectional controls are rewritten on the upgrade,
// the characters dropped and uniqueness kept, with a new timeLastUpdate;
// the rest is untouched. old opens the database with every SQL migration
// but no migration in Go; current opens it as a program would.
func UpgradeRepairsAliases(t *testing.T, old, current func() cms.Store) {
	t.Helper()
	ctx := t.Context()
	then := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := old()
	for _, r := range []*cms.Resource{
		{ID: "evil", URLAlias: cms.Langs[string]{"en": `/\evil.example`, "it": "/\u202Egpj.exe"}},
		{ID: "plain", URLAlias: cms.Langs[string]{"en": "/evil.example", "it": "/fine"}},
		{ID: "twin", URLAlias: cms.Langs[string]{"en": "/evil.example\u2066"}},
	} {
		if err := s.PutRecord(ctx, &cms.Entry{Account: "a", Record: r, Updated: then}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = current()
	defer s.Close()
	want := map[string]cms.Langs[string]{
		"evil":  {"en": "/evil.example-2", "it": "/gpj.exe"},
		"plain": {"en": "/evil.example", "it": "/fine"},
		"twin":  {"en": "/evil.example-3"},
	}
	for id, aliases := range want {
		e, err := s.GetRecord(ctx, "a", cms.KindResource, id)
		if err != nil {
			t.Fatal(err)
		}
		got := e.Record.(*cms.Resource).URLAlias
		for lang, alias := range aliases {
			if got[lang] != alias {
				t.Errorf("%s %s: %q, want %q", id, lang, got[lang], alias)
			}
			if holder, err := s.AliasHolder(ctx, "a", cms.KindResource, lang, alias); err != nil || holder != id {
				t.Errorf("alias %s (%s) held by %q, %v; want %s", alias, lang, holder, err, id)
			}
		}
		if repaired := id != "plain"; repaired == e.Updated.Equal(then) {
			t.Errorf("%s: updated %v (stored %v), repaired %v", id, e.Updated, then, repaired)
		}
	}
	if _, err := s.AliasHolder(ctx, "a", cms.KindResource, "en", `/\evil.example`); cms.ErrorCode(err) != cms.CodeNotFound {
		t.Errorf("the old alias is still held: %v", err)
	}
}

// FillNumberedAliases stores n Resources of account "a" with the aliases
// /t, /t-2, ..., /t-n, and as many of other bases and languages around
// them, then refreshes the planner's statistics: a filled table for a
// query plan.
func FillNumberedAliases(t *testing.T, s *bunstore.Store, n int) {
	t.Helper()
	ctx := t.Context()
	var entries []*cms.Entry
	for i := 1; i <= n; i++ {
		alias := "/t"
		if i > 1 {
			alias += "-" + strconv.Itoa(i)
		}
		entries = append(entries,
			&cms.Entry{Account: "a", Updated: time.Now(), Record: &cms.Resource{ID: fmt.Sprintf("t%05d", i),
				URLAlias: cms.Langs[string]{"en": alias, "it": alias}}},
			&cms.Entry{Account: "a", Updated: time.Now(), Record: &cms.Resource{ID: fmt.Sprintf("u%05d", i),
				URLAlias: cms.Langs[string]{"en": fmt.Sprintf("/u%d-%d", i%50, i)}}})
	}
	if err := s.PutRecords(ctx, entries); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write().ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
}

// FillAssigned stores n Resources of account "a" (r00000, r00001, ...,
// the account's languages English and Italian), nine in ten published,
// two in three with a title, half POIs, each naming the next as a POI,
// updated a second apart until now, and each assigned to two of 20 Maps
// (m00 ... m19) from
// the Resource's side, with the Maps, in a few statements, beside 2,000
// finished batches: a database of a real shape for a query plan.
// Statistics are left as they are.
func FillAssigned(t *testing.T, s *bunstore.Store, n int) {
	t.Helper()
	ctx := t.Context()
	now := time.Now()
	var maps, resources []*cms.Entry
	for m := range 20 {
		maps = append(maps, &cms.Entry{Account: "a", Updated: now, Record: &cms.Map{ID: fmt.Sprintf("m%02d", m)}})
	}
	var lists []cms.AssignmentList
	for i := range n {
		id := fmt.Sprintf("r%05d", i)
		// Most published, each naming another as a POI (a reference).
		// Two in three with a title in English, none in Italian; half
		// POIs, a few of a rare type; a category in three.
		rec := &cms.Resource{ID: id, Published: cms.Some(i%10 != 0), URLAlias: cms.Langs[string]{"en": "/" + id},
			POIResourceIDs: cms.NullOf([]string{fmt.Sprintf("r%05d", (i+1)%n)})}
		if i%3 != 0 {
			rec.Title = cms.Langs[string]{"en": fmt.Sprintf("Lake %d", i%500)}
		}
		switch {
		case i%2 == 0:
			rec.ResourceType = cms.Some("POI")
		case i%301 == 1:
			rec.ResourceType = cms.Some("RARE")
		}
		if i%3 == 1 {
			rec.ResourceCategories = cms.NullOf([]string{"water"})
		}
		resources = append(resources, &cms.Entry{Account: "a", Updated: now.Add(-time.Duration(n-i) * time.Second), Record: rec, New: true})
		lists = append(lists, cms.AssignmentList{Owner: id, Role: cms.RolePrimary,
			IDs: []string{fmt.Sprintf("m%02d", i%20), fmt.Sprintf("m%02d", (i+7)%20)}})
	}
	// The queue keeps finished batches for a while: 2,000 of them.
	var batches strings.Builder
	var batchArgs []any
	batches.WriteString("INSERT INTO batches (id, account, kind, payload, count, status, requested_at, status_at) VALUES ")
	for i := range 2000 {
		if i > 0 {
			batches.WriteString(", ")
		}
		batches.WriteString("(?, ?, ?, ?, ?, ?, ?, ?)")
		at := now.Add(-time.Duration(2000-i) * time.Minute).UnixMicro()
		batchArgs = append(batchArgs, fmt.Sprintf("old-%04d", i), "a", string(cms.KindResource), []byte{}, 1, string(cms.BatchDone), at, at)
	}
	if _, err := s.Write().NewRaw(batches.String(), batchArgs...).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	langs, _ := cms.NewLanguages("en", "en", "it")
	if err := s.CreateAccount(ctx, cms.Account{ID: "a", Langs: langs}); err != nil {
		t.Fatal(err)
	}
	err := s.WithTx(ctx, func(tx cms.Store) error {
		if err := tx.PutRecords(ctx, maps); err != nil {
			return err
		}
		for part := range slices.Chunk(resources, 1000) {
			if err := tx.PutRecords(ctx, part); err != nil {
				return err
			}
		}
		for part := range slices.Chunk(lists, 1000) {
			if err := tx.AppendAssignments(ctx, "a", cms.KindResource, part); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// RunOperations runs the service's record operations over s, filled by
// FillAssigned: creates and updates naming Maps from both sides, a
// Landing, a delete by body, a clone into a Map, a delete, a batch, and
// reads by id and in lists with every option. Plan tests collect the
// statements it makes the store run.
func RunOperations(t *testing.T, s cms.Store) {
	t.Helper()
	svc, err := cms.NewService(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	en, _ := cms.NewLanguages("en", "en", "it") // the account's, as FillAssigned makes it
	ctx := cms.WithPrincipal(t.Context(), cms.Principal{Account: "a", User: "u", Perms: []string{"*"}, Langs: en})
	upsert := func(kind cms.Kind, body string) {
		t.Helper()
		if _, err := svc.Upsert(ctx, kind, []byte(body), nil); err != nil {
			t.Fatalf("%s %s: %v", kind, body, err)
		}
	}
	upsert(cms.KindResource, `{"id":"p-new","title":"Lake","mapIds":["m01"],"mapSecondaryIdsAdd":["m02"],"poiResourceIds":["r00007"]}`)
	upsert(cms.KindResource, `{"id":"r00050","title":"Changed","mapIds":["m03","m04"]}`)
	upsert(cms.KindMap, `{"id":"m05","resourceIdsAdd":["r00060"],"secondaryResourceIds":["r00061"]}`)
	upsert(cms.KindLanding, `{"id":"l-new","title":"Lake","mapId":"m05"}`)
	upsert(cms.KindResource, `{"id":"r00070","deleteElementIrreversibly":true}`)
	if _, err := svc.Clone(ctx, cms.KindResource, "r00080", "m06"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Delete(ctx, cms.KindResource, []string{"r00090", "r00091"}, nil); err != nil {
		t.Fatal(err)
	}
	// A batch: new records numbered by title, assigned from both sides.
	batch := `[{"id":"b-1","title":"Lake","mapIdsAdd":["m07"]},{"id":"b-2","title":"Lake","mapIds":["m08"]},` +
		`{"id":"r00100","title":"Lake","mapSecondaryIds":["m09"]}]`
	if _, err := svc.SubmitBatch(ctx, cms.KindResource, []byte(batch)); err != nil {
		t.Fatal(err)
	}
	if did, err := svc.ProcessBatch(t.Context(), "plan-test"); !did || err != nil {
		t.Fatalf("ProcessBatch: %v, %v", did, err)
	}
	for _, p := range []cms.ReadParams{
		{IDs: []string{"r00001"}, Published: cms.PublishedAny},
		{IDs: []string{"r00001", "r02000"}, Published: cms.PublishedAny},
		{MapID: "m03", Limit: 50, Published: cms.PublishedAny},
		{After: "r01000", Limit: 50},
		{BBox: &cms.BBox{MinLon: 9, MinLat: 45, MaxLon: 10, MaxLat: 46}, Limit: 50},
		// About a hundred of the fill's Resources, one updated a second.
		{UpdatedSince: time.Now().Add(-100 * time.Second), Limit: 50},
		// Searches: a word of a hundred ids (the candidates are read by
		// key), one of every id (the list's index drives, each record
		// tested), alone and with the other options.
		{Search: "r001", Limit: 50},
		{Search: "r001 r0", MapID: "m03", Limit: 50, Published: cms.PublishedAny},
		{Search: "r001", BBox: &cms.BBox{MinLon: 9, MinLat: 45, MaxLon: 10, MaxLat: 46}, Limit: 50},
		{Search: "r0", After: "r01000", Limit: 50},
		{Search: "r0", MapID: "m03", Limit: 50, Published: cms.PublishedAny},
		{Search: "r0", BBox: &cms.BBox{MinLon: 9, MinLat: 45, MaxLon: 10, MaxLat: 46}, Limit: 50},
		{Search: "r0", UpdatedSince: time.Now().Add(-100 * time.Second), Limit: 50},
	} {
		seq, err := svc.Read(ctx, cms.KindResource, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	// The admin's lists: each order, its first page, the next and the
	// one before, alone and with filters held by many records (the
	// order's index drives) and by few (their candidates).
	for _, p := range []cms.BrowseParams{
		{Sort: cms.BrowseUpdated, Desc: true},
		{Sort: cms.BrowseID},
		{Sort: cms.BrowseTitle},
		{Sort: cms.BrowseTitle, Desc: true, TitleLang: "it"},
		{Sort: cms.BrowseUpdated, Type: "POI", MissingLang: "it", Search: "lake"},
		{Sort: cms.BrowseID, Category: "water", Published: cms.PublishedOnly},
		{Sort: cms.BrowseTitle, MapID: "m03"},
		{Sort: cms.BrowseUpdated, Type: "RARE"},
		{Sort: cms.BrowseTitle, Search: "r001"},
		{Sort: cms.BrowseID, Published: cms.UnpublishedOnly},
	} {
		if p.Published == 0 {
			p.Published = cms.PublishedAny
		}
		p.Limit = 20
		first, err := svc.Browse(ctx, cms.KindResource, p)
		if err != nil {
			t.Fatalf("Browse %+v: %v", p, err)
		}
		for _, cursor := range []string{first.Next} {
			if cursor == "" {
				continue
			}
			p.Cursor = cursor
			next, err := svc.Browse(ctx, cms.KindResource, p)
			if err != nil {
				t.Fatalf("Browse %+v: %v", p, err)
			}
			if p.Cursor = next.Prev; p.Cursor != "" {
				if _, err := svc.Browse(ctx, cms.KindResource, p); err != nil {
					t.Fatalf("Browse %+v: %v", p, err)
				}
			}
		}
	}
	if _, _, err := svc.Facets(ctx, cms.KindResource); err != nil {
		t.Fatal(err)
	}
	// The admin's Resource map: every filter, held by many records (the
	// key drives) and by few (their candidates).
	for _, p := range []cms.PointsParams{
		{Published: cms.PublishedAny},
		{Published: cms.UnpublishedOnly, Type: "POI"},
		{MapID: "m03", Category: "water"},
		{Published: cms.PublishedAny, Type: "RARE"},
		{Published: cms.PublishedAny, Search: "r001"},
	} {
		for _, err := range svc.ResourcePoints(ctx, p) {
			if err != nil {
				t.Fatalf("ResourcePoints %+v: %v", p, err)
			}
		}
	}
	// The batch queue's figures (metrics), among the batches kept.
	if _, err := s.BatchQueue(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// StatementLog collects the distinct statements a store runs while on,
// each with the arguments of its first run (give Trace to the adapter).
type StatementLog struct {
	mu  sync.Mutex
	on  bool
	ran map[string][]any
}

// Trace records a statement while the log is on.
func (l *StatementLog) Trace(query string, args []any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on {
		return
	}
	if l.ran == nil {
		l.ran = map[string][]any{}
	}
	if _, ok := l.ran[query]; !ok {
		l.ran[query] = slices.Clone(args)
	}
}

// Record turns the log on or off.
func (l *StatementLog) Record(on bool) {
	l.mu.Lock()
	l.on = on
	l.mu.Unlock()
}

// Statements returns what was recorded, by query text.
func (l *StatementLog) Statements() map[string][]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.ran)
}

// OperationStatements fills s (FillAssigned, 3,000 Resources), then runs
// RunOperations with log recording, and returns the statements it made s
// run; log is the one given to the adapter as its trace.
func OperationStatements(t *testing.T, s *bunstore.Store, log *StatementLog) map[string][]any {
	t.Helper()
	FillAssigned(t, s, 3000)
	log.Record(true)
	RunOperations(t, s)
	log.Record(false)
	return log.Statements()
}

// UpdateWritesOnlyWhatChanged is the test both adapters run of
// cms.Entry.Indexed: an update through the service that changes a
// Resource's title but neither its alias nor its references writes its
// terms but no alias or reference row; one that changes its alias writes
// the aliases alone, one that changes its references the references
// alone. log is the one given to the adapter as its
// trace.
func UpdateWritesOnlyWhatChanged(t *testing.T, s cms.Store, log *StatementLog) {
	t.Helper()
	svc, err := cms.NewService(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	en, _ := cms.NewLanguages("en")
	if err := svc.CreateAccount(t.Context(), "acc", en); err != nil {
		t.Fatal(err)
	}
	ctx := cms.WithPrincipal(t.Context(), cms.Principal{Account: "acc", User: "u", Perms: []string{"*"}, Langs: en})
	upsert := func(body string) {
		t.Helper()
		if _, err := svc.Upsert(ctx, cms.KindResource, []byte(body), nil); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
	}
	upsert(`{"id":"r-0","title":"Other"}`)
	upsert(`{"id":"r-1","title":"Lake","poiResourceIds":["r-0"]}`)
	written := func(body string) (aliases, refs, terms bool) {
		t.Helper()
		log.Record(true)
		upsert(body)
		log.Record(false)
		for query := range log.Statements() {
			aliases = aliases || strings.Contains(query, "INTO aliases") || strings.Contains(query, "FROM aliases WHERE ctid") ||
				strings.HasPrefix(query, "DELETE FROM aliases")
			refs = refs || strings.Contains(query, "INTO refs") || strings.HasPrefix(query, "DELETE FROM refs")
			terms = terms || strings.Contains(query, "INTO terms") || strings.HasPrefix(query, "DELETE FROM terms")
		}
		log.Reset()
		return aliases, refs, terms
	}
	if a, r, w := written(`{"id":"r-1","title":"Lake, north shore"}`); a || r || !w {
		t.Errorf("a new title wrote aliases %v, references %v, terms %v; want terms only", a, r, w)
	}
	if a, r, w := written(`{"id":"r-1","urlAlias":"/north-shore"}`); !a || r || w {
		t.Errorf("a new alias wrote aliases %v, references %v, terms %v; want aliases only", a, r, w)
	}
	if a, r, w := written(`{"id":"r-1","poiResourceIds":[]}`); a || !r || w {
		t.Errorf("new references wrote aliases %v, references %v, terms %v; want references only", a, r, w)
	}
	if a, r, w := written(`{"id":"r-1","poiResourceIds":["r-0"],"title":"Lake, north shore"}`); a || !r || w {
		t.Errorf("the references back wrote aliases %v, references %v, terms %v; want references only", a, r, w)
	}
	terms, _ := cms.SearchTerms("north shore")
	var found []string
	for e, err := range s.ListRecords(t.Context(), cms.ListParams{Account: "acc", Kind: cms.KindResource, Published: cms.PublishedAny, Terms: terms}) {
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, e.Record.RecordID())
	}
	if !slices.Equal(found, []string{"r-1"}) {
		t.Errorf("search of the new title: %v", found)
	}
	if holder, err := s.AliasHolder(t.Context(), "acc", cms.KindResource, "en", "/north-shore"); err != nil || holder != "r-1" {
		t.Errorf("the new alias is held by %q, %v", holder, err)
	}
	refs, err := s.Referrers(t.Context(), "acc", cms.ReferenceTargets(cms.KindResource), "r-0")
	if err != nil || len(refs) != 1 || refs[0].FromID != "r-1" {
		t.Errorf("Referrers of r-0: %+v, %v", refs, err)
	}
}

// Reset forgets what was recorded.
func (l *StatementLog) Reset() {
	l.mu.Lock()
	l.ran = nil
	l.mu.Unlock()
}

// ReadyFollowsMigrations checks Ready against the migration table: ready
// as opened, unavailable with a migration missing or one of a newer
// version, ready again once the table is as the build expects.
func ReadyFollowsMigrations(t *testing.T, s interface {
	cms.Store
	Write() *bun.DB
}) {
	t.Helper()
	ctx := t.Context()
	if err := s.Ready(ctx); err != nil {
		t.Fatalf("Ready as opened: %v", err)
	}
	exec := func(q string) {
		t.Helper()
		if _, err := s.Write().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	exec("INSERT INTO cms_migrations (name, group_id, migrated_at) VALUES ('29991231000001', 99, CURRENT_TIMESTAMP)")
	if err := s.Ready(ctx); cms.ErrorCode(err) != cms.CodeUnavailable || !strings.Contains(err.Error(), "newer version") {
		t.Errorf("Ready with a newer migration: %v", err)
	}
	exec("DELETE FROM cms_migrations WHERE name = '29991231000001'")
	var first string
	if err := s.Write().NewRaw("SELECT min(name) FROM cms_migrations").Scan(ctx, &first); err != nil {
		t.Fatal(err)
	}
	exec("UPDATE cms_migrations SET name = 'x" + first + "' WHERE name = '" + first + "'")
	if err := s.Ready(ctx); cms.ErrorCode(err) != cms.CodeUnavailable || !strings.Contains(err.Error(), "is not applied") {
		t.Errorf("Ready with a migration missing: %v", err)
	}
	exec("UPDATE cms_migrations SET name = '" + first + "' WHERE name = 'x" + first + "'")
	if err := s.Ready(ctx); err != nil {
		t.Errorf("Ready once the table is whole again: %v", err)
	}
}

// AliasNormalFormMigration is the test of the data migration
// 20261127000018 (alias_normal_form) both adapters run: aliases stored
// before urlAlias was normalised (NFC, widths folded) and refused
// zero-width and bidirectional characters are rewritten, the ones that
// collide afterwards kept unique (the alias already in form keeps its
// place, the others get free numbers in record order) with a new
// timeLastUpdate; the rest is untouched. s has every migration; the
// records are stored as an older version stored them.
func AliasNormalFormMigration(t *testing.T, s *bunstore.Store) {
	t.Helper()
	ctx := t.Context()
	then := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	stored := []cms.Record{
		&cms.Resource{ID: "r1", URLAlias: cms.Langs[string]{"en": "/cafe\u0301"}},
		&cms.Resource{ID: "r2", URLAlias: cms.Langs[string]{"en": "/caf\u00e9"}},
		&cms.Resource{ID: "w1", URLAlias: cms.Langs[string]{"en": "/\uff4d\uff45\uff4e\uff55"}},
		&cms.Resource{ID: "w2", URLAlias: cms.Langs[string]{"en": "/me\u200bnu", "it": "/\u200fabc\u061c"}},
		&cms.Resource{ID: "w3", URLAlias: cms.Langs[string]{"en": "/menu"}},
		&cms.Resource{ID: "ok", URLAlias: cms.Langs[string]{"en": "/fine", "it": "/caf\u00e9"}},
		&cms.Map{ID: "m1", URLAlias: cms.Langs[string]{"en": "/cafe\u0301"}},
	}
	for _, r := range stored {
		if err := s.PutRecord(ctx, &cms.Entry{Account: "a", Record: r, Updated: then}); err != nil {
			t.Fatal(err)
		}
	}
	var migration *bunstore.DataMigration
	for _, d := range bunstore.DataMigrations() {
		if d.Name == "20261127000018" {
			migration = &d
		}
	}
	if migration == nil || migration.Comment != "alias_normal_form" {
		t.Fatalf("no migration 20261127000018 alias_normal_form: %+v", migration)
	}
	if err := migration.Up(ctx, s); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind    cms.Kind
		id      string
		aliases cms.Langs[string]
		changed bool
	}{
		{cms.KindResource, "r1", cms.Langs[string]{"en": "/caf\u00e9-2"}, true},
		{cms.KindResource, "r2", cms.Langs[string]{"en": "/caf\u00e9"}, false},
		{cms.KindResource, "w1", cms.Langs[string]{"en": "/menu-2"}, true},
		{cms.KindResource, "w2", cms.Langs[string]{"en": "/menu-3", "it": "/abc"}, true},
		{cms.KindResource, "w3", cms.Langs[string]{"en": "/menu"}, false},
		{cms.KindResource, "ok", cms.Langs[string]{"en": "/fine", "it": "/caf\u00e9"}, false},
		{cms.KindMap, "m1", cms.Langs[string]{"en": "/caf\u00e9"}, true},
	}
	for _, w := range want {
		e, err := s.GetRecord(ctx, "a", w.kind, w.id)
		if err != nil {
			t.Fatal(err)
		}
		got := *e.Record.Common().URLAlias
		if len(got) != len(w.aliases) {
			t.Errorf("%s %s: aliases %+q, want %+q", w.kind, w.id, got, w.aliases)
		}
		for lang, alias := range w.aliases {
			if got[lang] != alias {
				t.Errorf("%s %s %s: %+q, want %+q", w.kind, w.id, lang, got[lang], alias)
			}
			if holder, err := s.AliasHolder(ctx, "a", w.kind, lang, alias); err != nil || holder != w.id {
				t.Errorf("alias %+q (%s) held by %q, %v; want %s", alias, lang, holder, err, w.id)
			}
		}
		if w.changed == e.Updated.Equal(then) {
			t.Errorf("%s %s: updated %v (stored %v), changed %v", w.kind, w.id, e.Updated, then, w.changed)
		}
	}
	for _, old := range []string{"/cafe\u0301", "/\uff4d\uff45\uff4e\uff55", "/me\u200bnu"} {
		if holder, err := s.AliasHolder(ctx, "a", cms.KindResource, "en", old); cms.ErrorCode(err) != cms.CodeNotFound {
			t.Errorf("the old alias %+q is still held by %q: %v", old, holder, err)
		}
	}
	// Run again (another instance's start): nothing left to change.
	if err := migration.Up(ctx, s); err != nil {
		t.Fatal(err)
	}
	if e, err := s.GetRecord(ctx, "a", cms.KindResource, "w2"); err != nil || e.Record.(*cms.Resource).URLAlias["en"] != "/menu-3" {
		t.Errorf("second run: %v, %v", e, err)
	}
}

// MigrationsBefore is how many migration files of fsys sort before name:
// the n of FirstMigrations that opens a schema as it was before name.
func MigrationsBefore(fsys fs.FS, name string) (int, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if e.Name() < name {
			n++
		}
	}
	return n, nil
}

// UpgradeFillsTerms is the test of the terms migration both adapters
// run: records stored before the terms table (in two accounts, of two
// kinds, more than a chunk of them) are found by a search, and by their
// missing languages, once a store of this version opened the database;
// opening it again changes nothing. old opens the database with the SQL
// migrations before the terms table; current opens it as a program
// would.
func UpgradeFillsTerms(t *testing.T, old, current func() cms.Store) {
	t.Helper()
	ctx := t.Context()
	s := old()
	en, _ := cms.NewLanguages("en", "en", "it")
	de, _ := cms.NewLanguages("de", "de")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.CreateAccount(ctx, cms.Account{ID: "acme", Langs: en}))
	must(s.CreateAccount(ctx, cms.Account{ID: "other", Langs: de}))
	const n = 1200
	var entries []*cms.Entry
	for i := range n {
		title := cms.Langs[string]{"en": fmt.Sprintf("Città %d", i)}
		if i%100 == 0 {
			title["it"] = "Lago"
		}
		entries = append(entries, &cms.Entry{Account: "acme", Updated: time.Now(), New: true,
			Record: &cms.Resource{ID: fmt.Sprintf("r%05d", i), Published: cms.Some(true), Title: title}})
	}
	must(s.PutRecords(ctx, entries))
	must(s.PutRecord(ctx, &cms.Entry{Account: "acme", Updated: time.Now(), New: true,
		Record: &cms.Map{ID: "map-citta", Title: cms.Langs[string]{"en": "Città"}}}))
	must(s.PutRecord(ctx, &cms.Entry{Account: "other", Updated: time.Now(), New: true,
		Record: &cms.Resource{ID: "r00001", Title: cms.Langs[string]{"en": "Città"}}}))
	must(s.Close())

	count := func(s cms.Store, account string, kind cms.Kind, terms ...cms.TermRange) int {
		t.Helper()
		got := 0
		for _, err := range s.ListRecords(ctx, cms.ListParams{Account: account, Kind: kind, Published: cms.PublishedAny, Terms: terms}) {
			must(err)
			got++
		}
		return got
	}
	for range 2 { // the second open finds the migration applied
		s = current()
		citta, _ := cms.SearchTerms("citta")
		lago, _ := cms.SearchTerms("LAGO")
		for _, c := range []struct {
			what    string
			account string
			kind    cms.Kind
			terms   []cms.TermRange
			want    int
		}{
			{"citta", "acme", cms.KindResource, citta, n},
			{"r0119", "acme", cms.KindResource, mustSearch(t, "r0119"), 10},
			{"citta 1199", "acme", cms.KindResource, mustSearch(t, "citta 1199"), 1},
			{"lago", "acme", cms.KindResource, lago, n / 100},
			{"citta, Maps", "acme", cms.KindMap, citta, 1},
			{"citta, the other account", "other", cms.KindResource, citta, 1},
			{"no title in it", "acme", cms.KindResource, []cms.TermRange{cms.MissingTerm("it")}, n - n/100},
			{"no title in en", "acme", cms.KindResource, []cms.TermRange{cms.MissingTerm("en")}, 0},
			{"no title in de, the other account", "other", cms.KindResource, []cms.TermRange{cms.MissingTerm("de")}, 1},
		} {
			if got := count(s, c.account, c.kind, c.terms...); got != c.want {
				t.Errorf("%s: %d records, want %d", c.what, got, c.want)
			}
		}
		must(s.Close())
	}
}

func mustSearch(t *testing.T, q string) []cms.TermRange {
	t.Helper()
	terms, err := cms.SearchTerms(q)
	if err != nil {
		t.Fatal(err)
	}
	return terms
}

// ListedIDs returns the ids of the records s lists for p, in order.
func ListedIDs(t *testing.T, s cms.Store, p cms.ListParams) []string {
	t.Helper()
	var ids []string
	for e, err := range s.ListRecords(t.Context(), p) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.Record.RecordID())
	}
	return ids
}

// BoxMigration checks an upgrade across migration 36 (the location
// index): the records old stored before it, located or not, of two
// accounts and two kinds, are answered by a box after upgrade (which
// closes old and opens the upgraded store), and the writes after the
// upgrade (a point moved out, one moved in, a delete) keep the index in
// step. It returns the upgraded store for the adapter's own checks.
func BoxMigration(t *testing.T, old cms.Store, upgrade func() cms.Store) cms.Store {
	t.Helper()
	ctx := t.Context()
	of := cms.NullOf[float64]
	recs := []struct {
		account string
		rec     cms.Record
	}{
		{"a", &cms.Resource{ID: "in-1", LocationLat: of(45.5), LocationLon: of(9.5)}},
		{"a", &cms.Resource{ID: "in-2", LocationLat: of(46), LocationLon: of(10)}},
		{"a", &cms.Resource{ID: "out", LocationLat: of(44), LocationLon: of(9.5)}},
		{"a", &cms.Resource{ID: "unlocated"}},
		{"a", &cms.Map{ID: "m-in", LocationLat: of(45.2), LocationLon: of(9.2)}},
		{"b", &cms.Resource{ID: "b-in", LocationLat: of(45.5), LocationLon: of(9.5)}},
	}
	for _, r := range recs {
		if err := old.PutRecord(ctx, &cms.Entry{Account: r.account, Record: r.rec}); err != nil {
			t.Fatal(err)
		}
	}
	s := upgrade()
	box := &cms.BBox{MinLon: 9, MinLat: 45, MaxLon: 10, MaxLat: 46}
	check := func(when, account string, kind cms.Kind, want ...string) {
		t.Helper()
		got := ListedIDs(t, s, cms.ListParams{Account: account, Kind: kind, Published: cms.PublishedAny, BBox: box})
		if !slices.Equal(got, want) {
			t.Errorf("%s: %s %s: got %v, want %v", when, account, kind, got, want)
		}
	}
	check("upgraded", "a", cms.KindResource, "in-1", "in-2")
	check("upgraded", "a", cms.KindMap, "m-in")
	check("upgraded", "b", cms.KindResource, "b-in")
	if err := s.PutRecord(ctx, &cms.Entry{Account: "a", Record: &cms.Resource{ID: "in-1", LocationLat: of(47), LocationLon: of(9.5)}}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutRecord(ctx, &cms.Entry{Account: "a", Record: &cms.Resource{ID: "out", LocationLat: of(45.1), LocationLon: of(9.1)}}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteRecord(ctx, "a", cms.KindResource, "in-2"); err != nil {
		t.Fatal(err)
	}
	check("written after", "a", cms.KindResource, "out")
	check("written after", "b", cms.KindResource, "b-in")
	return s
}
