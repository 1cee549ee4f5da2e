package cmstest

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/cms/track"
)

// fileID is the n-th file id of the suite: cms.FileIDLength characters
// of lowercase base32, as the service makes them.
func fileID(n int) string {
	sum := sha256.Sum256([]byte("file-" + strconv.Itoa(n)))
	return fmt.Sprintf("%.26s", base32Lower.EncodeToString(sum[:17]))
}

var base32Lower = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// digest is the SHA256 (hex) of a content named by content.
func digest(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// newFile is file n of account: a JPEG of content "content-n" created n
// seconds after t0, but every third a GPX track (Track set), and every
// fifth sharing its created instant with the one before (the id breaks
// the tie).
func newFile(account string, n int) cms.File {
	f := cms.File{Account: account, ID: fileID(n), Name: fmt.Sprintf("Lago di Garda – été %d.jpg", n),
		Type: "image/jpeg", Size: int64(1_000_000 + n), SHA256: digest(account + "/content-" + strconv.Itoa(n)),
		Width: 4000, Height: 3000, Created: t0.Add(time.Duration(n) * time.Second)}
	if n%5 == 0 && n > 0 {
		f.Created = t0.Add(time.Duration(n-1) * time.Second)
	}
	if n%3 == 0 {
		f.Name, f.Type, f.Width, f.Height = fmt.Sprintf("track-%d.gpx", n), "application/gpx+xml", 0, 0
		f.Track = &track.Summary{}
	}
	return f
}

// sameFile reports whether got is want as stored (the instant compared
// as an instant).
func sameFile(got, want cms.File) bool {
	g, w := got, want
	g.Created, w.Created = time.Time{}, time.Time{}
	return reflect.DeepEqual(g, w) && got.Created.Equal(want.Created)
}

// wantFiles checks that got holds exactly want, in want's order.
func wantFiles(tb testing.TB, what string, got, want []cms.File) {
	tb.Helper()
	for i := range min(len(got), len(want)) {
		if !sameFile(got[i], want[i]) {
			tb.Errorf("%s: file %d of %d is\n%+v\nwant (of %d)\n%+v", what, i, len(got), got[i], len(want), want[i])
			return
		}
	}
	if len(got) != len(want) {
		tb.Errorf("%s: %d files, want %d; the first %d as wanted", what, len(got), len(want), min(len(got), len(want)))
	}
}

func fileIDs(files []cms.File) []string {
	ids := make([]string, len(files))
	for i, f := range files {
		ids[i] = f.ID
	}
	return ids
}

// newestFirst returns files in ListFiles' order.
func newestFirst(files []cms.File) []cms.File {
	return slices.SortedFunc(slices.Values(files), func(a, b cms.File) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
}

// createFiles stores files in one transaction.
func createFiles(tb testing.TB, s cms.Store, files ...cms.File) {
	tb.Helper()
	must(tb, s.WithTx(tb.Context(), func(tx cms.Store) error {
		for _, f := range files {
			if err := tx.CreateFile(tb.Context(), f); err != nil {
				return fmt.Errorf("CreateFile %s: %w", f.ID, err)
			}
		}
		return nil
	}))
}

// listAll pages through q (q.Limit a page) and returns every file, in
// the order given.
func listAll(tb testing.TB, s cms.Store, q cms.FileQuery) []cms.File {
	tb.Helper()
	var all []cms.File
	for range 1000 {
		page, err := s.ListFiles(tb.Context(), q)
		if err != nil {
			tb.Fatalf("ListFiles(%+v): %v", q, err)
		}
		if len(page) > q.Limit {
			tb.Fatalf("ListFiles(%+v): %d files, more than the limit", q, len(page))
		}
		all = append(all, page...)
		if len(page) < q.Limit {
			return all
		}
		q.After = page[len(page)-1].ID
	}
	tb.Fatalf("ListFiles(%+v): no end after 1000 pages", q)
	return nil
}

// fileURL is a url of the service's file id, as a record's field keeps it.
func fileURL(id string) string {
	return "https://cms.example/api/bw/v2/file/" + id + "/lake.jpg"
}

func testFiles(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Parallel()
	t.Run("CreateGetList", func(t *testing.T) { t.Parallel(); testFileReads(t, open(t)) })
	t.Run("Conflicts", func(t *testing.T) { t.Parallel(); testFileConflicts(t, open(t)) })
	t.Run("ConcurrentUploads", func(t *testing.T) { t.Parallel(); testConcurrentUploads(t, open(t)) })
	t.Run("Accounts", func(t *testing.T) { t.Parallel(); testFileAccounts(t, open(t)) })
	t.Run("Delete", func(t *testing.T) { t.Parallel(); testFileDelete(t, open(t)) })
	t.Run("ExistingFileIDs", func(t *testing.T) { t.Parallel(); testExistingFileIDs(t, open(t)) })
	t.Run("Unused", func(t *testing.T) { t.Parallel(); testUnusedFiles(t, open(t)) })
	t.Run("RevisionFiles", func(t *testing.T) { t.Parallel(); testRevisionFiles(t, open(t)) })
	t.Run("Locks", func(t *testing.T) { t.Parallel(); testFileLocks(t, open) })
}

// testFileReads: 120 files of one account and a few of another, read by
// id, by digest, in pages of every size, with and without a type.
func testFileReads(t *testing.T, s cms.Store) {
	ctx := t.Context()
	var files, others []cms.File
	for n := range 120 {
		files = append(files, newFile("a", n))
	}
	for n := 1000; n < 1010; n++ {
		others = append(others, newFile("b", n))
	}
	// Stored in an order that is neither the ids' nor the instants'.
	createFiles(t, s, slices.Concat(files[60:], others, files[:60])...)

	for _, f := range slices.Concat(files, others) {
		got, err := s.FileByID(ctx, f.ID)
		if err != nil || !sameFile(*got, f) {
			t.Fatalf("FileByID(%s): %+v, %v; want %+v", f.ID, got, err, f)
		}
		got, err = s.FileBySHA256(ctx, f.Account, f.SHA256)
		if err != nil || !sameFile(*got, f) {
			t.Fatalf("FileBySHA256(%s, %s): %+v, %v; want %+v", f.Account, f.SHA256, got, err, f)
		}
	}
	// The track round trip: a summary where there was one, nil elsewhere.
	if got, err := s.FileByID(ctx, files[3].ID); err != nil || got.Track == nil {
		t.Errorf("FileByID of a track: %+v, %v; want a track summary", got, err)
	}
	if got, err := s.FileByID(ctx, files[4].ID); err != nil || got.Track != nil {
		t.Errorf("FileByID of an image: %+v, %v; want no track summary", got, err)
	}
	_, err := s.FileByID(ctx, fileID(-1))
	wantCode(t, err, cms.CodeNotFound, "FileByID of a missing id")
	_, err = s.FileBySHA256(ctx, "a", digest("never uploaded"))
	wantCode(t, err, cms.CodeNotFound, "FileBySHA256 of a missing digest")

	// GetFiles: the account's files among the ids, once each.
	ask := []string{files[7].ID, fileID(-1), files[2].ID, others[0].ID, files[7].ID, files[99].ID}
	got, err := s.GetFiles(ctx, "a", ask)
	must(t, err)
	got = slices.SortedFunc(slices.Values(got), func(a, b cms.File) int { return strings.Compare(a.ID, b.ID) })
	want := slices.SortedFunc(slices.Values([]cms.File{files[7], files[2], files[99]}),
		func(a, b cms.File) int { return strings.Compare(a.ID, b.ID) })
	wantFiles(t, "GetFiles", got, want)
	if got, err := s.GetFiles(ctx, "a", nil); err != nil || len(got) != 0 {
		t.Errorf("GetFiles of no ids: %v, %v", got, err)
	}
	// More ids than a statement may take at once.
	var many []string
	for n := range 1500 {
		many = append(many, fileID(n))
	}
	got, err = s.GetFiles(ctx, "a", many)
	if err != nil || len(got) != len(files) {
		t.Errorf("GetFiles of 1,500 ids: %d files, %v; want %d", len(got), err, len(files))
	}

	// ListFiles: newest first, the id breaking ties, in pages of any size.
	all := newestFirst(files)
	var tracks []cms.File
	for _, f := range all {
		if f.Type == "application/gpx+xml" {
			tracks = append(tracks, f)
		}
	}
	for _, limit := range []int{1, 7, 40, 120, 1000} {
		wantFiles(t, "ListFiles by "+strconv.Itoa(limit), listAll(t, s, cms.FileQuery{Account: "a", Limit: limit}), all)
		wantFiles(t, "ListFiles of tracks by "+strconv.Itoa(limit),
			listAll(t, s, cms.FileQuery{Account: "a", Type: "application/gpx+xml", Limit: limit}), tracks)
	}
	page, err := s.ListFiles(ctx, cms.FileQuery{Account: "a", After: all[9].ID, Limit: 5})
	must(t, err)
	wantFiles(t, "ListFiles after the tenth", page, all[10:15])
	wantFiles(t, "ListFiles of b", listAll(t, s, cms.FileQuery{Account: "b", Limit: 3}), newestFirst(others))
	for what, q := range map[string]cms.FileQuery{
		"an unknown After":            {Account: "a", After: fileID(-1), Limit: 10},
		"another account's After":     {Account: "a", After: others[0].ID, Limit: 10},
		"an unknown type":             {Account: "a", Type: "image/png", Limit: 10},
		"an account without files":    {Account: "c", Limit: 10},
		"After the oldest":            {Account: "a", After: all[len(all)-1].ID, Limit: 10},
		"After the oldest of a type":  {Account: "a", Type: "application/gpx+xml", After: tracks[len(tracks)-1].ID, Limit: 10},
		"an unknown After and a type": {Account: "a", Type: "image/jpeg", After: fileID(-1), Limit: 10},
	} {
		if page, err := s.ListFiles(ctx, q); err != nil || len(page) != 0 {
			t.Errorf("ListFiles with %s: %v, %v; want an empty page", what, fileIDs(page), err)
		}
	}

	// FileBytes: per account and in all.
	var sum int64
	for _, f := range files {
		sum += f.Size
	}
	var otherSum int64
	for _, f := range others {
		otherSum += f.Size
	}
	for _, c := range []struct {
		account      string
		count, bytes int64
	}{{"a", 120, sum}, {"b", 10, otherSum}, {"", 130, sum + otherSum}, {"c", 0, 0}} {
		if count, bytes, err := s.FileBytes(ctx, c.account); err != nil || count != c.count || bytes != c.bytes {
			t.Errorf("FileBytes(%q): %d files, %d bytes, %v; want %d, %d", c.account, count, bytes, err, c.count, c.bytes)
		}
	}
}

// testFileConflicts: a taken id or an account's taken digest stores
// nothing; the same digest in another account is another file.
func testFileConflicts(t *testing.T, s cms.Store) {
	ctx := t.Context()
	first := newFile("a", 1)
	must(t, s.CreateFile(ctx, first))
	before := listAll(t, s, cms.FileQuery{Account: "a", Limit: 10})

	sameContent := newFile("a", 2)
	sameContent.SHA256 = first.SHA256
	wantCode(t, s.CreateFile(ctx, sameContent), cms.CodeConflict, "CreateFile of a content the account holds")
	sameID := newFile("b", 3)
	sameID.ID = first.ID
	wantCode(t, s.CreateFile(ctx, sameID), cms.CodeConflict, "CreateFile of a taken id, in another account")
	for _, id := range []string{sameContent.ID} {
		_, err := s.FileByID(ctx, id)
		wantCode(t, err, cms.CodeNotFound, "FileByID of a file refused")
	}
	if got, err := s.FileByID(ctx, first.ID); err != nil || !sameFile(*got, first) {
		t.Errorf("the first file after the refusals: %+v, %v; want %+v", got, err, first)
	}
	if _, err := s.FileBySHA256(ctx, "b", sameID.SHA256); cms.ErrorCode(err) != cms.CodeNotFound {
		t.Errorf("FileBySHA256 of the refused file of b: %v, want CodeNotFound", err)
	}
	wantFiles(t, "ListFiles after the refusals", listAll(t, s, cms.FileQuery{Account: "a", Limit: 10}), before)
	if count, bytes, err := s.FileBytes(ctx, ""); err != nil || count != 1 || bytes != first.Size {
		t.Errorf("FileBytes after the refusals: %d, %d, %v; want 1, %d", count, bytes, err, first.Size)
	}

	// A refused create inside a transaction: the transaction may go on.
	must(t, s.WithTx(ctx, func(tx cms.Store) error {
		wantCode(t, tx.CreateFile(ctx, sameContent), cms.CodeConflict, "CreateFile of a taken digest in a transaction")
		return tx.CreateFile(ctx, newFile("a", 4))
	}))
	if _, err := s.FileByID(ctx, fileID(4)); err != nil {
		t.Errorf("the file created after a refusal in the transaction: %v", err)
	}
	// A transaction that fails stores nothing.
	err := s.WithTx(ctx, func(tx cms.Store) error {
		must(t, tx.CreateFile(ctx, newFile("a", 5)))
		return fmt.Errorf("abandoned")
	})
	if err == nil {
		t.Fatal("WithTx returned no error")
	}
	_, err = s.FileByID(ctx, fileID(5))
	wantCode(t, err, cms.CodeNotFound, "FileByID of a file created in a rolled back transaction")

	// The same bytes in another account are that account's own file.
	theirs := newFile("b", 6)
	theirs.SHA256 = first.SHA256
	must(t, s.CreateFile(ctx, theirs))
	for account, want := range map[string]cms.File{"a": first, "b": theirs} {
		if got, err := s.FileBySHA256(ctx, account, first.SHA256); err != nil || !sameFile(*got, want) {
			t.Errorf("FileBySHA256(%s): %+v, %v; want %+v", account, got, err, want)
		}
	}
}

// testFileAccounts: another account's file is missing to every call
// that names an account; FileByID finds it.
func testFileAccounts(t *testing.T, s cms.Store) {
	ctx := t.Context()
	mine, theirs := newFile("a", 1), newFile("b", 2)
	createFiles(t, s, mine, theirs)
	check := func(st cms.Store, where string) {
		if got, err := st.GetFiles(ctx, "a", []string{theirs.ID}); err != nil || len(got) != 0 {
			t.Errorf("%s: GetFiles of b's file in a: %v, %v", where, fileIDs(got), err)
		}
		if got, err := st.ListFiles(ctx, cms.FileQuery{Account: "a", Limit: 10}); err != nil || !slices.Equal(fileIDs(got), []string{mine.ID}) {
			t.Errorf("%s: ListFiles of a: %v, %v; want only %s", where, fileIDs(got), err, mine.ID)
		}
		_, err := st.LockFile(ctx, "a", theirs.ID)
		wantCode(t, err, cms.CodeNotFound, where+": LockFile of b's file in a")
		_, err = st.FileBySHA256(ctx, "a", theirs.SHA256)
		wantCode(t, err, cms.CodeNotFound, where+": FileBySHA256 of b's digest in a")
		wantCode(t, st.DeleteFile(ctx, "a", theirs.ID), cms.CodeNotFound, where+": DeleteFile of b's file in a")
		if got, err := st.FileByID(ctx, theirs.ID); err != nil || !sameFile(*got, theirs) {
			t.Errorf("%s: FileByID of b's file: %+v, %v", where, got, err)
		}
		if got, err := st.LockFile(ctx, "b", theirs.ID); err != nil || !sameFile(*got, theirs) {
			t.Errorf("%s: LockFile of b's file in b: %+v, %v", where, got, err)
		}
		if got, err := st.LockFile(ctx, "a", mine.ID); err != nil || !sameFile(*got, mine) {
			t.Errorf("%s: LockFile of a's file in a: %+v, %v", where, got, err)
		}
	}
	check(s, "outside a transaction")
	must(t, s.WithTx(ctx, func(tx cms.Store) error { check(tx, "in a transaction"); return nil }))
	_, err := s.LockFile(ctx, "a", fileID(-1))
	wantCode(t, err, cms.CodeNotFound, "LockFile of a missing id")
}

// testConcurrentUploads: uploads of one content racing in transactions
// that overlap: one stores its file, each other is told of a conflict
// (not a race to retry) and stores nothing.
func testConcurrentUploads(t *testing.T, s cms.Store) {
	ctx := t.Context()
	const uploads = 8
	errs := make(chan error, uploads)
	var wg sync.WaitGroup
	for n := range uploads {
		wg.Go(func() {
			f := newFile("a", n)
			f.SHA256 = digest("one content")
			errs <- s.WithTx(ctx, func(tx cms.Store) error {
				if err := tx.CreateFile(ctx, f); err != nil {
					return err
				}
				time.Sleep(20 * time.Millisecond) // the others insert meanwhile
				return nil
			})
		})
	}
	wg.Wait()
	close(errs)
	stored := 0
	for err := range errs {
		if err == nil {
			stored++
			continue
		}
		wantCode(t, err, cms.CodeConflict, "a concurrent upload of the same content")
	}
	if stored != 1 {
		t.Fatalf("%d of %d concurrent uploads stored, want 1", stored, uploads)
	}
	winner, err := s.FileBySHA256(ctx, "a", digest("one content"))
	must(t, err)
	if got := listAll(t, s, cms.FileQuery{Account: "a", Limit: 100}); len(got) != 1 || got[0].ID != winner.ID {
		t.Errorf("files after the race: %v, want only the winner %s", fileIDs(got), winner.ID)
	}
}
