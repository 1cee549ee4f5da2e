package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwcms/cms/cms"
)

// received is what a test receiver got.
type received struct {
	host   string
	header http.Header
	body   []byte
}

// receiver is an httptest server on 127.0.0.1 that keeps what it gets
// and answers with answer (204 when nil).
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	got   []received
	conns atomic.Int32
}

func newReceiver(t testing.TB, answer http.HandlerFunc) *receiver {
	t.Helper()
	r := &receiver{}
	r.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{host: req.Host, header: req.Header.Clone(), body: body})
		r.mu.Unlock()
		if answer != nil {
			answer(w, req)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	r.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			r.conns.Add(1)
		}
	}
	r.Start()
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func message(t testing.TB, url string, secrets ...string) cms.WebhookMessage {
	t.Helper()
	if len(secrets) == 0 {
		secrets = []string{mustSecret(t)}
	}
	return cms.WebhookMessage{
		ID:        "msg_" + strconv.FormatInt(time.Now().UnixNano(), 36),
		Timestamp: time.Now(),
		URL:       url,
		Body:      []byte(`{"type":"resource.upsert","data":{"kind":"resource","id":"r1","rev":3}}`),
		Secrets:   secrets,
	}
}

// staticResolver answers every name from a table; lookups counts calls.
type staticResolver struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr // per name, one answer per lookup; the last repeats
	lookups map[string]int
}

func (r *staticResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lookups == nil {
		r.lookups = map[string]int{}
	}
	answers, ok := r.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	i := min(r.lookups[host], len(answers)-1)
	r.lookups[host]++
	return append([]netip.Addr(nil), answers[i]...), nil
}

func addrs(ss ...string) []netip.Addr {
	var as []netip.Addr
	for _, s := range ss {
		as = append(as, netip.MustParseAddr(s))
	}
	return as
}

func port(t testing.TB, srvURL string) string {
	t.Helper()
	u, err := url.Parse(srvURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

func TestSendSignedMessage(t *testing.T) {
	t.Parallel()
	rec := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "thanks")
	})
	current, previous := mustSecret(t), mustSecret(t)
	m := message(t, rec.URL+"/hook?x=1", current, previous)
	s := NewSender(SenderOptions{AllowPrivate: true})

	got := s.Send(t.Context(), m)
	if got.Err != nil || got.Status != http.StatusOK || string(got.Response) != "thanks" {
		t.Fatalf("Send = %d %q %v, want 200 thanks", got.Status, got.Response, got.Err)
	}
	reqs := rec.requests()
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if !bytes.Equal(r.body, m.Body) {
		t.Errorf("body %q, want %q", r.body, m.Body)
	}
	for name, want := range map[string]string{
		"Content-Type":  "application/json",
		"User-Agent":    DefaultUserAgent,
		HeaderID:        m.ID,
		HeaderTimestamp: strconv.FormatInt(m.Timestamp.Unix(), 10),
	} {
		if v := r.header.Get(name); v != want {
			t.Errorf("header %s = %q, want %q", name, v, want)
		}
	}
	if n := len(strings.Fields(r.header.Get(HeaderSignature))); n != 2 {
		t.Errorf("signature header %q: %d entries, want one per secret", r.header.Get(HeaderSignature), n)
	}
	for _, secret := range []string{current, previous} {
		if err := Verify([]string{secret}, r.header, r.body, time.Now(), 0); err != nil {
			t.Errorf("Verify with one of the secrets: %v", err)
		}
	}
	if err := Verify([]string{mustSecret(t)}, r.header, r.body, time.Now(), 0); !errors.Is(err, ErrBadSignature) {
		t.Errorf("Verify with another secret: %v, want ErrBadSignature", err)
	}
}

// A non-2xx answer is an answer: its status and body, no error.
func TestSendErrorStatus(t *testing.T) {
	t.Parallel()
	rec := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "try later", http.StatusServiceUnavailable)
	})
	got := NewSender(SenderOptions{AllowPrivate: true}).Send(t.Context(), message(t, rec.URL))
	if got.Err != nil || got.Status != http.StatusServiceUnavailable || string(got.Response) != "try later\n" {
		t.Fatalf("Send = %d %q %v, want 503 with its body", got.Status, got.Response, got.Err)
	}
}

