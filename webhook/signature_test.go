package webhook

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test vector of the Standard Webhooks reference libraries
// (standard-webhooks/standard-webhooks, libraries/*: a fixed secret,
// message id, timestamp and payload). Checked independently:
//
//	key=$(printf MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw | base64 -d | xxd -p -c 256)
//	printf 'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}' |
//	  openssl dgst -sha256 -mac HMAC -macopt hexkey:$key -binary | base64
//	g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=
const (
	vectorSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTimestamp = 1614265330
	vectorBody      = `{"test": 2432232314}`
	vectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func vectorHeader(sig string) http.Header {
	h := http.Header{}
	h.Set(HeaderID, vectorID)
	h.Set(HeaderTimestamp, strconv.Itoa(vectorTimestamp))
	h.Set(HeaderSignature, sig)
	return h
}

var vectorTime = time.Unix(vectorTimestamp, 0)

func TestSignVector(t *testing.T) {
	t.Parallel()
	got, err := Sign(vectorSecret, vectorID, vectorTime, []byte(vectorBody))
	if err != nil {
		t.Fatal(err)
	}
	if got != vectorSignature {
		t.Fatalf("Sign = %q, want %q", got, vectorSignature)
	}
	// The prefix is optional, as in the reference libraries.
	got, err = Sign(strings.TrimPrefix(vectorSecret, SecretPrefix), vectorID, vectorTime, []byte(vectorBody))
	if err != nil || got != vectorSignature {
		t.Fatalf("Sign without prefix = %q, %v", got, err)
	}
}

func TestVerifyVector(t *testing.T) {
	t.Parallel()
	err := Verify([]string{vectorSecret}, vectorHeader(vectorSignature), []byte(vectorBody), vectorTime, 0)
	if err != nil {
		t.Fatalf("Verify of the spec's vector: %v", err)
	}
}

func TestVerifyRejects(t *testing.T) {
	t.Parallel()
	other, err := NewSecret(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(vectorBody)
	tests := []struct {
		name    string
		secrets []string
		header  func(h http.Header)
		body    []byte
		now     time.Time
		want    error
	}{
		{name: "body changed", body: []byte(`{"test": 2432232315}`), want: ErrBadSignature},
		{name: "body empty", body: []byte{}, want: ErrBadSignature},
		{name: "id changed", header: func(h http.Header) { h.Set(HeaderID, vectorID+"x") }, want: ErrBadSignature},
		{name: "timestamp changed", header: func(h http.Header) { h.Set(HeaderTimestamp, strconv.Itoa(vectorTimestamp+1)) },
			now: time.Unix(vectorTimestamp+1, 0), want: ErrBadSignature},
		{name: "wrong secret", secrets: []string{other}, want: ErrBadSignature},
		{name: "signature of another scheme", header: func(h http.Header) { h.Set(HeaderSignature, "v1a,"+vectorSignature[3:]) }, want: ErrBadSignature},
		{name: "signature not base64", header: func(h http.Header) { h.Set(HeaderSignature, "v1,!!!") }, want: ErrBadSignature},
		{name: "signature truncated", header: func(h http.Header) { h.Set(HeaderSignature, vectorSignature[:20]) }, want: ErrBadSignature},
		{name: "no id", header: func(h http.Header) { h.Del(HeaderID) }, want: ErrMissingHeaders},
		{name: "no timestamp", header: func(h http.Header) { h.Del(HeaderTimestamp) }, want: ErrMissingHeaders},
		{name: "no signature", header: func(h http.Header) { h.Del(HeaderSignature) }, want: ErrMissingHeaders},
		{name: "timestamp not a number", header: func(h http.Header) { h.Set(HeaderTimestamp, "16142653.30") }, want: ErrTimestamp},
		{name: "timestamp signed", header: func(h http.Header) { h.Set(HeaderTimestamp, "+1614265330") }, want: ErrTimestamp},
		{name: "timestamp huge", header: func(h http.Header) { h.Set(HeaderTimestamp, "99999999999999999999") }, want: ErrTimestamp},
		{name: "too old", now: vectorTime.Add(DefaultTolerance + time.Second), want: ErrTimestamp},
		{name: "too new", now: vectorTime.Add(-DefaultTolerance - time.Second), want: ErrTimestamp},
		{name: "no secret", secrets: []string{}, want: ErrBadSecret},
		{name: "secret not base64", secrets: []string{"whsec_not base64"}, want: ErrBadSecret},
		{name: "secret too short", secrets: []string{"whsec_c2hvcnQ="}, want: ErrBadSecret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := vectorHeader(vectorSignature)
			if tt.header != nil {
				tt.header(h)
			}
			secrets := []string{vectorSecret}
			if tt.secrets != nil {
				secrets = tt.secrets
			}
			b := body
			if tt.body != nil {
				b = tt.body
			}
			now := vectorTime
			if !tt.now.IsZero() {
				now = tt.now
			}
			err := Verify(secrets, h, b, now, 0)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
			if strings.Contains(err.Error(), strings.TrimPrefix(vectorSecret, SecretPrefix)) {
				t.Fatalf("error %q repeats the secret", err)
			}
		})
	}
}

func TestVerifyTolerance(t *testing.T) {
	t.Parallel()
	h := vectorHeader(vectorSignature)
	b := []byte(vectorBody)
	for _, d := range []time.Duration{0, DefaultTolerance, -DefaultTolerance} {
		if err := Verify([]string{vectorSecret}, h, b, vectorTime.Add(d), 0); err != nil {
			t.Errorf("now %v from the timestamp: %v", d, err)
		}
	}
	if err := Verify([]string{vectorSecret}, h, b, vectorTime.Add(time.Hour), 2*time.Hour); err != nil {
		t.Errorf("an hour late with a 2 h tolerance: %v", err)
	}
	if err := Verify([]string{vectorSecret}, h, b, vectorTime.Add(time.Minute), 30*time.Second); !errors.Is(err, ErrTimestamp) {
		t.Errorf("a minute late with a 30 s tolerance: %v, want ErrTimestamp", err)
	}
}

// A changed secret signs with both for a while: a receiver with either
// accepts, a receiver with neither does not.
func TestVerifyRotatedSecrets(t *testing.T) {
	t.Parallel()
	oldSecret, newSecret, stranger := mustSecret(t), mustSecret(t), mustSecret(t)
	now := time.Now()
	body := []byte(`{"kind":"resource","id":"r1","op":"upsert","rev":2}`)
	sig, err := signatures([]string{newSecret, oldSecret}, "msg_1", now, body)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(sig)); n != 2 {
		t.Fatalf("signature header %q has %d entries, want 2", sig, n)
	}
	h := http.Header{}
	h.Set(HeaderID, "msg_1")
	h.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(HeaderSignature, sig)
	for name, secrets := range map[string][]string{
		"old":              {oldSecret},
		"new":              {newSecret},
		"stranger and new": {stranger, newSecret},
	} {
		if err := Verify(secrets, h, body, now, 0); err != nil {
			t.Errorf("receiver with %s secret: %v", name, err)
		}
	}
	if err := Verify([]string{stranger}, h, body, now, 0); !errors.Is(err, ErrBadSignature) {
		t.Errorf("receiver with another secret: %v, want ErrBadSignature", err)
	}
}

