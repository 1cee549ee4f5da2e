package pgtest

import (
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to the test server, so a test can cut a
// store off its database (an outage: new connections refused, open ones
// lost) and restore it, or partition it silently (nothing refused or
// closed, nothing delivered) and heal it, without touching the server,
// which other tests share.
type Proxy struct {
	tb     testing.TB
	addr   string // where the proxy listens
	target string // the server's host:port

	mu    sync.Mutex
	ln    net.Listener // nil while cut
	conns map[net.Conn]bool
	// healed is closed while bytes flow; Partition replaces it with an
	// open one, which Heal closes.
	healed chan struct{}
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
	p := &Proxy{tb: tb, target: target, conns: map[net.Conn]bool{}, healed: make(chan struct{})}
	close(p.healed)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	// Cut first, then Heal: the pipes held by a partition end on the
	// closed connections.
	tb.Cleanup(p.Heal)
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

// Partition stops every byte in both directions, on open connections
// and on new ones (accepted, as a kernel would, but not forwarded), with
// nothing closed or refused: a silent network partition, which only a
// timeout of the client's can tell from a slow server. Heal ends it.
func (p *Proxy) Partition() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.healed:
		p.healed = make(chan struct{})
	default: // already partitioned
	}
}

// Heal ends a partition: what was held is delivered, and the connections
// whose client gave up meanwhile are closed by it.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.healed:
	default:
		close(p.healed)
	}
}

// waitHealed returns once no partition holds the bytes.
func (p *Proxy) waitHealed() {
	p.mu.Lock()
	healed := p.healed
	p.mu.Unlock()
	<-healed
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
			go p.connect(ln, client)
		}
	}()
}

// connect forwards client to the server once no partition holds it.
func (p *Proxy) connect(ln net.Listener, client net.Conn) {
	p.waitHealed()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	if !p.track(ln, client, server) {
		return
	}
	go p.pipe(client, server)
	go p.pipe(server, client)
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

// pipe copies src to dst, holding what it read while a partition lasts.
func (p *Proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.waitHealed()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}
