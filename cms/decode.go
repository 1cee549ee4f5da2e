package cms

import (
	"bytes"
	"errors"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// MaxDepth is the deepest nesting of objects and arrays a body may have
// (a deeper one is malformed); the record object itself is depth 1.
const MaxDepth = 32

// errMalformed marks a body that is not one strict JSON value.
func malformed(cause error) *Error {
	return &Error{Code: CodeMalformed, Message: "Wrong request", Err: cause}
}

var (
	errNotObject = errors.New("the body is not a JSON object")
	errTrailing  = errors.New("data after the JSON value")
	errTooDeep   = errors.New("nested deeper than 32")
)

type pooledDecoder struct {
	r   bytes.Reader
	dec *jsontext.Decoder
}

// Decode reads data, one JSON object of rec's kind, into rec (which should
// be empty). The body must be strict JSON: one value, valid UTF-8, no
// duplicate keys, at most MaxDepth deep; otherwise the error has
// CodeMalformed. Unknown fields, values of the wrong JSON type and every
// broken field rule are listed together in an error with CodeInvalid.
// Rules judged on the whole stored record (TRACK-only fields) are left to
// Validate.
func (c *Codec) Decode(data []byte, rec Record) error {
	return c.decodeBytes(data, rec, true)
}

// decodeBytes is Decode; without validate it reads a record whose field
// rules held when it was decoded before (a stored batch) without judging
// them again.
func (c *Codec) decodeBytes(data []byte, rec Record, validate bool) error {
	return c.decodeClean(data, rec, validate, nil)
}

// decodeClean is decodeBytes; clean, when set, runs on the record before
// its fields are judged, so a value the service rewrites (sanitized HTML)
// is judged as it will be stored.
func (c *Codec) decodeClean(data []byte, rec Record, validate bool, clean func(Record)) error {
	pd, _ := c.decoder.Get().(*pooledDecoder)
	if pd == nil {
		pd = new(pooledDecoder)
		pd.dec = jsontext.NewDecoder(&pd.r)
	}
	pd.r.Reset(data)
	// Duplicate names are found by the decoder's own bookkeeping of the
	// fields it knows (decodeState.object), cheaper than jsontext's index
	// of every name; a stored document needs no check at all.
	pd.dec.Reset(&pd.r, jsontext.AllowDuplicateNames(true))
	defer func() {
		// Drop the reference to data before pooling.
		pd.r.Reset(nil)
		pd.dec.Reset(&pd.r)
		c.decoder.Put(pd)
	}()
	err := c.decodeFrom(pd.dec, rec, validate, clean)
	if ErrorCode(err) == CodeMalformed {
		return err
	}
	// A syntax problem anywhere outranks content problems.
	if _, tailErr := pd.dec.ReadToken(); tailErr != io.EOF {
		if tailErr == nil {
			tailErr = errTrailing
		}
		return malformed(tailErr)
	}
	return err
}

// DecodeFrom reads the next JSON value of dec, which must be an object, into
// rec, with the rules of Decode. It lets a caller read records one by one
// from a stream (a batch array).
func (c *Codec) DecodeFrom(dec *jsontext.Decoder, rec Record) error {
	return c.decodeFrom(dec, rec, true, nil)
}

func (c *Codec) decodeFrom(dec *jsontext.Decoder, rec Record, validate bool, clean func(Record)) error {
	oc, v := c.kind(rec)
	if dec.PeekKind() != '{' {
		if _, err := dec.ReadValue(); err != nil {
			return malformed(err)
		}
		return malformed(errNotObject)
	}
	if dec.StackDepth()+1 > MaxDepth {
		return malformed(errTooDeep)
	}
	d := decodeState{dec: dec, trusted: c.document, checkNames: !c.document}
	if _, err := dec.ReadToken(); err != nil {
		return malformed(err)
	}
	d.object(oc, v, "")
	if d.err != nil {
		return malformed(d.err)
	}
	if clean != nil {
		clean(rec)
	}
	if c.document || !validate {
		// A stored document is trusted: only its shape is checked.
		return problemError(rec, true, d.problems)
	}
	problems := d.problems
	w := walker{codec: c, add: func(path, text string) {
		problems = append(problems, fieldProblem{path, text})
	}}
	w.object(oc, v, "", d.id)
	bodyProblems(rec, w.add)
	return problemError(rec, d.id == idString, problems)
}

type fieldProblem struct{ path, text string }

// problemError turns field problems into the CodeInvalid error, or nil.
func problemError(rec Record, idSet bool, problems []fieldProblem) error {
	return recordProblems(rec.Kind(), rec.RecordID(), idSet, problems)
}

// recordProblems is problemError for a record of kind and id.
func recordProblems(kind Kind, id string, idSet bool, problems []fieldProblem) error {
	if len(problems) == 0 {
		return nil
	}
	if !idSet {
		id = "(no id)"
	}
	e := &Error{Code: CodeInvalid, Message: "invalid " + kind.Title(), Problems: make([]Problem, len(problems))}
	for i, p := range problems {
		e.Problems[i] = Problem{Kind: kind, ID: id, Field: p.path, Text: p.text}
	}
	return e
}

type decodeState struct {
	dec      *jsontext.Decoder
	problems []fieldProblem
	err      error // a syntax error: the whole body is malformed
	id       idState
	trusted  bool // a stored document: shapes only, no ranges
	// langCodes are the language codes read so far (langCode).
	langCodes []string
	// checkNames refuses duplicate member names itself, so the jsontext
	// decoder may allow them (a body's decoder does; a caller's of
	// DecodeFrom may not, and then both check).
	checkNames bool
}

var errDuplicateName = errors.New("duplicate object member name")

// idState tells how the body gave its id.
type idState uint8

const (
	idAbsent idState = iota
	idNotString
	idString
)

func (d *decodeState) problem(prefix, name, text string) {
	d.problems = append(d.problems, fieldProblem{prefix + name, text})
}

func (d *decodeState) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// skip reads and discards the next value, checking its depth.
func (d *decodeState) skip() {
	depth := d.dec.StackDepth()
	raw, err := d.dec.ReadValue()
	if err != nil {
		d.fail(err)
		return
	}
	if depth+rawDepth(raw) > MaxDepth {
		d.fail(errTooDeep)
		return
	}
	// Objects inside a skipped value have no fields to keep count of:
	// jsontext checks their names.
	if d.checkNames && bytes.IndexByte(raw, '{') >= 0 && !raw.IsValid() {
		d.fail(errDuplicateName)
	}
}

// unquoted returns a JSON string's content: in place when it has no
// escape, else unescaped into a new slice.
func unquoted(raw jsontext.Value) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1]
	}
	u, err := jsontext.AppendUnquote(nil, raw)
	if err != nil {
		return raw // the decoder validated it: not reached
	}
	return u
}

