package bunstore

import "strings"

// The leading expressions of the record tables' secondary indexes
// (migration 14) and of the files table's (migration 24). Each secondary
// index leads with an expression of its own instead of columns its key
// shares with the primary key (or another index), so that a
// PostgreSQL planner without statistics, which rates every index whose
// leading columns a statement constrains as one row, has one index to
// choose: a statement meant for a secondary index spells its expression
// (with the value from the matching function below), and a key look-up
// can use none but the key. Ids never hold the separators.
const (
	updatedKey     = "account || '/' || kind"                // records_updated
	aliasRecordKey = "account || '/' || kind"                // aliases_record
	aliasNumberKey = "account || '/' || kind || '/' || lang" // aliases_number
	refsToKey      = "account || '/' || to_id"               // refs_to
	mapKey         = "account || '/' || map_id"              // assignments_map_pos
	resourceKey    = "account || '/' || resource_id"         // assignments_resource
	fileSHAKey     = "account || '/' || sha256"              // files_sha256
	changeFileKey  = "account || '/' || file_id"             // change_files_file
	changeKindKey  = "account || '/' || kind"                // changes_kind
	fileTypeKey    = "account || '/' || type"                // files_type
	fileAgeKey     = "files.created + 0"                     // files_created
)

// updatedID is the id as records_updated's last column holds it: on
// PostgreSQL an expression (migration 37), so that a read by id, which
// tests the id column, can take no index but the primary key.
func (s *Store) updatedID() string {
	if s.postgres() {
		return "(id || '')"
	}
	return "id"
}

// keyOf is the value of a '/'-joined key expression.
func keyOf(parts ...string) string { return strings.Join(parts, "/") }

// shortList is the most keys a statement passes as placeholders of their
// own rather than as one list argument (SQLite).
const shortList = 4

// selectByKeys is "SELECT cols FROM table WHERE where AND col IN keys",
// with the arguments: where's args, then the keys (where may be empty). With KeyLookups the
// keys drive, each a look-up of table's index on where and col; cols may
// name table's columns as table.column either way.
func (s *Store) selectByKeys(cols, table, where string, args []any, col string, keys []string) (string, []any) {
	if !s.opts.KeyLookups {
		if len(keys) <= shortList {
			// A few placeholders are cheaper than unpacking a list (json_each).
			for _, k := range keys {
				args = append(args, k)
			}
			return "SELECT " + cols + " FROM " + table + " WHERE " + and(where, col+" IN ("+
				strings.TrimSuffix(strings.Repeat("?, ", len(keys)), ", ")+")"), args
		}
		return "SELECT " + cols + " FROM " + table + " WHERE " + and(where, col+" "+s.opts.InList),
			append(args, s.opts.List(keys))
	}
	return "SELECT " + cols + " FROM " + lateralKeys(table, where, col), append([]any{s.opts.List(keys)}, args...)
}

// deleteByKeys is "DELETE FROM table WHERE where AND col IN keys", shaped
// as selectByKeys, through index where statements name one: with
// KeyLookups the rows are found a key at a time and deleted by their row
// ids.
func (s *Store) deleteByKeys(table, index, where string, args []any, col string, keys []string) (string, []any) {
	if len(keys) == 1 || !s.opts.KeyLookups {
		from := table
		if index != "" {
			from = s.indexed(table, index)
		}
		if len(keys) == 1 { // a single upsert's: a key look-up, not a list to unpack
			return "DELETE FROM " + from + " WHERE " + and(where, col+" = ?"), append(args, keys[0])
		}
		return "DELETE FROM " + from + " WHERE " + and(where, col+" "+s.opts.InList),
			append(args, s.opts.List(keys))
	}
	return "DELETE FROM " + table + " WHERE ctid = ANY(ARRAY(SELECT " + table + ".ctid FROM " +
		lateralKeys(table, where, col) + "))", append([]any{s.opts.List(keys)}, args...)
}

// and joins two conditions; where may be empty.
func and(where, cond string) string {
	if where == "" {
		return cond
	}
	return where + " AND " + cond
}

// lateralKeys is the FROM clause of rows of table matching where and one
// of the keys of the first argument, looked up a key at a time: OFFSET 0
// keeps PostgreSQL from flattening the sub-select into a join it could
// run the other way round.
func lateralKeys(table, where, col string) string {
	return "unnest(CAST(? AS text[])) AS wanted(wanted_key) CROSS JOIN LATERAL (SELECT ctid, * FROM " + table +
		" WHERE " + and(where, col+" = wanted_key") + " OFFSET 0) AS " + table
}
