package cms

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Validate checks a record built in Go against every rule that needs no
// storage: the field rules Decode applies, the rules between fields of one
// body, and the rules judged on the whole record (TRACK-only fields). It
// reports all problems at once in an error with CodeInvalid, or nil.
func (c *Codec) Validate(rec Record) error {
	oc, v := c.kind(rec)
	var problems []fieldProblem
	w := walker{codec: c, add: func(path, text string) {
		problems = append(problems, fieldProblem{path, text})
	}}
	id := idAbsent
	if rec.RecordID() != "" {
		id = idString
	}
	w.object(oc, v, "", id)
	bodyProblems(rec, w.add)
	w.trackOnly(rec)
	return problemError(rec, id == idString, problems)
}

// walker applies the field rules to values already in Go form.
type walker struct {
	codec *Codec
	add   func(path, text string)
}

// object checks the fields of one object; id tells how the record's id was
// given (a type problem has already been reported by the decoder).
func (w walker) object(oc *objectCodec, v reflect.Value, prefix string, id idState) {
	langs := w.codec.langs
	for _, f := range oc.spec.fields {
		fv := v.Field(f.index)
		switch p := fv.Addr().Interface().(type) {
		case *string:
			switch {
			case !f.required:
				if *p != "" {
					w.text(f, prefix+f.name, *p)
				}
			case id == idAbsent:
				w.add(prefix+f.name, "is required")
			case id == idString:
				w.text(f, prefix+f.name, *p)
			}
		case *int64:
			w.integer(f, prefix+f.name, *p)
		case *Opt[string]:
			if p.Set {
				w.text(f, prefix+f.name, p.Value)
			}
		case *Null[string]:
			if p.Set && p.Valid {
				w.text(f, prefix+f.name, p.Value)
			}
		case *Opt[float64]:
			if p.Set {
				w.number(f, prefix+f.name, p.Value)
			}
		case *Null[float64]:
			if p.Set && p.Valid {
				w.number(f, prefix+f.name, p.Value)
			}
		case *Null[int64]:
			if p.Set && p.Valid {
				w.integer(f, prefix+f.name, p.Value)
			}
		case *Opt[[]string]:
			if p.Set {
				w.texts(f, prefix+f.name, p.Value)
			}
		case *Null[[]string]:
			if p.Set && p.Valid {
				w.texts(f, prefix+f.name, p.Value)
			}
		case *Langs[string]:
			known := 0
			for _, lang := range langs.All {
				if s, ok := (*p)[lang]; ok {
					known++
					if t := textProblem(f, s); t != "" {
						w.add(prefix+langs.WireName(f.name, lang), t)
					}
				}
			}
			if known < len(*p) {
				w.unknownLangs(f, prefix, mapKeys(*p))
			}
		case *Langs[Null[string]]:
			known := 0
			for _, lang := range langs.All {
				if s, ok := (*p)[lang]; ok {
					known++
					if s.Set && s.Valid {
						if t := textProblem(f, s.Value); t != "" {
							w.add(prefix+langs.WireName(f.name, lang), t)
						}
					}
				}
			}
			if known < len(*p) {
				w.unknownLangs(f, prefix, mapKeys(*p))
			}
		case *Opt[bool], *Null[bool]:
		default:
			// A list of nested items: Opt[[]Item].
			if f.typ == typeItems && fv.Field(1).Bool() {
				list := fv.Field(0)
				item := oc.names[f.name].item
				for i := range list.Len() {
					w.object(item, list.Index(i), prefix+f.name+"["+strconv.Itoa(i)+"].", idAbsent)
				}
			}
		}
	}
}

