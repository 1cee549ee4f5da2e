package main

import (
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/transport"
)

// tuningSettings bound what one client can hold of the server (timeouts,
// connections) and set the refresh grace.
var tuningSettings = []setting{
	{"read-header-timeout", "CMS_READ_HEADER_TIMEOUT", "10s", "time to receive a request's headers (0: no limit)"},
	{"idle-timeout", "CMS_IDLE_TIMEOUT", "2m", "how long an idle keep-alive connection stays open (0: no limit)"},
	{"max-conns", "CMS_MAX_CONNS", "4096", "connections served at once; more wait to be accepted (0: no cap)"},
	{"body-timeout", "CMS_BODY_TIMEOUT", transport.DefaultBodyReadTimeout.String(),
		fmt.Sprintf("a request body must deliver each %d KiB, or its end, within this (0: no limit)", transport.DefaultBodyReadChunk>>10)},
	{"write-timeout", "CMS_WRITE_TIMEOUT", transport.DefaultWriteTimeout.String(), "time for each write of an answer to a client (0: no limit)"},
	{"refresh-grace", "CMS_REFRESH_GRACE", cms.DefaultRefreshGrace.String(), "a refresh token reused within this of its use gets a fresh pair instead of revoking its family (0: off)"},
}

// tuning is what tuningSettings ask for, in the form the server, the
// handler and the service take.
type tuning struct {
	readHeaderTimeout, idleTimeout time.Duration
	maxConns                       int
	// bodyTimeout, writeTimeout and refreshGrace are negative when off.
	bodyTimeout, writeTimeout, refreshGrace time.Duration
}

// parseTuning reads tuningSettings.
func parseTuning(cfg map[string]string) (tuning, error) {
	var t tuning
	var err error
	duration := func(name string) time.Duration {
		if err != nil {
			return 0
		}
		d, perr := time.ParseDuration(cfg[name])
		if perr != nil || d < 0 {
			err = fmt.Errorf("--%s %q: want a duration such as 10s or 2m (0: off)", name, cfg[name])
		}
		return d
	}
	// off is how the handler spells 0.
	off := func(d time.Duration) time.Duration {
		if d == 0 {
			return transport.NoTimeout
		}
		return d
	}
	t.readHeaderTimeout = duration("read-header-timeout")
	t.idleTimeout = duration("idle-timeout")
	t.bodyTimeout = off(duration("body-timeout"))
	t.writeTimeout = off(duration("write-timeout"))
	t.refreshGrace = duration("refresh-grace")
	if t.refreshGrace == 0 {
		t.refreshGrace = cms.NoGrace
	}
	if err != nil {
		return tuning{}, err
	}
	if t.maxConns, err = strconv.Atoi(cfg["max-conns"]); err != nil || t.maxConns < 0 {
		return tuning{}, fmt.Errorf("--max-conns %q: want a whole number, 0 (no cap) or more", cfg["max-conns"])
	}
	return t, nil
}

// limitConns serves at most n connections of l at once (n <= 0: no cap).
// The others wait in the kernel's accept queue, not in the process, until
// a served one closes: a flood of connections costs no descriptors.
func limitConns(l net.Listener, n int) net.Listener {
	if n <= 0 {
		return l
	}
	return &limitListener{Listener: l, slots: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
}

// Close also ends an Accept waiting for a free slot.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitedConn frees its slot once, when first closed.
type limitedConn struct {
	net.Conn
	releaseOnce sync.Once
	release     func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.releaseOnce.Do(c.release)
	return err
}
