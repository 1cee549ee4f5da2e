package bunstore

import "github.com/bwcms/cms/cms"

// geoKey is the key of a record's account and kind in the location index:
// a geo_scopes row's (SQLite), the hash of geoPoint's bucket (PostgreSQL).
const geoKey = "account || '|' || kind"

// geoKeyOf is the value of geoKey.
func geoKeyOf(account, kind string) string { return account + "|" + kind }

// geoPoint is the expression of PostgreSQL's location index (records_box,
// migration 36): the record's point, its latitude shifted by 1000 degrees
// for each bucket of its account and kind (a GiST index of points cannot
// lead with them).
const geoPoint = "point(lon, lat + 1000 * (hashtext(account || '|' || kind) & 65535))"

// geoCorner is a corner of a box in geoPoint's space: the same float8
// arithmetic as the index's, so a point inside the box is inside the
// shifted one (adding a constant keeps the order of doubles).
const geoCorner = "point(CAST(? AS double precision), CAST(? AS double precision) + 1000 * (hashtext(?) & 65535))"

// boxScan returns the table expression and the conditions of a list of
// b's records of account and kind read through the location index
// (migration 36); listFilters adds the exact test of each record's
// location. SQLite's R*Tree (records_box) has a dimension of the account
// and kind (geo_scopes) and the records' rowids; PostgreSQL's GiST index
// is on geoPoint. A box across the 180° meridian reads its latitude band
// on the R*Tree (which cannot take an OR), its two halves on GiST.
func (s *Store) boxScan(account, kind string, b *cms.BBox) (from string, where []string, args []any) {
	key := geoKeyOf(account, kind)
	if s.opts.RTree {
		const scope = "(SELECT n FROM geo_scopes WHERE key = ?)"
		where = []string{
			"records_box.scope_lo <= " + scope, "records_box.scope_hi >= " + scope,
			"records_box.lat_lo <= ?", "records_box.lat_hi >= ?",
		}
		args = []any{key, key, b.MaxLat, b.MinLat}
		if b.MinLon <= b.MaxLon {
			where = append(where, "records_box.lon_lo <= ?", "records_box.lon_hi >= ?")
			args = append(args, b.MaxLon, b.MinLon)
		}
		// The account and kind tested on the row too: a box can never
		// answer another account's record, whatever the R*Tree holds.
		where = append(where, "records.rowid = records_box.rid", "records.account = ?", "records.kind = ?")
		return "records_box CROSS JOIN records", where, append(args, account, kind)
	}
	within := func(minLon, maxLon float64) string {
		args = append(args, minLon, b.MinLat, key, maxLon, b.MaxLat, key)
		return geoPoint + " <@ box(" + geoCorner + ", " + geoCorner + ")"
	}
	if b.MinLon <= b.MaxLon {
		where = []string{within(b.MinLon, b.MaxLon)}
	} else {
		where = []string{"(" + within(b.MinLon, 180) + " OR " + within(-180, b.MaxLon) + ")"}
	}
	// The bucket's other keys: the expression, not the key's columns, so
	// that the planner cannot take the key's (account, kind) prefix.
	return "records", append(where, geoKey+" = ?"), append(args, key)
}
