package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"

	"github.com/bwcms/cms/cms"
)

// Resolver answers the addresses of a host name; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// dialContext is the transport's only way to a connection: it resolves
// the host once, refuses it when any of its addresses is forbidden, and
// connects to those very addresses (never to the name again), so DNS
// cannot answer one address to a check and another to the connect.
func (s *Sender) dialContext(ctx context.Context, network, hostport string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, refusedf("address %q is not host:port", hostport)
	}
	port, err := net.LookupPort(network, portText)
	if err != nil {
		return nil, refusedf("port %q is not a port", portText)
	}
	addrs, err := s.resolve(ctx, network, host)
	if err != nil {
		return nil, err
	}
	if !s.allowPrivate {
		for _, a := range addrs {
			if cms.ForbiddenWebhookAddr(a) {
				if literal, _ := netip.ParseAddr(host); literal == a {
					return nil, refusedf("address %s is %s", a, addrKind(a))
				}
				return nil, refusedf("host %s resolves to %s", host, addrKind(a)) // not the address itself: the log is read by webhook users
			}
		}
	}
	var last error
	for _, a := range addrs {
		conn, err := s.dialAddr(ctx, network, netip.AddrPortFrom(a, uint16(port)))
		if err == nil {
			return conn, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, last
}

// resolve answers the addresses of host: itself when it is an address,
// else what the resolver answers, IPv4 answers unmapped (Go's resolver
// may hand them as ::ffff:a.b.c.d).
func (s *Sender) resolve(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	ipNetwork := "ip"
	switch network {
	case "tcp4":
		ipNetwork = "ip4"
	case "tcp6":
		ipNetwork = "ip6"
	}
	addrs, err := s.resolver.LookupNetIP(ctx, ipNetwork, host)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			return nil, &sendError{msg: "host " + host + " not found", cause: err}
		}
		return nil, &sendError{msg: "cannot resolve host " + host, cause: err}
	}
	if len(addrs) == 0 {
		return nil, &sendError{msg: "host " + host + " has no address"}
	}
	for i, a := range addrs {
		addrs[i] = a.Unmap()
	}
	return addrs, nil
}

// controlAddr is the dialer's last check, on the socket's own address
// just before it connects: whatever path led to the dial, a forbidden
// address is never connected to.
func controlAddr(allowPrivate bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if allowPrivate {
			return nil
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return refusedf("address %q cannot be checked", address)
		}
		if cms.ForbiddenWebhookAddr(ap.Addr()) {
			return refusedf("address %s is %s", ap.Addr(), addrKind(ap.Addr()))
		}
		return nil
	}
}

// addrKinds name the forbidden networks in refusals, most specific
// first; an address in none of them is "reserved for special use".
var addrKinds = []struct {
	prefix netip.Prefix
	kind   string
}{
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
	{netip.MustParsePrefix("::1/128"), "a loopback address"},
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("10.0.0.0/8"), "on a private network"},
	{netip.MustParsePrefix("172.16.0.0/12"), "on a private network"},
	{netip.MustParsePrefix("192.168.0.0/16"), "on a private network"},
	{netip.MustParsePrefix("fc00::/7"), "on a private network"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("100.64.0.0/10"), "on a carrier-grade NAT network"},
	{netip.MustParsePrefix("::ffff:0:0/96"), "an IPv4-mapped address"},
	{netip.MustParsePrefix("64:ff9b::/96"), "a NAT64 address"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a NAT64 address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

func addrKind(a netip.Addr) string {
	if a.Zone() != "" {
		return "link-local"
	}
	for _, k := range addrKinds {
		if k.prefix.Contains(a) {
			return k.kind
		}
	}
	return "reserved for special use"
}

// ErrRefused is matched by the error of an attempt the sender refused
// to make: a URL that is not http(s) or carries a user, an address on a
// forbidden network (DECISIONS §18).
var ErrRefused = errors.New("webhook: refused")

// ErrTimeout is matched by the error of an attempt that got no answer
// within SenderOptions.Timeout.
var ErrTimeout = errors.New("webhook: timed out")

// sendError is the error of an attempt: msg says what went wrong in
// words safe for the delivery log, kind is ErrRefused, ErrTimeout or
// nil, cause the underlying error for operators.
type sendError struct {
	msg   string
	kind  error
	cause error
}

func (e *sendError) Error() string { return e.msg }

func (e *sendError) Unwrap() []error {
	var errs []error
	if e.kind != nil {
		errs = append(errs, e.kind)
	}
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	return errs
}

func refusedf(format string, args ...any) error {
	return &sendError{msg: fmt.Sprintf(format, args...), kind: ErrRefused}
}
