package cms

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
)

// CloneResult is the answer of Clone.
type CloneResult struct {
	Kind  Kind
	ID    string // the record cloned
	NewID string // the clone's id
}

// Clone copies record id of kind: every field and the record's own reference
// lists (a Map's resource lists, a Landing's blocks), not the assignments
// made from the other side; id and urlAlias get -copy, -copy-2, ...; the
// clone is unpublished. For a Resource, mapID (when set) assigns the clone
// to that Map as PRIMARY. Errors: CodeNotFound ("There is no <Kind> <id> to
// clone"); CodeConflict ("Not cloned <Kind> <id>") when no new id fits or
// the Map does not exist; CodeUnauthorized, CodeForbidden.
func (s *Service) Clone(ctx context.Context, kind Kind, id, mapID string) (CloneResult, error) {
	p, err := s.caller(ctx, kind, ActionWrite)
	if err != nil {
		return CloneResult{}, err
	}
	notCloned := &Error{Code: CodeConflict, Message: "Not cloned " + kind.Title() + " " + id}
	res := CloneResult{Kind: kind, ID: id}
	err = s.inTx(ctx, func(tx Store) error {
		// A clone's assignments touch the other side.
		if err := tx.LockAccountWrites(ctx, p.Account); err != nil {
			return err
		}
		now := s.Now()
		src, err := tx.GetRecord(ctx, p.Account, kind, id)
		if ErrorCode(err) == CodeNotFound {
			return errNoneToClone(kind, id)
		}
		if err != nil {
			return err
		}
		if mapID != "" {
			// Whether it exists, not the Map: its lists may hold thousands.
			// The account's lock keeps it from going before the commit.
			found, err := tx.ExistingIDs(ctx, p.Account, KindMap, []string{mapID})
			if err != nil {
				return err
			}
			if len(found) == 0 {
				return notCloned
			}
		}
		newID, err := s.copyID(ctx, tx, p.Account, kind, id)
		if err != nil {
			return err
		}
		if newID == "" {
			return notCloned
		}
		clone := NewRecord(kind)
		if err := s.doc.Decode(s.doc.Marshal(src.Record), clone); err != nil {
			return err
		}
		setCloneIdentity(clone, newID)
		// In the order of makeAliases, so concurrent writers hold the stems
		// (LockAlias) in one order; then languages the account no longer
		// has, whose aliases are unique too.
		aliases := clone.Common().URLAlias
		order := aliasOrder(p.Langs)
		for _, lang := range slices.Sorted(maps.Keys(*aliases)) {
			if !slices.Contains(order, lang) {
				order = append(order, lang)
			}
		}
		for _, lang := range order {
			alias := (*aliases)[lang]
			if alias == "" {
				continue
			}
			unique, err := uniqueAlias(ctx, tx, p.Account, kind, lang, alias, "-copy")
			if errors.Is(err, errNoFreeAlias) {
				return notCloned
			}
			if err != nil {
				return err
			}
			(*aliases)[lang] = unique
		}
		if err := tx.PutRecord(ctx, &Entry{Account: p.Account, Record: clone, Updated: now}); err != nil {
			return err
		}
		switch {
		case kind == KindMap:
			for _, role := range []Role{RolePrimary, RoleSecondary} {
				ids, err := tx.MapResources(ctx, p.Account, id, role)
				if err != nil {
					return err
				}
				if err := tx.SetMapResources(ctx, p.Account, newID, role, ids); err != nil {
					return err
				}
			}
			if err := s.touchAssigned(ctx, tx, p.Account, KindMap, newID, now); err != nil {
				return err
			}
		case kind == KindResource && mapID != "":
			if err := tx.SetResourceMaps(ctx, p.Account, newID, RolePrimary, []string{mapID}); err != nil {
				return err
			}
			if err := tx.TouchRecord(ctx, p.Account, KindMap, mapID, now); err != nil {
				return err
			}
		}
		res.NewID = newID
		return nil
	})
	if err != nil {
		return CloneResult{}, err
	}
	return res, nil
}

// copyID returns the first free id of <id>-copy, <id>-copy-2, ..., or ""
// when none fits in 80 characters (ValidID): there is no other limit.
// Candidates are asked in sets growing fourfold up to copyIDSet, so the
// first clone costs one look-up and the n-th about n/copyIDSet.
func (s *Service) copyID(ctx context.Context, tx Store, account string, kind Kind, id string) (string, error) {
	n, size := 1, 1
	for {
		var candidates []string
		for ; len(candidates) < size; n++ {
			candidate := id + "-copy"
			if n > 1 {
				candidate += "-" + strconv.Itoa(n)
			}
			if !ValidID(candidate) { // longer numbers do not fit either
				break
			}
			candidates = append(candidates, candidate)
		}
		if len(candidates) == 0 {
			return "", nil
		}
		found, err := tx.ExistingIDs(ctx, account, kind, candidates)
		if err != nil {
			return "", err
		}
		held := make(map[string]bool, len(found))
		for _, f := range found {
			held[f] = true
		}
		for _, c := range candidates {
			if !held[c] {
				return c, nil
			}
		}
		if len(candidates) < size {
			return "", nil
		}
		size = min(size*4, copyIDSet)
	}
}

// copyIDSet is the most candidate ids copyID asks at once.
const copyIDSet = 1024

// errNoneToClone is the 404 of a clone whose source is missing; a missing
// batch's status answers it too (the interface's text), new each time.
func errNoneToClone(kind Kind, id string) error {
	return &Error{Code: CodeNotFound, Message: "There is no " + kind.Title() + " " + id + " to clone"}
}

// setCloneIdentity gives a clone its id, unpublished.
func setCloneIdentity(rec Record, id string) {
	c := rec.Common()
	*c.ID, *c.Published = id, Some(false)
}
