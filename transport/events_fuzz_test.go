package transport

import (
	"slices"
	"testing"

	"github.com/bwcms/cms/cms"
)

// FuzzEventRoutes: the readers of the history, webhook, feed and audit
// routes never panic, every refusal is 400 (CodeMalformed), and what they
// accept is within the routes' bounds.
func FuzzEventRoutes(f *testing.F) {
	for _, s := range []string{"resource/lake-walk/history", "map/history/history/3", "webhook/wh_1/deliveries/msg_2/retry",
		"limit=5&after=41.977&kinds=resource,map", "after=now", "status=failed&after=msg_1", "before=12",
		`{"url":"https://x.example.com","events":["*"],"secret":null,"enabled":true}`, `{"url":1}`, "resource/a%2Cb/history/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if hp, ok := parseHistoryPath(s); ok && (!slices.Contains(cms.Kinds(), hp.kind) || hp.rawID == "" || hp.one && hp.rawRev == "") {
			t.Errorf("history path %q read as %+v", s, hp)
		}
		if wp, ok := parseWebhookPath(s); ok && wp.endpoint != endpointWebhooks && wp.id == "" {
			t.Errorf("webhook path %q read as %+v", s, wp)
		}
		malformedOnly := func(what string, err error) {
			if err != nil && cms.ErrorCode(err) != cms.CodeMalformed {
				t.Errorf("%s of %q: %v, want a malformed error", what, s, err)
			}
		}
		hp, err := historyParamsOf(s)
		malformedOnly("history query", err)
		if err == nil && (hp.Limit < 0 || hp.Limit > MaxIDs || hp.After < 0) {
			t.Errorf("history query %q read as %+v", s, hp)
		}
		cp, err := changesParamsOf(s)
		malformedOnly("feed query", err)
		if err == nil {
			if _, perr := cms.ParseChangeCursor(cp.After); cp.After != "" && cp.After != afterNow && perr != nil {
				t.Errorf("feed query %q: after %q accepted", s, cp.After)
			}
			for _, k := range cp.Kinds {
				if !slices.Contains(cms.Kinds(), k) {
					t.Errorf("feed query %q: kind %q accepted", s, k)
				}
			}
		}
		_, err = deliveriesParamsOf(s)
		malformedOnly("deliveries query", err)
		ap, err := auditParamsOf(s)
		malformedOnly("audit query", err)
		if err == nil && ap.Before < 0 {
			t.Errorf("audit query %q read as %+v", s, ap)
		}
		_, err = decodeWebhookInput([]byte(s))
		malformedOnly("webhook body", err)
	})
}
