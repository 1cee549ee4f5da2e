package bunstore

import (
	"context"
	"errors"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/bwcms/cms/cms"
)

// Parameters per multi-row statement: under SQLite's 32,766 and
// PostgreSQL's 65,535, so a chunk of a batch takes one statement a table.
const bulkParams = 30000

// PutRecords implements cms.Store.
func (s *Store) PutRecords(ctx context.Context, entries []*cms.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	account, kind := entries[0].Account, string(entries[0].Record.Kind())
	// The ids whose stored aliases, and references, are released first:
	// every record that may have a row, but those whose stored index
	// already holds what they have (Entry.Indexed).
	var staleAliases, staleRefs []string
	records := make([]any, 0, 11*len(entries))
	var aliases, refs []any
	var terms termWrites
	byLang := map[string]map[string]bool{} // lang -> aliases of the set
	docs, indexes := s.documents(entries)
	seen := make(map[string]bool, len(entries))
	for i, e := range entries {
		rec := e.Record
		id := rec.RecordID()
		if e.Account != account || string(rec.Kind()) != kind || seen[id] {
			return &cms.Error{Code: cms.CodeInternal, Message: "PutRecords: entries of one account and kind with distinct ids"}
		}
		seen[id] = true
		ix := indexes[i]
		keepAliases := e.Indexed != nil && maps.Equal(e.Indexed.Aliases, ix.Aliases)
		keepRefs := e.Indexed != nil && slices.Equal(e.Indexed.Refs, ix.Refs)
		if !e.New && !keepAliases {
			staleAliases = append(staleAliases, id)
		}
		if !e.New && !keepRefs {
			staleRefs = append(staleRefs, id)
		}
		var lat, lon *float64
		if ix.Lat.Valid {
			lat = &ix.Lat.Value
		}
		if ix.Lon.Valid {
			lon = &ix.Lon.Value
		}
		records = append(records, account, kind, id, ix.Published, micros(e.Updated), lat, lon,
			e.StatsAccess, nullMicros(e.StatsLastAccess), docs[i])
		if !s.opts.noTerms {
			records = append(records, cms.JoinTerms(ix.Terms))
		}
		for _, lang := range sortedKeys(ix.Aliases) {
			alias := ix.Aliases[lang]
			if byLang[lang] == nil {
				byLang[lang] = map[string]bool{}
			}
			if byLang[lang][alias] {
				return &cms.Error{Code: cms.CodeInternal, Message: "PutRecords: two entries name one urlAlias"}
			}
			byLang[lang][alias] = true
			if !keepAliases {
				aliases = append(aliases, account, kind, lang, alias, id)
			}
		}
		if !keepRefs {
			for _, r := range ix.Refs {
				refs = append(refs, account, kind, id, r.Field, r.ToKind, r.ToID, r.Single)
			}
		}
		terms.add(e, id, ix.Terms)
	}
	return s.tx(ctx, func(s *Store) error {
		if len(entries) == 1 {
			// One record (a single upsert) takes no savepoint: a put
			// refused is a race, and the caller runs its transaction again.
			return s.putRecords(ctx, account, kind, staleAliases, staleRefs, records, aliases, refs, &terms)
		}
		// A savepoint undoes a refused put, so a caller that goes on in its
		// transaction commits no half of it.
		if _, err := s.exec(ctx, "SAVEPOINT put_records"); err != nil {
			return err
		}
		err := s.putRecords(ctx, account, kind, staleAliases, staleRefs, records, aliases, refs, &terms)
		if err == nil {
			err = s.settle(ctx) // its own writes' errors, before the savepoint goes
		}
		if err != nil {
			s.discard()
			if _, rerr := s.exec(ctx, "ROLLBACK TO SAVEPOINT put_records"); rerr != nil {
				// SQLite rolls the whole transaction back on some errors
				// (a full disk): the savepoint is gone, and err says why.
				return errors.Join(err, rerr)
			}
		}
		if _, rerr := s.exec(ctx, "RELEASE SAVEPOINT put_records"); rerr != nil && err == nil {
			err = rerr
		}
		return err
	})
}

