package cms

import (
	"context"
	"iter"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// StoredRecord is a record as its store keeps it, not decoded: what a read
// asked with ReadParams.Documents (ListParams.Stored, StoredStreamer)
// gives instead of Entry.Record, so an answer can be written from the
// document's bytes (Service.AppendEntry).
type StoredRecord struct {
	Kind Kind
	ID   string
	// Published, Lat and Lon are the stored index's (RecordIndex), which
	// reads by ids filter on.
	Published bool
	Lat, Lon  Null[float64]
	// Document is the storage form, as NewDocumentCodec appends it.
	Document string
	// Primary and Secondary are a Resource's mapIds and mapSecondaryIds, or
	// a Map's resourceIds and secondaryResourceIds, in their order, as
	// SetAssignmentLists takes them.
	Primary, Secondary []string
}

// StoredStreamer is a Store that also streams the records of ids
// undecoded: as StreamRecords, each Entry with Stored set and Record nil.
// Read uses it when asked for documents; a store without it is read
// through StreamRecords.
type StoredStreamer interface {
	StreamStored(ctx context.Context, account string, kind Kind, ids []string) iter.Seq2[*Entry, error]
}

// RecordID is the id of the entry's record, decoded or stored.
func (e *Entry) RecordID() string {
	if e.Record == nil && e.Stored != nil {
		return e.Stored.ID
	}
	return e.Record.RecordID()
}

// AppendEntry appends e as a read answers it in c's languages, with only
// the fields p keeps (nil: all): Codec.AppendProjected of Wire(e). An
// entry read undecoded (Entry.Stored) is written from its document's
// bytes when p is nil and the document is in the form this version
// writes; otherwise it is decoded first (into e.Record). Both give the same bytes (the
// equivalence tests of both adapters' suites). CodeInternal when the
// stored document is unreadable, as a store's read says it.
func (s *Service) AppendEntry(dst []byte, c *Codec, e *Entry, p *Projection) ([]byte, error) {
	if e.Record == nil && e.Stored != nil {
		if p == nil {
			if out, ok := s.appendStored(dst, c, e); ok {
				return out, nil
			}
		}
		if err := s.decodeStored(e); err != nil {
			return dst, err
		}
	}
	return c.AppendProjected(dst, s.Wire(e), p), nil
}

// decodeStored fills e.Record from e.Stored, as a store's read does.
func (s *Service) decodeStored(e *Entry) error {
	rec := NewRecord(e.Stored.Kind)
	if rec == nil {
		return &Error{Code: CodeInternal, Message: "stored record of unknown kind " + string(e.Stored.Kind)}
	}
	if err := s.doc.DecodeDocument(e.Stored.Document, rec); err != nil {
		return &Error{Code: CodeInternal, Message: "stored document unreadable", Err: err}
	}
	SetAssignmentLists(rec, e.Stored.Primary, e.Stored.Secondary)
	e.Record = rec
	return nil
}

// appendStored writes e from its stored document without decoding it:
// the document's values are copied into the answer, each field's
// languages picked from its language map, the read-only fields and the
// assignment lists spliced in at their places. It gives up (false, dst
// as it was) on a document whose every byte is not as this version's
// storage codec writes it (whitespace, another escape, another spelling
// of a number, a duplicate or unknown name): copied, such a value would
// not be the bytes the decoding path writes.
func (s *Service) appendStored(dst []byte, c *Codec, e *Entry) ([]byte, bool) {
	oc := c.kinds[e.Stored.Kind]
	if oc == nil || !oc.plan.exact {
		return dst, false
	}
	ws := wireScanners.Get().(*wireScanner)
	defer func() {
		ws.s, ws.spans = "", ws.spans[:0]
		wireScanners.Put(ws)
	}()
	doc := e.Stored.Document
	ws.s, ws.i = doc, 0
	if !ws.consume('{') || !ws.object(oc) || ws.i != len(doc) {
		return dst, false
	}
	ro := readOnlyValues{time: s.Timestamp(e.Updated), count: e.StatsAccess,
		primary: e.Stored.Primary, secondary: e.Stored.Secondary}
	if !e.StatsLastAccess.IsZero() {
		ro.last = s.Timestamp(e.StatsLastAccess)
	}
	return ws.emit(dst, oc, 0, &ro), true
}

// readOnlyValues are what an answer holds beside the document.
type readOnlyValues struct {
	time               string
	count              int64
	last               string // "": never (null)
	primary, secondary []string
}

var wireScanners = sync.Pool{New: func() any { return new(wireScanner) }}

// wireRole says where a field of the answer comes from.
type wireRole uint8

const (
	fromDocument   wireRole = iota
	fromUpdated             // timeLastUpdate
	fromCount               // a Proposal's statsAccess
	fromLastAccess          // a Proposal's statsLastAccess
	fromPrimary             // the assignment list of the primary role
	fromSecondary           // and of the secondary one
)

// wireStep is one field of an answer: its bindings (one per language of a
// multi-language field), in the codec's order.
type wireStep struct {
	field *fieldSpec
	binds []binding
	role  wireRole
	// zero is the value written when the document lacks the field (or the
	// language): what the decoding path writes for a zero field.
	zero []byte
}

// wirePlan is how an object codec writes answers from documents.
type wirePlan struct {
	steps []wireStep
	// docNames maps the names a document holds to their field's index;
	// docOrder is their order as the storage codec writes them.
	docNames map[string]int
	docOrder []string
	docIndex []int // the field index of each of docOrder
	// items are the codecs of nested item fields, by field index.
	items []*objectCodec
	// exact is false when the kind has a field the plan cannot place: its
	// documents are always decoded.
	exact bool
}

// buildPlan makes oc's wirePlan (for a codec of languages, not the
// storage codec). rec is an empty record of the kind, nil for a nested
// item type.
func buildPlan(oc *objectCodec, rec Record) wirePlan {
	p := wirePlan{docNames: make(map[string]int), items: make([]*objectCodec, len(oc.spec.fields)), exact: true}
	for _, b := range oc.out {
		if b.item != nil {
			p.items[b.field.index] = b.item
		}
	}
	for _, f := range oc.spec.fields {
		if !f.readOnly && !f.writeOnly && !f.assign {
			p.docNames[f.name] = f.index
			p.docOrder = append(p.docOrder, f.name)
			p.docIndex = append(p.docIndex, f.index)
		}
		if f.multiLang && f.typ != typeString {
			p.exact = false
		}
	}
	roles := fieldRoles(rec)
	for i := 0; i < len(oc.out); {
		f := oc.out[i].field
		j := i + 1
		for j < len(oc.out) && oc.out[j].field == f {
			j++
		}
		st := wireStep{field: f, binds: oc.out[i:j:j]}
		if f.readOnly || f.assign {
			role, ok := roles[f.index]
			if !ok {
				p.exact = false
			}
			st.role = role
		} else if f.item != nil && !oc.out[i].item.plan.exact {
			p.exact = false
		}
		zero := reflect.New(oc.spec.goType).Elem().Field(f.index)
		st.zero = appendField(nil, oc.out[i], zero)
		p.steps = append(p.steps, st)
		i = j
	}
	return p
}

// fieldRoles finds the read-only and assignment fields of rec by what
// Wire and SetAssignmentLists set: field index to role.
func fieldRoles(rec Record) map[int]wireRole {
	roles := map[int]wireRole{}
	if rec == nil {
		return roles
	}
	v := reflect.ValueOf(rec).Elem()
	is := func(i int, p any) bool { return v.Field(i).Addr().Interface() == p }
	for i := range v.NumField() {
		if is(i, rec.Common().TimeLastUpdate) {
			roles[i] = fromUpdated
		}
	}
	if a, ok := rec.(assigningRecord); ok {
		side := a.assignment()
		for i := range v.NumField() {
			switch {
			case is(i, side.primary):
				roles[i] = fromPrimary
			case is(i, side.secondary):
				roles[i] = fromSecondary
			}
		}
	}
	if c, ok := rec.(countedRecord); ok {
		c.setStats(1, NullOf("x"))
		for i := range v.NumField() {
			switch p := v.Field(i).Addr().Interface().(type) {
			case *int64:
				if *p == 1 {
					roles[i] = fromCount
				}
			case *Null[string]:
				if p.Valid && p.Value == "x" {
					roles[i] = fromLastAccess
				}
			}
		}
	}
	return roles
}

// span is a value's bytes in the document; end 0: absent.
type span struct{ start, end int }

// wireScanner reads a document strictly in the form the storage codec
// writes it, remembering where each field's value is (object), then
// writes the answer from those places (emit).
type wireScanner struct {
	s     string
	i     int
	spans []span // a stack: one frame of fields per object being read
}

func (w *wireScanner) consume(c byte) bool {
	if w.i < len(w.s) && w.s[w.i] == c {
		w.i++
		return true
	}
	return false
}

func (w *wireScanner) literal(word string) bool {
	if len(w.s)-w.i >= len(word) && w.s[w.i:w.i+len(word)] == word {
		w.i += len(word)
		return true
	}
	return false
}

// object reads the members of an object of oc whose '{' has been read,
// up to its '}', pushing a frame of spans indexed by field.
func (w *wireScanner) object(oc *objectCodec) bool {
	base := len(w.spans)
	n := len(oc.spec.fields)
	if cap(w.spans)-base < n {
		grown := make([]span, base, 2*(base+n))
		copy(grown, w.spans)
		w.spans = grown
	}
	w.spans = w.spans[:base+n]
	clear(w.spans[base:])
	if w.consume('}') {
		return true
	}
	plan := &oc.plan
	next := 0
	for {
		name, ok := w.name()
		if !ok || !w.consume(':') {
			return false
		}
		var index int
		if next < len(plan.docOrder) && plan.docOrder[next] == name {
			index = plan.docIndex[next]
			next++
		} else if index, ok = plan.docNames[name]; !ok {
			return false
		}
		if w.spans[base+index].end != 0 {
			return false // a duplicate: the decoding path keeps the last
		}
		start := w.i
		if !w.value(oc.spec.fields[index], plan.items[index]) {
			return false
		}
		w.spans[base+index] = span{start, w.i}
		if w.consume('}') {
			return true
		}
		if !w.consume(',') {
			return false
		}
	}
}

// name reads a member name without escapes.
func (w *wireScanner) name() (string, bool) {
	if !w.consume('"') {
		return "", false
	}
	start := w.i
	k := strings.IndexByte(w.s[start:], '"')
	if k < 0 {
		return "", false
	}
	name := w.s[start : start+k]
	if strings.IndexByte(name, '\\') >= 0 {
		return "", false
	}
	w.i = start + k + 1
	return name, true
}

// value reads a field's value: a language map of a multi-language field.
func (w *wireScanner) value(f *fieldSpec, item *objectCodec) bool {
	if !f.multiLang {
		return w.plain(f, item)
	}
	if !w.consume('{') {
		return false // null, which the decoding path reads as no language
	}
	if w.consume('}') {
		return true
	}
	for {
		code, ok := w.name()
		if !ok || !validText(code) || !w.consume(':') || !w.plain(f, nil) {
			return false
		}
		if w.consume('}') {
			return true
		}
		if !w.consume(',') {
			return false
		}
	}
}

// plain reads a value that is not a language map, as the storage codec
// writes it; item is the codec of a nested item list's items.
func (w *wireScanner) plain(f *fieldSpec, item *objectCodec) bool {
	if w.i < len(w.s) && w.s[w.i] == 'n' {
		// A null list of items is left to the decoding path.
		return f.nullable && f.typ != typeItems && w.literal("null")
	}
	switch f.typ {
	case typeString:
		return w.str()
	case typeBool:
		return w.literal("true") || w.literal("false")
	case typeNumber, typeInteger:
		return w.number(f.typ == typeInteger)
	case typeStrings:
		if !w.consume('[') {
			return false
		}
		if w.consume(']') {
			return true
		}
		for {
			if !w.str() {
				return false
			}
			if w.consume(']') {
				return true
			}
			if !w.consume(',') {
				return false
			}
		}
	case typeItems:
		return item != nil && w.items(item)
	}
	return false
}

// items reads a list of nested items of oc, each item's frame popped once
// read (emit reads them again as it writes them).
func (w *wireScanner) items(oc *objectCodec) bool {
	if !w.consume('[') {
		return false
	}
	if w.consume(']') {
		return true
	}
	base := len(w.spans)
	for {
		if !w.consume('{') || !w.object(oc) {
			return false
		}
		w.spans = w.spans[:base]
		if w.consume(']') {
			return true
		}
		if !w.consume(',') {
			return false
		}
	}
}

// str reads a string as appendString writes it: valid UTF-8, no control
// character, and no escape but \" \\ \b \f \n \r \t (what appendQuoted
// writes for them; it writes other control characters as \u00XX, which
// the decoding path reads and writes again the same, but this reading
// leaves to it).
func (w *wireScanner) str() bool {
	if !w.consume('"') {
		return false
	}
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	s := w.s
	i := w.i
	for i < len(s) {
		for i+8 <= len(s) {
			x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			q, bs := x^(ones*'"'), x^(ones*'\\')
			if (x|(x-ones*0x20)|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
				break
			}
			i += 8
		}
		if i == len(s) {
			break
		}
		switch c := s[i]; {
		case c == '"':
			w.i = i + 1
			return true
		case c == '\\':
			if i+1 == len(s) {
				return false
			}
			switch s[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			default:
				return false
			}
		case c < 0x20:
			return false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return false
			}
			i += size
		default:
			i++
		}
	}
	return false
}

