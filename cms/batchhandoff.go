package cms

import (
	"sync"
	"time"
)

// handoff passes the payloads of batches this process submitted to its own
// workers, so a worker does not read back from the store what the process
// has just written (tens of megabytes for a large batch; about a tenth of
// the time of a 10,000-record batch). The store keeps the durable copy: a
// batch claimed by another instance, or after a restart, is read from it.
// Bounded in bytes; a payload not taken within a lease (another instance
// claimed the batch) is dropped.
type handoff struct {
	mu      sync.Mutex
	limit   int
	size    int // of the payloads in entries
	entries map[string]handoffEntry
	// wake tells an idle local worker that a batch waits.
	wake chan struct{}
}

type handoffEntry struct {
	payload []byte
	at      time.Time
}

func newHandoff(limit int) *handoff {
	return &handoff{limit: limit, entries: map[string]handoffEntry{}, wake: make(chan struct{}, 1)}
}

// put keeps payload for id when it fits, first dropping payloads older
// than maxAge and then the oldest until it does. The entries are few (the
// bound is about one large batch), so they are searched, not ordered.
func (h *handoff) put(id string, payload []byte, now time.Time, maxAge time.Duration) {
	if len(payload) > h.limit {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for old, e := range h.entries {
		if now.Sub(e.at) >= maxAge {
			h.drop(old)
		}
	}
	for h.size+len(payload) > h.limit {
		oldest := ""
		for old, e := range h.entries {
			if oldest == "" || e.at.Before(h.entries[oldest].at) {
				oldest = old
			}
		}
		h.drop(oldest)
	}
	h.entries[id] = handoffEntry{payload: payload, at: now}
	h.size += len(payload)
}

// drop forgets the payload of id.
func (h *handoff) drop(id string) {
	h.size -= len(h.entries[id].payload)
	delete(h.entries, id)
}

// take returns and forgets the payload kept for id; nil when there is none.
func (h *handoff) take(id string) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.entries[id]
	if ok {
		h.drop(id)
	}
	return e.payload
}

// notify wakes one idle worker, if any waits.
func (h *handoff) notify() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}
