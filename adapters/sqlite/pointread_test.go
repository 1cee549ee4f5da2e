package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// A read by key runs without watching its context (DetachPointReads),
// but a caller whose context ends while every read connection is busy
// stops waiting for one: it is answered, not queued behind the reads.
func TestPointReadGivesUpWaitingForAConnection(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "cms.db"), &Options{ReadConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutRecord(ctx, &cms.Entry{Account: "a", Record: &cms.Resource{ID: "r-1", Title: cms.Langs[string]{"en": "One"}}, Updated: time.Now()}); err != nil {
		t.Fatal(err)
	}
	var held []*sql.Conn
	for range 2 {
		c, err := s.read.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	answered := make(chan error, 1)
	go func() {
		_, err := s.GetRecord(cctx, "a", cms.KindResource, "r-1")
		answered <- err
	}()
	select {
	case err := <-answered:
		if err == nil {
			t.Fatal("GetRecord answered a record with every read connection held")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("GetRecord still waits for a connection 10 s after its context ended")
	}
	for _, c := range held {
		c.Close()
	}
	if e, err := s.GetRecord(ctx, "a", cms.KindResource, "r-1"); err != nil || e.Record.RecordID() != "r-1" {
		t.Fatalf("GetRecord once the connections are free: %v, %v", e, err)
	}
}

// A change of one record fails with the error of its statement, but for
// the NOT NULL time of a record that has no row, which writes no change.
func TestSingleChangeKeepsItsErrors(t *testing.T) {
	ctx := t.Context()
	s := openTestStore(t)
	if err := s.PutRecord(ctx, &cms.Entry{Account: "a", Record: &cms.Resource{ID: "r-1", Title: cms.Langs[string]{"en": "One"}}, Updated: time.Now()}); err != nil {
		t.Fatal(err)
	}
	appendOne := func(id string) error {
		return s.WithTx(ctx, func(tx cms.Store) error {
			return tx.AppendChanges(ctx, cms.ChangeSet{Account: "a", Time: time.Now(), Refs: []cms.ChangeRef{{Kind: cms.KindResource, ID: id, Op: cms.ChangeUpsert}}})
		})
	}
	if err := appendOne("ghost"); err != nil {
		t.Fatalf("the change of a record without a row: %v, want none written and no error", err)
	}
	if _, err := s.LastRevision(ctx, "a", cms.KindResource, "ghost"); cms.ErrorCode(err) != cms.CodeNotFound {
		t.Fatalf("LastRevision of the record without a row: %v, want not found", err)
	}
	if _, err := s.Write().ExecContext(ctx, "CREATE TRIGGER refuse_changes BEFORE INSERT ON changes BEGIN SELECT RAISE(ABORT, 'refused'); END"); err != nil {
		t.Fatal(err)
	}
	if err := appendOne("r-1"); err == nil {
		t.Fatal("a change refused by its statement: no error")
	}
	if _, err := s.LastRevision(ctx, "a", cms.KindResource, "r-1"); cms.ErrorCode(err) != cms.CodeNotFound {
		t.Fatalf("LastRevision after a refused change: %v, want not found", err)
	}
}