// putRecords writes the rows of PutRecords. The old aliases of
// staleAliases go first, so two of the set's records may swap theirs. An alias still held by a record
// outside the set fails the insert: the caller looked it up in its
// transaction and found it free, so a writer took it since, a race the
// caller's transaction run again sees.
func (s *Store) putRecords(ctx context.Context, account, kind string, staleAliases, staleRefs []string, records, aliases, refs []any,
	terms *termWrites) error {
	// The terms stored go before the write replaces them; the account's
	// languages are read before the writes, which can then share one
	// round trip (Options.Pipeline).
	if err := s.readTerms(ctx, account, kind, terms); err != nil {
		return err
	}
	langs, err := s.termLanguagesFor(ctx, account, terms)
	if err != nil {
		return err
	}
	columns, n, update := recordColumns, 10, ""
	if !s.opts.noTerms {
		columns, n, update = recordColumns+", terms", 11, ", terms = EXCLUDED.terms"
	}
	if err := s.insertRows(ctx, "INSERT INTO records ("+columns+") VALUES ", n, records,
		" ON CONFLICT (account, kind, id) DO UPDATE SET published = EXCLUDED.published, "+
			"updated_at = EXCLUDED.updated_at, lat = EXCLUDED.lat, lon = EXCLUDED.lon, "+
			"stats_access = EXCLUDED.stats_access, stats_last_access = EXCLUDED.stats_last_access, doc = EXCLUDED.doc"+update); err != nil {
		return err
	}
	if len(staleAliases) > 0 {
		query, args := s.deleteByKeys("aliases", "aliases_record", aliasRecordKey+" = ?", []any{keyOf(account, kind)}, "record_id", staleAliases)
		if err := s.later(ctx, nil, query, args...); err != nil {
			return err
		}
	}
	if err := s.insertRowsOr(ctx, aliasTaken, "INSERT INTO aliases (account, kind, lang, alias, record_id) VALUES ", 5, aliases, ""); err != nil {
		return err
	}
	if len(staleRefs) > 0 {
		query, args := s.deleteByKeys("refs", "", "account = ? AND from_kind = ?", []any{account, kind}, "from_id", staleRefs)
		if err := s.later(ctx, nil, query, args...); err != nil {
			return err
		}
	}
	if err := s.insertRows(ctx, "INSERT INTO refs (account, from_kind, from_id, field, to_kind, to_id, single) VALUES ", 7, refs, ""); err != nil {
		return err
	}
	return s.writeTerms(ctx, account, kind, terms, langs)
}

// aliasTaken is the error of an alias insert refused: a unique key
// taken (SQLite's word for it) is a race, since the caller looked the
// alias up in its transaction and found it free.
func aliasTaken(err error) error {
	if cms.ErrorCode(err) == cms.CodeConflict {
		return cms.Race(err)
	}
	return err
}

// documents marshals (unless given) and indexes entries on every core:
// for a batch it is a third of the time between two statements.
func (s *Store) documents(entries []*cms.Entry) ([]string, []cms.RecordIndex) {
	docs, indexes := make([]string, len(entries)), make([]cms.RecordIndex, len(entries))
	workers := min(runtime.GOMAXPROCS(0), (len(entries)+63)/64)
	work := func(w int) {
		var buf []byte // one buffer a worker: Marshal's would be one a record
		for i := w; i < len(entries); i += workers {
			indexes[i] = s.docs.Index(entries[i].Record)
			if doc := entries[i].Document; doc != "" {
				docs[i] = doc
				continue
			}
			buf = s.docs.Append(buf[:0], entries[i].Record)
			docs[i] = string(buf)
		}
	}
	if workers == 1 { // a single put: no goroutine
		work(0)
		return docs, indexes
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { work(w) })
	}
	wg.Wait()
	return docs, indexes
}

