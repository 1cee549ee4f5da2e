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
// connection's peer; or, when the peer is a trusted proxy, the right-most
// address of X-Forwarded-For (when the request has one, else of
// Forwarded's for=) that is not itself a trusted proxy (the left-most
// when all are). A header that cannot be read gives the peer. The zero
// Addr when even the peer is not an address.
func (ps proxies) clientAddr(r *http.Request) netip.Addr {
	peer := parseHost(r.RemoteAddr)
	if !peer.IsValid() || !ps.trusted(peer) {
		return peer
	}
	var hops []netip.Addr
	var ok bool
	if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
		hops, ok = forwardedFor(xff)
	} else if fwd := r.Header.Values("Forwarded"); len(fwd) > 0 {
		hops, ok = forwarded(fwd)
	}
	if !ok || len(hops) == 0 {
		return peer
	}
	for i := len(hops) - 1; i > 0; i-- {
		if !ps.trusted(hops[i]) {
			return hops[i]
		}
	}
	return hops[0]
}

// forwardedFor reads the addresses of X-Forwarded-For lines, in order
// (a port after an address is allowed).
func forwardedFor(lines []string) ([]netip.Addr, bool) {
	var hops []netip.Addr
	for _, line := range lines {
		for item := range strings.SplitSeq(line, ",") {
			a := parseHost(strings.TrimSpace(item))
			if !a.IsValid() {
				return nil, false
			}
			hops = append(hops, a)
		}
	}
	return hops, true
}

// forwarded reads the for= addresses of Forwarded lines (RFC 7239), in
// order. An element without for=, or whose node is "unknown", obfuscated
// or malformed, makes the header unreadable.
func forwarded(lines []string) ([]netip.Addr, bool) {
	var hops []netip.Addr
	for _, line := range lines {
		for element := range strings.SplitSeq(line, ",") {
			var node string
			found := false
			for pair := range strings.SplitSeq(element, ";") {
				name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if ok && strings.EqualFold(name, "for") {
					node, found = value, true
				}
			}
			if !found {
				return nil, false
			}
			if unquoted, ok := strings.CutPrefix(node, `"`); ok {
				if node, ok = strings.CutSuffix(unquoted, `"`); !ok {
					return nil, false
				}
			}
			a := parseHost(node)
			if !a.IsValid() {
				return nil, false
			}
			hops = append(hops, a)
		}
	}
	return hops, true
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