func TestSendHTTPS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := Verify(nil, r.Header, nil, time.Now(), 0); !errors.Is(err, ErrBadSecret) {
			t.Errorf("headers missing: %v", err)
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake
	srv.StartTLS()
	t.Cleanup(srv.Close)
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs

	got := NewSender(SenderOptions{AllowPrivate: true, TLSConfig: &tls.Config{RootCAs: roots}}).Send(t.Context(), message(t, srv.URL))
	if got.Err != nil || got.Status != http.StatusAccepted {
		t.Fatalf("Send with the server's CA = %d %v, want 202", got.Status, got.Err)
	}
	got = NewSender(SenderOptions{AllowPrivate: true}).Send(t.Context(), message(t, srv.URL))
	if got.Err == nil || got.Status != 0 || !strings.Contains(got.Err.Error(), "TLS certificate refused") {
		t.Fatalf("Send to an unknown CA = %d %v, want a refused certificate", got.Status, got.Err)
	}
}

// At most cms.MaxDeliveryResponse bytes of an answer are kept: its
// first ones.
func TestSendResponseBound(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	rec := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) { w.Write(big) })
	got := NewSender(SenderOptions{AllowPrivate: true}).Send(t.Context(), message(t, rec.URL))
	if got.Err != nil || got.Status != http.StatusOK {
		t.Fatalf("Send = %d %v, want 200", got.Status, got.Err)
	}
	if !bytes.Equal(got.Response, big[:cms.MaxDeliveryResponse]) {
		t.Fatalf("Response is %d bytes, want the first %d of the answer", len(got.Response), cms.MaxDeliveryResponse)
	}
}

// A receiver that does not answer in time: the attempt ends with a
// timeout and no status.
func TestSendTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	rec := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	s := NewSender(SenderOptions{AllowPrivate: true, Timeout: 100 * time.Millisecond})
	got := s.Send(t.Context(), message(t, rec.URL))
	if got.Status != 0 || !errors.Is(got.Err, ErrTimeout) {
		t.Fatalf("Send = %d %v, want a timeout", got.Status, got.Err)
	}
	if got.Err.Error() != "no answer within 100ms" {
		t.Errorf("error %q", got.Err)
	}
}

// Headers in time and a body that never ends: the status answered, the
// body read so far kept, the attempt over at the timeout.
func TestSendTimeoutInBody(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	rec := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "started")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	s := NewSender(SenderOptions{AllowPrivate: true, Timeout: 200 * time.Millisecond})
	got := s.Send(t.Context(), message(t, rec.URL))
	if got.Err != nil || got.Status != http.StatusOK || string(got.Response) != "started" {
		t.Fatalf("Send = %d %q %v, want 200 with what was read", got.Status, got.Response, got.Err)
	}
}

func TestSendCanceled(t *testing.T) {
	t.Parallel()
	rec := newReceiver(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	got := NewSender(SenderOptions{AllowPrivate: true}).Send(ctx, message(t, rec.URL))
	if got.Status != 0 || got.Err == nil || errors.Is(got.Err, ErrTimeout) {
		t.Fatalf("Send with a canceled context = %d %v, want canceled", got.Status, got.Err)
	}
	if n := len(rec.requests()); n != 0 {
		t.Fatalf("receiver got %d requests", n)
	}
}

func TestSendNoRedirect(t *testing.T) {
	t.Parallel()
	target := newReceiver(t, nil)
	rec := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.URL.Query().Get("code"))
		http.Redirect(w, r, target.URL+"/elsewhere", code)
	})
	s := NewSender(SenderOptions{AllowPrivate: true})
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		got := s.Send(t.Context(), message(t, rec.URL+"/?code="+strconv.Itoa(code)))
		if got.Err != nil || got.Status != code {
			t.Fatalf("Send = %d %v, want %d", got.Status, got.Err, code)
		}
	}
	if n := len(target.requests()); n != 0 {
		t.Fatalf("the redirect's target got %d requests", n)
	}
}

