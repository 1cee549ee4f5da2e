package admin

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
	"github.com/bwcms/cms/transport"
)

func TestSignInSetsTheAdminsOwnCookies(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	res := e.post(e.browser(), "/login", url.Values{"u": {"admin"}, "p": {testenv.Password}, "next": {"/admin/resource/"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/resource/" {
		t.Fatalf("status %d location %q", res.StatusCode, res.Header.Get("Location"))
	}
	for _, name := range []string{accessCookie, refreshCookie} {
		c := cookieOf(res, name)
		if c == nil {
			t.Fatalf("no %s cookie", name)
		}
		// Plain HTTP to 127.0.0.1: not Secure, so that the browser keeps it.
		if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/admin/" || c.Secure || c.MaxAge <= 0 {
			t.Errorf("%s: %+v", name, c)
		}
	}
	if cookieOf(res, "bw_rtoken") != nil {
		t.Error("the admin set the API's refresh cookie")
	}
	if got := cookieOf(res, refreshCookie).MaxAge; got != int(cms.DefaultRefreshIdle/time.Second) {
		t.Errorf("refresh cookie Max-Age %d", got)
	}
}

func TestCookiesAreSecureAwayFromLoopback(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/x/y/admin"})
	req := httptest.NewRequest(http.MethodPost, "https://cms.example.com/x/y/admin/login",
		strings.NewReader(url.Values{"u": {"admin"}, "p": {testenv.Password}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	res := rec.Result()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("status %d", res.StatusCode)
	}
	c := cookieOf(res, securePrefix+accessCookie)
	if c == nil || !c.Secure || c.Path != "/x/y/admin/" {
		t.Fatalf("access cookie under HTTPS: %+v", c)
	}
}

func TestWrongPasswordSignsNobodyIn(t *testing.T) {
	e := newEnv(t, envOptions{})
	res := e.post(e.browser(), "/login", url.Values{"u": {"admin"}, "p": {"wrong"}})
	doc := e.page(res, http.StatusUnauthorized)
	if got := strings.TrimSpace(doc.Find(".error-summary").Text()); got != "The username or the password is wrong." {
		t.Errorf("error %q", got)
	}
	if v, _ := doc.Find("input#u").Attr("value"); v != "admin" {
		t.Errorf("username not kept: %q", v)
	}
	if len(res.Cookies()) != 0 {
		t.Errorf("cookies set: %v", res.Cookies())
	}
}

func TestSignInIsThrottledLikeTheAPI(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.browser()
	var res *http.Response
	for i := 0; i < 20; i++ {
		res = e.post(c, "/login", url.Values{"u": {"admin"}, "p": {"wrong"}})
		if res.StatusCode == http.StatusTooManyRequests {
			break
		}
	}
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	// Even the right password waits now, as on the API.
	res = e.post(c, "/login", url.Values{"u": {"admin"}, "p": {testenv.Password}})
	if res.StatusCode != http.StatusTooManyRequests || cookieOf(res, accessCookie) != nil {
		t.Fatalf("right password while throttled: status %d", res.StatusCode)
	}
}

func TestCrossSiteRequestsAreRefused(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	for _, path := range []string{"/login", "/logout"} {
		req, _ := http.NewRequest(http.MethodPost, e.url(path), strings.NewReader("u=admin&p="+testenv.Password))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.Header.Set("Origin", "https://evil.example")
		res := e.do(c, req)
		if res.StatusCode != http.StatusForbidden || len(res.Cookies()) != 0 {
			t.Errorf("%s from another site: status %d, cookies %v", path, res.StatusCode, res.Cookies())
		}
	}
	// The session survived the refused sign-out.
	e.page(e.get(c, "/"), http.StatusOK)
}

func TestVisitorsAreSentToSignIn(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	res := e.get(e.browser(), "/?x=1")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/login?next="+url.QueryEscape("/admin/?x=1") {
		t.Fatalf("status %d location %q", res.StatusCode, res.Header.Get("Location"))
	}
}

func TestNextStaysInsideTheAdmin(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	for _, next := range []string{"https://evil.example/", "//evil.example/admin/", "/elsewhere", "/admin/login", "/admin\\..\\x", ""} {
		res := e.post(e.browser(), "/login", url.Values{"u": {"admin"}, "p": {testenv.Password}, "next": {next}})
		if got := res.Header.Get("Location"); got != "/admin/" {
			t.Errorf("next %q: sent to %q", next, got)
		}
	}
}

func TestSignOutEndsTheSession(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.signIn("editor")
	u, _ := url.Parse(e.url("/"))
	var refresh string
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == refreshCookie {
			refresh = ck.Value
		}
	}
	doc := e.page(e.post(c, "/logout", nil), http.StatusOK)
	if got, _ := doc.Find("[data-signed-out]").Attr("data-signed-out"); got != "editor" {
		t.Errorf("signed-out page names %q", got)
	}
	if _, err := e.svc.Refresh(t.Context(), refresh); cms.ErrorCode(err) != cms.CodeUnauthorized {
		t.Errorf("refresh token after sign-out: %v", err)
	}
	if res := e.get(c, "/"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("after sign-out: status %d", res.StatusCode)
	}
}

func TestSessionRefreshesAndEndsWithItsTokens(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.signIn("admin")
	e.clock.Advance(transport.AccessTokenLifetime + time.Second)
	res := e.get(c, "/")
	e.page(res, http.StatusOK)
	if cookieOf(res, accessCookie) == nil || cookieOf(res, refreshCookie) == nil {
		t.Fatal("an expired access token was not renewed")
	}
	e.clock.Advance(cms.DefaultRefreshIdle + time.Minute)
	if res := e.get(c, "/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("after the refresh token expired: status %d", res.StatusCode)
	}
}

func TestDisabledUserIsSignedOut(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.signIn("editor")
	if err := e.svc.SetDisabled(t.Context(), "editor", true); err != nil {
		t.Fatal(err)
	}
	if res := e.get(c, "/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("disabled user: status %d", res.StatusCode)
	}
}

func TestTokenFollowsAnAddedLanguage(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.signIn("admin")
	if _, err := e.svc.AddLanguage(t.Context(), "acme", "fr"); err != nil {
		t.Fatal(err)
	}
	res := e.get(c, "/")
	doc := e.page(res, http.StatusOK)
	if !strings.Contains(doc.Find("main p").First().Text(), "fr") {
		t.Error("the overview does not show the added language")
	}
	ck := cookieOf(res, accessCookie)
	if ck == nil {
		t.Fatal("no new access token after the language was added")
	}
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(ck.Value, claims); err != nil {
		t.Fatal(err)
	}
	langs, _ := claims["langs"].([]any)
	if len(langs) != 4 || langs[3] != "fr" {
		t.Errorf("token langs %v", claims["langs"])
	}
}

func TestPageHeaders(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("admin")
	res := e.get(c, "/")
	doc := e.page(res, http.StatusOK)
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP allows inline code: %q", csp)
	}
	if res.Header.Get("Cache-Control") != "no-store" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("headers %v", res.Header)
	}
	if n := doc.Find("script:not([src]):not([type='application/json']), style, [style]").Length(); n != 0 {
		t.Errorf("%d inline scripts or styles", n)
	}
	href, _ := doc.Find("link[rel=stylesheet]").Attr("href")
	asset := e.get(c, strings.TrimPrefix(href, "/admin"))
	if asset.StatusCode != http.StatusOK || asset.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
		!strings.HasPrefix(asset.Header.Get("Content-Type"), "text/css") {
		t.Errorf("asset %s: %d %v", href, asset.StatusCode, asset.Header)
	}
	if res := e.get(c, "/static/css/admin.0000000000000000.css"); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown hash: status %d", res.StatusCode)
	}
}

