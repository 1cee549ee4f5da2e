package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bwcms/cms/cms"
)

// Root is the API's path under the base URL.
const Root = "/api/bw/v2"

// MaxPageSize is the largest page (and /limit) the API answers.
const MaxPageSize = 1000

// Options configure a Client. The zero value (or nil) gives the defaults
// each field names. A negative number is refused by New with an error
// naming the field.
type Options struct {
	// HTTPClient sends the requests. Default http.DefaultClient. It needs
	// no cookie jar: the refresh token goes as a form field.
	HTTPClient *http.Client
	// Logger hears refreshes and their failures, at Debug. Default:
	// discard.
	Logger *slog.Logger
	// PageSize is how many records each page of List asks for, 1 to
	// MaxPageSize (1000). Default DefaultPageSize (100).
	PageSize int
	// PollInterval is the first wait between two status queries of
	// WaitBatch; each wait doubles, up to MaxPollInterval. Defaults
	// DefaultPollInterval (100 ms) and DefaultMaxPollInterval (2 s).
	PollInterval    time.Duration
	MaxPollInterval time.Duration
	// Location is the service's time zone (its cms.Options.Location), in
	// which UpdatedSince writes its time. Default a fixed UTC+1, the
	// service's default.
	Location *time.Location
	// RefreshTimeout bounds one refresh. A refresh runs to its end even
	// when the call that started it is cancelled, since other calls wait
	// for it and the server has spent the old token once it answers.
	// Default DefaultRefreshTimeout (30 s).
	RefreshTimeout time.Duration
}

// Client calls one API. It is safe for concurrent use.
type Client struct {
	// api is the base URL with Root and "/".
	api            string
	http           *http.Client
	log            *slog.Logger
	pageSize       int
	poll, maxPoll  time.Duration
	loc            *time.Location
	refreshTimeout time.Duration

	mu sync.Mutex
	// sess is the current session; its access token is "" when there is
	// none (before Login, after Logout or a refused refresh).
	sess session
	// gen counts the sessions set, so a call that failed with one token
	// knows whether another call has already replaced it.
	gen uint64
	// flight is the refresh under way, shared by every call that needs it.
	flight *refreshFlight
	// codecs are the codecs built, by language configuration.
	codecs map[string]*cms.Codec
}

// session is one pair of tokens and what the access token says.
type session struct {
	access, refresh string
	claims          Claims
	codec           *cms.Codec
	// expires is when the access token expires by this machine's clock:
	// for tokens just received, their lifetime from now, so a server clock
	// set apart from ours misleads nothing.
	expires time.Time
}

// refreshFlight is one refresh; err is set before done is closed.
type refreshFlight struct {
	done chan struct{}
	err  error
}

// New returns a client of the API at baseURL: the scheme, host and the
// host's prefix before /api/bw/v2, if any ("https://cms.example.com",
// "http://127.0.0.1:8080/cms").
func New(baseURL string, opts *Options) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("client: base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("client: base URL %q: want http(s)://host[:port][/prefix]", baseURL)
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	o, err = o.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Client{api: strings.TrimRight(u.String(), "/") + Root + "/", http: o.HTTPClient, log: o.Logger,
		pageSize: o.PageSize, poll: o.PollInterval, maxPoll: max(o.MaxPollInterval, o.PollInterval), loc: o.Location,
		refreshTimeout: o.RefreshTimeout, codecs: make(map[string]*cms.Codec)}, nil
}

// request is one call of the API.
type request struct {
	method string
	// path is under the API's root, escaped.
	path string
	body []byte
	// stream, when set, is the body instead, sent as it is read (an
	// upload); do must not send such a request, since it cannot resend it.
	stream      io.Reader
	contentType string
	header      http.Header
}

const contentJSON = "application/json"

// send sends req once, with the access token when it is not "".
func (c *Client) send(ctx context.Context, req *request, token string) (*http.Response, error) {
	var body io.Reader
	switch {
	case req.stream != nil:
		body = req.stream
	case req.body != nil:
		body = bytes.NewReader(req.body)
	}
	r, err := http.NewRequestWithContext(ctx, req.method, c.api+req.path, body)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	for name, values := range req.header {
		r.Header[name] = values
	}
	if req.contentType != "" {
		r.Header.Set("Content-Type", req.contentType)
	}
	r.Header.Set("Accept", contentJSON)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := c.http.Do(r)
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: %w", req.method, req.path, err)
	}
	return res, nil
}

