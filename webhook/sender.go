package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"

	"github.com/bwcms/cms/cms"
)

// DefaultTimeout bounds one attempt: connect, TLS, the request, the
// answer's headers and the part of its body that is read.
const DefaultTimeout = 10 * time.Second

// DefaultUserAgent is the User-Agent of every message.
const DefaultUserAgent = "bwcms-webhook/1"

// drainLimit is how much of an answer beyond what is kept is read to
// let its connection serve the next message; a longer answer closes it.
const drainLimit = 64 << 10

// SenderOptions configure a Sender; the zero value gives the defaults
// each field names.
type SenderOptions struct {
	// Timeout bounds each attempt (connect, TLS, headers and body).
	// Default DefaultTimeout (10 s); zero or negative gives the default.
	Timeout time.Duration
	// AllowPrivate lets messages go to loopback, private, link-local and
	// the other networks cms.ForbiddenWebhookAddr names (tests, a
	// receiver beside the server). Give cms.Options.WebhookAllowPrivate
	// the same value. Default false.
	AllowPrivate bool
	// UserAgent is sent with every message. Default DefaultUserAgent.
	UserAgent string
	// Resolver answers the addresses of host names; each address is
	// checked and connected to as answered. Default net.DefaultResolver.
	Resolver Resolver
	// TLSConfig is used for https receivers (a private CA, say); it is
	// cloned. Default: the system's roots, TLS 1.2 at least.
	TLSConfig *tls.Config
}

// Sender sends webhook messages over HTTP as Standard Webhooks
// (https://www.standardwebhooks.com): a POST of the JSON body with
// webhook-id, webhook-timestamp and webhook-signature. It follows no
// redirect, uses no proxy (whatever the environment says), and connects
// only to addresses cms.ForbiddenWebhookAddr allows, checked on the
// address connected to, unless AllowPrivate. A Sender is a
// cms.WebhookSender and is safe for concurrent use.
type Sender struct {
	client       *http.Client
	transport    *http.Transport
	resolver     Resolver
	allowPrivate bool
	timeout      time.Duration
	userAgent    string
	// dialAddr connects to one checked address; tests replace it to
	// see where connections go.
	dialAddr func(ctx context.Context, network string, addr netip.AddrPort) (net.Conn, error)
}

var _ cms.WebhookSender = (*Sender)(nil)

// NewSender makes a Sender.
func NewSender(opts SenderOptions) *Sender {
	s := &Sender{
		resolver:     opts.Resolver,
		allowPrivate: opts.AllowPrivate,
		timeout:      opts.Timeout,
		userAgent:    opts.UserAgent,
	}
	if s.resolver == nil {
		s.resolver = net.DefaultResolver
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.userAgent == "" {
		s.userAgent = DefaultUserAgent
	}
	dialer := &net.Dialer{
		Timeout:   s.timeout,
		KeepAlive: 30 * time.Second,
		Control:   controlAddr(s.allowPrivate),
	}
	s.dialAddr = func(ctx context.Context, network string, addr netip.AddrPort) (net.Conn, error) {
		return dialer.DialContext(ctx, network, addr.String())
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if opts.TLSConfig != nil {
		tlsConfig = opts.TLSConfig.Clone()
	}
	s.transport = &http.Transport{
		// Proxy stays nil: a proxy from the environment would connect to
		// addresses this sender never checked.
		Proxy: nil,
		// Connections are pooled per scheme and host:port, so one is never
		// reused for another host.
		DialContext:            s.dialContext,
		TLSClientConfig:        tlsConfig,
		TLSHandshakeTimeout:    s.timeout,
		ResponseHeaderTimeout:  s.timeout,
		MaxResponseHeaderBytes: 64 << 10,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
	}
	s.client = &http.Client{
		Transport: s.transport,
		// A 3xx is the answer: following it would reach an address the
		// webhook's owner never gave.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return s
}

// CloseIdleConnections closes the connections kept for the next
// messages.
func (s *Sender) CloseIdleConnections() { s.transport.CloseIdleConnections() }

// Send makes one attempt of a message: Status is the answer's status
// (a 3xx included: redirects are not followed), Response at most
// cms.MaxDeliveryResponse bytes of its body; Err says why no answer came,
// in words fit for the delivery log (it matches ErrRefused or ErrTimeout
// when that is why). Once the headers came the attempt has its answer: a
// body cut short by the timeout keeps what was read.
func (s *Sender) Send(ctx context.Context, m cms.WebhookMessage) cms.WebhookAttempt {
	u, err := url.Parse(m.URL)
	if err != nil {
		return cms.WebhookAttempt{Err: refusedf("URL is not valid")}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return cms.WebhookAttempt{Err: refusedf("URL scheme %q is not http or https", u.Scheme)}
	}
	if u.User != nil {
		return cms.WebhookAttempt{Err: refusedf("URL carries a user or password")}
	}
	if u.Host == "" {
		return cms.WebhookAttempt{Err: refusedf("URL has no host")}
	}
	ts := m.Timestamp
	if ts.IsZero() {
		ts = time.Now()
	}
	sig, err := signatures(m.Secrets, m.ID, ts, m.Body)
	if err != nil {
		// Never the secret itself: the log is read by the webhook's owners.
		return cms.WebhookAttempt{Err: &sendError{msg: "cannot sign: " + err.Error(), cause: err}}
	}

	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(m.Body))
	if err != nil {
		return cms.WebhookAttempt{Err: refusedf("URL is not valid")}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.userAgent)
	req.Header.Set(HeaderID, m.ID)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set(HeaderSignature, sig)

	resp, err := s.client.Do(req)
	if err != nil {
		return cms.WebhookAttempt{Err: s.describe(ctx, err)}
	}
	defer resp.Body.Close()
	// Errors reading the body are not the attempt's: the status answered.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, cms.MaxDeliveryResponse))
	_, _ = io.CopyN(io.Discard, resp.Body, drainLimit)
	return cms.WebhookAttempt{Status: resp.StatusCode, Response: body}
}

// describe turns what went wrong before an answer into words about the
// receiver, never about this process.
func (s *Sender) describe(ctx context.Context, err error) error {
	var se *sendError
	if errors.As(err, &se) {
		return se
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || isTimeout(err) {
		return &sendError{msg: "no answer within " + s.timeout.String(), kind: ErrTimeout, cause: err}
	}
	if ctx.Err() != nil {
		return &sendError{msg: "sending canceled", cause: err}
	}
	var certErr *tls.CertificateVerificationError
	var hostErr x509.HostnameError
	var authErr x509.UnknownAuthorityError
	var invalidErr x509.CertificateInvalidError
	switch {
	case errors.As(err, &hostErr), errors.As(err, &authErr), errors.As(err, &invalidErr):
		return &sendError{msg: "TLS certificate refused: " + innermost(err).Error(), cause: err}
	case errors.As(err, &certErr):
		return &sendError{msg: "TLS certificate refused", cause: err}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &sendError{msg: "connection refused", cause: err}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &sendError{msg: "connection closed without an answer", cause: err}
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return &sendError{msg: "host unreachable", cause: err}
	}
	return &sendError{msg: "no answer: " + innermost(err).Error(), cause: err}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// innermost answers the last error of a chain of single wraps: the
// cause without the "Post <url>: dial tcp ..." decorations.
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