// Proxy variables are ignored. The check runs in a child process, so the
// environment is read fresh (net/http reads it once per process), and
// the receiver is named (Go never proxies 127.0.0.1 or localhost).
func TestSendNoProxyFromEnvironment(t *testing.T) {
	if os.Getenv("WEBHOOK_TEST_PROXY_CHILD") == "1" {
		sendThroughEnvironment(t)
		return
	}
	proxy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	go func() {
		for {
			c, err := proxy.Accept()
			if err != nil {
				return
			}
			hits.Add(1)
			c.Close()
		}
	}()
	defer proxy.Close()
	proxyURL := "http://" + proxy.Addr().String()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSendNoProxyFromEnvironment$", "-test.v")
	cmd.Env = append(os.Environ(), "WEBHOOK_TEST_PROXY_CHILD=1",
		"HTTP_PROXY="+proxyURL, "HTTPS_PROXY="+proxyURL, "ALL_PROXY="+proxyURL,
		"http_proxy="+proxyURL, "https_proxy="+proxyURL, "NO_PROXY=", "no_proxy=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "sent past the proxy variables") {
		t.Fatalf("the child did not run the check:\n%s", out)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the proxy was connected to %d times", n)
	}
}

func sendThroughEnvironment(t *testing.T) {
	plain := newReceiver(t, nil)
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	defer secure.Close()
	res := &staticResolver{answers: map[string][][]netip.Addr{
		"receiver.test": {addrs("127.0.0.1")},
		"example.com":   {addrs("127.0.0.1")},
	}}
	s := NewSender(SenderOptions{
		AllowPrivate: true,
		Resolver:     res,
		// httptest's certificate names example.com.
		TLSConfig: &tls.Config{RootCAs: secure.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs},
	})
	for _, u := range []string{
		"http://receiver.test:" + port(t, plain.URL) + "/",
		"https://example.com:" + port(t, secure.URL) + "/",
	} {
		if got := s.Send(t.Context(), message(t, u)); got.Err != nil || got.Status != http.StatusNoContent {
			t.Fatalf("Send to %s = %d %v, want 204", u, got.Status, got.Err)
		}
	}
	fmt.Println("sent past the proxy variables")
}

func TestSendRefusesURL(t *testing.T) {
	t.Parallel()
	rec := newReceiver(t, nil)
	s := NewSender(SenderOptions{AllowPrivate: true})
	hostport := strings.TrimPrefix(rec.URL, "http://")
	for _, u := range []string{
		"ftp://" + hostport + "/",
		"file:///etc/passwd",
		"gopher://" + hostport,
		"http://user:pw@" + hostport + "/",
		"http://user@" + hostport + "/",
		"http:///path",
		"://nothing",
		"http://" + hostport + "/%zz",
		"",
	} {
		got := s.Send(t.Context(), message(t, u))
		if got.Status != 0 || !errors.Is(got.Err, ErrRefused) {
			t.Errorf("Send to %q = %d %v, want refused", u, got.Status, got.Err)
		}
		if got.Err != nil && strings.Contains(got.Err.Error(), "pw") {
			t.Errorf("error %q repeats the password", got.Err)
		}
	}
	if n := len(rec.requests()); n != 0 {
		t.Fatalf("receiver got %d requests", n)
	}
}

// forbiddenAddrs covers every range of DECISIONS §18.
var forbiddenAddrs = []struct {
	addr string
	kind string
}{
	{"127.0.0.1", "a loopback address"},
	{"127.255.0.9", "a loopback address"},
	{"::1", "a loopback address"},
	{"10.0.0.1", "on a private network"},
	{"10.255.255.255", "on a private network"},
	{"172.16.0.1", "on a private network"},
	{"172.31.255.254", "on a private network"},
	{"192.168.1.1", "on a private network"},
	{"fc00::1", "on a private network"},
	{"fd12:3456::1", "on a private network"},
	{"169.254.169.254", "link-local"},
	{"169.254.0.1", "link-local"},
	{"fe80::1", "link-local"},
	{"100.64.0.1", "on a carrier-grade NAT network"},
	{"100.127.255.254", "on a carrier-grade NAT network"},
	{"0.0.0.0", "unspecified"},
	{"0.1.2.3", "unspecified"},
	{"::", "unspecified"},
	{"::ffff:127.0.0.1", "an IPv4-mapped address"},
	{"::ffff:10.0.0.1", "an IPv4-mapped address"},
	{"::ffff:8.8.8.8", "an IPv4-mapped address"},
	{"64:ff9b::a00:1", "a NAT64 address"},
	{"64:ff9b::808:808", "a NAT64 address"},
	{"224.0.0.1", "multicast"},
	{"ff02::1", "multicast"},
	{"255.255.255.255", "reserved for special use"},
	{"192.0.2.1", "reserved for special use"},
	{"2001:db8::1", "reserved for special use"},
}