// Headers in a map built by hand, with lower-case names, are read too.
func TestVerifyLowerCaseHeaderMap(t *testing.T) {
	t.Parallel()
	h := http.Header{
		HeaderID:        {vectorID},
		HeaderTimestamp: {strconv.Itoa(vectorTimestamp)},
		HeaderSignature: {"v1,bm90IGl0 " + vectorSignature},
	}
	if err := Verify([]string{vectorSecret}, h, []byte(vectorBody), vectorTime, 0); err != nil {
		t.Fatal(err)
	}
}

func TestNewSecret(t *testing.T) {
	t.Parallel()
	s, err := NewSecret(bytes.NewReader(bytes.Repeat([]byte{7}, SecretSize)))
	if err != nil {
		t.Fatal(err)
	}
	if want := "whsec_BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc="; s != want {
		t.Fatalf("NewSecret = %q, want %q", s, want)
	}
	key, err := ParseSecret(s)
	if err != nil || !bytes.Equal(key, bytes.Repeat([]byte{7}, SecretSize)) {
		t.Fatalf("ParseSecret = %x, %v", key, err)
	}
	if _, err := NewSecret(bytes.NewReader(make([]byte, 5))); err == nil {
		t.Fatal("NewSecret from a short reader: no error")
	}
	a, b := mustSecret(t), mustSecret(t)
	if a == b {
		t.Fatal("two secrets from crypto/rand are equal")
	}
}