// TestNextWithControlCharactersStaysInside: a browser drops tabs and line
// breaks from a Location, so "/\t/evil.example" would become
// "//evil.example", another site. Mounted at the root, such a next sends
// the user to the overview instead.
func TestNextWithControlCharactersStaysInside(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{"", "/admin"} {
		e := newEnv(t, envOptions{prefix: prefix})
		for _, next := range []string{"/\t/evil.example/", "/\n/evil.example/", "/\r/evil.example/", "/\x00/evil.example/",
			prefix + "/\t/x", "/ /evil.example/", "/%09/evil.example/"} {
			form := url.Values{"u": {"admin"}, "p": {testenv.Password}, "next": {next}}
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1"+prefix+"/login", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			rec := httptest.NewRecorder()
			e.h.ServeHTTP(rec, req)
			loc := rec.Header().Get("Location")
			if rec.Code != http.StatusSeeOther {
				t.Fatalf("prefix %q next %q: status %d", prefix, next, rec.Code)
			}
			if strings.ContainsFunc(loc, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Errorf("prefix %q next %q: Location %q holds a control character", prefix, next, loc)
			}
			// What a browser makes of it: tabs and line breaks removed.
			cleaned := strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(loc)
			if strings.HasPrefix(cleaned, "//") || !strings.HasPrefix(cleaned, prefix+"/") {
				t.Errorf("prefix %q next %q: sent to %q", prefix, next, loc)
			}
		}
		// A plain address inside the admin, with its query, still works.
		inside := prefix + "/resource/?q=lago+di"
		res := e.post(e.browser(), "/login", url.Values{"u": {"admin"}, "p": {testenv.Password}, "next": {inside}})
		if got := res.Header.Get("Location"); got != inside {
			t.Errorf("prefix %q: next %q sent to %q", prefix, inside, got)
		}
	}
}

