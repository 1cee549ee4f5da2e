package cmstest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// indexesFileRefs reports whether a store's document codec makes a
// reference to the file of a record's file field that holds a file url:
// the store keeps the references the codec gives it.
func indexesFileRefs(rec cms.Record) bool {
	return slices.ContainsFunc(cms.NewDocumentCodec().Index(rec).Refs, func(r cms.Reference) bool {
		return r.ToKind == cms.RefFile
	})
}

// withImage is Resource id whose image is the url of file fileID.
func withImage(id, fileID string) *cms.Resource {
	r := resource(id)
	r.Image = cms.NullOf(fileURL(fileID))
	return r
}

// wantUnused checks UnusedFiles(before, limit).
func wantUnused(tb testing.TB, s cms.Store, what string, before time.Time, limit int, want ...cms.File) {
	tb.Helper()
	got, err := s.UnusedFiles(tb.Context(), before, limit)
	if err != nil {
		tb.Fatalf("%s: UnusedFiles(%v, %d): %v", what, before, limit, err)
	}
	wantFiles(tb, fmt.Sprintf("%s: UnusedFiles(%v, %d)", what, before, limit), got, want)
}

// testUnusedFiles: the files created before the instant that nothing
// references, of every account, oldest first; a reference keeps its
// file until the record drops it.
func testUnusedFiles(t *testing.T, s cms.Store) {
	ctx := t.Context()
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	var files []cms.File
	for n, account := range []string{"a", "b", "a", "a", "b", "a"} {
		f := newFile(account, n)
		f.Created = at(n)
		files = append(files, f)
	}
	// Stored newest first: the order comes from the instants.
	newest := slices.Clone(files)
	slices.Reverse(newest)
	createFiles(t, s, newest...)

	wantUnused(t, s, "no references", at(6), 100, files...)
	wantUnused(t, s, "no references", at(6), 2, files[:2]...)
	// Strictly before: the file created at the instant is not unused yet.
	wantUnused(t, s, "no references", at(3), 100, files[:3]...)
	wantUnused(t, s, "no references", at(0), 100)

	// A Resource id equal to a file id is no reference to the file.
	poi := resource("r-poi")
	poi.POIResourceIDs = cms.NullOf([]string{files[0].ID, files[2].ID})
	put(t, s, "a", poi)
	wantUnused(t, s, "references to Resources of the files' ids", at(6), 100, files...)

	used := withImage("r-img", files[2].ID)
	if !indexesFileRefs(used) {
		t.Fatal("the document codec made no reference to the file its image names")
	}
	put(t, s, "a", used)
	// The key is the account's: b's record naming a's file keeps nothing.
	put(t, s, "b", withImage("r-b", files[3].ID))
	wantUnused(t, s, "a's file named by a's record", at(6), 100, files[0], files[1], files[3], files[4], files[5])
	wantUnused(t, s, "a's file named by a's record", at(6), 2, files[0], files[1])
	refs, err := s.Referrers(ctx, "a", []string{cms.RefFile}, files[2].ID)
	if err != nil || len(refs) != 1 || refs[0].FromID != "r-img" {
		t.Errorf("Referrers of the file: %+v, %v; want r-img's image", refs, err)
	}
	// The record drops the file: it is unused again.
	put(t, s, "a", resource("r-img"))
	wantUnused(t, s, "the record dropped the file", at(6), 100, files...)
	// A deleted record references nothing.
	put(t, s, "a", withImage("r-img", files[5].ID))
	wantUnused(t, s, "another file named", at(6), 100, files[:5]...)
	must(t, s.DeleteRecord(ctx, "a", cms.KindResource, "r-img"))
	wantUnused(t, s, "the record deleted", at(6), 100, files...)
}