// do sends req with the access token. Answered 401 or 403, it refreshes
// once (or takes the tokens another call refreshed meanwhile) and sends
// req again; the answer of that is the answer. The caller closes the
// body of the answer it gets.
func (c *Client) do(ctx context.Context, req *request) (*http.Response, error) {
	s, gen, err := c.current()
	if err != nil {
		return nil, err
	}
	res, err := c.send(ctx, req, s.access)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusUnauthorized && res.StatusCode != http.StatusForbidden {
		return res, nil
	}
	io.Copy(io.Discard, io.LimitReader(res.Body, maxErrorBody))
	res.Body.Close()
	if err := c.refresh(ctx, gen); err != nil {
		return nil, err
	}
	if s, _, err = c.current(); err != nil {
		return nil, err
	}
	return c.send(ctx, req, s.access)
}

// open sends req (as do does) and returns the answer when its status is
// want; any other is the *Error. The caller closes the body.
func (c *Client) open(ctx context.Context, req *request, want int) (*http.Response, error) {
	res, err := c.do(ctx, req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != want {
		return nil, failure(res)
	}
	return res, nil
}

// call sends req (as do does) and reads its JSON answer of status want
// into v.
func (c *Client) call(ctx context.Context, req *request, want int, v any) error {
	res, err := c.do(ctx, req)
	if err != nil {
		return err
	}
	return readJSON(res, want, v)
}

// readJSON reads an answer of status want into v, any other status into
// the *Error, and closes it.
func readJSON(res *http.Response, want int, v any) error {
	if res.StatusCode != want {
		return failure(res)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		return fmt.Errorf("client: reading the answer: %w", err)
	}
	return nil
}

// current returns the session and its generation; ErrLoginRequired when
// there is none.
func (c *Client) current() (session, uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess.access == "" {
		return session{}, c.gen, loginRequired("no session", nil)
	}
	return c.sess, c.gen, nil
}

// codec is the codec of the current session's languages.
func (c *Client) codec() (*cms.Codec, error) {
	s, _, err := c.current()
	if err != nil {
		return nil, err
	}
	return s.codec, nil
}

// refresh replaces the session of generation gen by a refreshed one. When
// the session is already newer (another call refreshed, or a Login came)
// it does nothing; when a refresh is under way it waits for that one. The
// refresh itself runs apart from ctx, under RefreshTimeout: its answer
// spends the old token, so it must be taken in whoever waits.
func (c *Client) refresh(ctx context.Context, gen uint64) error {
	c.mu.Lock()
	if c.gen != gen {
		c.mu.Unlock()
		return nil
	}
	f := c.flight
	if f == nil {
		if c.sess.refresh == "" {
			c.mu.Unlock()
			return loginRequired("no refresh token", nil)
		}
		f = &refreshFlight{done: make(chan struct{})}
		c.flight = f
		go c.runRefresh(context.WithoutCancel(ctx), f, c.sess.refresh)
	}
	c.mu.Unlock()
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runRefresh performs the refresh of flight f with token.
func (c *Client) runRefresh(ctx context.Context, f *refreshFlight, token string) {
	ctx, cancel := context.WithTimeout(ctx, c.refreshTimeout)
	defer cancel()
	s, err := c.postTokens(ctx, "auth/refresh", url.Values{"refresh_token": {token}})
	var apiErr *Error
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusUnauthorized {
		err = loginRequired("refresh refused", err)
	}
	c.mu.Lock()
	switch {
	case c.sess.refresh != token:
		// A Login or Logout came meanwhile: it wins.
	case err == nil:
		c.setLocked(s)
	case errors.Is(err, ErrLoginRequired):
		c.setLocked(session{})
	}
	c.flight = nil
	f.err = err
	c.mu.Unlock()
	close(f.done)
	if err != nil {
		c.log.DebugContext(ctx, "client: refresh failed", "err", err)
	} else {
		c.log.DebugContext(ctx, "client: refreshed", "user", s.claims.Subject, "expires", s.claims.Expires)
	}
}

// setLocked makes s the session; c.mu is held.
func (c *Client) setLocked(s session) {
	c.sess = s
	c.gen++
}
