package client

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/bwcms/cms/cms"
)

// AuditOptions choose the entries Audit yields. The zero value yields
// the whole list, newest first.
type AuditOptions struct {
	// Limit is the most entries yielded in all. Default 0: no limit.
	Limit int
	// Before starts below the entry of that ID. Default 0: from the
	// newest.
	Before int64
}

// wireAudit is an audit entry as the API writes it.
type wireAudit struct {
	ID     int64  `json:"id"`
	Time   string `json:"time"`
	User   string `json:"user"`
	Action string `json:"action"`
	Target string `json:"target"`
	Detail string `json:"detail"`
}

// Audit yields the account's audit list, newest first (GET audit; the
// user needs user:read), a page at a time (PageSize of Options). Account
// is left empty in each entry: the caller's. A failed request yields its
// error and ends the sequence.
func (c *Client) Audit(ctx context.Context, opts AuditOptions) iter.Seq2[cms.AuditEntry, error] {
	if opts.Limit < 0 || opts.Before < 0 {
		return failed[cms.AuditEntry](fmt.Errorf("client: AuditOptions %+v: Limit and Before must be 0 or more", opts))
	}
	return paged(opts.Limit, c.pageSize, positiveCursor(opts.Before), func(n int, before string) ([]cms.AuditEntry, string, error) {
		q := url.Values{"limit": {strconv.Itoa(n)}}
		if before != "" {
			q.Set("before", before)
		}
		var page struct {
			Entries []wireAudit `json:"entries"`
			Next    *int64      `json:"next"`
		}
		if err := c.call(ctx, &request{method: http.MethodGet, path: "audit?" + q.Encode()}, http.StatusOK, &page); err != nil {
			return nil, "", err
		}
		entries := make([]cms.AuditEntry, len(page.Entries))
		for i, w := range page.Entries {
			t, err := c.parseTime(w.Time)
			if err != nil {
				return nil, "", fmt.Errorf("client: audit entry %d: %w", w.ID, err)
			}
			entries[i] = cms.AuditEntry{ID: w.ID, Time: t, User: w.User, Action: w.Action, Target: w.Target, Detail: w.Detail}
		}
		return entries, positiveCursor(deref(page.Next)), nil
	})
}