// testRevisionFiles: a file only a kept revision names is used
// (DECISIONS §16), whether its change was written alone or in a run of
// a few or of many (stores may write those differently), and unused
// again once the record's delete removes its revisions' documents.
func testRevisionFiles(t *testing.T, s cms.Store) {
	ctx := t.Context()
	var unused []cms.File
	created := 0
	for _, n := range []int{1, 3, 12} {
		account := fmt.Sprintf("run-%d", n)
		files := make([]cms.File, n)
		upserts, deletes := make([]cms.ChangeRef, n), make([]cms.ChangeRef, n)
		for i := range files {
			files[i] = newFile(account, 100+created)                        // ids are the service's, across accounts
			files[i].Created = t0.Add(time.Duration(created) * time.Minute) // one order across accounts
			created++
			id := fmt.Sprintf("r-%02d", i)
			upserts[i] = cms.ChangeRef{Kind: cms.KindResource, ID: id, Op: cms.ChangeUpsert}
			deletes[i] = cms.ChangeRef{Kind: cms.KindResource, ID: id, Op: cms.ChangeDelete}
		}
		createFiles(t, s, files...)
		inChanges(t, s, account, "ann", t0, upserts, func(tx cms.Store) error {
			for i, f := range files {
				if err := tx.PutRecord(ctx, entry(account, withImage(upserts[i].ID, f.ID), t0)); err != nil {
					return err
				}
			}
			return nil
		})
		// The records drop their images; their first revisions keep them.
		for _, r := range upserts {
			put(t, s, account, resource(r.ID))
		}
		what := fmt.Sprintf("%d files named by kept revisions only", n)
		wantUnused(t, s, what, t0.Add(time.Hour), 100, unused...)
		if last, err := s.LastRevision(ctx, account, cms.KindResource, upserts[n-1].ID); err != nil || last.Rev != 1 {
			t.Fatalf("%s: the last change: %+v, %v", what, last, err)
		}
		inChanges(t, s, account, "ann", t0.Add(time.Minute), deletes, func(tx cms.Store) error {
			for _, r := range deletes {
				if err := tx.DeleteRecord(ctx, account, r.Kind, r.ID); err != nil {
					return err
				}
			}
			return nil
		})
		unused = append(unused, files...)
		wantUnused(t, s, fmt.Sprintf("%d files of deleted records' revisions", n), t0.Add(time.Hour), 100, unused...)
	}
	// A set of two runs: the file named by the first one's change.
	f := newFile("mixed", 100+created)
	f.Created = t0.Add(time.Duration(created) * time.Minute)
	createFiles(t, s, f)
	put(t, s, "mixed", mapRecord("m-1"))
	inChanges(t, s, "mixed", "ann", t0, []cms.ChangeRef{
		{Kind: cms.KindResource, ID: "r-img", Op: cms.ChangeUpsert}, {Kind: cms.KindMap, ID: "m-1", Op: cms.ChangeUpsert},
	}, func(tx cms.Store) error { return tx.PutRecord(ctx, entry("mixed", withImage("r-img", f.ID), t0)) })
	put(t, s, "mixed", resource("r-img"))
	wantUnused(t, s, "a file named by the first run's change of a set", t0.Add(time.Hour), 100, unused...)
}

// testFileLocks: inside transactions, GetFiles holds the files it found
// until its transaction ends, so a LockFile waits for it (and then sees
// what it wrote); a LockFile holds its file, so a GetFiles waits for it
// (and then misses the file its transaction deleted). Where write
// transactions run one at a time the second transaction itself waits.
func testFileLocks(t *testing.T, open func(t *testing.T) cms.Store) {
	t.Run("LockWaitsForHolder", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		f := newFile("a", 1)
		must(t, s.CreateFile(ctx, f))
		held := make(chan struct{})
		first := make(chan error, 1)
		go func() {
			first <- s.WithTx(ctx, func(tx cms.Store) error {
				got, err := tx.GetFiles(ctx, "a", []string{f.ID})
				if err != nil || len(got) != 1 {
					return fmt.Errorf("GetFiles: %v, %v", fileIDs(got), err)
				}
				close(held)
				time.Sleep(100 * time.Millisecond) // the lock is asked for meanwhile
				return tx.PutRecord(ctx, entry("a", withImage("r-1", f.ID), t0))
			})
		}()
		<-held
		must(t, s.WithTx(ctx, func(tx cms.Store) error {
			if _, err := tx.LockFile(ctx, "a", f.ID); err != nil {
				return fmt.Errorf("LockFile: %w", err)
			}
			if _, err := tx.GetRecord(ctx, "a", cms.KindResource, "r-1"); err != nil {
				return fmt.Errorf("LockFile did not wait for the transaction holding the file: %w", err)
			}
			if indexesFileRefs(withImage("r-1", f.ID)) {
				refs, err := tx.Referrers(ctx, "a", []string{cms.RefFile}, f.ID)
				if err != nil || len(refs) != 1 {
					return fmt.Errorf("Referrers after LockFile: %+v, %v; want r-1's image", refs, err)
				}
			}
			return nil
		}))
		must(t, <-first)
	})

	t.Run("HolderWaitsForLock", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		f, other := newFile("a", 1), newFile("a", 2)
		createFiles(t, s, f, other)
		locked := make(chan struct{})
		first := make(chan error, 1)
		go func() {
			first <- s.WithTx(ctx, func(tx cms.Store) error {
				if _, err := tx.LockFile(ctx, "a", f.ID); err != nil {
					return fmt.Errorf("LockFile: %w", err)
				}
				close(locked)
				time.Sleep(100 * time.Millisecond) // the files are asked for meanwhile
				return tx.DeleteFile(ctx, "a", f.ID)
			})
		}()
		<-locked
		must(t, s.WithTx(ctx, func(tx cms.Store) error {
			got, err := tx.GetFiles(ctx, "a", []string{f.ID, other.ID})
			if err == nil && !slices.Equal(fileIDs(got), []string{other.ID}) {
				err = fmt.Errorf("GetFiles found %v, want only %s: the file was deleted by the transaction it waited for",
					fileIDs(got), other.ID)
			}
			return err
		}))
		must(t, <-first)
	})
}