// TestSignOutAfterAPauseForgetsTheUsersDrafts: signing out after the
// access token expired (a quarter of an hour without a request) still
// names the user, so that the page removes their drafts from the browser,
// and ends the session.
func TestSignOutAfterAPauseForgetsTheUsersDrafts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	c := e.signIn("editor")
	u, _ := url.Parse(e.url("/"))
	var refresh string
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == refreshCookie {
			refresh = ck.Value
		}
	}
	e.clock.Advance(transport.AccessTokenLifetime + time.Minute)
	doc := e.page(e.post(c, "/logout", nil), http.StatusOK)
	if got, _ := doc.Find("[data-signed-out]").Attr("data-signed-out"); got != "editor" {
		t.Errorf("signed-out page names %q, want editor", got)
	}
	e.clock.Advance(time.Minute) // past the grace of the token it held
	if _, err := e.svc.Refresh(t.Context(), refresh); cms.ErrorCode(err) != cms.CodeUnauthorized {
		t.Errorf("refresh token after sign-out: %v", err)
	}
	if res := e.get(c, "/"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("after sign-out: status %d", res.StatusCode)
	}
}

// TestTwoTabsRefreshingTogetherStaySignedIn: two tabs share the cookies;
// when the access token has expired both refresh with the same refresh
// token at once. The second is a replay inside the service's grace: it
// gets a sibling token, and neither tab is signed out, then or after.
func TestTwoTabsRefreshingTogetherStaySignedIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{prefix: "/admin"})
	tab1 := e.signIn("editor")
	e.clock.Advance(transport.AccessTokenLifetime + time.Second)
	u, _ := url.Parse(e.url("/"))
	tab2 := e.browser() // the same cookies, sent before tab 1's answer came
	tab2.Jar.SetCookies(u, tab1.Jar.Cookies(u))
	e.page(e.get(tab1, "/"), http.StatusOK)
	res := e.get(tab2, "/")
	e.page(res, http.StatusOK)
	if cookieOf(res, refreshCookie) == nil {
		t.Fatal("the replay got no refresh token")
	}
	// The browser keeps the last cookies it was given (tab 2's): the
	// session goes on with them, and with the next refresh.
	e.page(e.get(tab2, "/resource/"), http.StatusOK)
	e.clock.Advance(transport.AccessTokenLifetime + time.Second)
	e.page(e.get(tab2, "/"), http.StatusOK)
}

// TestScriptsGetJSONWhenTheSessionEnded: a script's request (Accept:
// application/json) without a session gets a 401 in JSON, not the
// sign-in page's HTML.
func TestScriptsGetJSONWhenTheSessionEnded(t *testing.T) {
	e := newEnv(t, envOptions{prefix: "/admin"})
	req, _ := http.NewRequest(http.MethodGet, e.url("/resource/?q=duomo"), nil)
	req.Header.Set("Accept", "application/json")
	res := e.do(e.browser(), req)
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusUnauthorized || res.Header.Get("Content-Type") != "application/json" ||
		strings.TrimSpace(string(body)) != `{"fail":"Your session has ended. Sign in again."}` {
		t.Errorf("status %d, %s: %s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
}
