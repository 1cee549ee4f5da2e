// Package webhook sends and checks webhook messages as Standard Webhooks
// (https://www.standardwebhooks.com), for the webhooks of package cms
// (DECISIONS §18).
//
// A server gives cms a [Sender]: it POSTs each message with the headers
// webhook-id, webhook-timestamp and webhook-signature (HMAC-SHA256 of
// "id.timestamp.body" under each secret), follows no redirect, ignores
// proxy variables, and connects only to public addresses (see
// [cms.ForbiddenWebhookAddr]), checking the address it connects to, not
// an earlier answer of DNS:
//
//	svc, err := cms.NewService(store, &cms.Options{
//		WebhookSender: webhook.NewSender(webhook.SenderOptions{}),
//	})
//
// A receiver checks each message with [Verify] (or client.VerifyWebhook)
// before trusting it, and drops repeats by webhook-id:
//
//	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
//	err := webhook.Verify(secrets, r.Header, body, time.Now(), 0)
//
// Secrets are "whsec_" + base64 of 24 to 64 bytes; [NewSecret] makes
// one. While a secret changes, messages carry a signature under the new
// and the previous one, and a receiver may pass both to Verify.
package webhook
