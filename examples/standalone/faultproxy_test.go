package main

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"
)

// proxy forwards TCP connections to a target (the test's PostgreSQL) and
// can cut them: every open connection closed and new ones refused, until
// restore. The server under test talks to the database through it, so an
// outage is simulated without touching the database server.
type proxy struct {
	tb     testing.TB
	target string
	addr   string // where it listens, the same across a cut

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
}

// newProxy listens on a free local port and forwards to target
// (host:port). It is closed when the test ends.
func newProxy(tb testing.TB, target string) *proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &proxy{tb: tb, target: target, addr: ln.Addr().String(), conns: map[net.Conn]struct{}{}}
	p.serve(ln)
	tb.Cleanup(p.cut)
	return p
}

// proxiedDSN is dsn with its host and port replaced by a new proxy's.
func proxiedDSN(tb testing.TB, dsn string) (string, *proxy) {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	p := newProxy(tb, target)
	u.Host = p.addr
	return u.String(), p
}

func (p *proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return // closed by cut
			}
			go p.forward(c)
		}
	}()
}

func (p *proxy) forward(c net.Conn) {
	up, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // cut meanwhile
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[c], p.conns[up] = struct{}{}, struct{}{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	pipe := func(dst, src net.Conn) {
		defer wg.Done()
		io.Copy(dst, src)
		dst.Close()
		src.Close()
	}
	wg.Add(2)
	go pipe(up, c)
	go pipe(c, up)
	wg.Wait()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

// cut closes every connection and refuses new ones.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
}

// restore accepts connections again, on the same address.
func (p *proxy) restore() {
	p.tb.Helper()
	var err error
	for range 50 { // the port was free a moment ago; retry briefly
		var ln net.Listener
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			p.serve(ln)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.tb.Fatalf("proxy restore: %v", err)
}
