package cms

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"time"
)

// RefMapOrLanding is the target of a reference that names a Map or a
// Landing (a Landing block's resourceIds, tagged cms:"ref=mapOrLanding"),
// as Reference.ToKind holds it. The other targets are kinds ("resource",
// "map").
const RefMapOrLanding = "mapOrLanding"

// refTargets are the targets a cms:"ref=..." tag may name.
var refTargets = []string{string(KindResource), string(KindMap), RefMapOrLanding}

// referenceTargets holds ReferenceTargets' answers, worked out once from
// refKinds.
var referenceTargets = func() map[Kind][]string {
	m := map[Kind][]string{}
	for _, kind := range Kinds() {
		m[kind] = []string{}
		for _, t := range refTargets {
			if slices.Contains(refKinds(t), kind) {
				m[kind] = append(m[kind], t)
			}
		}
	}
	return m
}()

// ReferenceTargets returns the targets (Reference.ToKind values) of the
// references that name a record of kind: "resource" for a Resource;
// "map" and RefMapOrLanding for a Map; RefMapOrLanding for a Landing;
// none for a Proposal. The service asks Store.Referrers with them, so a
// store need not know which kinds a target stands for.
func ReferenceTargets(kind Kind) []string {
	return slices.Clone(referenceTargets[kind])
}