func TestParseSecretBounds(t *testing.T) {
	t.Parallel()
	for n, ok := range map[int]bool{MinSecretSize - 1: false, MinSecretSize: true, MaxSecretSize: true, MaxSecretSize + 1: false} {
		s := SecretPrefix + base64.StdEncoding.EncodeToString(make([]byte, n))
		if _, err := ParseSecret(s); (err == nil) != ok || (err != nil && !errors.Is(err, ErrBadSecret)) {
			t.Errorf("key of %d bytes: %v, want ok %v", n, err, ok)
		}
	}
}

func mustSecret(t testing.TB) string {
	t.Helper()
	s, err := NewSecret(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// FuzzVerify: Verify never panics, and passes only when the header holds
// the message's own signature under the secret and the timestamp is
// within tolerance; a correct signature always passes.
func FuzzVerify(f *testing.F) {
	f.Add(vectorID, int64(vectorTimestamp), []byte(vectorBody), vectorSignature, int64(0), false)
	f.Add(vectorID, int64(vectorTimestamp), []byte(vectorBody), "v1,AAAA v2,x", int64(10), true)
	f.Add("", int64(-1), []byte{}, "", int64(1<<62), false)
	f.Add("a.b", int64(1<<40), []byte("\x00"), "v1, v1,,", int64(-301), true)
	f.Fuzz(func(t *testing.T, id string, ts int64, body []byte, sigHeader string, skew int64, addGood bool) {
		good, err := Sign(vectorSecret, id, time.Unix(ts, 0), body)
		if err != nil {
			t.Fatal(err)
		}
		if addGood {
			sigHeader = sigHeader + " " + good
		}
		h := http.Header{}
		h.Set(HeaderID, id)
		h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
		h.Set(HeaderSignature, sigHeader)
		now := time.Unix(ts, 0).Add(time.Duration(skew%(1<<40)) * time.Second)
		err = Verify([]string{vectorSecret}, h, body, now, 0)

		inHeader := false
		for _, e := range strings.Fields(h.Get(HeaderSignature)) {
			inHeader = inHeader || e == good
		}
		tsOK := ts >= 0 && len(strconv.FormatInt(ts, 10)) <= 18
		skewOK := now.Unix()-ts <= 300 && ts-now.Unix() <= 300
		idOK := h.Get(HeaderID) != ""
		if err == nil && !(inHeader && tsOK && skewOK && idOK) {
			t.Fatalf("passed: id %q ts %d skew %d header %q", id, ts, skew, sigHeader)
		}
		if err != nil && inHeader && tsOK && skewOK && idOK && h.Get(HeaderID) == id {
			t.Fatalf("a correct signature failed: %v", err)
		}
	})
}

func BenchmarkVerify(b *testing.B) {
	body := bytes.Repeat([]byte("x"), 512)
	now := time.Now()
	sig, err := signatures([]string{vectorSecret, mustSecret(b)}, "msg_1", now, body)
	if err != nil {
		b.Fatal(err)
	}
	h := http.Header{}
	h.Set(HeaderID, "msg_1")
	h.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(HeaderSignature, sig)
	b.ReportAllocs()
	for b.Loop() {
		if err := Verify([]string{vectorSecret}, h, body, now, 0); err != nil {
			b.Fatal(err)
		}
	}
}
