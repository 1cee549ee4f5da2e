package client_test

import (
	"testing"
	"time"

	"github.com/bwcms/cms/client"
)

// TestOptionsRefused: New refuses every option out of its range, with the
// field named.
func TestOptionsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		opts client.Options
		want string
	}{
		{client.Options{PageSize: -1}, "client: Options.PageSize is -1: must be 0 (default 100) or 1 to 1000"},
		{client.Options{PageSize: 1001}, "client: Options.PageSize is 1001: must be 0 (default 100) or 1 to 1000"},
		{client.Options{PollInterval: -time.Second}, "client: Options.PollInterval is -1s: must be 0 (default 100ms) or more"},
		{client.Options{MaxPollInterval: -time.Second}, "client: Options.MaxPollInterval is -1s: must be 0 (default 2s) or more"},
		{client.Options{RefreshTimeout: -time.Second}, "client: Options.RefreshTimeout is -1s: must be 0 (default 30s) or more"},
	} {
		c2, err := client.New("http://127.0.0.1:8080", &c.opts)
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v, %v; want error %q", c2, err, c.want)
		}
	}
	if _, err := client.New("http://127.0.0.1:8080", &client.Options{PageSize: client.MaxPageSize}); err != nil {
		t.Errorf("PageSize %d: %v", client.MaxPageSize, err)
	}
}