// testExistingFileIDs: the purge's question, over thousands of ids of
// every account, some missing, some repeated.
func testExistingFileIDs(t *testing.T, s cms.Store) {
	ctx := t.Context()
	var files []cms.File
	var want []string
	for n := range 1200 {
		files = append(files, newFile([]string{"a", "b", "c"}[n%3], n))
		want = append(want, fileID(n))
	}
	createFiles(t, s, files...)
	var ask []string
	for n := range 3000 {
		ask = append(ask, fileID(n))
	}
	ask = append(ask, fileID(5), fileID(2999), fileID(7))
	got, err := s.ExistingFileIDs(ctx, ask)
	must(t, err)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("ExistingFileIDs: %d ids, want the %d of the files", len(got), len(want))
	}
	for _, small := range [][]string{{fileID(1)}, {fileID(2), fileID(-1), fileID(2)}, {fileID(-1)}, nil} {
		got, err := s.ExistingFileIDs(ctx, small)
		var exp []string
		for _, id := range small {
			if id != fileID(-1) && !slices.Contains(exp, id) {
				exp = append(exp, id)
			}
		}
		if err != nil || len(got) != len(exp) || !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(exp))) {
			t.Errorf("ExistingFileIDs(%v): %v, %v; want %v", small, got, err, exp)
		}
	}
}

// testFileDelete: a deleted file is missing to every call, its content
// may come again, the other files stay.
func testFileDelete(t *testing.T, s cms.Store) {
	ctx := t.Context()
	gone, kept := newFile("a", 1), newFile("a", 3)
	createFiles(t, s, gone, kept)
	must(t, s.DeleteFile(ctx, "a", gone.ID))
	_, err := s.FileByID(ctx, gone.ID)
	wantCode(t, err, cms.CodeNotFound, "FileByID of a deleted file")
	_, err = s.FileBySHA256(ctx, "a", gone.SHA256)
	wantCode(t, err, cms.CodeNotFound, "FileBySHA256 of a deleted file")
	_, err = s.LockFile(ctx, "a", gone.ID)
	wantCode(t, err, cms.CodeNotFound, "LockFile of a deleted file")
	wantCode(t, s.DeleteFile(ctx, "a", gone.ID), cms.CodeNotFound, "DeleteFile of a deleted file")
	if got, err := s.GetFiles(ctx, "a", []string{gone.ID, kept.ID}); err != nil || !slices.Equal(fileIDs(got), []string{kept.ID}) {
		t.Errorf("GetFiles after the delete: %v, %v; want only %s", fileIDs(got), err, kept.ID)
	}
	wantFiles(t, "ListFiles after the delete", listAll(t, s, cms.FileQuery{Account: "a", Limit: 10}), []cms.File{kept})
	if got, err := s.ExistingFileIDs(ctx, []string{gone.ID, kept.ID}); err != nil || !slices.Equal(got, []string{kept.ID}) {
		t.Errorf("ExistingFileIDs after the delete: %v, %v", got, err)
	}
	if count, bytes, err := s.FileBytes(ctx, "a"); err != nil || count != 1 || bytes != kept.Size {
		t.Errorf("FileBytes after the delete: %d, %d, %v", count, bytes, err)
	}
	// The same content uploaded again is a new file.
	again := newFile("a", 5)
	again.SHA256 = gone.SHA256
	must(t, s.CreateFile(ctx, again))
	if got, err := s.FileBySHA256(ctx, "a", gone.SHA256); err != nil || got.ID != again.ID {
		t.Errorf("FileBySHA256 of the content uploaded again: %+v, %v; want %s", got, err, again.ID)
	}
}
