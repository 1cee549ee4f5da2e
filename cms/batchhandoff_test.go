package cms

import (
	"strings"
	"testing"
	"time"
)

func TestHandoff(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	payload := func(n int) handoffEntry { return handoffEntry{payload: []byte(strings.Repeat("x", n))} }
	h := newHandoff(100)
	h.put("a", payload(40), t0, time.Minute)
	h.put("b", payload(40), t0.Add(time.Second), time.Minute)
	if got := h.take("a").payload; len(got) != 40 {
		t.Fatalf("take a: %d bytes, want 40", len(got))
	}
	if got := h.take("a").payload; got != nil {
		t.Errorf("a taken twice: %d bytes", len(got))
	}
	// c fits beside b; d does not: the oldest (b) goes first.
	h.put("c", payload(50), t0.Add(2*time.Second), time.Minute)
	h.put("d", payload(30), t0.Add(3*time.Second), time.Minute)
	if h.take("b").payload != nil || len(h.take("c").payload) != 50 || len(h.take("d").payload) != 30 {
		t.Error("b should have made room for d; c and d kept")
	}
	if h.size != 0 || len(h.entries) != 0 {
		t.Errorf("empty handoff holds %d bytes, %d entries", h.size, len(h.entries))
	}
	// A payload not taken within the lease (another instance claimed
	// it) goes at the next put; one over the bound is never kept.
	h.put("e", payload(10), t0, time.Minute)
	h.put("f", payload(10), t0.Add(2*time.Minute), time.Minute)
	h.put("g", payload(101), t0.Add(2*time.Minute), time.Minute)
	if h.take("e").payload != nil || len(h.take("f").payload) != 10 || h.take("g").payload != nil {
		t.Error("e outlived its lease, or g over the bound was kept")
	}
	if h.size != 0 || len(h.entries) != 0 {
		t.Errorf("after every take: %d bytes, %d entries", h.size, len(h.entries))
	}
}
