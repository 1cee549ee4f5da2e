package client

import (
	"net/http"
	"time"

	"github.com/bwcms/cms/webhook"
)

// VerifyWebhook checks a webhook message a receiver got: r's
// webhook-id, webhook-timestamp and webhook-signature headers against
// body (read in full from r.Body by the caller, unchanged) and the
// webhook's secrets ("whsec_..."; while a secret changes, the new and the
// previous one). The timestamp must be within 5 minutes of this
// machine's clock. The error matches webhook.ErrMissingHeaders,
// webhook.ErrTimestamp, webhook.ErrBadSecret or webhook.ErrBadSignature;
// answer such a request 401 and act on nothing in it. Messages may come
// more than once: drop repeats by the webhook-id header.
func VerifyWebhook(secrets []string, r *http.Request, body []byte) error {
	return webhook.Verify(secrets, r.Header, body, time.Now(), webhook.DefaultTolerance)
}
