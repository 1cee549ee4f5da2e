package cms

import (
	"context"
	"hash/fnv"
	"iter"
	"strconv"
	"strings"
	"time"
)

// ReadParams select the records Read returns (the options of docs/api.md,
// Read).
type ReadParams struct {
	// IDs, when set, names the records, answered in the order asked
	// (missing ones left out); otherwise every matching record streams in
	// ascending id order.
	IDs []string
	// Published filters by the published flag; default PublishedOnly.
	Published Published
	// MapID keeps Resources assigned to that Map in either role.
	MapID string
	// After keeps ids greater than it; Limit (1..1000), when above 0,
	// stops after that many.
	After string
	Limit int
	// BBox keeps records located inside it.
	BBox *BBox
	// UpdatedSince, when not zero, keeps records updated at or after it.
	UpdatedSince time.Time
	// Uncounted leaves a Proposal's access counters as they are when it is
	// read by id: the admin's reads are not visits.
	Uncounted bool
	// Search, when set, keeps the records whose id or title (in any
	// language) has a word starting with each of its words, case and
	// accents folded (SearchTerms, DECISIONS §14).
	Search string
	// Documents lets the records come undecoded (Entry.Stored, Record
	// nil) where the store can give them so: the caller writes them with
	// AppendEntry, which answers them from their stored bytes. A read by
	// ids with Search decodes them anyway (the terms are the record's).
	Documents bool
}

// Read returns the records p selects, for the principal in ctx. With ids,
// reading a Proposal counts an access (statsAccess + 1, statsLastAccess =
// now) as it is yielded, unless p.Uncounted. The sequence yields an
// error at most once, as its last element; records stream from the store
// without being held in memory, named ids as lists. Errors:
// CodeUnauthorized, CodeForbidden, CodeMalformed for a search
// SearchTerms refuses.
func (s *Service) Read(ctx context.Context, kind Kind, p ReadParams) (iter.Seq2[*Entry, error], error) {
	pr, err := s.caller(ctx, kind, ActionRead)
	if err != nil {
		return nil, err
	}
	var terms []TermRange
	if p.Search != "" {
		if terms, err = SearchTerms(p.Search); err != nil {
			return nil, err
		}
	}
	if p.IDs == nil {
		return s.store.ListRecords(ctx, ListParams{Account: pr.Account, Kind: kind, Published: p.Published,
			MapID: p.MapID, After: p.After, Limit: p.Limit, BBox: p.BBox, UpdatedSince: p.UpdatedSince,
			Terms: terms, Stored: p.Documents}), nil
	}
	var members map[string]bool
	if p.MapID != "" && kind == KindResource {
		if members, err = s.mapMembers(ctx, pr.Account, p.MapID); err != nil {
			return nil, err
		}
	}
	// Streamed like a list (DECISIONS §13): the records named are read a
	// few at a time as the answer is written, so its memory does not grow
	// with the number of ids.
	return func(yield func(*Entry, error) bool) {
		kept := 0
		records := s.store.StreamRecords
		if st, ok := s.store.(StoredStreamer); ok && p.Documents && terms == nil {
			records = st.StreamStored
		}
		for e, err := range records(ctx, pr.Account, kind, p.IDs) {
			if err != nil {
				yield(nil, err)
				return
			}
			if !p.keeps(e, members) || terms != nil && !MatchTerms(s.doc.Index(e.Record).Terms, terms) {
				continue
			}
			if kind == KindProposal && !p.Uncounted {
				now := s.Now()
				if err := s.store.CountAccess(ctx, pr.Account, kind, e.RecordID(), now); err != nil {
					if ErrorCode(err) == CodeNotFound {
						continue // deleted since it was read
					}
					yield(nil, err)
					return
				}
				e.StatsAccess++
				e.StatsLastAccess = now
			}
			if !yield(e, nil) {
				return
			}
			if kept++; p.Limit > 0 && kept == p.Limit {
				return
			}
		}
	}, nil
}