// rawDepth is the deepest nesting of arrays and objects in a valid JSON
// value.
func rawDepth(raw []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(raw); i++ {
		switch ch := raw[i]; {
		case inString && ch == '\\':
			i++
		case ch == '"':
			inString = !inString
		case inString:
		case ch == '{' || ch == '[':
			depth++
			deepest = max(deepest, depth)
		case ch == '}' || ch == ']':
			depth--
		}
	}
	return deepest
}

// object reads the members of an object whose '{' has been read.
func (d *decodeState) object(oc *objectCodec, v reflect.Value, prefix string) {
	var seenSlots [8]uint64 // on the stack for objects of up to 512 names
	seen := seenSlots[:]
	if n := (len(oc.names) + 63) / 64; n > len(seen) {
		seen = make([]uint64, n)
	}
	var unknown []string
	for d.err == nil {
		if d.dec.PeekKind() == '}' {
			if _, err := d.dec.ReadToken(); err != nil {
				d.fail(err)
			}
			return
		}
		// The name as raw JSON: looked up without allocating a string.
		raw, err := d.dec.ReadValue()
		if err != nil {
			d.fail(err)
			return
		}
		b, ok := oc.names[string(unquoted(raw))]
		if !ok {
			name := string(unquoted(raw))
			if d.checkNames {
				if slices.Contains(unknown, name) {
					d.fail(errDuplicateName)
					return
				}
				unknown = append(unknown, name)
			}
			d.problem(prefix, name, "unknown field")
			d.skip()
			continue
		}
		if d.checkNames {
			word, bit := b.slot/64, uint64(1)<<(b.slot%64)
			if seen[word]&bit != 0 {
				d.fail(errDuplicateName)
				return
			}
			seen[word] |= bit
		}
		if b.field.rule == rules["id"] {
			d.id = idNotString // until value proves it a string
		}
		d.value(b, v.Field(b.field.index), prefix)
	}
}

