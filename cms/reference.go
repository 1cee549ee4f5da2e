package cms

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"time"
)

// refUse is one id a body names, with the path of the field that names it.
type refUse struct {
	path   string // wire path with indexes: "mapIds[1]", "tourMultiday[0].resourceIds[2]"
	toKind string // "resource", "map" or "mapOrLanding"
	id     string
}

// refUses lists every id the fields of a body name, assignment and ...Add
// lists included.
func refUses(spec *typeSpec, v reflect.Value, prefix string, uses []refUse) []refUse {
	for _, f := range spec.fields {
		fv := v.Field(f.index)
		if f.item != nil {
			list := fv.Field(0)
			for i := range list.Len() {
				uses = refUses(f.item, list.Index(i), prefix+f.name+"["+strconv.Itoa(i)+"].", uses)
			}
			continue
		}
		if f.refKind == "" {
			continue
		}
		switch p := fv.Addr().Interface().(type) {
		case *Opt[string]:
			if p.Value != "" { // "" in a single reference means none
				uses = append(uses, refUse{prefix + f.name, f.refKind, p.Value})
			}
		case *Null[string]:
			if p.Valid && p.Value != "" {
				uses = append(uses, refUse{prefix + f.name, f.refKind, p.Value})
			}
		case *Null[[]string]:
			for i, id := range p.Value {
				uses = append(uses, refUse{prefix + f.name + "[" + strconv.Itoa(i) + "]", f.refKind, id})
			}
		}
	}
	return uses
}

// checkReferences reports every id the body names that does not exist in
// the account (DECISIONS §6). A record may name itself.
func (s *Service) checkReferences(ctx context.Context, tx Store, p Principal, patch Record) ([]fieldProblem, error) {
	uses := refUses(s.doc.kinds[patch.Kind()].spec, reflect.ValueOf(patch).Elem(), "", nil)
	if len(uses) == 0 {
		return nil, nil
	}
	wanted := map[Kind][]string{}
	for _, u := range uses {
		for _, k := range refKinds(u.toKind) {
			if !slices.Contains(wanted[k], u.id) {
				wanted[k] = append(wanted[k], u.id)
			}
		}
	}
	exists := map[Kind]map[string]bool{}
	for k, ids := range wanted {
		found, err := s.existing(ctx, tx, p.Account, k, ids)
		if err != nil {
			return nil, err
		}
		exists[k] = found
	}
	self := func(k Kind, id string) bool { return k == patch.Kind() && id == patch.RecordID() }
	var problems []fieldProblem
	for _, u := range uses {
		ok := false
		for _, k := range refKinds(u.toKind) {
			ok = ok || exists[k][u.id] || self(k, u.id)
		}
		if !ok {
			problems = append(problems, fieldProblem{u.path, refKindText(u.toKind) + " " + u.id + " does not exist"})
		}
	}
	return problems, nil
}

// existing returns which of ids exist, reading in slices so a long list
// never builds one huge query.
func (s *Service) existing(ctx context.Context, tx Store, account string, kind Kind, ids []string) (map[string]bool, error) {
	found := make(map[string]bool, len(ids))
	for chunk := range slices.Chunk(ids, 500) {
		entries, err := tx.GetRecords(ctx, account, kind, chunk)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			found[e.Record.RecordID()] = true
		}
	}
	return found, nil
}

func refKinds(toKind string) []Kind {
	if toKind == "mapOrLanding" {
		return []Kind{KindMap, KindLanding}
	}
	return []Kind{Kind(toKind)}
}

func refKindText(toKind string) string {
	if toKind == "mapOrLanding" {
		return "Map or Landing"
	}
	return Kind(toKind).Title()
}

// assignmentSide is one side of the Resource-Map assignments as a body
// gives it.
type assignmentSide struct {
	kind, other             Kind
	id                      string
	primary, primaryAdd     Null[[]string]
	secondary, secondaryAdd Null[[]string]
	get                     func(ctx context.Context, account, id string, role Role) ([]string, error)
	set                     func(ctx context.Context, account, id string, role Role, ids []string) error
}

// assign applies a body's assignment lists (replace first, then add) and
// gives every record on the other side whose role changed a new
// timeLastUpdate. It reports whether anything changed.
func (s *Service) assign(ctx context.Context, tx Store, account string, patch Record, now time.Time) (bool, error) {
	var a assignmentSide
	switch r := patch.(type) {
	case *Resource:
		a = assignmentSide{kind: KindResource, other: KindMap, id: r.ID, primary: r.MapIDs, primaryAdd: r.MapIDsAdd,
			secondary: r.MapSecondaryIDs, secondaryAdd: r.MapSecondaryIDsAdd, get: tx.ResourceMaps, set: tx.SetResourceMaps}
	case *Map:
		a = assignmentSide{kind: KindMap, other: KindResource, id: r.ID, primary: r.ResourceIDs, primaryAdd: r.ResourceIDsAdd,
			secondary: r.SecondaryResourceIDs, secondaryAdd: r.SecondaryResourceIDsAdd, get: tx.MapResources, set: tx.SetMapResources}
	default:
		return false, nil
	}
	if !a.primary.Set && !a.primaryAdd.Valid && !a.secondary.Set && !a.secondaryAdd.Valid {
		return false, nil
	}
	snapshot := func() (map[Role][]string, error) {
		lists := map[Role][]string{}
		for _, role := range []Role{RolePrimary, RoleSecondary} {
			ids, err := a.get(ctx, account, a.id, role)
			if err != nil {
				return nil, err
			}
			lists[role] = ids
		}
		return lists, nil
	}
	before, err := snapshot()
	if err != nil {
		return false, err
	}
	for _, step := range []struct {
		role Role
		list Null[[]string]
		add  bool
	}{{RolePrimary, a.primary, false}, {RoleSecondary, a.secondary, false},
		{RolePrimary, a.primaryAdd, true}, {RoleSecondary, a.secondaryAdd, true}} {
		if !step.list.Set || step.add && !step.list.Valid {
			continue
		}
		ids := step.list.Value
		if step.add { // after a replace, the current list is not before's
			cur, err := a.get(ctx, account, a.id, step.role)
			if err != nil {
				return false, err
			}
			ids = appendNew(NullOf(cur), step.list).Value
		}
		if err := a.set(ctx, account, a.id, step.role, dedupe(ids)); err != nil {
			return false, err
		}
	}
	after, err := snapshot()
	if err != nil {
		return false, err
	}
	// Records whose role changed (joined, left, or switched) are touched.
	was, is := rolesOf(before), rolesOf(after)
	changed := false
	for id := range mergeKeys(was, is) {
		if was[id] != is[id] {
			changed = true
			if err := tx.TouchRecord(ctx, account, a.other, id, now); err != nil {
				return false, err
			}
		}
	}
	// The same members may still come in another order.
	changed = changed || !slices.Equal(before[RolePrimary], after[RolePrimary]) ||
		!slices.Equal(before[RoleSecondary], after[RoleSecondary])
	return changed, nil
}

func rolesOf(lists map[Role][]string) map[string]Role {
	m := map[string]Role{}
	for role, ids := range lists {
		for _, id := range ids {
			m[id] = role
		}
	}
	return m
}

func mergeKeys(a, b map[string]Role) map[string]bool {
	keys := make(map[string]bool, len(a)+len(b))
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// dedupe keeps the first place of each id.
func dedupe(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