var publicAddrs = []string{"8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "2a00:1450:4001::1"}

func TestForbiddenWebhookAddr(t *testing.T) {
	t.Parallel()
	for _, tt := range forbiddenAddrs {
		a := netip.MustParseAddr(tt.addr)
		if !cms.ForbiddenWebhookAddr(a) {
			t.Errorf("%s allowed", a)
		}
		if got := addrKind(a); got != tt.kind {
			t.Errorf("%s is %q, want %q", a, got, tt.kind)
		}
	}
	if !cms.ForbiddenWebhookAddr(netip.MustParseAddr("fe80::1%eth0")) {
		t.Error("a zoned link-local address allowed")
	}
	for _, s := range publicAddrs {
		if cms.ForbiddenWebhookAddr(netip.MustParseAddr(s)) {
			t.Errorf("%s forbidden", s)
		}
	}
}

// dialRecorder replaces a sender's connections: it records every
// address dialled and connects the ones in route to test servers.
type dialRecorder struct {
	mu     sync.Mutex
	dialed []netip.AddrPort
	route  map[netip.Addr]string // address -> host:port of a test server
}

func (d *dialRecorder) install(s *Sender) {
	s.dialAddr = func(ctx context.Context, network string, ap netip.AddrPort) (net.Conn, error) {
		d.mu.Lock()
		d.dialed = append(d.dialed, ap)
		to, ok := d.route[ap.Addr()]
		d.mu.Unlock()
		if !ok {
			return nil, errors.New("unreachable in tests")
		}
		var dialer net.Dialer
		return dialer.DialContext(ctx, network, to)
	}
}

func (d *dialRecorder) addrs() []netip.AddrPort {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]netip.AddrPort(nil), d.dialed...)
}

// Without AllowPrivate every forbidden address is refused, as a URL's
// host or as a name's answer, before any connection; the error names
// the address and its network.
func TestSendRefusesForbiddenAddresses(t *testing.T) {
	t.Parallel()
	for _, tt := range forbiddenAddrs {
		a := netip.MustParseAddr(tt.addr)
		res := &staticResolver{answers: map[string][][]netip.Addr{
			"inside.test": {{a}},
			"mixed.test":  {addrs("8.8.8.8", tt.addr)},
		}}
		s := NewSender(SenderOptions{Resolver: res})
		var rec dialRecorder
		rec.install(s)
		host := a.String()
		if a.Is6() {
			host = "[" + host + "]"
		}
		cases := map[string]string{
			"http://" + host + ":8080/": "address " + a.String() + " is " + tt.kind,
			"https://" + host + "/":     "address " + a.String() + " is " + tt.kind,
		}
		// A resolver's IPv4-mapped answer is the IPv4 address (Go's own
		// resolver answers /etc/hosts so): that is what is checked and
		// connected to.
		if u := a.Unmap(); cms.ForbiddenWebhookAddr(u) {
			cases["http://inside.test/hook"] = "host inside.test resolves to " + addrKind(u)
			cases["https://mixed.test:8443/x"] = "host mixed.test resolves to " + addrKind(u)
		}
		for u, want := range cases {
			got := s.Send(t.Context(), message(t, u))
			if got.Status != 0 || !errors.Is(got.Err, ErrRefused) || got.Err.Error() != want {
				t.Errorf("Send to %s = %d %v, want refused: %q", u, got.Status, got.Err, want)
			}
		}
		if d := rec.addrs(); len(d) != 0 {
			t.Errorf("%s: connected to %v", tt.addr, d)
		}
	}
}

