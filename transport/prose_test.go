package transport

import (
	"testing"
	"time"
)

func TestProse(t *testing.T) {
	t.Parallel()
	for got, want := range map[string]string{
		bytesText(8 << 20):                    "8 MiB",
		bytesText(64 << 10):                   "64 KiB",
		bytesText(1500):                       "1,500 bytes",
		countText(10000):                      "10,000",
		countText(999):                        "999",
		countText(1234567):                    "1,234,567",
		durationText(7 * 24 * time.Hour):      "7 days",
		durationText(time.Hour):               "1 hour",
		durationText(10 * time.Second):        "10 s",
		durationText(90 * time.Minute):        "90 minutes",
		durationText(1500 * time.Millisecond): "1.5s",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
