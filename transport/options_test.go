package transport

import (
	"net/http"
	"testing"
	"time"
)

// TestOptionsRefused: every numeric option refuses a negative value that
// is not its named sentinel, and every refusal names the field.
func TestOptionsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{MaxBody: -1}, "transport: Options.MaxBody is -1: must be 0 (default 8388608) or more"},
		{Options{MaxBatchBody: -1}, "transport: Options.MaxBatchBody is -1: must be 0 (default 67108864) or more"},
		{Options{BodyReadTimeout: -time.Second}, "transport: Options.BodyReadTimeout is -1s: must be 0 (default 10s), transport.NoTimeout or more"},
		{Options{BodyReadChunk: -1}, "transport: Options.BodyReadChunk is -1: must be 0 (default 65536) or more"},
		{Options{WriteTimeout: -time.Second}, "transport: Options.WriteTimeout is -1s: must be 0 (default 30s), transport.NoTimeout or more"},
		{Options{CORSMaxAge: -time.Second}, "transport: Options.CORSMaxAge is -1s: must be 0 (default 10m0s), transport.NoCORSMaxAge or more"},
		{Options{BasePath: "cms"}, `transport: Options.BasePath: base path "cms": want "" or a path such as /cms, starting with / and not ending with one`},
		{Options{CookieSameSite: 9}, "transport: Options.CookieSameSite is 9: not an http.SameSite mode"},
		{Options{AllowedOrigins: []string{"https://App.example.com"}}, `transport: Options.AllowedOrigins: allowed origin "https://App.example.com": write it in lower case, as browsers send it`},
	} {
		c.opts.JWTSecret = testSecret
		h, err := NewHandler(e.svc, &c.opts)
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v, %v; want error %q", h, err, c.want)
		}
	}
}

// TestOptionsSentinels: the named sentinels are accepted and turn their
// deadline off.
func TestOptionsSentinels(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	h, err := NewHandler(e.svc, &Options{JWTSecret: testSecret, BodyReadTimeout: NoTimeout, WriteTimeout: NoTimeout,
		CORSMaxAge: NoCORSMaxAge, CookieSameSite: http.SameSiteLaxMode})
	if err != nil {
		t.Fatal(err)
	}
	if h.bodyTimeout > 0 || h.writeTimeout > 0 {
		t.Errorf("deadlines %v and %v, want off", h.bodyTimeout, h.writeTimeout)
	}
}