// number reads a number spelled as the storage codec writes it: for an
// integer field as strconv.AppendInt, else as appendNumber.
func (w *wireScanner) number(integer bool) bool {
	s, start := w.s, w.i
	i := start
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '-' || s[i] == '+' || s[i] == '.' || s[i] == 'e' || s[i] == 'E') {
		i++
	}
	raw := s[start:i]
	if raw == "" {
		return false
	}
	// Read as docScanner.number reads it, written as appendField writes
	// what it read: a spelling that does not come back is left to the
	// decoding path.
	n, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		return false
	}
	var buf [32]byte
	var canonical []byte
	if integer {
		if n >= 1<<63 || n <= -(1<<63) || n != float64(int64(n)) {
			return false
		}
		canonical = strconv.AppendInt(buf[:0], int64(n), 10)
	} else {
		canonical = appendNumber(buf[:0], n)
	}
	if string(canonical) != raw {
		return false
	}
	w.i = i
	return true
}

// emit writes the answer of the object whose frame starts at base: every
// step in the codec's order, each value copied from the document (a
// language's from its language map, items written again in the answer's
// form), or the read-only values, or the zero value of a field the
// document lacks.
func (w *wireScanner) emit(dst []byte, oc *objectCodec, base int, ro *readOnlyValues) []byte {
	dst = append(dst, '{')
	first := true
	for si := range oc.plan.steps {
		st := &oc.plan.steps[si]
		sp := w.spans[base+st.field.index]
		if st.field.multiLang && sp.end != 0 {
			dst = w.emitLangs(dst, st, sp, first)
			first = false
			continue
		}
		b := &st.binds[0]
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, b.quoted...)
		switch {
		case st.role != fromDocument:
			dst = ro.append(dst, st.role)
		case sp.end == 0:
			dst = append(dst, st.zero...)
		case b.item != nil && w.s[sp.start] == '[':
			dst = w.emitItems(dst, b.item, sp)
		default:
			dst = append(dst, w.s[sp.start:sp.end]...)
		}
		if st.field.multiLang { // absent: every language zero
			for _, b := range st.binds[1:] {
				dst = append(dst, ',')
				dst = append(dst, b.quoted...)
				dst = append(dst, st.zero...)
			}
		}
	}
	return append(dst, '}')
}

