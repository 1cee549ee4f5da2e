package bunstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"

	"github.com/bwcms/cms/cms"
)

// termsMigration is the migration that completes the terms: the terms
// table is migration 19's, the records' terms column this one's. Writes
// keep terms from it on; a schema without it (an older one, or the
// migrations before it) gets them from the migrations that fill them
// (Options.noTerms).
const termsMigration = "20261127000021"

// termWrites are the term changes of the records PutRecords writes,
// gathered entry by entry: each record's own terms before and after
// (cms.RecordIndex.Terms), and with them the missing terms of the
// account's languages that change.
type termWrites struct {
	changes []termChange
	// unread are the changes whose terms before are still to be read
	// (from the records' terms column, before the write replaces it).
	unread []int
	// langs: some change needs the account's languages (a new record, or
	// one whose languages with a title changed).
	langs bool
}

type termChange struct {
	id            string
	before, after []string
	// whole: the record has no terms yet (it is new, or had no row).
	whole bool
}

// add gathers the term change of one entry of PutRecords, whose own
// terms are now terms.
func (w *termWrites) add(e *cms.Entry, id string, terms []string) {
	switch {
	case e.New:
		w.changes = append(w.changes, termChange{id: id, after: terms, whole: true})
		w.langs = true
	case e.Indexed == nil:
		// The terms stored are not known: read before the write.
		w.unread = append(w.unread, len(w.changes))
		w.changes = append(w.changes, termChange{id: id, after: terms})
	case !slices.Equal(e.Indexed.Terms, terms):
		w.changes = append(w.changes, termChange{id: id, before: e.Indexed.Terms, after: terms})
		w.langs = w.langs || cms.TitledChange(e.Indexed.Terms, terms)
	}
}

// readTerms reads the terms before of w's unread changes from the
// records' terms column, before PutRecords replaces it: a record without
// a row gets its terms whole.
func (s *Store) readTerms(ctx context.Context, account, kind string, w *termWrites) error {
	if s.opts.noTerms || len(w.unread) == 0 {
		return nil
	}
	ids := make([]string, len(w.unread))
	for i, c := range w.unread {
		ids[i] = w.changes[c].id
	}
	query, args := s.selectByKeys("records.id, records.terms", "records", "account = ? AND kind = ?", []any{account, kind}, "id", ids)
	stored := make(map[string]string, len(ids))
	err := s.queryEach(ctx, s.write, query, args, func(rows *sql.Rows) error {
		var id, terms string
		if err := rows.Scan(&id, &terms); err != nil {
			return err
		}
		stored[id] = terms
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range w.unread {
		ch := &w.changes[c]
		terms, ok := stored[ch.id]
		ch.before, ch.whole = cms.SplitTerms(terms), !ok
		w.langs = w.langs || !ok || cms.TitledChange(ch.before, ch.after)
	}
	w.unread = nil
	return nil
}

// sortedDiff returns what of sorted a is not in sorted b, and what of b is
// not in a.
func sortedDiff(a, b []string) (onlyA, onlyB []string) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			onlyA = append(onlyA, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			onlyB = append(onlyB, b[j])
			j++
		default:
			i++
			j++
		}
	}
	return onlyA, onlyB
}

// termLanguagesFor returns the account's languages when w needs them
// (held as termLanguages holds them), none else.
func (s *Store) termLanguagesFor(ctx context.Context, account string, w *termWrites) ([]string, error) {
	if s.opts.noTerms || len(w.changes) == 0 || !w.langs {
		return nil, nil
	}
	return s.termLanguages(ctx, account, s.opts.ShareLock)
}

