package bunstore

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

// aliasCharacters is the data migration of the urlAlias rule (no
// backslashes, zero-width or bidirectional characters; stored in NFC with
// widths folded, cms.ValidAlias): every record holding an alias that
// breaks it is rewritten once (cms.RepairAliases: the characters dropped,
// the rest normalised, uniqueness kept), with a new timeLastUpdate, since
// what it reads changed. Records are repaired in (account, kind, id)
// order, so of two aliases that become one, the one already in form
// keeps it and otherwise the first record does; the other gets a free
// number. It reads the alias table once, in one transaction.
func (s *Store) aliasCharacters(ctx context.Context) error {
	return s.tx(ctx, func(s *Store) error {
		type key struct{ account, kind, id string }
		var broken []key
		seen := map[key]bool{}
		rows, err := s.write.QueryContext(ctx, s.text("SELECT account, kind, record_id, alias FROM aliases"))
		if err != nil {
			return s.fail(err)
		}
		for rows.Next() {
			var k key
			var alias string
			if err := rows.Scan(&k.account, &k.kind, &k.id, &alias); err != nil {
				rows.Close()
				return s.fail(err)
			}
			if !cms.ValidAlias(alias) && !seen[k] {
				seen[k] = true
				broken = append(broken, k)
			}
		}
		if err := rows.Close(); err != nil {
			return s.fail(err)
		}
		if err := rows.Err(); err != nil {
			return s.fail(err)
		}
		slices.SortFunc(broken, func(a, b key) int {
			return cmp.Or(strings.Compare(a.account, b.account), strings.Compare(a.kind, b.kind), strings.Compare(a.id, b.id))
		})
		now := time.Now()
		for _, k := range broken {
			e, err := s.GetRecord(ctx, k.account, cms.Kind(k.kind), k.id)
			if err != nil {
				return err
			}
			changed, err := cms.RepairAliases(e.Record, func(lang, alias string) (bool, error) {
				holder, err := s.AliasHolder(ctx, k.account, cms.Kind(k.kind), lang, alias)
				if cms.ErrorCode(err) == cms.CodeNotFound {
					return false, nil
				}
				return err == nil && holder != k.id, err
			})
			if err != nil {
				return err
			}
			if !changed {
				continue
			}
			e.Document = ""
			e.Updated = now
			if err := s.PutRecord(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
}
