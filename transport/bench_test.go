package transport

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkVerifyTokenCold is the full check of a token not seen before:
// signature, claims, registered claims.
func BenchmarkVerifyTokenCold(b *testing.B) {
	e := newEnv(b, envOptions{})
	tok := e.login("admin").AccessToken
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.h.tokens.verify(tok); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyToken is the token check every request pays once the
// token has been seen (the verified-token cache).
func BenchmarkVerifyToken(b *testing.B) {
	e := newEnv(b, envOptions{})
	tok := e.login("admin").AccessToken
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.h.tokens.parse(tok); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuthenticatedRequest is the whole path of an authenticated
// request that does nothing else: routing, token, user check, answer
// (GET /api/bw/v2/auth).
func BenchmarkAuthenticatedRequest(b *testing.B) {
	e := newEnv(b, envOptions{})
	tok := e.login("admin").AccessToken
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		r := httptest.NewRequest(http.MethodGet, "/api/bw/v2/auth", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		for pb.Next() {
			w := httptest.NewRecorder()
			e.h.ServeHTTP(w, r)
			if w.Code != 200 {
				b.Fatal(w.Code)
			}
		}
	})
}
