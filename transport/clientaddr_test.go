package transport

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientAddr(t *testing.T) {
	t.Parallel()
	ps, err := newProxies([]netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("2001:db8:ffff::/48"),
		netip.MustParsePrefix("::ffff:172.16.0.1/128"), // an IPv4-mapped proxy is its IPv4 address
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		peer   string
		header []string // name, value, ...
		want   string   // "" for the zero Addr
	}{
		{"a peer without proxies", "192.0.2.1:1234", nil, "192.0.2.1"},
		{"an untrusted peer's X-Forwarded-For is not read", "192.0.2.1:1234",
			[]string{"X-Forwarded-For", "198.51.100.9"}, "192.0.2.1"},
		{"an untrusted peer's Forwarded is not read", "192.0.2.1:1234",
			[]string{"Forwarded", "for=198.51.100.9"}, "192.0.2.1"},
		{"a trusted peer without a header", "10.1.2.3:80", nil, "10.1.2.3"},
		{"X-Forwarded-For from a trusted peer", "10.1.2.3:80",
			[]string{"X-Forwarded-For", "198.51.100.9"}, "198.51.100.9"},
		{"the right-most address that is not a trusted proxy", "10.1.2.3:80",
			[]string{"X-Forwarded-For", "203.0.113.5, 198.51.100.9, 10.9.9.9"}, "198.51.100.9"},
		{"several X-Forwarded-For lines read as one list", "10.1.2.3:80",
			[]string{"X-Forwarded-For", "203.0.113.5", "X-Forwarded-For", "198.51.100.9, 10.9.9.9"}, "198.51.100.9"},
		{"every hop a trusted proxy: the left-most", "10.1.2.3:80",
			[]string{"X-Forwarded-For", "10.7.7.7, 10.8.8.8"}, "10.7.7.7"},
		{"an address with a port", "10.1.2.3:80",
			[]string{"X-Forwarded-For", "198.51.100.9:5555"}, "198.51.100.9"},
		{"a malformed X-Forwarded-For gives the peer", "10.1.2.3:80",
			[]string{"X-Forwarded-For", "198.51.100.9, not-an-address"}, "10.1.2.3"},
		{"an empty X-Forwarded-For gives the peer", "10.1.2.3:80",
			[]string{"X-Forwarded-For", ""}, "10.1.2.3"},
		{"both headers give the peer (one may be the client's own)", "10.1.2.3:80",
			[]string{"X-Forwarded-For", "198.51.100.9", "Forwarded", "for=203.0.113.5"}, "10.1.2.3"},
		{"what the client wrote left of the proxies' entries is not read", "10.1.2.3:80",
			[]string{"X-Forwarded-For", "garbage, 203.0.113.9"}, "203.0.113.9"},
		{"nor in Forwarded", "10.1.2.3:80",
			[]string{"Forwarded", "for=unknown, for=203.0.113.9"}, "203.0.113.9"},
		{"Forwarded for=", "10.1.2.3:80",
			[]string{"Forwarded", "for=198.51.100.9;proto=https;by=10.1.2.3"}, "198.51.100.9"},
		{"Forwarded with a quoted IPv6 and port", "10.1.2.3:80",
			[]string{"Forwarded", `for="[2001:db8:cafe::17]:4711", For=10.5.5.5`}, "2001:db8:cafe::17"},
		{"Forwarded over several lines", "10.1.2.3:80",
			[]string{"Forwarded", "for=203.0.113.5", "Forwarded", "for=198.51.100.9;proto=http"}, "198.51.100.9"},
		{"Forwarded for=unknown gives the peer", "10.1.2.3:80",
			[]string{"Forwarded", "for=unknown"}, "10.1.2.3"},
		{"Forwarded without for= gives the peer", "10.1.2.3:80",
			[]string{"Forwarded", "for=198.51.100.9, proto=https"}, "10.1.2.3"},
		{"Forwarded with an unclosed quote gives the peer", "10.1.2.3:80",
			[]string{"Forwarded", `for="198.51.100.9`}, "10.1.2.3"},
		{"an IPv6 trusted peer", "[2001:db8:ffff:1::1]:443",
			[]string{"X-Forwarded-For", "2001:db8:1:2::3"}, "2001:db8:1:2::3"},
		{"an IPv4-mapped peer", "[::ffff:172.16.0.1]:443",
			[]string{"X-Forwarded-For", "::ffff:198.51.100.9"}, "198.51.100.9"},
		{"a local socket's proxy is read", "@", []string{"X-Forwarded-For", "198.51.100.9"}, "198.51.100.9"},
		{"a local socket without a header", "@", nil, ""},
		{"a peer without a port", "10.1.2.3", []string{"X-Forwarded-For", "198.51.100.9"}, "198.51.100.9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("POST", "/api/bw/v2/auth", nil)
			r.RemoteAddr = c.peer
			for i := 0; i+1 < len(c.header); i += 2 {
				r.Header.Add(c.header[i], c.header[i+1])
			}
			got := ps.clientAddr(r)
			if want := c.want; !got.IsValid() && want != "" || got.IsValid() && got.String() != want {
				t.Errorf("clientAddr = %v, want %q", got, want)
			}
		})
	}
	if _, err := newProxies([]netip.Prefix{{}}); err == nil {
		t.Error("an invalid prefix is accepted")
	}
}