// value reads one member value into field fv.
func (d *decodeState) value(b binding, fv reflect.Value, prefix string) {
	f := b.field
	kind := d.dec.PeekKind()
	if kind == 'n' {
		if _, err := d.dec.ReadToken(); err != nil {
			d.fail(err)
			return
		}
		if !f.nullable {
			d.problem(prefix, b.path(), "must not be null")
			return
		}
		setNull(fv, b.lang)
		return
	}
	if b.langMap && kind == '{' {
		d.langObject(b, fv, prefix)
		return
	}
	if !f.typ.accepts(kind) || b.langMap {
		text := "must be " + f.typ.jsonName()
		if f.nullable {
			text += " or null"
		}
		d.problem(prefix, b.path(), text)
		d.skip()
		return
	}
	if f.typ == typeItems {
		d.items(b, fv, prefix)
		return
	}
	if f.typ == typeStrings {
		d.strings(b, fv, prefix)
		return
	}
	tok, err := d.dec.ReadToken()
	if err != nil {
		d.fail(err)
		return
	}
	switch f.typ {
	case typeString:
		if f.rule == rules["id"] {
			d.id = idString
		}
		str := tok.String()
		if f.rule == rules["alias"] && !d.trusted {
			// Compared, judged and stored in one form.
			str = NormalizeAlias(str)
		}
		setString(fv, b.lang, str)
	case typeBool:
		setBool(fv, tok.Bool())
	case typeNumber:
		n, err := tok.Float()
		if err != nil || (!d.trusted && (!f.inRange(n) || (f.onBound(n) && !exactlyInRange(f, tok.String())))) {
			d.problem(prefix, b.path(), rangeText(f))
			return
		}
		// -0 is 0: stored as -0 it would read back as -0, and posting 0
		// afterwards would be an update.
		if n == 0 {
			n = 0
		}
		setNumber(fv, n)
	case typeInteger:
		n, err := tok.Float()
		switch {
		case err != nil || math.Abs(n) >= 1<<63:
			d.problem(prefix, b.path(), rangeText(f))
		case n != math.Trunc(n) || !d.trusted && !exactInteger(tok.String()):
			d.problem(prefix, b.path(), "must be an integer")
		case !d.trusted && f.onBound(n) && !exactlyInRange(f, tok.String()):
			d.problem(prefix, b.path(), rangeText(f))
		default:
			setInteger(fv, int64(n))
		}
	}
}

// langObject reads the storage form of a multi-language field: an object
// from language code to value.
func (d *decodeState) langObject(b binding, fv reflect.Value, prefix string) {
	if _, err := d.dec.ReadToken(); err != nil {
		d.fail(err)
		return
	}
	for d.err == nil {
		if d.dec.PeekKind() == '}' {
			if _, err := d.dec.ReadToken(); err != nil {
				d.fail(err)
			}
			return
		}
		raw, err := d.dec.ReadValue()
		if err != nil {
			d.fail(err)
			return
		}
		inner := b
		inner.langMap, inner.lang, inner.inLangMap = false, d.langCode(unquoted(raw)), true
		d.value(inner, fv, prefix)
	}
}

// langCode returns a language code as a string, the same one for each
// code of a document: a document has a few codes in every language map.
func (d *decodeState) langCode(code []byte) string {
	for _, c := range d.langCodes {
		if c == string(code) {
			return c
		}
	}
	c := string(code)
	d.langCodes = append(d.langCodes, c)
	return c
}

// accepts reports whether a JSON value of kind can hold t.
func (t valueType) accepts(kind jsontext.Kind) bool {
	switch t {
	case typeString:
		return kind == '"'
	case typeBool:
		return kind == 't' || kind == 'f'
	case typeNumber, typeInteger:
		return kind == '0'
	}
	return kind == '['
}