// A real receiver on loopback, reached by address and by name with the
// system resolver: refused, never hit.
func TestSendRefusesLoopbackReceiver(t *testing.T) {
	t.Parallel()
	rec := newReceiver(t, nil)
	s := NewSender(SenderOptions{})
	for _, u := range []string{rec.URL, "http://localhost:" + port(t, rec.URL) + "/"} {
		got := s.Send(t.Context(), message(t, u))
		if got.Status != 0 || !errors.Is(got.Err, ErrRefused) {
			t.Errorf("Send to %s = %d %v, want refused", u, got.Status, got.Err)
		}
	}
	if n := len(rec.requests()); n != 0 {
		t.Fatalf("receiver got %d requests", n)
	}
}

// The dialer's own check refuses a forbidden address even when the
// check before it is skipped: whatever leads to a connect, the address
// connected to is checked.
func TestSendDialerChecksConnectedAddress(t *testing.T) {
	t.Parallel()
	rec := newReceiver(t, nil)
	s := NewSender(SenderOptions{})
	s.allowPrivate = true // skip the check of resolved addresses only
	got := s.Send(t.Context(), message(t, rec.URL))
	if got.Status != 0 || !errors.Is(got.Err, ErrRefused) || got.Err.Error() != "address 127.0.0.1 is a loopback address" {
		t.Fatalf("Send = %d %v, want refused by the dialer", got.Status, got.Err)
	}
	if n := len(rec.requests()); n != 0 {
		t.Fatalf("receiver got %d requests", n)
	}
	if err := controlAddr(false)("tcp6", "[::ffff:10.0.0.1]:443", nil); !errors.Is(err, ErrRefused) {
		t.Fatalf("control of a mapped address: %v", err)
	}
	if err := controlAddr(false)("tcp4", "8.8.8.8:443", nil); err != nil {
		t.Fatalf("control of a public address: %v", err)
	}
}

// DNS rebinding: a name answers a public address, then loopback. Each
// send resolves once and connects to the very address it checked, so
// the loopback receiver is never reached.
func TestSendDNSRebinding(t *testing.T) {
	t.Parallel()
	public := newReceiver(t, nil)   // stands for the public host
	internal := newReceiver(t, nil) // what the attacker wants reached
	res := &staticResolver{answers: map[string][][]netip.Addr{
		"rebind.test": {addrs("93.184.216.34"), addrs("127.0.0.1")},
	}}
	s := NewSender(SenderOptions{Resolver: res})
	rec := &dialRecorder{route: map[netip.Addr]string{
		netip.MustParseAddr("93.184.216.34"): public.Listener.Addr().String(),
	}}
	rec.install(s)
	u := "http://rebind.test:" + port(t, internal.URL) + "/"

	if got := s.Send(t.Context(), message(t, u)); got.Err != nil || got.Status != http.StatusNoContent {
		t.Fatalf("first Send = %d %v, want 204 from the public address", got.Status, got.Err)
	}
	s.CloseIdleConnections() // the next send dials again
	got := s.Send(t.Context(), message(t, u))
	if got.Status != 0 || !errors.Is(got.Err, ErrRefused) || !strings.Contains(got.Err.Error(), "loopback") {
		t.Fatalf("second Send = %d %v, want refused", got.Status, got.Err)
	}
	if n := len(internal.requests()); n != 0 {
		t.Fatalf("the loopback receiver got %d requests", n)
	}
	for _, ap := range rec.addrs() {
		if ap.Addr() != netip.MustParseAddr("93.184.216.34") {
			t.Fatalf("connected to %s", ap)
		}
	}
	if n := res.lookups["rebind.test"]; n != 2 {
		t.Fatalf("%d lookups for two sends, want one each (no lookup for a check apart from the connect)", n)
	}
}

