package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/bwcms/cms/cms"
)

// HistoryOptions choose the revisions History yields. The zero value
// yields every revision kept, newest first.
type HistoryOptions struct {
	// Limit is the most revisions yielded in all. Default 0: no limit.
	Limit int
	// After starts below that revision (the Rev last seen). Default 0:
	// from the newest.
	After int64
}

// Tombstone is what is left of a deleted record: its kind, id, the
// revision of the delete, when and by whom.
type Tombstone struct {
	Kind cms.Kind
	ID   string
	Rev  int64
	Time time.Time
	User string
}

// RecordRevision is a record as it was at one revision: Record, or, for
// a record deleted since, Tombstone (and Record nil).
type RecordRevision struct {
	Record    cms.Record
	Tombstone *Tombstone
}

// wireRevision is a revision as the API writes it.
type wireRevision struct {
	Rev     int64    `json:"rev"`
	Time    string   `json:"time"`
	User    string   `json:"user"`
	Op      string   `json:"op"`
	Changed []string `json:"changed"`
}

// History yields the revisions of the record of kind with id, newest
// first (GET <kind>/{id}/history), asking a page at a time (PageSize of
// Options) and following the answer's next. A record without revisions
// kept (or of another account) yields an *Error 404 (ErrNotFound). A
// failed request yields its error and ends the sequence.
func (c *Client) History(ctx context.Context, kind cms.Kind, id string, opts HistoryOptions) iter.Seq2[cms.Revision, error] {
	if err := checkKind(kind); err != nil {
		return failed[cms.Revision](err)
	}
	if opts.Limit < 0 || opts.After < 0 {
		return failed[cms.Revision](fmt.Errorf("client: HistoryOptions %+v: Limit and After must be 0 or more", opts))
	}
	return paged(opts.Limit, c.pageSize, positiveCursor(opts.After), func(n int, after string) ([]cms.Revision, string, error) {
		q := url.Values{"limit": {strconv.Itoa(n)}}
		if after != "" {
			q.Set("after", after)
		}
		var page struct {
			Revisions []wireRevision `json:"revisions"`
			Next      *int64         `json:"next"`
		}
		path := string(kind) + "/" + url.PathEscape(id) + "/history?" + q.Encode()
		if err := c.call(ctx, &request{method: http.MethodGet, path: path}, http.StatusOK, &page); err != nil {
			return nil, "", err
		}
		revs := make([]cms.Revision, len(page.Revisions))
		for i, w := range page.Revisions {
			t, err := c.parseTime(w.Time)
			if err != nil {
				return nil, "", fmt.Errorf("client: revision %d of %s %s: %w", w.Rev, kind, id, err)
			}
			revs[i] = cms.Revision{Rev: w.Rev, Time: t, User: w.User, Op: cms.ChangeOp(w.Op), Changed: w.Changed}
		}
		return revs, positiveCursor(deref(page.Next)), nil
	})
}

// Revision reads the record of kind with id as it was at rev (GET
// <kind>/{id}/history/{rev}): the record, decoded as Get decodes it
// (assignment lists and timeLastUpdate of then), or for a record deleted
// since its Tombstone. No such revision kept is an *Error 404
// (ErrNotFound). To restore it, Upsert the record with IfMatch of the
// record now.
func (c *Client) Revision(ctx context.Context, kind cms.Kind, id string, rev int64) (*RecordRevision, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	if rev < 1 {
		return nil, fmt.Errorf("client: revision %d: revisions start at 1", rev)
	}
	path := string(kind) + "/" + url.PathEscape(id) + "/history/" + strconv.FormatInt(rev, 10)
	res, err := c.open(ctx, &request{method: http.MethodGet, path: path}, http.StatusOK)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("client: reading revision %d of %s %s: %w", rev, kind, id, err)
	}
	// A tombstone has op; no record has a field of that name.
	var tomb struct {
		Op   *string `json:"op"`
		Kind string  `json:"kind"`
		ID   string  `json:"id"`
		Rev  int64   `json:"rev"`
		Time string  `json:"time"`
		User string  `json:"user"`
	}
	if err := json.Unmarshal(raw, &tomb); err != nil {
		return nil, fmt.Errorf("client: decoding revision %d of %s %s: %w", rev, kind, id, err)
	}
	if tomb.Op != nil {
		t, err := c.parseTime(tomb.Time)
		if err != nil {
			return nil, fmt.Errorf("client: tombstone of %s %s: %w", kind, id, err)
		}
		return &RecordRevision{Tombstone: &Tombstone{Kind: cms.Kind(tomb.Kind), ID: tomb.ID, Rev: tomb.Rev, Time: t, User: tomb.User}}, nil
	}
	codec, err := c.codec()
	if err != nil {
		return nil, err
	}
	rec := cms.NewRecord(kind)
	if err := codec.Decode(raw, rec); err != nil {
		return nil, fmt.Errorf("client: decoding revision %d of %s %s: %w", rev, kind, id, err)
	}
	return &RecordRevision{Record: rec}, nil
}

// parseTime reads a wire timestamp in the service's zone.
func (c *Client) parseTime(s string) (time.Time, error) {
	t, err := time.ParseInLocation(timeLayout, s, c.loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q: %w", s, err)
	}
	return t, nil
}

// parseOptionalTime is parseTime of a timestamp that may be null: the
// zero time then.
func (c *Client) parseOptionalTime(s *string) (time.Time, error) {
	if s == nil {
		return time.Time{}, nil
	}
	return c.parseTime(*s)
}