// refUse is one id a body names, with the path of the field that names it.
type refUse struct {
	path   string // wire path with indexes: "mapIds[1]", "tourMultiday[0].resourceIds[2]"
	toKind string // one of refTargets
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
// the account. A record may name itself.
//
// assigned are the record's stored assignment lists (read in tx): the
// records they name exist, as an assignment goes with either of its
// records, so an update that posts them back asks for none of them.
func (s *Service) checkReferences(ctx context.Context, tx upsertStore, p Principal, patch Record, assigned map[Role][]string) ([]fieldProblem, error) {
	uses := refUses(s.doc.kinds[patch.Kind()].spec, reflect.ValueOf(patch).Elem(), "", nil)
	if len(uses) == 0 {
		return nil, nil
	}
	known := map[Kind]map[string]bool{}
	if other := assignedKind(patch.Kind()); other != "" {
		for _, ids := range assigned {
			for _, id := range ids {
				if known[other] == nil {
					known[other] = map[string]bool{}
				}
				known[other][id] = true
			}
		}
	}
	asked := uses
	if len(known) > 0 {
		asked = slices.DeleteFunc(slices.Clone(uses), func(u refUse) bool {
			return slices.ContainsFunc(refKinds(u.toKind), func(k Kind) bool { return known[k][u.id] })
		})
	}
	exists, err := s.existence(ctx, tx, p.Account, asked)
	if err != nil {
		return nil, err
	}
	for k, ids := range known {
		if exists[k] == nil {
			exists[k] = map[string]bool{}
		}
		maps.Copy(exists[k], ids)
	}
	found := func(k Kind, id string) bool {
		return exists[k][id] || k == patch.Kind() && id == patch.RecordID() // a record may name itself
	}
	var problems []fieldProblem
	for _, u := range uses {
		if problem, missing := referenceRule(u, refKinds(u.toKind), found); missing {
			problems = append(problems, problem)
		}
	}
	return problems, nil
}

// referenceRule is the rule of an id a body names: it must be a record of
// one of kinds that exists (found tells). When it is not, referenceRule
// returns the problem that names it. Single upserts (checkReferences) and
// batches (checkBatch, with the kinds the batch leaves) judge it here.
func referenceRule(u refUse, kinds []Kind, found func(k Kind, id string) bool) (fieldProblem, bool) {
	for _, k := range kinds {
		if found(k, u.id) {
			return fieldProblem{}, false
		}
	}
	return fieldProblem{u.path, refKindText(u.toKind) + " " + u.id + " does not exist"}, true
}

// existence tells, per kind, which of the ids uses name exist.
func (s *Service) existence(ctx context.Context, st upsertStore, account string, uses []refUse) (map[Kind]map[string]bool, error) {
	wanted := map[Kind][]string{}
	for _, u := range uses {
		for _, k := range refKinds(u.toKind) {
			if !slices.Contains(wanted[k], u.id) {
				wanted[k] = append(wanted[k], u.id)
			}
		}
	}
	exists := make(map[Kind]map[string]bool, len(wanted))
	for k, ids := range wanted {
		found, err := s.existing(ctx, st, account, k, ids)
		if err != nil {
			return nil, err
		}
		exists[k] = found
	}
	return exists, nil
}

// existing returns which of ids exist, asking in slices so a long list
// never builds one huge query.
func (s *Service) existing(ctx context.Context, tx upsertStore, account string, kind Kind, ids []string) (map[string]bool, error) {
	found := make(map[string]bool, len(ids))
	for chunk := range slices.Chunk(ids, 500) {
		got, err := tx.ExistingIDs(ctx, account, kind, chunk)
		if err != nil {
			return nil, err
		}
		for _, id := range got {
			found[id] = true
		}
	}
	return found, nil
}

// holdReferenced holds, in tx, every record the body names (a Map or a
// Landing for a block's id) against deletion until the commit
// (Store.HoldReferenced), kind by kind in the order of Kinds. It returns tx
// answering ExistingIDs of those ids from what it found: a delete that
// waited for the commit then sees the reference, and one that went first
// leaves its target missing here.
func (s *Service) holdReferenced(ctx context.Context, tx Store, account string, patch Record) (upsertStore, error) {
	uses := refUses(s.doc.kinds[patch.Kind()].spec, reflect.ValueOf(patch).Elem(), "", nil)
	if len(uses) == 0 {
		return tx, nil
	}
	wanted := map[Kind][]string{}
	for _, u := range uses {
		for _, k := range refKinds(u.toKind) {
			wanted[k] = append(wanted[k], u.id)
		}
	}
	h := &heldStore{Store: tx, asked: map[Kind]map[string]bool{}, found: map[Kind]map[string]bool{}}
	for _, kind := range Kinds() {
		ids := Dedupe(wanted[kind])
		if len(ids) == 0 {
			continue
		}
		h.asked[kind], h.found[kind] = make(map[string]bool, len(ids)), map[string]bool{}
		for chunk := range slices.Chunk(ids, 500) {
			got, err := tx.HoldReferenced(ctx, account, kind, chunk)
			if err != nil {
				return nil, err
			}
			for _, id := range got {
				h.found[kind][id] = true
			}
		}
		for _, id := range ids {
			h.asked[kind][id] = true
		}
	}
	return h, nil
}

// heldStore is a Store transaction that answers ExistingIDs of the ids
// holdReferenced asked from what it found.
type heldStore struct {
	Store
	asked, found map[Kind]map[string]bool
}

// ExistingIDs implements upsertStore.
func (h *heldStore) ExistingIDs(ctx context.Context, account string, kind Kind, ids []string) ([]string, error) {
	if !slices.ContainsFunc(ids, func(id string) bool { return !h.asked[kind][id] }) {
		found := make([]string, 0, len(ids))
		for _, id := range ids {
			if h.found[kind][id] {
				found = append(found, id)
			}
		}
		return found, nil
	}
	return h.Store.ExistingIDs(ctx, account, kind, ids)
}

// refKinds are the kinds a reference target names.
func refKinds(toKind string) []Kind {
	if toKind == RefMapOrLanding {
		return []Kind{KindMap, KindLanding}
	}
	return []Kind{Kind(toKind)}
}

func refKindText(toKind string) string {
	if toKind == RefMapOrLanding {
		return "Map or Landing"
	}
	return Kind(toKind).Title()
}

// SetAssignmentLists gives a Resource its mapIds and mapSecondaryIds, or a
// Map its resourceIds and secondaryResourceIds, as a store reads them
// (null when empty); other kinds have none. Adapters fill read
// records with it.
func SetAssignmentLists(rec Record, primary, secondary []string) {
	if a, ok := rec.(assigningRecord); ok {
		side := a.assignment()
		*side.primary, *side.secondary = assignedList(primary), assignedList(secondary)
	}
}

// assignedList is an assignment list as records read it: null when
// empty, whatever was sent, so a record read and posted back is a Skip.
func assignedList(ids []string) Null[[]string] {
	if len(ids) == 0 {
		return Nil[[]string]()
	}
	return NullOf(ids)
}

// assignmentSide is a Resource's or a Map's side of the Resource-Map
// assignments: its lists, and what differs between the two sides. Each
// kind makes its own (Resource.assignment, Map.assignment).
type assignmentSide struct {
	// other is the kind on the other side.
	other Kind
	// The record's lists: replacing and adding, per role.
	primary, primaryAdd     *Null[[]string]
	secondary, secondaryAdd *Null[[]string]
	// secondaryName and secondaryAddName are the wire names of the
	// secondary lists, which problems name.
	secondaryName, secondaryAddName string
	// read and write are the store's look-up and write of this side's
	// list of a role.
	read  func(st assignmentReader, ctx context.Context, account, id string, role Role) ([]string, error)
	write func(st assignmentWriter, ctx context.Context, account, id string, role Role, ids []string) error
}

// assignmentReader and assignmentWriter are the store's assignment
// look-ups and writes, from either side.
type (
	assignmentReader interface {
		MapResources(ctx context.Context, account, mapID string, role Role) ([]string, error)
		ResourceMaps(ctx context.Context, account, resourceID string, role Role) ([]string, error)
	}
	assignmentWriter interface {
		SetMapResources(ctx context.Context, account, mapID string, role Role, resourceIDs []string) error
		SetResourceMaps(ctx context.Context, account, resourceID string, role Role, mapIDs []string) error
	}
)

// sideOf is the assignment side of kind (false: kind has none).
func sideOf(kind Kind) (assignmentSide, bool) {
	a, ok := NewRecord(kind).(assigningRecord)
	if !ok {
		return assignmentSide{}, false
	}
	return a.assignment(), true
}

// assignedKind is the kind on the other side of kind's assignments ("":
// kind has none).
func assignedKind(kind Kind) Kind {
	side, _ := sideOf(kind)
	return side.other
}

// assignedLists returns a stored record's assignment lists (GetRecord
// fills them), by role.
func assignedLists(rec Record) map[Role][]string {
	a, ok := rec.(assigningRecord)
	if !ok {
		return map[Role][]string{}
	}
	side := a.assignment()
	return map[Role][]string{RolePrimary: side.primary.Value, RoleSecondary: side.secondary.Value}
}

// namesAssignments tells whether a body sets an assignment list of its
// Resource or Map (replacing or adding).
func namesAssignments(patch Record) bool {
	a, ok := patch.(assigningRecord)
	if !ok {
		return false
	}
	side := a.assignment()
	return side.primary.Set || side.primaryAdd.Set || side.secondary.Set || side.secondaryAdd.Set
}

// assign applies a body's assignment lists to the lists before (replace
// first, then add; a record takes one role), writes the roles that
// changed, and gives every record on the other side whose role changed a
// new timeLastUpdate. It returns the lists after and whether anything
// changed.
func (s *Service) assign(ctx context.Context, tx upsertStore, account string, patch Record, before map[Role][]string, now time.Time) (map[Role][]string, bool, error) {
	ar, ok := patch.(assigningRecord)
	if !ok {
		return before, false, nil
	}
	a, id := ar.assignment(), patch.RecordID()
	if !a.primary.Set && !a.primaryAdd.Valid && !a.secondary.Set && !a.secondaryAdd.Valid {
		return before, false, nil
	}
	// The same rules as AssignmentStore.Set*, worked out in memory.
	after := map[Role][]string{RolePrimary: slices.Clone(before[RolePrimary]), RoleSecondary: slices.Clone(before[RoleSecondary])}
	other := map[Role]Role{RolePrimary: RoleSecondary, RoleSecondary: RolePrimary}
	put := func(role Role, ids []string) {
		ids = Dedupe(ids)
		after[role] = ids
		after[other[role]] = slices.DeleteFunc(after[other[role]], func(id string) bool { return slices.Contains(ids, id) })
	}
	for _, step := range []struct {
		role Role
		list Null[[]string]
		add  bool
	}{{RolePrimary, *a.primary, false}, {RoleSecondary, *a.secondary, false},
		{RolePrimary, *a.primaryAdd, true}, {RoleSecondary, *a.secondaryAdd, true}} {
		switch {
		case !step.list.Set || step.add && !step.list.Valid:
		case step.add:
			put(step.role, appendNew(NullOf(after[step.role]), step.list).Value)
		default:
			put(step.role, step.list.Value)
		}
	}
	var changed []AssignmentList
	for _, role := range []Role{RolePrimary, RoleSecondary} {
		if !slices.Equal(before[role], after[role]) {
			changed = append(changed, AssignmentList{Owner: id, Role: role, IDs: after[role]})
		}
	}
	if len(changed) == 0 {
		return before, false, nil
	}
	if len(before[RolePrimary]) == 0 && len(before[RoleSecondary]) == 0 {
		// A record without assignments (every create) has nothing to
		// replace or move: its lists are appended in two statements, not
		// in a delete and two statements a Map.
		if err := tx.AppendAssignments(ctx, account, patch.Kind(), changed); err != nil {
			return nil, false, err
		}
	} else {
		for _, l := range changed {
			if err := a.write(tx, ctx, account, id, l.Role, l.IDs); err != nil {
				return nil, false, err
			}
		}
	}
	// Records whose role changed (joined, left, or switched) are touched,
	// in ascending id order like every lock a write takes.
	was, is := rolesOf(before), rolesOf(after)
	for _, id := range slices.Sorted(maps.Keys(mergeKeys(was, is))) {
		if was[id] != is[id] {
			if err := tx.TouchRecord(ctx, account, a.other, id, now); err != nil {
				return nil, false, err
			}
		}
	}
	return after, true, nil
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

// Dedupe returns ids without repeats, each id at its first place, in a
// new slice (ids is left as it is). Adapters use it where a list the
// caller gives may repeat an id and its order counts (an assignment list).
// It is small enough to inline, so a short list's memory may stay on the
// caller's stack.
func Dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
