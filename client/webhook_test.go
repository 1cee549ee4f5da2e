package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/bwcms/cms/client"
	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/webhook"
)

// A receiver of webhook messages: it reads the body, checks it with
// VerifyWebhook, and answers 401 to anything not signed with the
// webhook's secret. (The secret is the one CreateWebhook answered.)
func ExampleVerifyWebhook() {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	receive := func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "cannot read the body", http.StatusBadRequest)
			return
		}
		if err := client.VerifyWebhook([]string{secret}, r, body); err != nil {
			http.Error(w, "not signed", http.StatusUnauthorized)
			fmt.Println("refused:", err)
			return
		}
		fmt.Printf("change %s: %s\n", r.Header.Get("webhook-id"), body)
		w.WriteHeader(http.StatusNoContent)
	}
	receiver := httptest.NewServer(http.HandlerFunc(receive))
	defer receiver.Close()

	sender := webhook.NewSender(webhook.SenderOptions{AllowPrivate: true}) // the receiver is on 127.0.0.1
	m := cms.WebhookMessage{
		ID:        "msg_1",
		Timestamp: time.Now(),
		URL:       receiver.URL,
		Body:      []byte(`{"kind":"map","id":"m7","op":"delete","rev":4}`),
		Secrets:   []string{secret},
	}
	fmt.Println(sender.Send(context.Background(), m).Status)

	forged, _ := http.NewRequest(http.MethodPost, receiver.URL, bytes.NewReader(m.Body))
	forged.Header.Set("webhook-id", "msg_2")
	forged.Header.Set("webhook-timestamp", strconv.FormatInt(time.Now().Unix(), 10))
	forged.Header.Set("webhook-signature", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	resp, err := http.DefaultClient.Do(forged)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output:
	// change msg_1: {"kind":"map","id":"m7","op":"delete","rev":4}
	// 204
	// refused: webhook: no matching signature
	// 401
}

func TestVerifyWebhook(t *testing.T) {
	t.Parallel()
	secret, err := webhook.NewSecret(bytes.NewReader(bytes.Repeat([]byte{1}, webhook.SecretSize)))
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"kind":"resource","id":"r1","op":"upsert","rev":1}`)
	request := func(ts time.Time) *http.Request {
		sig, err := webhook.Sign(secret, "msg_9", ts, body)
		if err != nil {
			t.Fatal(err)
		}
		r := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(body))
		r.Header.Set(webhook.HeaderID, "msg_9")
		r.Header.Set(webhook.HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
		r.Header.Set(webhook.HeaderSignature, sig)
		return r
	}
	now := time.Now()
	for _, ts := range []time.Time{now, now.Add(-4 * time.Minute), now.Add(4 * time.Minute)} {
		if err := client.VerifyWebhook([]string{secret}, request(ts), body); err != nil {
			t.Errorf("signed %v ago: %v", now.Sub(ts), err)
		}
	}
	for _, ts := range []time.Time{now.Add(-6 * time.Minute), now.Add(6 * time.Minute)} {
		if err := client.VerifyWebhook([]string{secret}, request(ts), body); !errors.Is(err, webhook.ErrTimestamp) {
			t.Errorf("signed %v ago: %v, want ErrTimestamp", now.Sub(ts), err)
		}
	}
	if err := client.VerifyWebhook([]string{secret}, request(now), append(body, ' ')); !errors.Is(err, webhook.ErrBadSignature) {
		t.Errorf("body changed: %v, want ErrBadSignature", err)
	}
	r := request(now)
	r.Header.Del(webhook.HeaderSignature)
	if err := client.VerifyWebhook([]string{secret}, r, body); !errors.Is(err, webhook.ErrMissingHeaders) {
		t.Errorf("unsigned: %v, want ErrMissingHeaders", err)
	}
}
