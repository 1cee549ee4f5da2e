package cms

import (
	"sync"
	"time"
)

// handoff passes the payloads of batches this process submitted to its own
// workers, so a worker does not read back from the store what the process
// has just written (tens of megabytes for a large batch; about a tenth of
// the time of a 10,000-record batch), and, for a batch of a few megabytes,
// the records the submit decoded and sanitized, so the worker does not do
// it again (with the HTML sanitizer, a third of a small batch's CPU). The
// store keeps the durable copy: a batch claimed by another instance, or
// after a restart, is read and decoded from it. Bounded in bytes; a
// payload not taken within a lease (another instance claimed the batch)
// is dropped.
type handoff struct {
	mu      sync.Mutex
	limit   int
	size    int // of the payloads in entries
	entries map[string]handoffEntry
	// wake tells an idle local worker that a batch waits.
	wake chan struct{}
}

// handoffEntry is a submitted batch for a worker of this process.
type handoffEntry struct {
	payload []byte
	// windows are the payload's records as the submit decoded and
	// sanitized them, in the windows of decodedWindows, with the codec of
	// the languages it decoded them in; nil when not kept.
	windows [][]Record
	codec   *Codec
	at      time.Time
	// decoded: an apply took the windows (records).
	decoded bool
}

// decodedRecordSize is about what a decoded record takes beyond twice its
// JSON: its maps and option fields (measured: 2 KB for a Resource of
// 200 bytes of JSON, 4.8 KB for one of 2.4 KB).
const decodedRecordSize = 2 << 10

// decodedSize is about what the decoded records of a body of n bytes and
// count records take.
func decodedSize(n, count int) int { return 2*n + decodedRecordSize*count }

// size is about what the entry holds in memory.
func (e handoffEntry) size() int {
	size := len(e.payload)
	if e.windows != nil {
		count := 0
		for _, w := range e.windows {
			count += len(w)
		}
		size += decodedSize(len(e.payload), count)
	}
	return size
}

func newHandoff(limit int) *handoff {
	return &handoff{limit: limit, entries: map[string]handoffEntry{}, wake: make(chan struct{}, 1)}
}

// put keeps e for id when it fits (its payload alone when its records do
// not), first dropping entries older than maxAge and then the oldest
// until it does. The entries are few (the bound is about one large
// batch), so they are searched, not ordered.
func (h *handoff) put(id string, e handoffEntry, now time.Time, maxAge time.Duration) {
	if e.size() > h.limit {
		e.windows, e.codec = nil, nil
	}
	if e.size() > h.limit {
		return
	}
	e.at = now
	h.mu.Lock()
	defer h.mu.Unlock()
	for old, o := range h.entries {
		if now.Sub(o.at) >= maxAge {
			h.drop(old)
		}
	}
	for h.size+e.size() > h.limit {
		oldest := ""
		for old, o := range h.entries {
			if oldest == "" || o.at.Before(h.entries[oldest].at) {
				oldest = old
			}
		}
		h.drop(oldest)
	}
	h.entries[id] = e
	h.size += e.size()
}

// drop forgets the entry of id.
func (h *handoff) drop(id string) {
	h.size -= h.entries[id].size()
	delete(h.entries, id)
}

// take returns and forgets the entry kept for id; its payload is nil when
// there is none.
func (h *handoff) take(id string) handoffEntry {
	h.mu.Lock()
	defer h.mu.Unlock()
	e, ok := h.entries[id]
	if ok {
		h.drop(id)
	}
	return e
}

// records returns the decoded windows of e once, for codec: nil when
// none were kept, or they were decoded in other languages than the
// account has now. An apply changes the records it upserts, so an apply
// run again decodes the payload.
func (e *handoffEntry) records(codec *Codec) [][]Record {
	windows := e.windows
	e.windows = nil
	if windows == nil || e.codec != codec {
		return nil
	}
	e.decoded = true
	return windows
}

// notify wakes one idle worker, if any waits.
func (h *handoff) notify() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}