// insertRows runs head + VALUES lists + tail over args (cols values a row)
// in statements of at most bulkParams parameters, held for the next
// round trip in a pipelined transaction (later).
func (s *Store) insertRows(ctx context.Context, head string, cols int, args []any, tail string) error {
	return s.insertRowsOr(ctx, nil, head, cols, args, tail)
}

// insertRowsOr is insertRows whose failure onErr turns into the
// caller's error.
func (s *Store) insertRowsOr(ctx context.Context, onErr func(error) error, head string, cols int, args []any, tail string) error {
	for chunk := range slices.Chunk(args, bulkParams/cols*cols) {
		if err := s.later(ctx, onErr, head+rowsOf(len(chunk)/cols, cols)+tail, chunk...); err != nil {
			return err
		}
	}
	return nil
}

// AliasHolders implements cms.Store.
func (s *Store) AliasHolders(ctx context.Context, account string, kind cms.Kind, lang string, aliases []string) (map[string]string, error) {
	held := map[string]string{}
	for chunk := range slices.Chunk(cms.Dedupe(aliases), 500) {
		var rows []aliasRow
		query, args := s.selectByKeys("aliases.lang, aliases.alias, aliases.record_id", "aliases",
			"account = ? AND kind = ? AND lang = ?", []any{account, string(kind), lang}, "alias", chunk)
		err := s.scan(ctx, s.read, &rows, query, args...)
		if err != nil {
			return nil, s.fail(err)
		}
		for _, r := range rows {
			held[r.Alias] = r.RecordID
		}
	}
	return held, nil
}

// AliasNumbers implements cms.Store: for each base, the highest n of the
// alias index's (account, kind, lang, base) prefix, read backwards.
func (s *Store) AliasNumbers(ctx context.Context, p cms.AliasNumberParams) (map[string]int64, error) {
	top := map[string]int64{}
	for chunk := range slices.Chunk(cms.Dedupe(p.Bases), 500) {
		query, args := s.AliasNumberQuery(p, chunk)
		var rows []struct {
			Base string `bun:"base"`
			N    *int64 `bun:"n"`
		}
		if err := s.scan(ctx, s.read, &rows, query, args...); err != nil {
			return nil, s.fail(err)
		}
		for _, r := range rows {
			if r.N != nil {
				top[r.Base] = *r.N
			}
		}
	}
	return top, nil
}

// AliasNumberQuery returns the query of AliasNumbers for bases: one
// look-up of the alias index a base. Adapter tests explain it.
func (s *Store) AliasNumberQuery(p cms.AliasNumberParams, bases []string) (string, []any) {
	args := []any{keyOf(p.Account, string(p.Kind), p.Lang)}
	skip := ""
	if len(p.Skip) > 0 {
		numbers := make([]string, len(p.Skip))
		for i, n := range p.Skip {
			numbers[i] = strconv.FormatInt(n, 10)
		}
		skip = " AND NOT (CAST(n AS TEXT) " + s.opts.InList + ")"
		args = append(args, s.opts.List(numbers))
	}
	below := ""
	if p.Below > 0 {
		below = " AND n < ?"
		args = append(args, p.Below)
	}
	args = append(args, s.opts.List(bases))
	return "SELECT value AS base, (SELECT n FROM aliases WHERE " + aliasNumberKey + " = ? AND base = value" +
		skip + below + " ORDER BY n DESC LIMIT 1) AS n FROM " + s.opts.ListTable, args
}

// LockAlias implements cms.Store with the key lock, in a key space of
// its own.
func (s *Store) LockAlias(ctx context.Context, account string, kind cms.Kind, lang, base string) error {
	if !s.inTx || s.opts.KeyLock == "" {
		return nil
	}
	_, err := s.exec(ctx, s.opts.KeyLock, "alias/"+account+"/"+string(kind)+"/"+lang+"/"+base)
	return err
}

// LockKind implements cms.Store.
func (s *Store) LockKind(ctx context.Context, account string, kind cms.Kind) error {
	if !s.inTx || s.opts.KindLock == "" {
		return nil
	}
	_, err := s.exec(ctx, s.opts.KindLock, account+"/"+string(kind))
	return err
}
