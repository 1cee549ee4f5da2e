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
}

// NotDoneError is the cause of a delete that deleted nothing although some
// of the records exist: the transport lists Failed beside the text.
type NotDoneError struct {
	// Failed are the ids not deleted, in the order asked.
	Failed []string
}

// Error lists the ids not deleted.
func (e *NotDoneError) Error() string { return "not deleted: " + strings.Join(e.Failed, ", ") }

// Delete deletes records of kind, all in one transaction: each is taken out
// of every list that names it (those records get a new timeLastUpdate) and
// out of its assignments; a record named by a single reference
// (Landing.mapId, Proposal.mapId, Map.trackResourceId) is not deleted. Some
// deleted: the result lists the others as Failed. Errors: CodeNotFound ("No
// <Kinds> to delete") when none exists; CodeConflict ("Deletion of <n>
// <Kinds> not done", with a *NotDoneError cause) when some exist but none
// could be deleted; CodeUnauthorized, CodeForbidden.
func (s *Service) Delete(ctx context.Context, kind Kind, ids []string) (DeleteResult, error) {
	p, err := s.caller(ctx, kind, ActionDelete)
	if err != nil {
		return DeleteResult{}, err
	}
	return s.deleteRecords(ctx, s.store, p, kind, Dedupe(ids))
}

// deleteRecords deletes in one transaction of st (st may itself be a
// transaction: a batch deletes inside its own).
func (s *Service) deleteRecords(ctx context.Context, st Store, p Principal, kind Kind, ids []string) (DeleteResult, error) {
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
		res.Deleted, res.Failed, missing = nil, nil, 0
		now := s.Now()
		for _, id := range ids {
			deleted, err := s.deleteOne(ctx, tx, p.Account, kind, id, now)
			switch {
			case ErrorCode(err) == CodeNotFound:
				missing++
				res.Failed = append(res.Failed, id)
			case err != nil:
				return err
			case deleted:
				res.Deleted = append(res.Deleted, id)
			default:
				res.Failed = append(res.Failed, id)
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
			Err: &NotDoneError{Failed: res.Failed}}
	case err != nil:
		return DeleteResult{}, err
	}
	return res, nil
}

// errNothingDeleted marks the rollback of a delete that deleted nothing; it
// never reaches the caller (Delete answers 404 or 409 instead).
var errNothingDeleted = errors.New("cms: nothing deleted")

// deleteOne deletes one record unless a single reference names it.
func (s *Service) deleteOne(ctx context.Context, tx Store, account string, kind Kind, id string, now time.Time) (bool, error) {
	if _, err := tx.GetRecord(ctx, account, kind, id); err != nil {
		return false, err
	}
	refs, err := tx.Referrers(ctx, account, ReferenceTargets(kind), id)
	if err != nil {
		return false, err
	}
	for _, r := range refs {
		if r.Single && !(r.FromKind == kind && r.FromID == id) {
			return false, nil
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
			return false, err
		}
		spec := s.doc.kinds[e.Record.Kind()].spec
		for _, field := range byRecord[key] {
			removeID(spec, reflect.ValueOf(e.Record).Elem(), strings.Split(field, "."), id)
		}
		e.Updated, e.Document = after(e.Updated, now), "" // Record changed
		if err := tx.PutRecord(ctx, e); err != nil {
			return false, err
		}
	}
	// The other side of its assignments gets a new timeLastUpdate too.
	if err := s.touchAssigned(ctx, tx, account, kind, id, now); err != nil {
		return false, err
	}
	return true, tx.DeleteRecord(ctx, account, kind, id)
}

func (s *Service) touchAssigned(ctx context.Context, tx Store, account string, kind Kind, id string, now time.Time) error {
	get, other := tx.ResourceMaps, KindMap
	switch kind {
	case KindResource:
	case KindMap:
		get, other = tx.MapResources, KindResource
	default:
		return nil
	}
	for _, role := range []Role{RolePrimary, RoleSecondary} {
		ids, err := get(ctx, account, id, role)
		if err != nil {
			return err
		}
		for _, o := range ids {
			if err := tx.TouchRecord(ctx, account, other, o, now); err != nil {
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

// deleteByBody is the deleteElementIrreversibly form of Delete.
func (s *Service) deleteByBody(ctx context.Context, p Principal, kind Kind, id string) (UpsertResult, error) {
	if _, err := s.deleteRecords(ctx, s.store, p, kind, []string{id}); err != nil {
		return UpsertResult{}, err
	}
	return UpsertResult{Kind: kind, ID: id, Outcome: Deleted}, nil
}
