package option

import (
	"testing"
	"time"
)

func TestDefault(t *testing.T) {
	off := Sentinel[time.Duration]{Name: "pkg.Off", Value: -1}
	for _, c := range []struct {
		in, want time.Duration
		err      string
	}{
		{0, 10 * time.Second, ""},
		{3 * time.Second, 3 * time.Second, ""},
		{-1, -1, ""},
		{-2 * time.Second, 0, "pkg: Options.Wait is -2s: must be 0 (default 10s), pkg.Off or more"},
	} {
		v := c.in
		err := Default("pkg: Options.Wait", &v, 10*time.Second, off)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%v: error %v, want %q", c.in, err, c.err)
		case c.err == "" && (err != nil || v != c.want):
			t.Errorf("%v: got %v, %v; want %v", c.in, v, err, c.want)
		}
	}
	n := -1
	if err := Default("pkg: Options.Count", &n, 5); err == nil || err.Error() != "pkg: Options.Count is -1: must be 0 (default 5) or more" {
		t.Errorf("count: %v", err)
	}
}
