package cms

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// valueType is the JSON shape of a field's value.
type valueType uint8

const (
	typeString valueType = iota
	typeBool
	typeNumber
	typeInteger
	typeStrings // array of strings
	typeItems   // array of objects (nested items)
)

func (t valueType) jsonName() string {
	switch t {
	case typeString:
		return "a string"
	case typeBool:
		return "a boolean"
	case typeNumber:
		return "a number"
	case typeInteger:
		return "an integer"
	case typeStrings:
		return "an array of strings"
	}
	return "an array of objects"
}

// fieldSpec is what the struct tags say about one field. It is read once,
// by reflection, and drives decoding, validation, encoding and the schema.
type fieldSpec struct {
	name      string // wire name (default language)
	index     int    // struct field index
	typ       valueType
	nullable  bool
	multiLang bool
	readOnly  bool
	writeOnly bool
	trackOnly bool
	html      bool
	assign    bool // a Resource-Map assignment list, kept as facts, not in the document
	required  bool
	rule      *rule // for strings, or for the items of string arrays
	refKind   string
	minLen    int // -1: none
	maxLen    int // -1: none
	maxItems  int // of a list; -1: none
	minimum   float64
	maximum   float64
	hasMin    bool
	hasMax    bool
	minExact  decimal // the bounds as written in the tags, for exact checks
	maxExact  decimal
	enum      []float64
	item      *typeSpec // for typeItems
}

// typeSpec describes a record kind or a nested item type.
type typeSpec struct {
	goType reflect.Type
	fields []*fieldSpec
}

// file reports whether the field holds a file URL (for /excludeFiles).
func (f *fieldSpec) file() bool { return f.rule != nil && f.rule.file }

// pattern returns the pattern the field's strings (or items) must match.
// Every string has one: at least, no NUL character (PostgreSQL can store
// none, so neither adapter accepts one).
func (f *fieldSpec) pattern() *regexp.Regexp {
	switch {
	case f.typ != typeString && f.typ != typeStrings:
		return nil
	case f.rule == nil || f.rule.pattern == nil:
		return noNULPattern
	case f.rule.name == "ref" && f.typ == typeString:
		return singleRefPattern
	}
	return f.rule.pattern
}

// matches reports whether s matches the field's pattern, through the
// rule's hand-written matcher when it has one.
func (f *fieldSpec) matches(s string) bool {
	if f.rule != nil && f.rule.match != nil {
		if f.rule.name == "ref" && f.typ == typeString && s == "" {
			return true // singleRefPattern: "" is none
		}
		return f.rule.match(s)
	}
	if f.rule == nil || f.rule.pattern == nil {
		return matchNoNUL(s) // noNULPattern
	}
	return f.pattern().MatchString(s)
}

var (
	typeOfString      = reflect.TypeFor[string]()
	typeOfInt64       = reflect.TypeFor[int64]()
	typeOfBool        = reflect.TypeFor[bool]()
	typeOfFloat64     = reflect.TypeFor[float64]()
	typeOfStringSlice = reflect.TypeFor[[]string]()
)

// specOf reads the tags of struct type t.
func specOf(t reflect.Type) (*typeSpec, error) {
	ts := &typeSpec{goType: t}
	for i := range t.NumField() {
		sf := t.Field(i)
		f, err := fieldSpecOf(sf)
		if err != nil {
			return nil, fmt.Errorf("cms: %s.%s: %w", t.Name(), sf.Name, err)
		}
		f.index = i
		ts.fields = append(ts.fields, f)
	}
	return ts, nil
}

func fieldSpecOf(sf reflect.StructField) (*fieldSpec, error) {
	f := &fieldSpec{name: strings.Split(sf.Tag.Get("json"), ",")[0], minLen: -1, maxLen: -1, maxItems: -1}
	if f.name == "" {
		return nil, fmt.Errorf("no json name")
	}
	if err := f.readGoType(sf.Type); err != nil {
		return nil, err
	}
	for _, opt := range splitTag(sf.Tag.Get("cms")) {
		key, val, _ := strings.Cut(opt, "=")
		switch key {
		case "readonly":
			f.readOnly = true
		case "writeonly":
			f.writeOnly = true
		case "track":
			f.trackOnly = true
		case "html":
			f.html = true
		case "assign":
			f.assign = true
		case "ref":
			if !slices.Contains(refTargets, val) {
				return nil, fmt.Errorf("unknown reference target in cms tag %q", opt)
			}
			f.refKind = val
			f.rule = rules["ref"]
		default:
			r, ok := rules[key]
			if !ok {
				return nil, fmt.Errorf("unknown cms tag %q", opt)
			}
			f.rule = r
		}
	}
	if f.rule != nil {
		f.minLen, f.maxLen = f.rule.minLen, f.rule.maxLen
	}
	for _, opt := range splitTag(sf.Tag.Get("jsonschema")) {
		key, val, _ := strings.Cut(opt, "=")
		var err error
		switch key {
		case "required":
			f.required = true
		case "minLength":
			f.minLen, err = strconv.Atoi(val)
		case "maxLength":
			f.maxLen, err = strconv.Atoi(val)
		case "maxItems":
			f.maxItems, err = strconv.Atoi(val)
		case "minimum":
			f.minimum, f.minExact, err = parseBound(val)
			f.hasMin = true
		case "maximum":
			f.maximum, f.maxExact, err = parseBound(val)
			f.hasMax = true
		case "enum":
			var v float64
			v, err = strconv.ParseFloat(val, 64)
			f.enum = append(f.enum, v)
		default:
			err = fmt.Errorf("unsupported jsonschema tag %q", opt)
		}
		if err != nil {
			return nil, err
		}
	}
	return f, nil
}

// readGoType sets typ, nullable, multiLang and item from the Go type: Opt,
// Null and Langs wrap one of string, bool, float64, int64, []string or a
// slice of item structs.
func (f *fieldSpec) readGoType(t reflect.Type) error {
	if t.Kind() == reflect.Map && t.Name() != "" && strings.HasPrefix(t.Name(), "Langs[") {
		f.multiLang = true
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct && strings.HasPrefix(t.Name(), "Null[") {
		f.nullable = true
		t = t.Field(0).Type
	} else if t.Kind() == reflect.Struct && strings.HasPrefix(t.Name(), "Opt[") {
		t = t.Field(0).Type
	}
	switch {
	case t == typeOfString:
		f.typ = typeString
	case t == typeOfBool:
		f.typ = typeBool
	case t == typeOfFloat64:
		f.typ = typeNumber
	case t == typeOfInt64:
		f.typ = typeInteger
	case t == typeOfStringSlice:
		f.typ = typeStrings
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		item, err := specOf(t.Elem())
		if err != nil {
			return err
		}
		f.typ, f.item = typeItems, item
	default:
		return fmt.Errorf("unsupported field type %s", t)
	}
	return nil
}

// parseBound reads a minimum or maximum tag value, as a float64 and
// exactly.
func parseBound(val string) (float64, decimal, error) {
	v, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return 0, decimal{}, err
	}
	exact, ok := parseDecimal(val)
	if !ok {
		return 0, decimal{}, fmt.Errorf("bound %q is not a JSON number", val)
	}
	return v, exact, nil
}

func splitTag(tag string) []string {
	if tag == "" {
		return nil
	}
	return strings.Split(tag, ",")
}

// inRange reports whether v is within the field's numeric bounds.
func (f *fieldSpec) inRange(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	return (!f.hasMin || v >= f.minimum) && (!f.hasMax || v <= f.maximum)
}