// A kept connection serves only its own host: two names of one address
// get a connection each, and each its own again.
func TestSendConnectionPerHost(t *testing.T) {
	t.Parallel()
	rec := newReceiver(t, nil)
	res := &staticResolver{answers: map[string][][]netip.Addr{
		"a.test": {addrs("127.0.0.1")},
		"b.test": {addrs("127.0.0.1")},
	}}
	s := NewSender(SenderOptions{AllowPrivate: true, Resolver: res})
	p := port(t, rec.URL)
	for _, host := range []string{"a.test", "a.test", "b.test", "b.test", "a.test"} {
		if got := s.Send(t.Context(), message(t, "http://"+host+":"+p+"/")); got.Err != nil {
			t.Fatal(got.Err)
		}
	}
	if n := rec.conns.Load(); n != 2 {
		t.Fatalf("%d connections for two hosts, want 2", n)
	}
	reqs := rec.requests()
	for i, want := range []string{"a.test", "a.test", "b.test", "b.test", "a.test"} {
		if host, _, _ := net.SplitHostPort(reqs[i].host); host != want {
			t.Fatalf("request %d went to host %q, want %q", i, reqs[i].host, want)
		}
	}
}

func TestSendUnknownHost(t *testing.T) {
	t.Parallel()
	s := NewSender(SenderOptions{Resolver: &staticResolver{}})
	got := s.Send(t.Context(), message(t, "https://nowhere.test/"))
	if got.Status != 0 || got.Err == nil || got.Err.Error() != "host nowhere.test not found" {
		t.Fatalf("Send = %d %v", got.Status, got.Err)
	}
}

func TestSendConnectionRefused(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	got := NewSender(SenderOptions{AllowPrivate: true}).Send(t.Context(), message(t, "http://"+addr+"/"))
	if got.Status != 0 || got.Err == nil || got.Err.Error() != "connection refused" {
		t.Fatalf("Send = %d %v, want connection refused", got.Status, got.Err)
	}
}

func TestSendBadSecret(t *testing.T) {
	t.Parallel()
	rec := newReceiver(t, nil)
	s := NewSender(SenderOptions{AllowPrivate: true})
	for _, secrets := range [][]string{nil, {"whsec_c2VjcmV0"}, {mustSecret(t), "nope!"}} {
		m := message(t, rec.URL)
		m.Secrets = secrets
		got := s.Send(t.Context(), m)
		if got.Status != 0 || !errors.Is(got.Err, ErrBadSecret) {
			t.Errorf("Send with secrets %q = %d %v, want ErrBadSecret", secrets, got.Status, got.Err)
		}
		if got.Err != nil && strings.Contains(got.Err.Error(), "c2VjcmV0") {
			t.Errorf("error %q repeats the secret", got.Err)
		}
	}
	if n := len(rec.requests()); n != 0 {
		t.Fatalf("receiver got %d unsigned requests", n)
	}
}

// Many sends at once through one Sender: each arrives once, signed.
func TestSendConcurrent(t *testing.T) {
	t.Parallel()
	rec := newReceiver(t, nil)
	secret := mustSecret(t)
	s := NewSender(SenderOptions{AllowPrivate: true})
	const n = 16
	var wg sync.WaitGroup
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("msg_%d", i)
		wg.Go(func() {
			m := message(t, rec.URL, secret)
			m.ID = ids[i]
			if got := s.Send(t.Context(), m); got.Err != nil || got.Status != http.StatusNoContent {
				t.Errorf("Send %d = %d %v", i, got.Status, got.Err)
			}
		})
	}
	wg.Wait()
	seen := map[string]int{}
	for _, r := range rec.requests() {
		if err := Verify([]string{secret}, r.header, r.body, time.Now(), 0); err != nil {
			t.Errorf("Verify: %v", err)
		}
		seen[r.header.Get(HeaderID)]++
	}
	for _, id := range ids {
		if seen[id] != 1 {
			t.Errorf("%s received %d times", id, seen[id])
		}
	}
}

// BenchmarkSend measures one signed message to a receiver on loopback
// over a kept connection.
func BenchmarkSend(b *testing.B) {
	rec := newReceiver(b, nil)
	s := NewSender(SenderOptions{AllowPrivate: true})
	m := message(b, rec.URL)
	b.ReportAllocs()
	for b.Loop() {
		if got := s.Send(b.Context(), m); got.Err != nil {
			b.Fatal(got.Err)
		}
	}
}
