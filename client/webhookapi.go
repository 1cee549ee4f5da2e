package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/bwcms/cms/cms"
)

// wireWebhook is a webhook as the API writes it.
type wireWebhook struct {
	ID          string   `json:"id"`
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	User        string   `json:"user"`
	Enabled     bool     `json:"enabled"`
	Disabled    string   `json:"disabled"`
	FailedInRow int      `json:"failedInRow"`
	Created     string   `json:"created"`
	Updated     string   `json:"updated"`
	Secret      string   `json:"secret"`
}

// webhook converts w (Account is left empty: the caller's).
func (c *Client) webhook(w wireWebhook) (*cms.Webhook, error) {
	created, err := c.parseTime(w.Created)
	if err != nil {
		return nil, fmt.Errorf("client: webhook %s: created: %w", w.ID, err)
	}
	updated, err := c.parseTime(w.Updated)
	if err != nil {
		return nil, fmt.Errorf("client: webhook %s: updated: %w", w.ID, err)
	}
	return &cms.Webhook{ID: w.ID, URL: w.URL, Events: w.Events, User: w.User, Enabled: w.Enabled, Disabled: w.Disabled,
		FailedInRow: w.FailedInRow, Created: created, Updated: updated}, nil
}

// webhookBody is the JSON of in: the members it sets.
func webhookBody(in cms.WebhookInput) ([]byte, error) {
	body := struct {
		URL     *string  `json:"url,omitempty"`
		Events  []string `json:"events,omitempty"`
		Secret  *string  `json:"secret,omitempty"`
		Enabled *bool    `json:"enabled,omitempty"`
	}{in.URL, in.Events, in.Secret, in.Enabled}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	return b, nil
}

// CreateWebhook makes a webhook of the account acting for the user
// (POST webhook): in.URL is required, in.Events default to "*". Without
// in.Secret the service makes one: it is returned here and never again
// (keep it to verify the messages); with one, secret is "". A refused
// body is an *Error 409 whose Fail says what is wrong.
func (c *Client) CreateWebhook(ctx context.Context, in cms.WebhookInput) (wh *cms.Webhook, secret string, err error) {
	body, err := webhookBody(in)
	if err != nil {
		return nil, "", err
	}
	var w wireWebhook
	req := &request{method: http.MethodPost, path: "webhook", body: body, contentType: contentJSON}
	if err := c.call(ctx, req, http.StatusCreated, &w); err != nil {
		return nil, "", err
	}
	if wh, err = c.webhook(w); err != nil {
		return nil, "", err
	}
	return wh, w.Secret, nil
}

// Webhooks lists the account's webhooks, oldest first (GET webhook).
func (c *Client) Webhooks(ctx context.Context) ([]cms.Webhook, error) {
	var list struct {
		Webhooks []wireWebhook `json:"webhooks"`
	}
	if err := c.call(ctx, &request{method: http.MethodGet, path: "webhook"}, http.StatusOK, &list); err != nil {
		return nil, err
	}
	out := make([]cms.Webhook, 0, len(list.Webhooks))
	for _, w := range list.Webhooks {
		wh, err := c.webhook(w)
		if err != nil {
			return nil, err
		}
		out = append(out, *wh)
	}
	return out, nil
}

// Webhook reads one webhook of the account (GET webhook/{id}); none of
// that id is an *Error 404 (ErrNotFound).
func (c *Client) Webhook(ctx context.Context, id string) (*cms.Webhook, error) {
	var w wireWebhook
	if err := c.call(ctx, &request{method: http.MethodGet, path: "webhook/" + url.PathEscape(id)}, http.StatusOK, &w); err != nil {
		return nil, err
	}
	return c.webhook(w)
}

// UpdateWebhook changes what in sets of a webhook (POST webhook/{id}): a
// new Secret keeps the old one signing beside it for 24 hours; Enabled
// true clears the failures. It returns the webhook as it is now.
func (c *Client) UpdateWebhook(ctx context.Context, id string, in cms.WebhookInput) (*cms.Webhook, error) {
	body, err := webhookBody(in)
	if err != nil {
		return nil, err
	}
	var w wireWebhook
	req := &request{method: http.MethodPost, path: "webhook/" + url.PathEscape(id), body: body, contentType: contentJSON}
	if err := c.call(ctx, req, http.StatusOK, &w); err != nil {
		return nil, err
	}
	return c.webhook(w)
}

// DeleteWebhook removes a webhook and its delivery log (DELETE
// webhook/{id}); none of that id is an *Error 404.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	var body struct {
		Count int `json:"count"`
	}
	return c.call(ctx, &request{method: http.MethodDelete, path: "webhook/" + url.PathEscape(id)}, http.StatusAccepted, &body)
}

