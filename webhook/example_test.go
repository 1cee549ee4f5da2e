package webhook_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/webhook"
)

// A receiver checks each message; a Sender (private addresses allowed,
// as the receiver is on 127.0.0.1) sends one.
func ExampleSender_Send() {
	secret, err := webhook.NewSecret(rand.Reader)
	if err != nil {
		panic(err)
	}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "cannot read", http.StatusBadRequest)
			return
		}
		if err := webhook.Verify([]string{secret}, r.Header, body, time.Now(), 0); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		fmt.Printf("received %s: %s\n", r.Header.Get(webhook.HeaderID), body)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	sender := webhook.NewSender(webhook.SenderOptions{AllowPrivate: true})
	m := cms.WebhookMessage{
		ID:        "msg_2f1Sx3",
		Timestamp: time.Now(),
		URL:       receiver.URL,
		Body:      []byte(`{"kind":"resource","id":"r1","op":"upsert","rev":2}`),
		Secrets:   []string{secret},
	}
	got := sender.Send(context.Background(), m)
	fmt.Println(got.Status, got.Err)

	// Without AllowPrivate the loopback receiver is refused.
	got = webhook.NewSender(webhook.SenderOptions{}).Send(context.Background(), m)
	fmt.Println(got.Status, got.Err)
	// Output:
	// received msg_2f1Sx3: {"kind":"resource","id":"r1","op":"upsert","rev":2}
	// 204 <nil>
	// 0 address 127.0.0.1 is a loopback address
}

// Sign the spec's test message.
func ExampleSign() {
	sig, err := webhook.Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	fmt.Println(sig, err)
	// Output: v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE= <nil>
}
