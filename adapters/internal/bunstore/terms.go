package bunstore

import (
	"context"
	"slices"
	"strings"

	"github.com/bwcms/cms/cms"
)

// termsMigration is the migration that creates the terms table: a schema
// without it holds no terms (Options.noTerms).
const termsMigration = "20261127000019"

// termWrites are the term rows PutRecords writes, gathered entry by entry.
type termWrites struct {
	// stale are the ids whose terms are all deleted first (then written
	// whole), diffs the records whose terms change in part.
	stale []string
	diffs []termDiff
	// whole are the records whose terms are written whole: their document
	// terms, and the missing terms of the account's languages.
	whole []wholeTerms
}

type termDiff struct {
	id            string
	removed, kept []string
}

type wholeTerms struct {
	id    string
	terms []string
}

// add gathers the term writes of one entry of PutRecords, whose document
// terms are now terms.
func (w *termWrites) add(e *cms.Entry, id string, terms []string) {
	switch {
	case e.New:
		w.whole = append(w.whole, wholeTerms{id, terms})
	case e.Indexed == nil || cms.TitledChange(e.Indexed.Terms, terms):
		// Not known, or the languages with a title changed (and with
		// them the missing terms): written whole.
		w.stale = append(w.stale, id)
		w.whole = append(w.whole, wholeTerms{id, terms})
	case !slices.Equal(e.Indexed.Terms, terms):
		removed, added := sortedDiff(e.Indexed.Terms, terms)
		w.diffs = append(w.diffs, termDiff{id: id, removed: removed, kept: added})
	}
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

// writeTerms writes w for records of account and kind, inside the
// transaction of PutRecords.
func (s *Store) writeTerms(ctx context.Context, account, kind string, w *termWrites) error {
	if s.opts.noTerms {
		return nil
	}
	if len(w.stale) > 0 {
		keys := make([]string, len(w.stale))
		for i, id := range w.stale {
			keys[i] = keyOf(account, kind, id)
		}
		query, args := s.deleteByKeys("terms", "terms_record", "", nil, termsRecordKey, keys)
		if _, err := s.exec(ctx, query, args...); err != nil {
			return err
		}
	}
	var rows []any
	for _, d := range w.diffs {
		if len(d.removed) > 0 {
			query, args := s.deleteByKeys("terms", "", "account = ? AND kind = ? AND id = ?", []any{account, kind, d.id}, "term", d.removed)
			if _, err := s.exec(ctx, query, args...); err != nil {
				return err
			}
		}
		for _, t := range d.kept {
			rows = append(rows, account, kind, t, d.id)
		}
	}
	if len(w.whole) > 0 {
		langs, err := s.termLanguages(ctx, account, s.opts.ShareLock)
		if err != nil {
			return err
		}
		for _, r := range w.whole {
			for _, t := range r.terms {
				rows = append(rows, account, kind, t, r.id)
			}
			for _, t := range cms.MissingTerms(r.terms, langs) {
				rows = append(rows, account, kind, t, r.id)
			}
		}
	}
	return s.insertRows(ctx, "INSERT INTO terms (account, kind, term, id) VALUES ", 4, rows, " ON CONFLICT DO NOTHING")
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
// missing term.
func (s *Store) languageTerms(ctx context.Context, account string, before, after []string) error {
	if s.opts.noTerms {
		return nil
	}
	for _, lang := range after {
		if slices.Contains(before, lang) {
			continue
		}
		titles := cms.TitleTerms(lang)
		for _, kind := range cms.Kinds() {
			_, err := s.exec(ctx, "INSERT INTO terms (account, kind, term, id) SELECT account, kind, ?, id FROM records "+
				"WHERE account = ? AND kind = ? AND NOT EXISTS (SELECT 1 FROM "+s.indexed("terms", "terms_record")+
				" WHERE "+termsRecordKey+" = ? || records.id AND term >= ? AND term < ?) ON CONFLICT DO NOTHING",
				cms.MissingTerm(lang).From, account, string(kind), keyOf(account, string(kind), ""), titles.From, titles.To)
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

// fillChunk is how many records the terms migration reads at a time.
const fillChunk = 500

// fillTerms is the data migration of the terms table: it writes the terms
// of every record stored before it, a chunk of records at a time, in
// (account, kind, id) order. A record's terms already written are kept
// (the statements add what is missing), so running it again changes
// nothing.
func (s *Store) fillTerms(ctx context.Context) error {
	accounts, err := s.ListAccounts(ctx)
	if err != nil {
		return err
	}
	langs := map[string][]string{}
	for _, a := range accounts {
		langs[a.ID] = a.Langs.All
	}
	type key struct{ account, kind, id string }
	after := key{}
	for {
		var dest []struct {
			Account string `bun:"account"`
			Kind    string `bun:"kind"`
			ID      string `bun:"id"`
			Doc     string `bun:"doc"`
		}
		if err := s.scan(ctx, s.write, &dest, "SELECT account, kind, id, doc FROM records WHERE (account, kind, id) > (?, ?, ?) "+
			"ORDER BY account, kind, id LIMIT ?", after.account, after.kind, after.id, fillChunk); err != nil {
			return s.fail(err)
		}
		if len(dest) == 0 {
			return nil
		}
		var terms []any
		for _, d := range dest {
			rec := cms.NewRecord(cms.Kind(d.Kind))
			if err := s.docs.DecodeDocument(d.Doc, rec); err != nil {
				return &cms.Error{Code: cms.CodeInternal, Message: "stored document unreadable", Err: err}
			}
			ix := s.docs.Index(rec)
			for _, t := range append(ix.Terms, cms.MissingTerms(ix.Terms, langs[d.Account])...) {
				terms = append(terms, d.Account, d.Kind, t, d.ID)
			}
		}
		if err := s.insertRows(ctx, "INSERT INTO terms (account, kind, term, id) VALUES ", 4, terms, " ON CONFLICT DO NOTHING"); err != nil {
			return err
		}
		last := dest[len(dest)-1]
		after = key{last.Account, last.Kind, last.ID}
	}
}
