package cms

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// DeleteResult is what Delete did: the ids deleted and, in the order asked,
// those not deleted (missing, or named by a single reference).
type DeleteResult struct {
	Kind Kind
	// Deleted are the ids deleted, in the order asked.
	Deleted []string
	// Failed are the ids not deleted, in the order asked.
	Failed []string
	// Referrers says why: for each id of Failed that a single reference
	// keeps, the references naming it (Landing.mapId, Proposal.mapId,
	// Map.trackResourceId). Ids failed as missing have no entry.
	Referrers map[string][]Reference
}

// NotDoneError is the cause of a delete that deleted nothing although some
// of the records exist: the transport lists Failed beside the text.
type NotDoneError struct {
	// Failed are the ids not deleted, in the order asked.
	Failed []string
	// Referrers are the references keeping each referenced id of Failed,
	// as DeleteResult.Referrers.
	Referrers map[string][]Reference
}

// Error lists the ids not deleted.
func (e *NotDoneError) Error() string { return "not deleted: " + strings.Join(e.Failed, ", ") }

// DeleteOptions are the conditions of a delete.
type DeleteOptions struct {
	// IfMatch, when set, is an ETag from a read of the one record asked
	// (the delete of several ids takes none: CodeMalformed): nothing is
	// deleted, CodePrecondition, unless the record still has it ("*":
	// unless it exists).
	IfMatch string
}

// Delete deletes records of kind, all in one transaction: each is taken out
// of every list that names it (those records get a new timeLastUpdate) and
// out of its assignments; a record named by a single reference
// (Landing.mapId, Proposal.mapId, Map.trackResourceId) is not deleted. Some
// deleted: the result lists the others as Failed. opts may be nil. Errors:
// CodeNotFound ("No <Kinds> to delete") when none exists; CodeConflict
// ("Deletion of <n> <Kinds> not done", with a *NotDoneError cause) when
// some exist but none could be deleted; CodePrecondition for a stale
// IfMatch; CodeMalformed for an IfMatch with several ids; CodeUnauthorized,
// CodeForbidden.
func (s *Service) Delete(ctx context.Context, kind Kind, ids []string, opts *DeleteOptions) (DeleteResult, error) {
	p, err := s.caller(ctx, kind, ActionDelete)
	if err != nil {
		return DeleteResult{}, err
	}
	ids = Dedupe(ids)
	var ifMatch string
	if opts != nil {
		ifMatch = opts.IfMatch
	}
	if ifMatch != "" && len(ids) != 1 {
		return DeleteResult{}, &Error{Code: CodeMalformed, Message: "Wrong request",
			Err: errors.New("If-Match names the state of one record, not of several")}
	}
	return s.deleteRecords(ctx, s.store, p, kind, ids, ifMatch)
}

// deleteRecords deletes in one transaction of st (st may itself be a
// transaction: a batch deletes inside its own). ifMatch, when set, is
// the precondition of ids' only record, judged in that transaction.
func (s *Service) deleteRecords(ctx context.Context, st Store, p Principal, kind Kind, ids []string, ifMatch string) (DeleteResult, error) {
	res := DeleteResult{Kind: kind}
	missing := 0
	run := st.WithTx
	if st == s.store {
		run = s.inTx // a batch's own transaction is not retried here
	}
	err := run(ctx, func(tx Store) error {
		// It changes the records naming each one and touches its
		// assignments' other side.
		if err := tx.LockAccountWrites(ctx, p.Account); err != nil {
			return err
		}
		// The targets first, then their referrers: a writer that named
		// one (HoldReferenced) has committed by now, and is seen below.
		found, err := tx.LockForDelete(ctx, p.Account, kind, ids)
		if err != nil {
			return err
		}
		exists := make(map[string]bool, len(found))
		for _, id := range found {
			exists[id] = true
		}
		if ifMatch != "" {
			e, err := tx.GetRecord(ctx, p.Account, kind, ids[0])
			switch {
			case ErrorCode(err) == CodeNotFound:
				return errPrecondition()
			case err != nil:
				return err
			case !etagMatches(ifMatch, ETag(e, p.Langs)):
				return errPrecondition()
			}
		}
		res.Deleted, res.Failed, res.Referrers, missing = nil, nil, nil, 0
		now := s.Now()
		for _, id := range ids {
			if !exists[id] {
				missing++
				res.Failed = append(res.Failed, id)
				continue
			}
			deleted, keep, err := s.deleteOne(ctx, tx, p.Account, kind, id, now)
			switch {
			case ErrorCode(err) == CodeNotFound: // deleted meanwhile (a batch deleting twice)
				missing++
				res.Failed = append(res.Failed, id)
			case err != nil:
				return err
			case deleted:
				res.Deleted = append(res.Deleted, id)
			default:
				res.Failed = append(res.Failed, id)
				if res.Referrers == nil {
					res.Referrers = map[string][]Reference{}
				}
				res.Referrers[id] = keep
			}
		}
		if len(res.Deleted) == 0 {
			return &Error{Code: CodeConflict, Message: "nothing deleted", Err: errNothingDeleted} // roll back the list clean-ups of nothing
		}
		return nil
	})
	switch {
	case errors.Is(err, errNothingDeleted) && missing == len(ids):
		return res, &Error{Code: CodeNotFound, Message: "No " + kind.Plural() + " to delete"}
	case errors.Is(err, errNothingDeleted):
		return res, &Error{Code: CodeConflict, Message: fmt.Sprintf("Deletion of %d %s not done", len(res.Failed), kind.Plural()),
			Err: &NotDoneError{Failed: res.Failed, Referrers: res.Referrers}}
	case err != nil:
		return DeleteResult{}, err
	}
	return res, nil
}

