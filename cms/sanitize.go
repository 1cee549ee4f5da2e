package cms

import (
	"reflect"
	"strings"
	"sync"
)

// sanitize runs the HTML sanitizer (Options.HTML) over every HTML field
// of a body of account, nested items included, so what is stored (and
// compared for Skip) is the sanitized text.
func (s *Service) sanitize(account string, rec Record) {
	kind, id := rec.Kind(), rec.RecordID()
	clean := s.opts.HTML.Sanitize
	if s.sanitized != nil {
		clean = func(html string) string { return s.sanitized.sanitize(sanitizedRecord{account, kind, id}, html) }
	}
	sanitizeObject(s.doc.kinds[kind].spec, reflect.ValueOf(rec).Elem(), clean)
}

// decode is Codec.Decode of a body of account the service will store: its
// HTML fields are sanitized before the rules judge them, so their limits
// hold for what is stored (DECISIONS §13) and a stored record read and
// posted back passes them again.
func (s *Service) decode(account string, codec *Codec, body []byte, rec Record) error {
	return codec.decodeClean(body, rec, true, func(rec Record) { s.sanitize(account, rec) })
}

func sanitizeObject(spec *typeSpec, v reflect.Value, clean func(string) string) {
	for _, f := range spec.fields {
		fv := v.Field(f.index)
		if f.item != nil {
			list := fv.Field(0)
			for i := range list.Len() {
				sanitizeObject(f.item, list.Index(i), clean)
			}
			continue
		}
		if !f.html {
			continue
		}
		switch p := fv.Addr().Interface().(type) {
		case *Langs[Null[string]]:
			for lang, text := range *p {
				if text.Valid {
					(*p)[lang] = NullOf(clean(text.Value))
				}
			}
		case *Null[string]:
			if p.Valid {
				p.Value = clean(p.Value)
			}
		case *Langs[string]:
			for lang, text := range *p {
				(*p)[lang] = clean(text)
			}
		case *Opt[string]:
			if p.Set {
				p.Value = clean(p.Value)
			}
		}
	}
}

// Bounds of the answers sanitizedTexts keeps: a text longer than
// maxKeptHTML is sanitized each time, and each of the two generations
// holds at most keptHTMLBytes of texts and answers.
const (
	maxKeptHTML   = 64 << 10
	keptHTMLBytes = 2 << 20
)

// sanitizedTexts keeps the recent answers of the default sanitizer, whose
// policy gives the same answer for the same text: an update posting a
// record back with a new title, an import of the same records sent
// again, or a batch sanitized at submit and again when applied, brings
// the HTML that was sanitized before for that record, and sanitizing it
// was the largest part of such a write's CPU outside its transaction.
// Answers are kept per record (account, kind and id): how long a write
// takes tells nobody whether another record holds a given text, and a new
// record's text is always sanitized (many records sharing one text, as a
// load test's do, gain nothing). Two generations: a text found in the
// older one moves to the newer; when the newer is full, the older is
// dropped.
type sanitizedTexts struct {
	policy Sanitizer
	// clean answers what the default policy keeps as it is, before the
	// kept answers are looked at: in one pass, cheaper than hashing the
	// text for the look-up, and the same for every record.
	clean *cleanForms
	limit int // bytes a generation holds

	mu        sync.Mutex
	cur, prev map[sanitizedKey]string
	size      int // bytes of cur's texts and answers
}

// sanitizedRecord names the record a text is sanitized for.
type sanitizedRecord struct {
	account string
	kind    Kind
	id      string
}

type sanitizedKey struct {
	sanitizedRecord
	html string
}

func newSanitizedTexts(policy Sanitizer, limit int) *sanitizedTexts {
	t := &sanitizedTexts{policy: policy, limit: limit, cur: map[sanitizedKey]string{}}
	if u, ok := policy.(ugc); ok {
		t.clean, t.policy = u.clean, ugc{p: u.p} // not recognized twice
	}
	return t
}

// sanitize is policy.Sanitize(html), from the kept answers when html was
// sanitized for rec lately.
func (t *sanitizedTexts) sanitize(rec sanitizedRecord, html string) string {
	if t.clean != nil {
		if out, ok := t.clean.sanitize(html); ok {
			return out
		}
	}
	if len(html) > maxKeptHTML {
		return t.policy.Sanitize(html)
	}
	key := sanitizedKey{rec, html}
	t.mu.Lock()
	out, ok := t.cur[key]
	if !ok {
		if out, ok = t.prev[key]; ok {
			t.keep(key, out)
		}
	}
	t.mu.Unlock()
	if ok {
		return out
	}
	out = t.policy.Sanitize(html)
	// The text may share the memory of a whole body: the key is a copy.
	key = sanitizedKey{sanitizedRecord{strings.Clone(rec.account), rec.kind, strings.Clone(rec.id)}, strings.Clone(html)}
	t.mu.Lock()
	if _, ok := t.cur[key]; !ok {
		t.keep(key, out)
	}
	t.mu.Unlock()
	return out
}

// keep adds an answer to the newer generation, which becomes the older
// one first when the answer would not fit. t.mu is held.
func (t *sanitizedTexts) keep(key sanitizedKey, out string) {
	n := len(key.account) + len(key.id) + len(key.html) + len(out)
	if t.size+n > t.limit {
		t.prev, t.cur, t.size = t.cur, make(map[sanitizedKey]string, len(t.cur)), 0
	}
	t.cur[key] = out
	t.size += n
}
