package cms

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"time"
)

// Outcome says what an upsert did.
type Outcome uint8

// The outcomes of Upsert and their answers: 200 Skip, 201 Create,
// 202 Update, and 202 Delete for deleteElementIrreversibly.
const (
	Skipped Outcome = iota
	Created
	Updated
	Deleted
)

// String names the outcome: "skipped", "created", "updated" or "deleted"
// ("Outcome(n)" for a value outside these).
func (o Outcome) String() string {
	switch o {
	case Skipped:
		return "skipped"
	case Created:
		return "created"
	case Updated:
		return "updated"
	case Deleted:
		return "deleted"
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// UpsertResult is the answer of Upsert.
type UpsertResult struct {
	Kind Kind
	// ID is the record's id.
	ID string
	// Outcome is what the upsert did, which picks the HTTP status.
	Outcome Outcome
}

// UpsertOptions are the conditions of an upsert.
type UpsertOptions struct {
	// IfMatch, when set, is an ETag from a read: the upsert is refused
	// with CodePrecondition unless the record still has it ("*": unless
	// the record exists).
	IfMatch string
	// CreateOnly refuses the upsert with CodePrecondition when the record
	// exists (HTTP's If-None-Match: *): a form making a new record never
	// merges onto one another editor made meanwhile.
	CreateOnly bool
}

// Upsert creates or updates one record of kind from a JSON body, for the
// principal in ctx: fields present replace, absent ones keep, null clears;
// read-only fields are ignored; references are checked and both sides of
// every assignment kept in agreement; a record equal to the stored one is
// Skipped without a write. Errors: CodeMalformed for a body that is not one
// strict JSON object; CodeInvalid listing every problem; CodeUnauthorized
// and CodeForbidden for the caller; CodePrecondition for a stale IfMatch
// or a CreateOnly record that exists;
// with deleteElementIrreversibly, those of Delete.
func (s *Service) Upsert(ctx context.Context, kind Kind, body []byte, opts *UpsertOptions) (UpsertResult, error) {
	p, err := s.caller(ctx, kind, ActionWrite)
	if err != nil {
		return UpsertResult{}, err
	}
	codec, err := s.codec(p.Langs)
	if err != nil {
		return UpsertResult{}, err
	}
	patch := NewRecord(kind)
	// Field problems do not stop the checks that need the store
	// (references, aliases), so one 409 lists everything found; only a
	// body without a usable id stops here.
	var problems []fieldProblem
	if err := s.decode(p.Account, codec, body, patch); err != nil {
		e, ok := errors.AsType[*Error](err)
		if !ok || e.Code != CodeInvalid || !ValidID(patch.RecordID()) {
			return UpsertResult{}, err
		}
		for _, pr := range e.Problems {
			problems = append(problems, fieldProblem{pr.Field, pr.Text})
		}
	}
	id := patch.RecordID()
	var o UpsertOptions
	if opts != nil {
		o = *opts
	}
	if patch.Common().DeleteIrreversibly.Value && problems == nil {
		if !p.Can(kind, ActionDelete) {
			return UpsertResult{}, errForbidden()
		}
		return s.deleteByBody(ctx, p, kind, id, o.IfMatch)
	}
	var res UpsertResult
	err = s.inTx(ctx, func(tx Store) error {
		if namesAssignments(patch) {
			// It will touch records on the other side.
			if err := tx.LockAccountWrites(ctx, p.Account); err != nil {
				return err
			}
		}
		// The records the body names are held before the record itself,
		// as a delete holds its targets before their referrers.
		held, err := s.holdReferenced(ctx, tx, p.Account, patch)
		if err != nil {
			return err
		}
		res, err = s.upsertIn(ctx, held, p, codec, patch, problems, o)
		return err
	})
	if err != nil {
		return UpsertResult{}, err
	}
	return res, nil
}

// upsertStore is what upsertIn and the checks and writes it calls
// (checkReferences, checkAliases, makeAliases, uniqueAlias, assign) ask of
// their store: exactly these methods. A single upsert passes its Store
// transaction; a batch passes its bulkTx, which answers them from its
// views, so the compiler rejects any other use of the store on the way.
type upsertStore interface {
	GetRecord(ctx context.Context, account string, kind Kind, id string) (*Entry, error)
	PutRecord(ctx context.Context, e *Entry) error
	ExistingIDs(ctx context.Context, account string, kind Kind, ids []string) ([]string, error)
	TouchRecord(ctx context.Context, account string, kind Kind, id string, at time.Time) error
	AliasHolder(ctx context.Context, account string, kind Kind, lang, alias string) (string, error)
	AliasNumbers(ctx context.Context, p AliasNumberParams) (map[string]int64, error)
	LockAlias(ctx context.Context, account string, kind Kind, lang, base string) error
	SetMapResources(ctx context.Context, account, mapID string, role Role, resourceIDs []string) error
	SetResourceMaps(ctx context.Context, account, resourceID string, role Role, mapIDs []string) error
	AppendAssignments(ctx context.Context, account string, owners Kind, lists []AssignmentList) error
	GetFiles(ctx context.Context, account string, ids []string) ([]File, error)
}

// upsertIn merges a decoded, sanitized body into the stored record inside
// tx, or reports every problem found (problems holds the body's own).
func (s *Service) upsertIn(ctx context.Context, tx upsertStore, p Principal, codec *Codec, patch Record,
	problems []fieldProblem, o UpsertOptions) (UpsertResult, error) {
	kind, id := patch.Kind(), patch.RecordID()
	res := UpsertResult{Kind: kind, ID: id}
	now := s.Now()
	entry, err := tx.GetRecord(ctx, p.Account, kind, id)
	switch {
	case ErrorCode(err) == CodeNotFound:
		entry = nil
	case err != nil:
		return res, err
	}
	if o.IfMatch != "" && (entry == nil || !etagMatches(o.IfMatch, ETag(entry, p.Langs))) ||
		o.CreateOnly && entry != nil {
		return res, errPrecondition()
	}
	var merged Record
	var before []byte
	assigned := map[Role][]string{}
	var held Langs[string]
	var indexed RecordIndex
	var stored string // entry.Document before the merge changes Record
	if entry != nil {
		merged = entry.Record
		indexed = s.doc.Index(merged) // before the merge changes it
		// A record a batch wrote holds its document: not marshalled again.
		if stored, entry.Document = entry.Document, ""; stored != "" {
			before = []byte(stored)
		} else {
			before = s.doc.Marshal(merged)
		}
		assigned = assignedLists(merged)
		held = maps.Clone(*merged.Common().URLAlias)
	} else {
		merged = newWithDefaults(kind, id)
	}
	trackBefore := trackFileOf(merged) // before the merge changes it
	mergeRecord(s.doc.kinds[kind].spec, merged, patch)
	files, fileProblems, err := s.checkFiles(ctx, tx, p, patch, trackBefore, trackFileOf(merged))
	if err != nil {
		return res, err
	}
	if len(fileProblems) == 0 {
		deriveTrack(merged, patch, files, trackBefore, entry == nil)
	}
	problems = append(slices.Clip(problems), fileProblems...)
	problems = append(problems, s.checkMerged(codec, merged)...)
	refProblems, err := s.checkReferences(ctx, tx, p, patch, assigned)
	if err != nil {
		return res, err
	}
	problems = append(problems, refProblems...)
	aliasProblems, err := s.checkAliases(ctx, tx, p, patch, held)
	if err != nil {
		return res, err
	}
	problems = append(problems, aliasProblems...)
	if len(problems) > 0 {
		return res, problemError(patch, true, problems)
	}
	if entry == nil {
		if err := s.makeAliases(ctx, tx, p, merged, patch); err != nil {
			return res, err
		}
	}
	assigned, reassigned, err := s.assign(ctx, tx, p.Account, patch, assigned, now)
	if err != nil {
		return res, err
	}
	// merged holds the lists as stored now: a batch reads it again.
	SetAssignmentLists(merged, assigned[RolePrimary], assigned[RoleSecondary])
	// The document compared with the stored one is the one stored: the
	// store does not marshal the record again.
	var doc []byte
	if entry != nil && !reassigned {
		if doc = s.doc.Marshal(merged); bytes.Equal(before, doc) {
			res.Outcome = Skipped
			entry.Document = stored // still Record's document
			return res, nil
		}
	}
	res.Outcome = Updated
	if entry == nil {
		res.Outcome = Created
		entry = &Entry{Account: p.Account, New: true}
	} else {
		entry.Indexed = &indexed
	}
	entry.Record, entry.Updated, entry.Document = merged, after(entry.Updated, now), string(doc)
	return res, tx.PutRecord(ctx, entry)
}

// errForbidden and errPrecondition are new errors each time, like
// errUnauthorized.
func errForbidden() error { return &Error{Code: CodeForbidden, Message: "Forbidden"} }

func errPrecondition() error {
	return &Error{Code: CodePrecondition, Message: "Precondition failed"}
}

// mergeRecord copies every field present in patch onto dst: a field replaces
// the stored one, a language variant only its language. Read-only and
// write-only fields and the id stay. The ...Add lists of the document
// (poiResourceIdsAdd) are appended to their lists here; assignment lists
// are applied by assign. dst may take patch's language maps (the caller
// drops patch after the merge).
func mergeRecord(spec *typeSpec, dst, patch Record) {
	dv, pv := reflect.ValueOf(dst).Elem(), reflect.ValueOf(patch).Elem()
	for _, f := range spec.fields {
		if f.readOnly || f.writeOnly || f.name == "id" {
			continue
		}
		from, to := pv.Field(f.index), dv.Field(f.index)
		if from.Kind() == reflect.Map {
			if from.Len() == 0 {
				continue
			}
			// The language maps of every kind, merged without reflection
			// (a third of a batch record's merge). A language set to ""
			// or null is dropped: it reads as never set, so a record read
			// and posted back merges to what is stored (Skip).
			switch fm := from.Addr().Interface().(type) {
			case *Langs[Null[string]]:
				mergeLangs(to.Addr().Interface().(*Langs[Null[string]]), *fm, func(v Null[string]) bool { return !v.Valid })
			case *Langs[string]:
				if f.name == "urlAlias" {
					// makeAliases adds to the merged aliases and reads
					// the patch's as the ones given; "" is kept as given.
					mergeLangs(to.Addr().Interface().(*Langs[string]), maps.Clone(*fm), func(string) bool { return false })
					break
				}
				mergeLangs(to.Addr().Interface().(*Langs[string]), *fm, func(v string) bool { return v == "" })
			default:
				if to.IsNil() {
					to.Set(reflect.MakeMapWithSize(to.Type(), from.Len()))
				}
				for it := from.MapRange(); it.Next(); {
					to.SetMapIndex(it.Key(), it.Value())
				}
			}
			continue
		}
		if setFlag(from) {
			if f.typ == typeItems {
				dropEmptyLangs(f.item, from.Field(0))
			}
			to.Set(from)
		}
	}
	if d, ok := dst.(addingRecord); ok {
		to, from := d.addLists(), patch.(addingRecord).addLists()
		for i := range to {
			*to[i].list = appendNew(*to[i].list, *from[i].add)
		}
	}
}

// mergeLangs sets the languages of from on *to, removing those whose
// value is empty. A record without the field (a new one) takes from
// itself, not a copy: the patch is dropped after its merge.
func mergeLangs[T any](to *Langs[T], from Langs[T], empty func(T) bool) {
	if *to == nil {
		maps.DeleteFunc(from, func(_ string, v T) bool { return empty(v) })
		*to = from
		return
	}
	for lang, v := range from {
		if empty(v) {
			delete(*to, lang)
		} else {
			(*to)[lang] = v
		}
	}
}

// dropEmptyLangs removes the languages set to "" or null from the items
// of list (a slice of item structs described by spec), as the merge does
// for a record's own fields: an item read and posted back is then the
// item stored.
func dropEmptyLangs(spec *typeSpec, list reflect.Value) {
	for i := range list.Len() {
		item := list.Index(i)
		for _, f := range spec.fields {
			switch p := item.Field(f.index).Addr().Interface().(type) {
			case *Langs[Null[string]]:
				maps.DeleteFunc(*p, func(_ string, v Null[string]) bool { return !v.Valid })
			case *Langs[string]:
				maps.DeleteFunc(*p, func(_ string, v string) bool { return v == "" })
			}
		}
	}
}

// appendNew adds the ids of add missing from list at its end, in order.
func appendNew(list, add Null[[]string]) Null[[]string] {
	if !add.Valid || len(add.Value) == 0 {
		return list
	}
	out := append([]string(nil), list.Value...)
	for _, id := range add.Value {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return NullOf(out)
}

// after is now, or a microsecond past prev when the clock has not moved
// past it: every change gives a record a new instant, so its ETag changes.
func after(prev, now time.Time) time.Time {
	if !now.After(prev) {
		return prev.Add(time.Microsecond)
	}
	return now
}

// checkMerged applies the rules judged on the merged record: TRACK-only
// fields.
func (s *Service) checkMerged(codec *Codec, merged Record) []fieldProblem {
	var problems []fieldProblem
	w := walker{codec: codec, add: func(path, text string) { problems = append(problems, fieldProblem{path, text}) }}
	w.trackOnly(merged)
	return problems
}
