// Package testenv is the test environment that the tests of transport and
// client, and bwcmstest, build alike: a settable clock, cheap password
// hashing, a store on SQLite or on a PostgreSQL schema of its own, and
// accounts with users. Each package keeps its own handler, server and
// helpers on top of it.
//
// It imports neither transport nor client, so transport's own tests can
// use it.
package testenv

import (
	"sync"
	"time"

	"github.com/bwcms/cms/cms"
)

// Secret is the HS256 secret of the test handlers.
var Secret = []byte("0123456789abcdef0123456789abcdef")

// Password is the password of every fixture user of the tests.
const Password = "correct horse battery"

// CheapPasswords keep argon2id fast in tests (cms.Options.Passwords):
// the real cost would make every login and user take a noticeable time.
var CheapPasswords = cms.PasswordParams{Memory: 64, Time: 1, Threads: 1}

// Epoch is where a test clock starts.
var Epoch = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// Clock is a settable clock, safe for concurrent use, to share between a
// service and a handler (their options' Now).
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock standing at Epoch.
func NewClock() *Clock { return &Clock{now: Epoch} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// ServiceOptions are the options of a test service: cheap password
// hashing and, when clock is not nil, its time.
func ServiceOptions(clock *Clock) cms.Options {
	o := cms.Options{Passwords: CheapPasswords}
	if clock != nil {
		o.Now = clock.Now
	}
	return o
}