func mapKeys[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// unknownLangs reports values held for languages that are not configured
// (only a record built in Go can have them: Decode binds known names only).
func (w walker) unknownLangs(f *fieldSpec, prefix string, codes []string) {
	slices.Sort(codes)
	for _, code := range codes {
		if !slices.Contains(w.codec.langs.All, code) {
			w.add(prefix+f.name+"_"+code, "unknown field")
		}
	}
}

// text applies sizes and the field's rule to one string.
func (w walker) text(f *fieldSpec, path, s string) {
	if t := textProblem(f, s); t != "" {
		w.add(path, t)
	}
}

// textProblem is the problem of one string under the field's sizes and
// rule, "" when there is none; callers build the path only then.
func textProblem(f *fieldSpec, s string) string {
	if f.minLen > 0 || f.maxLen >= 0 {
		n := utf8.RuneCountInString(s)
		if n < f.minLen || (f.maxLen >= 0 && n > f.maxLen) {
			return lengthText(f)
		}
	}
	if f.rule == nil || f.rule.pattern == nil {
		if strings.IndexByte(s, 0) >= 0 {
			return "must not contain the NUL character"
		}
	}
	if f.rule == nil {
		return ""
	}
	if !f.matches(s) || (f.rule.check != nil && !f.rule.check(s)) {
		return f.rule.text
	}
	if f.rule.name == "id" && IsReservedID(s) {
		return "must not be a path keyword"
	}
	return ""
}

func (w walker) texts(f *fieldSpec, path string, list []string) {
	if f.maxItems >= 0 && len(list) > f.maxItems {
		w.add(path, "must have at most "+strconv.Itoa(f.maxItems)+" items")
	}
	for i, s := range list {
		if t := textProblem(f, s); t != "" {
			w.add(path+"["+strconv.Itoa(i)+"]", t)
		}
	}
}

func (w walker) number(f *fieldSpec, path string, v float64) {
	if !f.inRange(v) {
		w.add(path, rangeText(f))
	}
}

func (w walker) integer(f *fieldSpec, path string, v int64) {
	ok := f.inRange(float64(v))
	if len(f.enum) > 0 {
		ok = slices.Contains(f.enum, float64(v))
	}
	if !ok {
		w.add(path, rangeText(f))
	}
}

func lengthText(f *fieldSpec) string {
	switch {
	case f.maxLen < 0:
		return "must be at least " + strconv.Itoa(f.minLen) + " characters"
	case f.minLen > 0:
		return "must be " + strconv.Itoa(f.minLen) + " to " + strconv.Itoa(f.maxLen) + " characters"
	}
	return "must be at most " + strconv.Itoa(f.maxLen) + " characters"
}

func rangeText(f *fieldSpec) string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	text := ""
	switch {
	case len(f.enum) > 0:
		list := make([]string, len(f.enum))
		for i, v := range f.enum {
			list[i] = num(v)
		}
		text = "must be one of " + joinList(list)
	case f.hasMin && f.hasMax:
		text = "must be between " + num(f.minimum) + " and " + num(f.maximum)
	case f.hasMin:
		text = "must be at least " + num(f.minimum)
	case f.hasMax:
		text = "must be at most " + num(f.maximum)
	default:
		text = "must be a finite number"
	}
	if f.typ == typeInteger && len(f.enum) == 0 {
		text = "must be an integer" + text[len("must be"):]
	}
	return text
}

func joinList(list []string) string {
	out := ""
	for i, s := range list {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// bodyProblems checks rules between fields of one body: a record in both
// roles of one Resource-Map assignment (a Resource is a Map's primary or
// secondary, never both).
func bodyProblems(rec Record, add func(path, text string)) {
	a, ok := rec.(assigningRecord)
	if !ok {
		return
	}
	side := a.assignment()
	primaries := append(slices.Clip(side.primary.Value), side.primaryAdd.Value...)
	check := func(name string, list []string) {
		for i, id := range list {
			if slices.Contains(primaries, id) {
				add(name+"["+strconv.Itoa(i)+"]", side.other.Title()+" "+id+" is also given as PRIMARY")
			}
		}
	}
	check(side.secondaryName, side.secondary.Value)
	check(side.secondaryAddName, side.secondaryAdd.Value)
}

// trackOnly checks the TRACK rule (trackRule) on a whole record.
func (w walker) trackOnly(rec Record) {
	r, ok := rec.(*Resource)
	if !ok {
		return
	}
	oc, v := w.codec.kind(rec)
	for _, p := range trackRule(r.ResourceType.Value, oc.out, func(i int) bool {
		return holdsValue(v.Field(oc.out[i].field.index), oc.out[i].lang)
	}) {
		w.add(p.path, p.text)
	}
}

// trackRule is the rule judged on a whole Resource (stored, merged, or as
// a batch will have merged it): unless its resourceType is TRACK, the
// TRACK-only fields hold no value (null is fine, so a read record can be
// posted back). bindings are bindings of a Resource in answer order;
// valued(i) tells whether bindings[i] holds a value, and is asked only of
// TRACK-only bindings when the rule applies. It returns a problem for each
// that does, in order. Validate, single upserts (checkMerged) and the
// batch plan judge the rule here.
func trackRule(resourceType string, bindings []binding, valued func(i int) bool) []fieldProblem {
	if resourceType == ResourceTypeTrack {
		return nil
	}
	var problems []fieldProblem
	for i, b := range bindings {
		if b.field.trackOnly && valued(i) {
			problems = append(problems, fieldProblem{b.wire, "allowed only when resourceType is TRACK"})
		}
	}
	return problems
}

// holdsValue reports whether a nullable field (in language lang) is set to
// a value other than null.
func holdsValue(fv reflect.Value, lang string) bool {
	switch p := fv.Addr().Interface().(type) {
	case *Langs[Null[string]]:
		return (*p)[lang].Valid
	case *Null[string]:
		return p.Valid
	case *Null[bool]:
		return p.Valid
	case *Null[int64]:
		return p.Valid
	case *Null[float64]:
		return p.Valid
	case *Null[[]string]:
		return p.Valid
	}
	panic("cms: holdsValue of " + fv.Type().String())
}