// errNothingDeleted marks the rollback of a delete that deleted nothing; it
// never reaches the caller (Delete answers 404 or 409 instead).
var errNothingDeleted = errors.New("cms: nothing deleted")

// deleteOne deletes one record unless a single reference names it; then
// it returns those references. A block's id names the Map when both a
// Map and a Landing have it (and the other one once the one deleted is
// gone): such a reference stays.
func (s *Service) deleteOne(ctx context.Context, tx Store, account string, kind Kind, id string, now time.Time) (bool, []Reference, error) {
	refs, err := tx.Referrers(ctx, account, ReferenceTargets(kind), id)
	if err != nil {
		return false, nil, err
	}
	var keep []Reference
	for _, r := range refs {
		if r.Single && !(r.FromKind == kind && r.FromID == id) {
			keep = append(keep, r)
		}
	}
	if keep != nil {
		return false, keep, nil
	}
	if twin := mapOrLandingTwin(kind); twin != "" && slices.ContainsFunc(refs, func(r Reference) bool { return r.ToKind == RefMapOrLanding }) {
		found, err := tx.ExistingIDs(ctx, account, twin, []string{id})
		if err != nil {
			return false, nil, err
		}
		if len(found) > 0 {
			refs = slices.DeleteFunc(refs, func(r Reference) bool { return r.ToKind == RefMapOrLanding })
		}
	}
	// Take the id out of every list naming it, one write per referrer.
	byRecord := map[[2]string][]string{}
	var order [][2]string
	for _, r := range refs {
		key := [2]string{string(r.FromKind), r.FromID}
		if r.FromKind == kind && r.FromID == id {
			continue
		}
		if _, ok := byRecord[key]; !ok {
			order = append(order, key)
		}
		byRecord[key] = append(byRecord[key], r.Field)
	}
	for _, key := range order {
		e, err := tx.GetRecord(ctx, account, Kind(key[0]), key[1])
		if err != nil {
			return false, nil, err
		}
		spec := s.doc.kinds[e.Record.Kind()].spec
		for _, field := range byRecord[key] {
			removeID(spec, reflect.ValueOf(e.Record).Elem(), strings.Split(field, "."), id)
		}
		e.Updated, e.Document = after(e.Updated, now), "" // Record changed
		if err := tx.PutRecord(ctx, e); err != nil {
			return false, nil, err
		}
	}
	// The other side of its assignments gets a new timeLastUpdate too.
	if err := s.touchAssigned(ctx, tx, account, kind, id, now); err != nil {
		return false, nil, err
	}
	return true, nil, tx.DeleteRecord(ctx, account, kind, id)
}

// mapOrLandingTwin is the other kind a Landing block's id may name: a
// Landing for a Map, a Map for a Landing ("" for the other kinds).
func mapOrLandingTwin(kind Kind) Kind {
	switch kind {
	case KindMap:
		return KindLanding
	case KindLanding:
		return KindMap
	}
	return ""
}

func (s *Service) touchAssigned(ctx context.Context, tx Store, account string, kind Kind, id string, now time.Time) error {
	side, ok := sideOf(kind)
	if !ok {
		return nil
	}
	for _, role := range []Role{RolePrimary, RoleSecondary} {
		ids, err := side.read(tx, ctx, account, id, role)
		if err != nil {
			return err
		}
		for _, o := range ids {
			if err := tx.TouchRecord(ctx, account, side.other, o, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// removeID takes id out of the list at path ("poiResourceIds",
// "tourMultiday.resourceIds").
func removeID(spec *typeSpec, v reflect.Value, path []string, id string) {
	for _, f := range spec.fields {
		if f.name != path[0] {
			continue
		}
		fv := v.Field(f.index)
		if f.item != nil && len(path) > 1 {
			list := fv.Field(0)
			for i := range list.Len() {
				removeID(f.item, list.Index(i), path[1:], id)
			}
			return
		}
		if p, ok := fv.Addr().Interface().(*Null[[]string]); ok && p.Valid {
			p.Value = slices.DeleteFunc(slices.Clone(p.Value), func(x string) bool { return x == id })
		}
		return
	}
}

// deleteByBody is the deleteElementIrreversibly form of Delete, with the
// upsert's If-Match.
func (s *Service) deleteByBody(ctx context.Context, p Principal, kind Kind, id, ifMatch string) (UpsertResult, error) {
	if _, err := s.deleteRecords(ctx, s.store, p, kind, []string{id}, ifMatch); err != nil {
		return UpsertResult{}, err
	}
	return UpsertResult{Kind: kind, ID: id, Outcome: Deleted}, nil
}