// writeTerms writes w (read by readTerms) for records of account and
// kind, inside the transaction of PutRecords: the rows of the terms a
// record lost go, those it gained come; the missing terms of the
// account's languages (langs, from termLanguagesFor) follow the
// languages with a title.
func (s *Store) writeTerms(ctx context.Context, account, kind string, w *termWrites, langs []string) error {
	if s.opts.noTerms || len(w.changes) == 0 {
		return nil
	}
	var gone []termRow
	var rows []any
	// Each argument boxed once: an any of a string is an allocation.
	boxedAccount, boxedKind := any(account), any(kind)
	for _, c := range w.changes {
		before, after := c.before, c.after
		if w.langs {
			// The missing terms change with the languages with a title;
			// stored ones follow the account's languages (UpdateAccount).
			if !c.whole {
				before = sortedUnion(before, cms.MissingTerms(before, langs))
			}
			after = sortedUnion(after, cms.MissingTerms(after, langs))
		}
		removed, added := sortedDiff(before, after)
		if c.whole {
			removed, added = nil, after
		}
		for _, t := range removed {
			gone = append(gone, termRow{t, c.id})
		}
		if len(added) > 0 {
			id := any(c.id)
			rows = slices.Grow(rows, 4*len(added))
			for _, t := range added {
				rows = append(rows, boxedAccount, boxedKind, t, id)
			}
		}
	}
	if err := s.deleteTerms(ctx, account, kind, gone); err != nil {
		return err
	}
	return s.insertRows(ctx, "INSERT INTO terms (account, kind, term, id) VALUES ", 4, rows, " ON CONFLICT DO NOTHING")
}