// DeliveryOptions choose the deliveries Deliveries yields. The zero
// value yields the whole log, newest first.
type DeliveryOptions struct {
	// Status keeps the deliveries in that state. Default: every state.
	Status cms.DeliveryStatus
	// Limit is the most deliveries yielded in all. Default 0: no limit.
	Limit int
	// After starts after the delivery of that id. Default "": from the
	// newest.
	After string
}

// wireDelivery is a delivery as the API writes it.
type wireDelivery struct {
	ID          string  `json:"id"`
	Seq         string  `json:"seq"`
	Kind        string  `json:"kind"`
	RecordID    string  `json:"recordId"`
	Op          string  `json:"op"`
	Rev         int64   `json:"rev"`
	Status      string  `json:"status"`
	Attempts    int     `json:"attempts"`
	NextAttempt *string `json:"nextAttempt"`
	LastStatus  int     `json:"lastStatus"`
	LastError   string  `json:"lastError"`
	Response    string  `json:"response"`
	Created     string  `json:"created"`
	Finished    *string `json:"finished"`
}

// delivery converts w of the webhook webhookID; times not given are
// zero. The change's Time is not in the log: it stays zero.
func (c *Client) delivery(webhookID string, w wireDelivery) (*cms.Delivery, error) {
	created, err := c.parseTime(w.Created)
	if err != nil {
		return nil, fmt.Errorf("client: delivery %s: created: %w", w.ID, err)
	}
	next, err := c.parseOptionalTime(w.NextAttempt)
	if err != nil {
		return nil, fmt.Errorf("client: delivery %s: nextAttempt: %w", w.ID, err)
	}
	finished, err := c.parseOptionalTime(w.Finished)
	if err != nil {
		return nil, fmt.Errorf("client: delivery %s: finished: %w", w.ID, err)
	}
	return &cms.Delivery{ID: w.ID, WebhookID: webhookID,
		Change: cms.FeedChange{Seq: w.Seq, Kind: cms.Kind(w.Kind), ID: w.RecordID, Op: cms.ChangeOp(w.Op), Rev: w.Rev},
		Status: cms.DeliveryStatus(w.Status), Attempts: w.Attempts, NextAttempt: next, LastStatus: w.LastStatus,
		LastError: w.LastError, Response: w.Response, Created: created, Finished: finished}, nil
}

// Deliveries yields a webhook's delivery log, newest first (GET
// webhook/{id}/deliveries), a page at a time (PageSize of Options). No
// such webhook yields an *Error 404. A failed request yields its error
// and ends the sequence.
func (c *Client) Deliveries(ctx context.Context, webhookID string, opts DeliveryOptions) iter.Seq2[cms.Delivery, error] {
	if opts.Limit < 0 {
		return failed[cms.Delivery](fmt.Errorf("client: DeliveryOptions.Limit is %d: must be 0 (no limit) or more", opts.Limit))
	}
	return paged(opts.Limit, c.pageSize, opts.After, func(n int, after string) ([]cms.Delivery, string, error) {
		q := url.Values{"limit": {strconv.Itoa(n)}}
		if after != "" {
			q.Set("after", after)
		}
		if opts.Status != "" {
			q.Set("status", string(opts.Status))
		}
		var page struct {
			Deliveries []wireDelivery `json:"deliveries"`
			Next       *string        `json:"next"`
		}
		path := "webhook/" + url.PathEscape(webhookID) + "/deliveries?" + q.Encode()
		if err := c.call(ctx, &request{method: http.MethodGet, path: path}, http.StatusOK, &page); err != nil {
			return nil, "", err
		}
		deliveries := make([]cms.Delivery, len(page.Deliveries))
		for i, w := range page.Deliveries {
			d, err := c.delivery(webhookID, w)
			if err != nil {
				return nil, "", err
			}
			deliveries[i] = *d
		}
		return deliveries, deref(page.Next), nil
	})
}

// RetryDelivery sends a delivery again (POST
// webhook/{id}/deliveries/{delivery}/retry): a failed one becomes pending,
// due now, its attempts counted from 0. It returns the delivery as it is
// now. No such webhook or delivery is an *Error 404.
func (c *Client) RetryDelivery(ctx context.Context, webhookID, deliveryID string) (*cms.Delivery, error) {
	var w wireDelivery
	path := "webhook/" + url.PathEscape(webhookID) + "/deliveries/" + url.PathEscape(deliveryID) + "/retry"
	if err := c.call(ctx, &request{method: http.MethodPost, path: path}, http.StatusAccepted, &w); err != nil {
		return nil, err
	}
	return c.delivery(webhookID, w)
}
