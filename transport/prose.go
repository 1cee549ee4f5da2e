package transport

import (
	"strconv"
	"time"
)

// The API's texts (the OpenAPI document) write the defaults from their
// constants with these, so a changed default changes its text too.

// bytesText writes n bytes as people read them: "8 MiB", "64 KiB".
func bytesText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return countText(n) + " bytes"
}

// countText writes n with thousands separated: "10,000".
func countText(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + countText(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// durationText writes d in its largest whole unit: "7 days", "10 s".
func durationText(d time.Duration) string {
	for _, u := range []struct {
		size       time.Duration
		one, other string
	}{
		{24 * time.Hour, " day", " days"},
		{time.Hour, " hour", " hours"},
		{time.Minute, " minute", " minutes"},
		{time.Second, " s", " s"},
	} {
		if d >= u.size && d%u.size == 0 {
			n := int64(d / u.size)
			if n == 1 {
				return "1" + u.one
			}
			return countText(n) + u.other
		}
	}
	return d.String()
}
