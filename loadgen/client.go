package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/bwcms/cms/cms"
)

// apiPrefix is where the server answers the API.
const apiPrefix = "/api/bw/v2"

// client talks to the server with one access token shared by every
// goroutine of the run; a 401 makes it log in again once and retry.
type client struct {
	base, user, password string
	http                 *http.Client

	mu    sync.Mutex
	token string
}

func newClient(base, user, password string, conns int) *client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = conns + 2 // keep one connection per client alive
	return &client{base: base, user: user, password: password, http: &http.Client{Transport: t}}
}

// login gets an access token with the form fields u and p.
func (c *client) login(ctx context.Context) error {
	form := url.Values{"u": {c.user}, "p": {c.password}}.Encode()
	req, err := http.NewRequestWithContext(ctx, "POST", c.base+apiPrefix+"/auth", strings.NewReader(form))
	if err != nil {
		return fmt.Errorf("login: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := c.http.Do(req)
	if err != nil {
		return unreachable(c.base, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return unreachable(c.base, err)
	}
	if res.StatusCode != http.StatusOK {
		msg := fmt.Sprintf("login failed: %s for user %q", res.Status, c.user)
		if after := res.Header.Get("Retry-After"); after != "" {
			msg += ", retry after " + after + " s"
		}
		return fmt.Errorf("%s: %s", msg, head(body))
	}
	var answer struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(body, &answer); err != nil || answer.AccessToken == "" {
		return fmt.Errorf("login: no access_token in the answer: %s", head(body))
	}
	c.mu.Lock()
	c.token = answer.AccessToken
	c.mu.Unlock()
	return nil
}

// unreachable describes a request that got no answer.
func unreachable(base string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("server unreachable at %s: %w", base, err)
}

func (c *client) currentToken() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.token
}

// relogin logs in again unless another goroutine did since used was
// handed out.
func (c *client) relogin(ctx context.Context, used string) error {
	c.mu.Lock()
	fresh := c.token != used
	c.mu.Unlock()
	if fresh {
		return nil
	}
	return c.login(ctx)
}

// do sends one API request (path under /api/bw/v2) and returns the status
// and the whole answer. On a 401 it logs in again once and retries.
func (c *client) do(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	tok := c.currentToken()
	status, answer, err := c.send(ctx, method, path, body, tok)
	if err != nil || status != http.StatusUnauthorized {
		return status, answer, err
	}
	if err := c.relogin(ctx, tok); err != nil {
		return status, answer, fmt.Errorf("%s %s: 401, and logging in again: %w", method, path, err)
	}
	return c.send(ctx, method, path, body, c.currentToken())
}

func (c *client) send(ctx context.Context, method, path string, body []byte, tok string) (int, []byte, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+apiPrefix+path, r)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, unreachable(c.base, err)
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, answer, unreachable(c.base, err)
	}
	return res.StatusCode, answer, nil
}

// languages are list when given, else those the access token names: the
// languages of the user's account.
func (c *client) languages(list string) (cms.Languages, error) {
	if list != "" {
		langs, err := cms.ParseLanguages(list)
		if err != nil {
			return langs, fmt.Errorf("-langs: %w", err)
		}
		return langs, nil
	}
	parts := strings.Split(c.currentToken(), ".")
	var claims struct {
		Lang  string   `json:"lang"`
		Langs []string `json:"langs"`
	}
	if len(parts) != 3 {
		return cms.Languages{}, errors.New("the access token is not a JWT: give -langs")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err == nil {
		err = json.Unmarshal(payload, &claims)
	}
	if err != nil || claims.Lang == "" {
		return cms.Languages{}, errors.New("the access token names no languages: give -langs")
	}
	return cms.NewLanguages(claims.Lang, claims.Langs...)
}

// head is the start of an answer, for error messages.
func head(body []byte) string {
	const n = 300
	body = bytes.TrimSpace(body)
	if len(body) > n {
		return string(body[:n]) + "..."
	}
	return string(body)
}

// failure describes an unexpected answer.
func failure(status int, body []byte) string {
	return fmt.Sprintf("%d %s", status, head(body))
}
