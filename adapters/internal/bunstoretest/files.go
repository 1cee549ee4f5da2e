package bunstoretest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/adapters/internal/bunstore"
	"github.com/bwcms/cms/cms"
)

// fileTypes are the media types FillFiles gives its files in turn.
var fileTypes = []string{"image/jpeg", "image/png", "application/gpx+xml", "image/webp", "image/jpeg",
	"application/vnd.google-earth.kml+xml"}

// FilledFileID is the id of file i of FillFiles: a file id's length and
// alphabet, in no order of i.
func FilledFileID(i int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "file %d", i))
	id := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '1' || r >= '8' && r <= '9' {
			return r - '0' + 'q' // base32 has no 0, 1, 8, 9
		}
		return r
	}, hex.EncodeToString(sum[:]))
	return id[:cms.FileIDLength]
}

// filledDigest is the content digest of file i of FillFiles.
func filledDigest(i int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "content %d", i))
	return hex.EncodeToString(sum[:])
}

// FillFiles stores n files of account "a" and n/100 of account "b",
// created a second apart until now (oldest first, of the types of
// fileTypes in turn), and references from Resources of "a" to every
// other file of "a" (with a reference to a Resource of the same id as
// each of the others, which is none to the file): a files table of a
// real shape for a query plan. Statistics are left as they are.
func FillFiles(t *testing.T, s *bunstore.Store, n int) time.Time {
	t.Helper()
	ctx := t.Context()
	now := time.Now()
	total := n + n/100
	const rows = 1000
	for start := 0; start < total; start += rows {
		var files, refs strings.Builder
		var fileArgs, refArgs []any
		files.WriteString("INSERT INTO files (account, id, name, type, size, sha256, width, height, track, created) VALUES ")
		refs.WriteString("INSERT INTO refs (account, from_kind, from_id, field, to_kind, to_id, single) VALUES ")
		for i := start; i < min(start+rows, total); i++ {
			account := "a"
			if i >= n {
				account = "b"
			}
			typ := fileTypes[i%len(fileTypes)]
			var summary *string
			if strings.Contains(typ, "gpx") {
				s := `{}`
				summary = &s
			}
			if i > start {
				files.WriteString(", ")
			}
			files.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			fileArgs = append(fileArgs, account, FilledFileID(i), fmt.Sprintf("upload %d", i), typ, 100_000+i,
				filledDigest(i), 1600, 1200, summary, now.Add(-time.Duration(total-i)*time.Second).UnixMicro())
			if account == "a" {
				if len(refArgs) > 0 {
					refs.WriteString(", ")
				}
				refs.WriteString("(?, ?, ?, ?, ?, ?, ?)")
				toKind := cms.RefFile
				if i%2 == 1 {
					toKind = string(cms.KindResource)
				}
				refArgs = append(refArgs, "a", string(cms.KindResource), fmt.Sprintf("r%06d", i), "image", toKind, FilledFileID(i), true)
			}
		}
		if _, err := s.Write().NewRaw(files.String(), fileArgs...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if len(refArgs) > 0 {
			if _, err := s.Write().NewRaw(refs.String(), refArgs...).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	return now
}

// FileOperations runs the file store's calls over s, filled by
// FillFiles(n): pages of the list (the first, the next, of a type),
// look-ups by id and by digest, a purge's questions (unused files,
// thousands of ids), a record's hold of its files and a deletion under
// its lock. Plan tests collect the statements it makes the store run.
func FileOperations(t *testing.T, s cms.Store, n int) {
	t.Helper()
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	page, err := s.ListFiles(ctx, cms.FileQuery{Account: "a", Limit: 100})
	must(err)
	if len(page) != 100 || page[0].ID != FilledFileID(n-1) {
		t.Fatalf("the first page: %d files from %v", len(page), page[0].ID)
	}
	_, err = s.ListFiles(ctx, cms.FileQuery{Account: "a", After: page[99].ID, Limit: 100})
	must(err)
	typed, err := s.ListFiles(ctx, cms.FileQuery{Account: "a", Type: "image/png", Limit: 100})
	must(err)
	if len(typed) != 100 {
		t.Fatalf("the first page of PNGs: %d files", len(typed))
	}
	_, err = s.ListFiles(ctx, cms.FileQuery{Account: "a", Type: "image/png", After: typed[99].ID, Limit: 100})
	must(err)
	if f, err := s.FileBySHA256(ctx, "a", filledDigest(n/2)); err != nil || f.ID != FilledFileID(n/2) {
		t.Fatalf("FileBySHA256: %+v, %v", f, err)
	}
	if _, err := s.FileByID(ctx, FilledFileID(n/3)); err != nil {
		t.Fatal(err)
	}
	// The purge: the unused of the older half (every other file), and
	// which of thousands of ids have a row.
	unused, err := s.UnusedFiles(ctx, time.Now().Add(-time.Duration(n/2)*time.Second), 100)
	must(err)
	if len(unused) != 100 {
		t.Fatalf("UnusedFiles: %d files", len(unused))
	}
	var ids []string
	for i := range 5000 {
		ids = append(ids, FilledFileID(i*7))
	}
	if found, err := s.ExistingFileIDs(ctx, ids); err != nil || len(found) == 0 {
		t.Fatalf("ExistingFileIDs: %d, %v", len(found), err)
	}
	// A record's save holds its files; a deletion locks its file.
	must(s.WithTx(ctx, func(tx cms.Store) error {
		for _, ids := range [][]string{{FilledFileID(10)}, {FilledFileID(11), FilledFileID(12), FilledFileID(13), FilledFileID(14), FilledFileID(15)}} {
			if got, err := tx.GetFiles(ctx, "a", ids); err != nil || len(got) != len(ids) {
				return fmt.Errorf("GetFiles: %d files, %v", len(got), err)
			}
		}
		return nil
	}))
	if got, err := s.GetFiles(ctx, "a", []string{FilledFileID(20), FilledFileID(21)}); err != nil || len(got) != 2 {
		t.Fatalf("GetFiles: %d files, %v", len(got), err)
	}
	must(s.WithTx(ctx, func(tx cms.Store) error {
		if _, err := tx.LockFile(ctx, "a", FilledFileID(30)); err != nil {
			return err
		}
		if refs, err := tx.Referrers(ctx, "a", []string{cms.RefFile}, FilledFileID(30)); err != nil || len(refs) != 1 {
			return fmt.Errorf("Referrers: %+v, %v", refs, err)
		}
		return tx.DeleteFile(ctx, "a", FilledFileID(31))
	}))
}

// FileStatements fills s (FillFiles, n files), then runs FileOperations
// with log recording, and returns the statements it made s run; log is
// the one given to the adapter as its trace.
func FileStatements(t *testing.T, s *bunstore.Store, log *StatementLog, n int) map[string][]any {
	t.Helper()
	FillFiles(t, s, n)
	log.Reset()
	log.Record(true)
	FileOperations(t, s, n)
	log.Record(false)
	return log.Statements()
}

// UnusedFilesByReference is the test of UnusedFiles both adapters run
// on references stored as the store keeps a record's (the codec's part
// aside): a file named by a reference with target cms.RefFile under its
// own account is used; a reference of another target, or under another
// account, to its id is not; the files come oldest first, limit at a
// time.
func UnusedFilesByReference(t *testing.T, s *bunstore.Store) {
	t.Helper()
	ctx := t.Context()
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	var files []cms.File
	for i := range 8 {
		f := cms.File{Account: "a", ID: FilledFileID(i), Name: "f.jpg", Type: "image/jpeg", Size: 10,
			SHA256: filledDigest(i), Created: t0.Add(time.Duration(i) * time.Minute)}
		if i%4 == 3 {
			f.Account = "b"
		}
		files = append(files, f)
	}
	for _, f := range slices.Backward(files) {
		if err := s.CreateFile(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	refs := 0
	ref := func(account, toKind string, i int) {
		t.Helper()
		refs++
		if _, err := s.Write().NewRaw("INSERT INTO refs (account, from_kind, from_id, field, to_kind, to_id, single) VALUES (?, ?, ?, ?, ?, ?, ?)",
			account, string(cms.KindResource), fmt.Sprintf("r-%d", refs), "image", toKind, files[i].ID, true).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ref("a", cms.RefFile, 1)              // used
	ref("b", cms.RefFile, 3)              // used: b's file, b's reference
	ref("a", string(cms.KindResource), 2) // a Resource of the same id
	ref("b", cms.RefFile, 4)              // another account's record
	ref("a", cms.RefFile, 5)              // used, twice
	ref("a", cms.RefFile, 5)
	want := func(before time.Time, limit int, wantIdx ...int) {
		t.Helper()
		got, err := s.UnusedFiles(ctx, before, limit)
		if err != nil {
			t.Fatal(err)
		}
		var gotIDs, wantIDs []string
		for _, f := range got {
			gotIDs = append(gotIDs, f.ID)
		}
		for _, i := range wantIdx {
			wantIDs = append(wantIDs, files[i].ID)
		}
		if !slices.Equal(gotIDs, wantIDs) {
			t.Errorf("UnusedFiles(%v, %d): %v, want %v", before, limit, gotIDs, wantIDs)
		}
	}
	end := t0.Add(time.Hour)
	want(end, 100, 0, 2, 4, 6, 7)
	want(end, 3, 0, 2, 4)
	want(t0.Add(4*time.Minute), 100, 0, 2)
	if _, err := s.Write().NewRaw("DELETE FROM refs WHERE to_id = ?", files[1].ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	want(end, 100, 0, 1, 2, 4, 6, 7)
}
