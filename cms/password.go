package cms

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"
)

// PasswordParams are the argon2id parameters of new password hashes.
type PasswordParams struct {
	// Memory in KiB. Default DefaultPasswordMemory (19 MiB, the OWASP
	// minimum).
	Memory uint32
	// Time is the number of passes. Default DefaultPasswordTime (2).
	Time uint32
	// Threads is the parallelism. Default DefaultPasswordThreads (1).
	Threads uint8
}

// The defaults of PasswordParams, applied where a field is 0.
const (
	DefaultPasswordMemory  = 19 * 1024
	DefaultPasswordTime    = 2
	DefaultPasswordThreads = 1
)

func (p PasswordParams) withDefaults() PasswordParams {
	if p.Memory == 0 {
		p.Memory = DefaultPasswordMemory
	}
	if p.Time == 0 {
		p.Time = DefaultPasswordTime
	}
	if p.Threads == 0 {
		p.Threads = DefaultPasswordThreads
	}
	return p
}

// Password limits: a longer password would only make hashing a weapon.
const (
	MinPasswordLength = 8
	MaxPasswordLength = 1024
)

const (
	saltLength = 16
	keyLength  = 32
)

// hasher hashes and checks passwords with argon2id, at most slots at a
// time, so a login flood queues instead of exhausting memory.
type hasher struct {
	params PasswordParams
	rand   io.Reader
	slots  chan struct{}

	dummyMu sync.Mutex
	dummy   string
}

func newHasher(params PasswordParams, concurrency int, rand io.Reader) *hasher {
	return &hasher{params: params.withDefaults(), rand: rand, slots: make(chan struct{}, concurrency)}
}

func (h *hasher) acquire(ctx context.Context) error {
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("cms: waiting to hash a password: %w", ctx.Err())
	}
}

func (h *hasher) release() { <-h.slots }

// hash returns the PHC string of password:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<key>.
func (h *hasher) hash(ctx context.Context, password string) (string, error) {
	salt := make([]byte, saltLength)
	if _, err := io.ReadFull(h.rand, salt); err != nil {
		return "", fmt.Errorf("cms: password salt: %w", err)
	}
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	p := h.params
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, keyLength)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

// check reports whether password matches the PHC string (argon2id, or a
// bcrypt hash imported from elsewhere), and whether the hash should be
// remade with the current parameters.
func (h *hasher) check(ctx context.Context, encoded, password string) (match, rehash bool, err error) {
	if err := h.acquire(ctx); err != nil {
		return false, false, err
	}
	defer h.release()
	if strings.HasPrefix(encoded, "$2a$") || strings.HasPrefix(encoded, "$2b$") || strings.HasPrefix(encoded, "$2y$") {
		err := bcrypt.CompareHashAndPassword([]byte(encoded), []byte(password))
		if errors.Is(err, bcrypt.ErrMismatchedHashAndPassword) {
			return false, false, nil
		}
		return err == nil, true, err
	}
	p, salt, key, err := parseArgon2id(encoded)
	if err != nil {
		return false, false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(key)))
	match = subtle.ConstantTimeCompare(got, key) == 1
	return match, match && (p != h.params || len(key) != keyLength), nil
}

// burn checks password against a fixed hash of the current parameters, so
// an unknown user costs the same time as a known one.
func (h *hasher) burn(ctx context.Context, password string) error {
	h.dummyMu.Lock()
	if h.dummy == "" {
		dummy, err := h.hash(ctx, "not the password of anyone")
		if err != nil {
			h.dummyMu.Unlock()
			return err
		}
		h.dummy = dummy
	}
	dummy := h.dummy
	h.dummyMu.Unlock()
	_, _, err := h.check(ctx, dummy, password)
	return err
}

func parseArgon2id(encoded string) (PasswordParams, []byte, []byte, error) {
	parts := strings.Split(encoded, "$")
	bad := func(why string) (PasswordParams, []byte, []byte, error) {
		return PasswordParams{}, nil, nil, fmt.Errorf("cms: stored password hash: %s", why)
	}
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return bad("not an argon2id PHC string")
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return bad("unsupported argon2 version")
	}
	var p PasswordParams
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil ||
		p.Memory == 0 || p.Time == 0 || p.Threads == 0 {
		return bad("bad parameters")
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return bad("bad salt")
	}
	key, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(key) < 16 {
		return bad("bad key")
	}
	return p, salt, key, nil
}
