package cms

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// MaxWebhookURL is the longest webhook address, in bytes.
const MaxWebhookURL = 2000

// webhookProblemKind names webhooks in the problems of a refusal
// ("Webhook (new): url: ...").
const webhookProblemKind Kind = "Webhook"

// The secrets of webhooks: "whsec_" + base64 (standard, padded) of 24 to
// 64 bytes; the service makes 32.
const (
	webhookSecretPrefix = "whsec_"
	minSecretBytes      = 24
	maxSecretBytes      = 64
	newSecretBytes      = 32
)

// webhookProblems gathers what is wrong with the input of a webhook.
type webhookProblems struct {
	id       string
	problems []Problem
}

func (w *webhookProblems) add(field, format string, args ...any) {
	id := w.id
	if id == "" {
		id = "(new)"
	}
	w.problems = append(w.problems, Problem{Kind: webhookProblemKind, ID: id, Field: field, Text: fmt.Sprintf(format, args...)})
}

func (w *webhookProblems) err() error {
	if len(w.problems) == 0 {
		return nil
	}
	return &Error{Code: CodeInvalid, Message: "Invalid webhook", Problems: w.problems}
}

// checkWebhookURL adds the problems of a webhook's address: http or
// https, absolute, at most MaxWebhookURL bytes, no user or password, and
// unless private targets are allowed no address of a private network
// spelled in it (a literal IP address, "localhost"). Names that resolve
// to one are refused by the sender, which checks the address it connects
// to.
func checkWebhookURL(w *webhookProblems, raw string, allowPrivate bool) {
	if raw == "" {
		w.add("url", "is required")
		return
	}
	if len(raw) > MaxWebhookURL {
		w.add("url", "must be at most %d characters", MaxWebhookURL)
		return
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Opaque != "" {
		w.add("url", "must be an http or https address")
		return
	}
	if u.User != nil {
		w.add("url", "must not hold a user or password")
		return
	}
	host := u.Hostname()
	if host == "" {
		w.add("url", "must name a host")
		return
	}
	if allowPrivate {
		return
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if ForbiddenWebhookAddr(addr) {
			w.add("url", "must not name an address of a private or special network (%s)", addr)
		}
		return
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		w.add("url", "must not name the local host")
	}
}

// checkWebhookEvents adds the problems of events: each "*" or
// "<kind>.<upsert|delete>" for a kind p may read. It returns them
// without repeats, in the order given ("*" alone when it is given).
func checkWebhookEvents(w *webhookProblems, events []string, p Principal) []string {
	if len(events) == 0 {
		w.add("events", `must name at least one event, or "*"`)
		return nil
	}
	seen := make([]string, 0, len(events))
	for i, e := range events {
		field := fmt.Sprintf("events[%d]", i)
		if e == "*" {
			continue
		}
		kind, op, ok := strings.Cut(e, ".")
		if !ok || !slices.Contains(Kinds(), Kind(kind)) || op != string(ChangeUpsert) && op != string(ChangeDelete) {
			w.add(field, `must be "*" or <kind>.upsert or <kind>.delete, of the kinds %s`, kindList())
			continue
		}
		if !p.Can(Kind(kind), ActionRead) {
			w.add(field, "names %s, which you may not read", kind)
			continue
		}
		if !slices.Contains(seen, e) {
			seen = append(seen, e)
		}
	}
	if slices.Contains(events, "*") {
		return []string{"*"}
	}
	return seen
}

func kindList() string {
	names := make([]string, len(Kinds()))
	for i, k := range Kinds() {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// checkWebhookSecret adds the problem of a secret given: "whsec_" +
// base64 of 24 to 64 bytes.
func checkWebhookSecret(w *webhookProblems, secret string) {
	key, ok := strings.CutPrefix(secret, webhookSecretPrefix)
	if ok {
		raw, err := base64.StdEncoding.DecodeString(key)
		ok = err == nil && len(raw) >= minSecretBytes && len(raw) <= maxSecretBytes
	}
	if !ok {
		w.add("secret", `must be "whsec_" and the base64 of %d to %d random bytes`, minSecretBytes, maxSecretBytes)
	}
}

// newWebhookSecret makes a secret from r.
func newWebhookSecret(r io.Reader) (string, error) {
	b := make([]byte, newSecretBytes)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("cms: random: %w", err)
	}
	return webhookSecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// webhookMatches reports whether events select a change of kind by op.
func webhookMatches(events []string, kind Kind, op ChangeOp) bool {
	for _, e := range events {
		if e == "*" || e == string(kind)+"."+string(op) {
			return true
		}
	}
	return false
}

// webhookKinds are the kinds events select, nil for every kind.
func webhookKinds(events []string) []Kind {
	var kinds []Kind
	for _, e := range events {
		if e == "*" {
			return nil
		}
		kind, _, _ := strings.Cut(e, ".")
		if !slices.Contains(kinds, Kind(kind)) {
			kinds = append(kinds, Kind(kind))
		}
	}
	return kinds
}