// emitLangs writes a multi-language field's bindings from its language
// map at sp: each language's value (the last one given, as the decoding
// path keeps), or the zero value.
func (w *wireScanner) emitLangs(dst []byte, st *wireStep, sp span, first bool) []byte {
	var found [8]span
	var vals []span
	if len(st.binds) <= len(found) {
		vals = found[:len(st.binds)]
	} else {
		vals = make([]span, len(st.binds))
	}
	s := w.s[:sp.end]
	i := sp.start + 1 // '{'
	for s[i] != '}' {
		// A name without escapes, ':', a string or null (object checked it).
		j := i + 1
		for s[j] != '"' {
			j++
		}
		code := s[i+1 : j]
		start := j + 2
		end := start + 4 // null
		if s[start] == '"' {
			end = stringEnd(s, start+1)
		}
		for k := range st.binds {
			if st.binds[k].lang == code {
				vals[k] = span{start, end}
			}
		}
		i = end
		if s[i] == ',' {
			i++
		}
	}
	for k := range st.binds {
		if !first || k > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, st.binds[k].quoted...)
		if v := vals[k]; v.end != 0 {
			dst = append(dst, s[v.start:v.end]...)
		} else {
			dst = append(dst, st.zero...)
		}
	}
	return dst
}

// stringEnd returns the index after the closing quote of the string whose
// content starts at i in s (the quote not escaped by an odd run of
// backslashes).
func stringEnd(s string, i int) int {
	for {
		k := strings.IndexByte(s[i:], '"')
		if k < 0 {
			return len(s)
		}
		i += k
		n := 0
		for j := i - 1; s[j] == '\\'; j-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}

// emitItems writes a list of nested items of oc from the document's list
// at sp (which object read whole): each item read again into a frame.
func (w *wireScanner) emitItems(dst []byte, oc *objectCodec, sp span) []byte {
	w.i = sp.start + 1
	dst = append(dst, '[')
	base := len(w.spans)
	for n := 0; w.s[w.i] != ']'; n++ {
		if n > 0 {
			dst = append(dst, ',')
			w.i++ // ','
		}
		w.i++ // '{'
		w.object(oc)
		dst = w.emit(dst, oc, base, nil)
		w.spans = w.spans[:base]
	}
	return append(dst, ']')
}

func (ro *readOnlyValues) append(dst []byte, role wireRole) []byte {
	switch role {
	case fromUpdated:
		return appendString(dst, ro.time)
	case fromCount:
		return strconv.AppendInt(dst, ro.count, 10)
	case fromLastAccess:
		if ro.last == "" {
			return append(dst, "null"...)
		}
		return appendString(dst, ro.last)
	case fromPrimary, fromSecondary:
		ids := ro.primary
		if role == fromSecondary {
			ids = ro.secondary
		}
		if len(ids) == 0 {
			return append(dst, "null"...)
		}
		return appendStrings(dst, ids)
	}
	return dst
}
