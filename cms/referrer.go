package cms

import (
	"context"
	"slices"
)

// Referrers lists the references that other records of the caller's
// account make to record id of kind, in (kind, id, field) order: a Single
// one keeps Delete from deleting it (it is reported failed), the others
// lose the id when it is deleted. A Landing block's id that a Map and a
// Landing both have is not listed for either: it stays when one of them
// goes, as Delete judges. Assignments are not references. Errors: CodeUnauthorized; CodeForbidden without read on
// kind; the store's.
func (s *Service) Referrers(ctx context.Context, kind Kind, id string) ([]Reference, error) {
	p, err := s.caller(ctx, kind, ActionRead)
	if err != nil {
		return nil, err
	}
	refs, err := s.store.Referrers(ctx, p.Account, ReferenceTargets(kind), id)
	if err != nil {
		return nil, err
	}
	refs = slices.DeleteFunc(refs, func(r Reference) bool { return r.FromKind == kind && r.FromID == id })
	if twin := mapOrLandingTwin(kind); twin != "" && slices.ContainsFunc(refs, func(r Reference) bool { return r.ToKind == RefMapOrLanding }) {
		found, err := s.store.ExistingIDs(ctx, p.Account, twin, []string{id})
		if err != nil {
			return nil, err
		}
		if len(found) > 0 {
			refs = slices.DeleteFunc(refs, func(r Reference) bool { return r.ToKind == RefMapOrLanding })
		}
	}
	return refs, nil
}