// sortedUnion is sorted a with the terms of b (in any order) added.
func sortedUnion(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// termRow is the key of a term row but its account and kind.
type termRow struct{ term, id string }

// deleteTerms deletes the term rows of account and kind, each by its key,
// in one statement.
func (s *Store) deleteTerms(ctx context.Context, account, kind string, rows []termRow) error {
	if len(rows) == 0 {
		return nil
	}
	if s.opts.KeyLookups {
		terms, ids := make([]string, len(rows)), make([]string, len(rows))
		for i, r := range rows {
			terms[i], ids[i] = r.term, r.id
		}
		// One key at a time (PostgreSQL, as lateralKeys).
		query := "DELETE FROM terms WHERE ctid = ANY(ARRAY(SELECT gone.ctid FROM unnest(CAST(? AS text[]), CAST(? AS text[])) " +
			"AS wanted(wanted_term, wanted_id) CROSS JOIN LATERAL (SELECT ctid FROM terms WHERE account = ? AND kind = ? " +
			"AND term = wanted_term AND id = wanted_id OFFSET 0) AS gone))"
		return s.later(ctx, nil, query, s.opts.List(terms), s.opts.List(ids), account, kind)
	}
	// SQLite (the store without KeyLookups) searches the key for each
	// pair of a JSON list.
	pairs := make([][2]string, len(rows))
	for i, r := range rows {
		pairs[i] = [2]string{r.term, r.id}
	}
	list, _ := json.Marshal(pairs) // strings always marshal
	query := "DELETE FROM terms WHERE account = ? AND kind = ? AND (term, id) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))"
	_, err := s.exec(ctx, query, account, kind, string(list))
	return err
}

// deleteRecordTerms deletes the terms of the record id of account and
// kind, before the record goes: its own terms as its terms column names
// them, and the missing terms of every language of the account.
func (s *Store) deleteRecordTerms(ctx context.Context, account string, kind cms.Kind, id string) error {
	if s.opts.noTerms {
		return nil
	}
	var stored []string
	if err := s.scan(ctx, s.write, &stored, "SELECT terms FROM records WHERE account = ? AND kind = ? AND id = ?",
		account, string(kind), id); err != nil {
		return s.fail(err)
	}
	if len(stored) == 0 {
		return nil
	}
	langs, err := s.termLanguages(ctx, account, s.opts.ShareLock)
	if err != nil {
		return err
	}
	terms := cms.SplitTerms(stored[0])
	for _, lang := range langs {
		terms = append(terms, cms.MissingTerm(lang).From)
	}
	rows := make([]termRow, len(terms))
	for i, t := range terms {
		rows[i] = termRow{t, id}
	}
	return s.deleteTerms(ctx, account, string(kind), rows)
}

// termLanguages returns the languages of account, held with lock until
// the transaction ends (Options.ShareLock against UpdateAccount, which
// takes Options.DeleteLock); none for an account the store does not hold.
func (s *Store) termLanguages(ctx context.Context, account, lock string) ([]string, error) {
	query := "SELECT langs FROM accounts WHERE id = ?"
	if s.inTx && lock != "" {
		query += " " + lock
	}
	var langs []string
	if err := s.scan(ctx, s.write, &langs, query, account); err != nil {
		return nil, s.fail(err)
	}
	if len(langs) == 0 || langs[0] == "" {
		return nil, nil
	}
	return strings.Split(langs[0], ","), nil
}

// languageTerms adds and removes the missing terms of the languages an
// account gains and loses, inside UpdateAccount's transaction: every
// record of the account without a title in a language gained gets its
// missing term (its terms column tells), one statement a kind.
func (s *Store) languageTerms(ctx context.Context, account string, before, after []string) error {
	if s.opts.noTerms {
		return nil
	}
	for _, lang := range after {
		if slices.Contains(before, lang) {
			continue
		}
		for _, kind := range cms.Kinds() {
			_, err := s.exec(ctx, "INSERT INTO terms (account, kind, term, id) SELECT account, kind, ?, id FROM records "+
				"WHERE account = ? AND kind = ? AND "+s.opts.InStr+"(terms, ?) = 0 ON CONFLICT DO NOTHING",
				cms.MissingTerm(lang).From, account, string(kind), cms.TitleTerms(lang).TermNeedle())
			if err != nil {
				return err
			}
		}
	}
	for _, lang := range before {
		if slices.Contains(after, lang) {
			continue
		}
		for _, kind := range cms.Kinds() {
			if _, err := s.exec(ctx, "DELETE FROM terms WHERE account = ? AND kind = ? AND term = ?",
				account, string(kind), cms.MissingTerm(lang).From); err != nil {
				return err
			}
		}
	}
	return nil
}

// fillChunk is how many records the terms migrations read at a time.
const fillChunk = 500

// fillRecord is a record as the terms migrations read it.
type fillRecord struct {
	Account string `bun:"account"`
	Kind    string `bun:"kind"`
	ID      string `bun:"id"`
	Doc     string `bun:"doc"`
}

// eachRecordChunk calls fn with every record, fillChunk at a time, in
// (account, kind, id) order, each with its own terms.
func (s *Store) eachRecordChunk(ctx context.Context, fn func(chunk []fillRecord, terms [][]string) error) error {
	var after fillRecord
	for {
		var chunk []fillRecord
		if err := s.scan(ctx, s.write, &chunk, "SELECT account, kind, id, doc FROM records WHERE (account, kind, id) > (?, ?, ?) "+
			"ORDER BY account, kind, id LIMIT ?", after.Account, after.Kind, after.ID, fillChunk); err != nil {
			return s.fail(err)
		}
		if len(chunk) == 0 {
			return nil
		}
		terms := make([][]string, len(chunk))
		for i, r := range chunk {
			rec := cms.NewRecord(cms.Kind(r.Kind))
			if err := s.docs.DecodeDocument(r.Doc, rec); err != nil {
				return &cms.Error{Code: cms.CodeInternal, Message: "stored document unreadable", Err: err}
			}
			terms[i] = s.docs.Index(rec).Terms
		}
		if err := fn(chunk, terms); err != nil {
			return err
		}
		after = chunk[len(chunk)-1]
	}
}

// fillTermRows is the data migration of the terms table (migration 20):
// it writes the term rows of every record stored before it, with the
// missing terms of its account's languages. Rows already there are kept
// (ON CONFLICT DO NOTHING), so running it again changes nothing.
func (s *Store) fillTermRows(ctx context.Context) error {
	accounts, err := s.ListAccounts(ctx)
	if err != nil {
		return err
	}
	langs := map[string][]string{}
	for _, a := range accounts {
		langs[a.ID] = a.Langs.All
	}
	return s.eachRecordChunk(ctx, func(chunk []fillRecord, terms [][]string) error {
		var rows []any
		for i, r := range chunk {
			for _, t := range append(terms[i], cms.MissingTerms(terms[i], langs[r.Account])...) {
				rows = append(rows, r.Account, r.Kind, t, r.ID)
			}
		}
		return s.insertRows(ctx, "INSERT INTO terms (account, kind, term, id) VALUES ", 4, rows, " ON CONFLICT DO NOTHING")
	})
}

// fillTermColumn is the data migration of the records' terms column
// (migration 22): it writes the own terms of every record stored before
// it, whose term rows are there (migration 20, or the writes of the
// version before). Running it again writes the same.
func (s *Store) fillTermColumn(ctx context.Context) error {
	return s.eachRecordChunk(ctx, func(chunk []fillRecord, terms [][]string) error {
		for i, r := range chunk {
			if _, err := s.exec(ctx, "UPDATE records SET terms = ? WHERE account = ? AND kind = ? AND id = ?",
				cms.JoinTerms(terms[i]), r.Account, r.Kind, r.ID); err != nil {
				return err
			}
		}
		return nil
	})
}
