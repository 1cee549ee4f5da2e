package pgtest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to the test server, so a test can cut a
// store off its database (an outage: new connections refused, open ones
// lost) and restore it, without touching the server, which other tests
// share.
type Proxy struct {
	tb     testing.TB
	addr   string // where the proxy listens
	target string // the server's host:port

	mu    sync.Mutex
	ln    net.Listener // nil while cut
	conns map[net.Conn]bool
}

// NewProxy starts a proxy to the server of dsn (a postgres:// URL, as DSN
// returns) and returns it with the DSN that connects through it. The
// proxy stops when tb ends.
func NewProxy(tb testing.TB, dsn string) (*Proxy, string) {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	p := &Proxy{tb: tb, target: target, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	tb.Cleanup(p.Cut)
	u.Host = p.addr
	return p, u.String()
}

// Cut closes the listener and every connection through it: connecting is
// refused, and open connections are lost, until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Restore listens again on the same address.
func (p *Proxy) Restore() {
	p.tb.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.tb.Fatal(err)
	}
	p.serve(ln)
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return // cut
			}
			server, err := net.Dial("tcp", p.target)
			if err != nil {
				client.Close()
				continue
			}
			if !p.track(ln, client, server) {
				continue
			}
			go p.pipe(client, server)
			go p.pipe(server, client)
		}
	}()
}

// track keeps a connection pair to close at the next cut; false (and both
// closed) when the listener was cut meanwhile.
func (p *Proxy) track(ln net.Listener, a, b net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != ln {
		a.Close()
		b.Close()
		return false
	}
	p.conns[a], p.conns[b] = true, true
	return true
}

func (p *Proxy) pipe(dst, src net.Conn) {
	io.Copy(dst, src)
	dst.Close()
	src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}