func (s *Service) mapMembers(ctx context.Context, account, mapID string) (map[string]bool, error) {
	m := map[string]bool{}
	for _, role := range []Role{RolePrimary, RoleSecondary} {
		ids, err := s.store.MapResources(ctx, account, mapID, role)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			m[id] = true
		}
	}
	return m, nil
}

// keeps applies the filters of p to a record named by id.
func (p ReadParams) keeps(e *Entry, members map[string]bool) bool {
	var ix RecordIndex
	if e.Record == nil && e.Stored != nil {
		ix = RecordIndex{Published: e.Stored.Published, Lat: e.Stored.Lat, Lon: e.Stored.Lon}
	} else {
		ix = recordIndex(e.Record)
	}
	switch p.Published {
	case PublishedOnly:
		if !ix.Published {
			return false
		}
	case UnpublishedOnly:
		if ix.Published {
			return false
		}
	}
	id := e.RecordID()
	if members != nil && !members[id] {
		return false
	}
	if p.After != "" && id <= p.After {
		return false
	}
	if !p.UpdatedSince.IsZero() && e.Updated.Before(p.UpdatedSince) {
		return false
	}
	if p.BBox != nil && !(ix.Lat.Valid && ix.Lon.Valid && p.BBox.Contains(ix.Lat.Value, ix.Lon.Value)) {
		return false
	}
	return true
}

// Contains reports whether a point lies in the box, edges included.
func (b BBox) Contains(lat, lon float64) bool {
	if lat < b.MinLat || lat > b.MaxLat {
		return false
	}
	if b.MinLon <= b.MaxLon {
		return lon >= b.MinLon && lon <= b.MaxLon
	}
	return lon >= b.MinLon || lon <= b.MaxLon // across the 180° meridian
}

// recordIndex is the part of the index Read filters on.
func recordIndex(rec Record) RecordIndex {
	ix := RecordIndex{Published: rec.Common().Published.Value}
	if l, ok := rec.(locatedRecord); ok {
		ix.Lat, ix.Lon = l.location()
	}
	return ix
}

// Wire fills the read-only fields of an entry's record for the wire:
// timeLastUpdate, and a Proposal's access counters.
func (s *Service) Wire(e *Entry) Record {
	*e.Record.Common().TimeLastUpdate = s.Timestamp(e.Updated)
	if c, ok := e.Record.(countedRecord); ok {
		last := Null[string]{Set: true}
		if !e.StatsLastAccess.IsZero() {
			last = NullOf(s.Timestamp(e.StatsLastAccess))
		}
		c.setStats(e.StatsAccess, last)
	}
	return e.Record
}

// Codec returns the codec of the principal's languages in ctx.
func (s *Service) Codec(ctx context.Context) (*Codec, error) {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		return nil, errUnauthorized()
	}
	return s.codec(p.Langs)
}

// AccountCodec returns the codec of the languages the principal's account
// in ctx has now, which a token issued before a change of the account's
// languages does not carry: schemas follow a change at once. Errors:
// CodeUnauthorized, CodeNotFound when the account is gone.
func (s *Service) AccountCodec(ctx context.Context) (*Codec, error) {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		return nil, errUnauthorized()
	}
	acc, err := s.store.GetAccount(ctx, p.Account)
	if err != nil {
		return nil, err
	}
	return s.codec(acc.Langs)
}

// ETag is the entity tag of a stored record as answered in langs (the
// account's languages): it changes exactly when its timeLastUpdate does
// or the languages do (what the bare names address, which fields exist),
// never with a Proposal's access counters.
func ETag(e *Entry, langs Languages) string {
	h := fnv.New64a()
	h.Write([]byte(e.RecordID()))
	h.Write([]byte{0})
	h.Write([]byte(langs.String()))
	return `"` + strconv.FormatUint(h.Sum64(), 36) + "-" + strconv.FormatInt(e.Updated.UnixMicro(), 36) + `"`
}

// etagMatches reads an If-Match list: "*", or one of the tags (weak ones
// never match: RFC 9110, section 13.1.1).
func etagMatches(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}