// strings reads an array of strings.
func (d *decodeState) strings(b binding, fv reflect.Value, prefix string) {
	if _, err := d.dec.ReadToken(); err != nil {
		d.fail(err)
		return
	}
	list := []string{}
	ok := true
	for i := 0; d.err == nil; i++ {
		switch d.dec.PeekKind() {
		case ']':
			if _, err := d.dec.ReadToken(); err != nil {
				d.fail(err)
			}
			if ok {
				setStrings(fv, list)
			}
			return
		case '"':
			tok, err := d.dec.ReadToken()
			if err != nil {
				d.fail(err)
				return
			}
			list = append(list, tok.String())
		default:
			ok = false
			d.problem(prefix, b.path()+"["+strconv.Itoa(i)+"]", "must be a string")
			d.skip()
		}
	}
}

// items reads an array of nested item objects.
func (d *decodeState) items(b binding, fv reflect.Value, prefix string) {
	if _, err := d.dec.ReadToken(); err != nil {
		d.fail(err)
		return
	}
	list := reflect.MakeSlice(fv.Field(0).Type(), 0, 4)
	for i := 0; d.err == nil; i++ {
		switch d.dec.PeekKind() {
		case ']':
			if _, err := d.dec.ReadToken(); err != nil {
				d.fail(err)
			}
			fv.Field(0).Set(list)
			fv.Field(1).SetBool(true)
			return
		case '{':
			if _, err := d.dec.ReadToken(); err != nil {
				d.fail(err)
				return
			}
			item := reflect.New(b.item.spec.goType).Elem()
			d.object(b.item, item, prefix+b.wire+"["+strconv.Itoa(i)+"].")
			list = reflect.Append(list, item)
		default:
			d.problem(prefix, b.path()+"["+strconv.Itoa(i)+"]", "must be an object")
			d.skip()
		}
	}
}

func setNull(fv reflect.Value, lang string) {
	switch p := fv.Addr().Interface().(type) {
	case *Null[string]:
		*p = Nil[string]()
	case *Null[bool]:
		*p = Nil[bool]()
	case *Null[float64]:
		*p = Nil[float64]()
	case *Null[int64]:
		*p = Nil[int64]()
	case *Null[[]string]:
		*p = Nil[[]string]()
	case *Langs[Null[string]]:
		if *p == nil {
			*p = make(Langs[Null[string]], 4)
		}
		(*p)[lang] = Nil[string]()
	default:
		panic("cms: no null for " + fv.Type().String())
	}
}

func setString(fv reflect.Value, lang, s string) {
	switch p := fv.Addr().Interface().(type) {
	case *string:
		*p = s
	case *Opt[string]:
		*p = Some(s)
	case *Null[string]:
		*p = NullOf(s)
	case *Langs[string]:
		if *p == nil {
			*p = make(Langs[string], 4)
		}
		(*p)[lang] = s
	case *Langs[Null[string]]:
		if *p == nil {
			*p = make(Langs[Null[string]], 4)
		}
		(*p)[lang] = NullOf(s)
	default:
		panic("cms: no string for " + fv.Type().String())
	}
}

func setBool(fv reflect.Value, v bool) {
	switch p := fv.Addr().Interface().(type) {
	case *Opt[bool]:
		*p = Some(v)
	case *Null[bool]:
		*p = NullOf(v)
	default:
		panic("cms: no bool for " + fv.Type().String())
	}
}

func setNumber(fv reflect.Value, v float64) {
	switch p := fv.Addr().Interface().(type) {
	case *Opt[float64]:
		*p = Some(v)
	case *Null[float64]:
		*p = NullOf(v)
	default:
		panic("cms: no number for " + fv.Type().String())
	}
}

func setInteger(fv reflect.Value, v int64) {
	switch p := fv.Addr().Interface().(type) {
	case *int64:
		*p = v
	case *Null[int64]:
		*p = NullOf(v)
	default:
		panic("cms: no integer for " + fv.Type().String())
	}
}

func setStrings(fv reflect.Value, v []string) {
	switch p := fv.Addr().Interface().(type) {
	case *Opt[[]string]:
		*p = Some(v)
	case *Null[[]string]:
		*p = NullOf(v)
	default:
		panic("cms: no string list for " + fv.Type().String())
	}
}
