package transport

import (
	"errors"
	"net/http"
	"net/netip"
	"strings"
)

// proxies are the trusted proxies of Options.TrustedProxies.
type proxies []netip.Prefix

// newProxies checks and normalises Options.TrustedProxies.
func newProxies(prefixes []netip.Prefix) (proxies, error) {
	out := make(proxies, 0, len(prefixes))
	for _, p := range prefixes {
		if !p.IsValid() {
			return nil, errors.New("transport: Options.TrustedProxies holds an invalid prefix")
		}
		if p.Addr().Is4In6() { // ::ffff:10.0.0.0/104 is 10.0.0.0/8
			p = netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0))
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func (ps proxies) trusted(a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr is the address of the client of r, for login throttling: the
// connection's peer; or, when the peer is a trusted proxy (or not an IP
// address at all: a local socket, which only the host's own processes
// reach), the address the proxies wrote: walking X-Forwarded-For (or
// Forwarded's for=) from the right, the first address that is not itself
// a trusted proxy (the left-most when all are). Entries left of it are
// the client's own words and are not read. When that walk meets an entry
// it cannot read, or the request carries both headers (a proxy writes
// one and may pass the other on from the client unread), the peer is the
// client. The zero Addr when the peer is not an address and no proxy
// named one.
func (ps proxies) clientAddr(r *http.Request) netip.Addr {
	peer := parseHost(r.RemoteAddr)
	if peer.IsValid() && !ps.trusted(peer) {
		return peer
	}
	xff, fwd := r.Header.Values("X-Forwarded-For"), r.Header.Values("Forwarded")
	var hops []string
	switch {
	case len(xff) > 0 && len(fwd) > 0:
		return peer
	case len(xff) > 0:
		hops = forwardedFor(xff)
	case len(fwd) > 0:
		hops = forwarded(fwd)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a := parseHost(hops[i])
		switch {
		case !a.IsValid():
			return peer
		case !ps.trusted(a) || i == 0:
			return a
		}
	}
	return peer
}

// forwardedFor splits X-Forwarded-For lines into their entries, in order.
func forwardedFor(lines []string) []string {
	var hops []string
	for _, line := range lines {
		for item := range strings.SplitSeq(line, ",") {
			hops = append(hops, strings.TrimSpace(item))
		}
	}
	return hops
}

// forwarded gives the for= node of each element of Forwarded lines (RFC
// 7239), in order, unquoted; "" for an element without one (as unreadable
// as "unknown" or an obfuscated node).
func forwarded(lines []string) []string {
	var hops []string
	for _, line := range lines {
		for element := range strings.SplitSeq(line, ",") {
			node := ""
			for pair := range strings.SplitSeq(element, ";") {
				name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if ok && strings.EqualFold(name, "for") {
					node = value
				}
			}
			if unquoted, ok := strings.CutPrefix(node, `"`); ok {
				if node, ok = strings.CutSuffix(unquoted, `"`); !ok {
					node = "" // an unclosed quote
				}
			}
			hops = append(hops, node)
		}
	}
	return hops
}

// parseHost reads an address with or without a port: 192.0.2.1,
// 192.0.2.1:80, 2001:db8::1, [2001:db8::1] and [2001:db8::1]:80. The zero
// Addr when it is none of these.
func parseHost(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone("")
	}
	if inner, ok := strings.CutPrefix(s, "["); ok {
		s, ok = strings.CutSuffix(inner, "]")
		if !ok {
			return netip.Addr{}
		}
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}
