package bunstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"

	"github.com/bwcms/cms/cms"
)

// side names the columns of one side of the assignments table, and the
// leading expressions of the indexes by each (see keys.go): a list read
// or changed by its owner spells ownerKey.
type side struct {
	owner, ownerPos, other, otherPos string
	ownerKey, otherKey               string
}

var (
	mapSide = side{owner: "map_id", ownerPos: "map_pos", other: "resource_id", otherPos: "resource_pos",
		ownerKey: mapKey, otherKey: resourceKey}
	resourceSide = side{owner: "resource_id", ownerPos: "resource_pos", other: "map_id", otherPos: "map_pos",
		ownerKey: resourceKey, otherKey: mapKey}
)

// SetMapResources implements cms.Store.
func (s *Store) SetMapResources(ctx context.Context, account, mapID string, role cms.Role, resourceIDs []string) error {
	return s.setSide(ctx, account, mapSide, mapID, role, resourceIDs)
}

// SetResourceMaps implements cms.Store.
func (s *Store) SetResourceMaps(ctx context.Context, account, resourceID string, role cms.Role, mapIDs []string) error {
	return s.setSide(ctx, account, resourceSide, resourceID, role, mapIDs)
}

// setSide makes owner's list of role exactly others, in order. A fact that
// stays keeps its place on the other side; a new one goes to the end there.
func (s *Store) setSide(ctx context.Context, account string, sd side, owner string, role cms.Role, others []string) error {
	others = cms.Dedupe(others)
	return s.tx(ctx, func(s *Store) error {
		del := "DELETE FROM " + s.assignmentsBy(sd.owner) + " WHERE " + sd.ownerKey + " = ? AND role = ?"
		args := []any{keyOf(account, owner), string(role)}
		if len(others) > 0 {
			del += " AND NOT " + sd.other + " " + s.opts.InList
			args = append(args, s.opts.List(others))
		}
		if _, err := s.exec(ctx, del, args...); err != nil {
			return err
		}
		for pos, other := range others {
			var roles []string
			err := s.scan(ctx, s.write, &roles, "SELECT role FROM assignments WHERE account = ? AND "+sd.owner+" = ? AND "+sd.other+" = ?",
				account, owner, other)
			if err != nil {
				return s.fail(err)
			}
			if len(roles) == 1 && roles[0] == string(role) {
				if _, err := s.exec(ctx, "UPDATE assignments SET "+sd.ownerPos+" = ? WHERE account = ? AND "+
					sd.owner+" = ? AND "+sd.other+" = ?", pos, account, owner, other); err != nil {
					return err
				}
				continue
			}
			if len(roles) == 1 { // the other role: roles are exclusive
				if _, err := s.exec(ctx, "DELETE FROM assignments WHERE account = ? AND "+sd.owner+" = ? AND "+
					sd.other+" = ?", account, owner, other); err != nil {
					return err
				}
			}
			_, err = s.exec(ctx, "INSERT INTO assignments (account, "+sd.owner+", "+sd.other+", role, "+sd.ownerPos+", "+sd.otherPos+") "+
				"VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX("+sd.otherPos+"), -1) + 1 FROM "+s.assignmentsBy(sd.other)+" WHERE "+
				sd.otherKey+" = ? AND role = ?))", account, owner, other, string(role), pos, keyOf(account, other), string(role))
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// AppendAssignments implements cms.Store.
func (s *Store) AppendAssignments(ctx context.Context, account string, owners cms.Kind, lists []cms.AssignmentList) error {
	sd := resourceSide
	if owners == cms.KindMap {
		sd = mapSide
	}
	var others []string
	for _, l := range lists {
		others = append(others, l.IDs...)
	}
	if len(others) == 0 {
		return nil
	}
	return s.tx(ctx, func(s *Store) error {
		// Where each list of the other side ends now: one look-up of the
		// index's last entry a list (a MAX over a GROUP BY read whole lists,
		// and a batch's lists grow with every chunk).
		type end struct {
			Other string `bun:"other_id"`
			Role  string `bun:"role"`
			Last  int    `bun:"last_pos"`
		}
		var pairs [][2]string
		seen := map[[2]string]bool{}
		for _, l := range lists {
			for _, other := range l.IDs {
				if key := [2]string{other, string(l.Role)}; !seen[key] {
					seen[key] = true
					pairs = append(pairs, key)
				}
			}
		}
		// SQLite: the look-up's key and role as sub-selects, which its
		// planner does not read the values of; with plain parameters it
		// marks the statement to be prepared again whenever they change,
		// at every write.
		param := "(SELECT ?)"
		if s.postgres() {
			param = "?"
		}
		next := make(map[[2]string]int, len(pairs))
		for group := range slices.Chunk(pairs, 100) {
			var q strings.Builder
			args := make([]any, 0, 5*len(group))
			for i, p := range group {
				if i > 0 {
					q.WriteString(" UNION ALL ")
				}
				q.WriteString("SELECT CAST(? AS TEXT) AS other_id, CAST(? AS TEXT) AS role, COALESCE((SELECT " + sd.otherPos +
					" FROM " + s.assignmentsBy(sd.other) + " WHERE " + sd.otherKey + " = " + param + " AND role = " + param + " ORDER BY " + sd.otherPos +
					" DESC LIMIT 1), -1) AS last_pos")
				args = append(args, p[0], p[1], keyOf(account, p[0]), p[1])
			}
			var ends []end
			if err := s.scan(ctx, s.write, &ends, q.String(), args...); err != nil {
				return s.fail(err)
			}
			for _, e := range ends {
				next[[2]string{e.Other, e.Role}] = e.Last + 1
			}
		}
		rows := make([]any, 0, 6*len(others))
		for _, l := range lists {
			for pos, other := range cms.Dedupe(l.IDs) {
				key := [2]string{other, string(l.Role)}
				rows = append(rows, account, l.Owner, other, string(l.Role), pos, next[key])
				next[key]++
			}
		}
		return s.insertRows(ctx, "INSERT INTO assignments (account, "+sd.owner+", "+sd.other+", role, "+sd.ownerPos+", "+sd.otherPos+") VALUES ",
			6, rows, "")
	})
}

// MapResources implements cms.Store.
func (s *Store) MapResources(ctx context.Context, account, mapID string, role cms.Role) ([]string, error) {
	return s.sideList(ctx, account, mapSide, mapID, role)
}

// ResourceMaps implements cms.Store.
func (s *Store) ResourceMaps(ctx context.Context, account, resourceID string, role cms.Role) ([]string, error) {
	return s.sideList(ctx, account, resourceSide, resourceID, role)
}

func (s *Store) sideList(ctx context.Context, account string, sd side, owner string, role cms.Role) ([]string, error) {
	ids := []string{}
	err := s.scan(ctx, s.read, &ids, "SELECT "+sd.other+" FROM "+s.assignmentsBy(sd.owner)+" WHERE "+sd.ownerKey+" = ? AND role = ? ORDER BY "+sd.ownerPos,
		keyOf(account, owner), string(role))
	return ids, s.fail(err)
}

// setAssigned sets Resource.MapIDs/MapSecondaryIDs or Map.ResourceIDs/
// SecondaryResourceIDs of rec from the pairs the record query read.
func setAssigned(rec cms.Record, pairs sql.NullString) error {
	primary, secondary, err := assignedLists(pairs)
	if err != nil {
		return err
	}
	cms.SetAssignmentLists(rec, primary, secondary)
	return nil
}

// assignedLists splits the [other id, role] pairs of selectRecords into
// the lists of each role, in order.
func assignedLists(pairs sql.NullString) (primary, secondary []string, err error) {
	var list [][2]string
	if pairs.Valid && pairs.String != "[]" {
		var ok bool
		if list, ok = plainPairs(pairs.String); !ok {
			if err := json.Unmarshal([]byte(pairs.String), &list); err != nil {
				return nil, nil, &cms.Error{Code: cms.CodeInternal, Message: "assignments unreadable", Err: err}
			}
		}
	}
	for _, p := range list {
		if p[1] == string(cms.RolePrimary) {
			primary = append(primary, p[0])
		} else {
			secondary = append(secondary, p[0])
		}
	}
	return primary, secondary, nil
}

// plainPairs reads a JSON array of [a, b] string pairs as the databases
// aggregate them, when every string is printable ASCII without escapes
// (ids and roles are); otherwise it says no and json.Unmarshal reads it.
func plainPairs(text string) ([][2]string, bool) {
	var list [][2]string
	i := 0
	next := func(c byte) bool {
		for i < len(text) && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r') {
			i++
		}
		if i < len(text) && text[i] == c {
			i++
			return true
		}
		return false
	}
	str := func() (string, bool) {
		if !next('"') {
			return "", false
		}
		start := i
		for ; i < len(text) && text[i] != '"'; i++ {
			if c := text[i]; c < 0x20 || c >= 0x7f || c == '\\' {
				return "", false
			}
		}
		if i == len(text) {
			return "", false
		}
		i++
		return text[start : i-1], true
	}
	if !next('[') {
		return nil, false
	}
	for {
		if !next('[') {
			return nil, false
		}
		a, okA := str()
		if !okA || !next(',') {
			return nil, false
		}
		b, okB := str()
		if !okB || !next(']') {
			return nil, false
		}
		list = append(list, [2]string{a, b})
		if next(']') {
			break
		}
		if !next(',') {
			return nil, false
		}
	}
	for ; i < len(text); i++ {
		if c := text[i]; c != ' ' && c != '\n' && c != '\t' && c != '\r' {
			return nil, false
		}
	}
	return list, true
}

// assignmentsBy is the table expression of a statement on assignments
// whose key is column (with the account): by Resource, the index by
// Resource, named where the adapter must (Options.NamesIndexes).
func (s *Store) assignmentsBy(column string) string {
	if column == resourceSide.owner {
		return s.indexed("assignments", "assignments_resource")
	}
	return "assignments"
}
