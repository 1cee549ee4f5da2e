package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The Standard Webhooks headers of every message.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// SecretPrefix starts every secret: "whsec_" + base64 of the key.
const SecretPrefix = "whsec_"

// The bounds of a secret's key, in bytes, as the Standard Webhooks spec
// recommends them; NewSecret makes keys of SecretSize bytes.
const (
	MinSecretSize = 24
	MaxSecretSize = 64
	SecretSize    = 32
)

// DefaultTolerance is how far a message's timestamp may be from the
// receiver's clock, either way, when Verify is given no tolerance.
const DefaultTolerance = 5 * time.Minute

// Errors of Verify, matched with errors.Is.
var (
	// ErrMissingHeaders: webhook-id, webhook-timestamp or
	// webhook-signature is absent or empty.
	ErrMissingHeaders = errors.New("webhook: missing headers")
	// ErrBadSignature: no signature of the header matches any secret.
	ErrBadSignature = errors.New("webhook: no matching signature")
	// ErrTimestamp: the timestamp is not a number of seconds or is
	// outside the tolerance (too old: a replay; too new: a wrong clock).
	ErrTimestamp = errors.New("webhook: timestamp out of tolerance")
	// ErrBadSecret: a secret is not "whsec_" + base64 of 24 to 64 bytes.
	ErrBadSecret = errors.New("webhook: invalid secret")
)

// NewSecret makes a secret of SecretSize random bytes read from rand
// (crypto/rand.Reader in production).
func NewSecret(rand io.Reader) (string, error) {
	key := make([]byte, SecretSize)
	if _, err := io.ReadFull(rand, key); err != nil {
		return "", fmt.Errorf("webhook: reading random bytes: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// ParseSecret answers the key of a secret: the standard base64 after
// "whsec_", 24 to 64 bytes. Like the spec's reference libraries it also
// takes the base64 without the prefix. The error never repeats the
// secret.
func ParseSecret(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil {
		return nil, fmt.Errorf("%w: not base64 after %q", ErrBadSecret, SecretPrefix)
	}
	if len(key) < MinSecretSize || len(key) > MaxSecretSize {
		return nil, fmt.Errorf("%w: key of %d bytes, want %d to %d", ErrBadSecret, len(key), MinSecretSize, MaxSecretSize)
	}
	return key, nil
}

// Sign answers the signature of a message, "v1," + base64 of the
// HMAC-SHA256 of "id.timestamp.body" (timestamp in unix seconds) under
// the secret's key.
func Sign(secret string, id string, ts time.Time, body []byte) (string, error) {
	key, err := ParseSecret(secret)
	if err != nil {
		return "", err
	}
	return "v1," + base64.StdEncoding.EncodeToString(mac(key, id, ts.Unix(), body)), nil
}

// signatures answers the webhook-signature header of a message: one
// entry per secret, space-separated, so a receiver holding either the
// new or the previous secret accepts it while a secret changes.
func signatures(secrets []string, id string, ts time.Time, body []byte) (string, error) {
	if len(secrets) == 0 {
		return "", fmt.Errorf("%w: no secret", ErrBadSecret)
	}
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		sig, err := Sign(s, id, ts, body)
		if err != nil {
			return "", err
		}
		sigs = append(sigs, sig)
	}
	return strings.Join(sigs, " "), nil
}

func mac(key []byte, id string, unix int64, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(id))
	h.Write([]byte{'.'})
	h.Write(strconv.AppendInt(nil, unix, 10))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// Verify checks a message a receiver got: its headers (webhook-id,
// webhook-timestamp, webhook-signature), its timestamp within tolerance
// of now either way (DefaultTolerance when tolerance <= 0), and that one
// "v1," entry of the signature header is the signature under one of
// secrets (a receiver passes the new and the previous secret while a
// secret changes). body is the request body exactly as received. The
// error matches ErrMissingHeaders, ErrTimestamp, ErrBadSecret or
// ErrBadSignature.
func Verify(secrets []string, header http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	id, tsText, sigText := headerValue(header, HeaderID), headerValue(header, HeaderTimestamp), headerValue(header, HeaderSignature)
	if id == "" || tsText == "" || sigText == "" {
		return fmt.Errorf("%w: want %s, %s and %s", ErrMissingHeaders, HeaderID, HeaderTimestamp, HeaderSignature)
	}
	ts, err := parseTimestamp(tsText)
	if err != nil {
		return err
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	// Compared in seconds, so a huge timestamp cannot overflow a Duration.
	if diff := now.Unix() - ts; diff > int64(tolerance/time.Second) || -diff > int64(tolerance/time.Second) {
		return fmt.Errorf("%w: %s is %s from now", ErrTimestamp, HeaderTimestamp, describeOffset(diff))
	}
	if len(secrets) == 0 {
		return fmt.Errorf("%w: no secret", ErrBadSecret)
	}
	keys := make([][]byte, 0, len(secrets))
	for _, s := range secrets {
		key, err := ParseSecret(s)
		if err != nil {
			return err
		}
		keys = append(keys, key)
	}
	for _, entry := range strings.Fields(sigText) {
		version, sig, ok := strings.Cut(entry, ",")
		if !ok || version != "v1" {
			continue // another scheme (v1a: asymmetric), not ours
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err != nil || len(got) != sha256.Size {
			continue
		}
		for _, key := range keys {
			if hmac.Equal(got, mac(key, id, ts, body)) {
				return nil
			}
		}
	}
	return ErrBadSignature
}

// headerValue reads a header by its canonical name, or by the lower-case
// name for a map built by hand.
func headerValue(h http.Header, name string) string {
	if v := h.Get(name); v != "" {
		return v
	}
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// parseTimestamp reads unix seconds: digits only, no sign, at most 18 of
// them (beyond is no time a sender means).
func parseTimestamp(s string) (int64, error) {
	if len(s) > 18 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%w: %s is not a number of seconds", ErrTimestamp, HeaderTimestamp)
	}
	ts, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s is not a number of seconds", ErrTimestamp, HeaderTimestamp)
	}
	return ts, nil
}

func describeOffset(diff int64) string {
	if diff > 0 {
		return strconv.FormatInt(diff, 10) + " s in the past"
	}
	return strconv.FormatInt(-diff, 10) + " s in the future"
}
