package client

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

// ErrCursorExpired is matched (errors.Is) by the error Changes ends with
// when its cursor is older than what the service keeps (410): read
// everything again (After "") and resume from there.
var ErrCursorExpired = errors.New("client: cursor expired")

// DefaultFeedPoll is the wait between two polls of a followed feed at
// the present.
const DefaultFeedPoll = 2 * time.Second

// ChangesOptions choose what Changes yields. The zero value yields every
// change kept, of every kind the user may read, and stops at the
// present.
type ChangesOptions struct {
	// After is the cursor to read after: a FeedChange.Seq seen before,
	// or "now" for the present. Default "": from the oldest change kept.
	After string
	// Kinds keeps the changes of these kinds. Default: every kind the
	// user may read.
	Kinds []cms.Kind
	// Limit is how many changes each request asks for, 1 to MaxPageSize.
	// Default PageSize of Options.
	Limit int
	// Follow keeps reading at the present: after a page that is not
	// full, Changes waits Poll and asks again, until ctx ends. Without
	// it the sequence ends at the first page that is not full.
	Follow bool
	// Poll is the wait between two polls at the present. Default
	// DefaultFeedPoll (2 s).
	Poll time.Duration
}

// wireChange is a change as the API writes it.
type wireChange struct {
	Seq  string `json:"seq"`
	Kind string `json:"kind"`
	ID   string `json:"id"`
	Op   string `json:"op"`
	Rev  int64  `json:"rev"`
	Time string `json:"time"`
}

// Changes yields the changes feed of the account (GET changes) in commit
// order, page after page, following each answer's next: every change
// once, deletions included. Resume later with After set to the Seq of the
// last change handled. A failed request yields its error and ends the
// sequence: a cursor no longer kept yields an *Error 410 that matches
// ErrCursorExpired; with Follow, the end of ctx yields ctx's error.
func (c *Client) Changes(ctx context.Context, opts ChangesOptions) iter.Seq2[cms.FeedChange, error] {
	return func(yield func(cms.FeedChange, error) bool) {
		if err := opts.check(); err != nil {
			yield(cms.FeedChange{}, err)
			return
		}
		limit, poll := opts.Limit, opts.Poll
		if limit == 0 {
			limit = c.pageSize
		}
		if poll == 0 {
			poll = DefaultFeedPoll
		}
		q := url.Values{"limit": {strconv.Itoa(limit)}}
		if len(opts.Kinds) > 0 {
			names := make([]string, len(opts.Kinds))
			for i, k := range opts.Kinds {
				names[i] = string(k)
			}
			q.Set("kinds", strings.Join(names, ","))
		}
		after := opts.After
		for {
			if after != "" {
				q.Set("after", after)
			}
			var page struct {
				Changes []wireChange `json:"changes"`
				Next    string       `json:"next"`
			}
			if err := c.call(ctx, &request{method: http.MethodGet, path: "changes?" + q.Encode()}, http.StatusOK, &page); err != nil {
				yield(cms.FeedChange{}, err)
				return
			}
			for _, w := range page.Changes {
				t, err := c.parseTime(w.Time)
				if err != nil {
					yield(cms.FeedChange{}, fmt.Errorf("client: change %s: %w", w.Seq, err))
					return
				}
				ch := cms.FeedChange{Seq: w.Seq, Kind: cms.Kind(w.Kind), ID: w.ID, Op: cms.ChangeOp(w.Op), Rev: w.Rev, Time: t}
				if !yield(ch, nil) {
					return
				}
			}
			if page.Next != "" {
				after = page.Next
			} else if n := len(page.Changes); n > 0 {
				after = page.Changes[n-1].Seq
			}
			if len(page.Changes) >= limit {
				continue
			}
			if !opts.Follow {
				return
			}
			timer := time.NewTimer(poll)
			select {
			case <-ctx.Done():
				timer.Stop()
				yield(cms.FeedChange{}, ctx.Err())
				return
			case <-timer.C:
			}
		}
	}
}

// check refuses what the API would answer 400.
func (o ChangesOptions) check() error {
	if o.Limit < 0 || o.Limit > MaxPageSize {
		return fmt.Errorf("client: ChangesOptions.Limit is %d: must be 0 (the default) to %d", o.Limit, MaxPageSize)
	}
	if o.Poll < 0 {
		return fmt.Errorf("client: ChangesOptions.Poll is %v: must be 0 (the default) or more", o.Poll)
	}
	if o.After != "" && o.After != "now" {
		if _, err := cms.ParseChangeCursor(o.After); err != nil {
			return fmt.Errorf("client: ChangesOptions.After %q is not a cursor", o.After)
		}
	}
	for _, k := range o.Kinds {
		if err := checkKind(k); err != nil {
			return err
		}
	}
	return nil
}
