package admin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// The form's own controls, beside the record's fields (whose names are
// wire names, which never start with "_").
const (
	ctlAction = "_action" // the button pressed: save, copy:..., add:..., ...
	ctlFields = "_fields" // the top-level properties the form carries
	ctlETag   = "_etag"   // the ETag of the version the editor opened
	ctlBase   = "_base"   // hashes of the opened values, per property
	ctlLangs  = "_langs"  // the languages shown beside the default
	ctlCount  = "_count." // + item list: how many items it has
	ctlTake   = "_take."  // + property: "mine" or "theirs" in a conflict
	ctlClash  = "_clash"  // the properties a conflict asks about
	ctlLang   = "_lang"   // the default language the bare names addressed
)

// formState is what a form holds: the values of its controls by name,
// as a browser posts them, and the top-level properties it carries (those
// a save sends; the others stay as stored). The stored record and the
// posted form both become one, so actions and saves work on one shape.
type formState struct {
	vals   url.Values
	fields []string
}

func (st *formState) carries(wire string) bool { return slices.Contains(st.fields, wire) }

func (st *formState) get(name string) string {
	if v := st.vals[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// ownsKey reports whether a control name belongs to top-level property
// wire: the name itself, an item's control (wire[0].title) or its count.
func ownsKey(wire, key string) bool {
	return key == wire || strings.HasPrefix(key, wire+"[") || key == ctlCount+wire
}

// ownerOf is the top-level property a control name belongs to (ownsKey).
func ownerOf(key string) string {
	if list, ok := strings.CutPrefix(key, ctlCount); ok {
		return list
	}
	if i := strings.IndexByte(key, '['); i > 0 {
		return key[:i]
	}
	return key
}

// carry makes the state carry property wire with its values in from (the
// stored record), replacing any it had.
func (st *formState) carry(wire string, from url.Values) {
	st.drop(wire)
	for k, v := range from {
		if ownsKey(wire, k) {
			st.vals[k] = slices.Clone(v)
		}
	}
	if !st.carries(wire) {
		st.fields = append(st.fields, wire)
	}
}

// drop forgets wire's values (not whether it is carried).
func (st *formState) drop(wire string) {
	for k := range st.vals {
		if ownsKey(wire, k) {
			delete(st.vals, k)
		}
	}
}

// postedState is the state of a posted form: the values of the properties
// it lists in _fields that ks knows and a form may send.
func postedState(ks *kindSchema, form url.Values) *formState {
	st := &formState{vals: url.Values{}}
	for _, wire := range form[ctlFields] {
		f, _, ok := ks.topField(wire)
		if !ok || f.ReadOnly || f.WriteOnly || wire == "id" || st.carries(wire) {
			continue
		}
		st.fields = append(st.fields, wire)
		for k, v := range form {
			if ownsKey(wire, k) {
				st.vals[k] = v
			}
		}
	}
	return st
}

// recordValues turns a record as the API answers it (decoded with
// UseNumber) into control values: strings as they are, null as "",
// booleans "true"/"false", numbers as written, lists of strings as
// repeated values, nested items under wire[i].<name> with their count.
func recordValues(ks *kindSchema, obj map[string]any) url.Values {
	vals := url.Values{}
	addObject(ks, ks.fields, obj, "", vals)
	return vals
}

func addObject(ks *kindSchema, fields []cms.FieldInfo, obj map[string]any, prefix string, vals url.Values) {
	for _, f := range fields {
		if f.WriteOnly {
			continue
		}
		for _, lang := range ks.fieldLangs(f) {
			wire := ks.wire(f, lang)
			name := prefix + wire
			v := obj[wire]
			if f.Items != nil {
				list, _ := v.([]any)
				vals.Set(ctlCount+name, strconv.Itoa(len(list)))
				for i, item := range list {
					m, _ := item.(map[string]any)
					addObject(ks, f.Items, m, name+"["+strconv.Itoa(i)+"].", vals)
				}
				continue
			}
			switch x := v.(type) {
			case nil:
				vals[name] = []string{""}
			case string:
				vals[name] = []string{x}
			case bool:
				vals[name] = []string{strconv.FormatBool(x)}
			case json.Number:
				vals[name] = []string{x.String()}
			case []any:
				list := make([]string, 0, len(x))
				for _, s := range x {
					list = append(list, fmt.Sprint(s))
				}
				vals[name] = list
			}
		}
	}
}

// decodeRecord reads a record's wire JSON, numbers kept as written.
func decodeRecord(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("admin: read record: %w", err)
	}
	return obj, nil
}

// itemCount is how many items list name (wire[0].sub for nested paths)
// holds in st.
func (st *formState) itemCount(name string) int {
	n, err := strconv.Atoi(st.get(ctlCount + name))
	if err != nil || n < 0 {
		return 0
	}
	return min(n, maxItems)
}

// maxItems bounds the items of one list a form may hold, so that a forged
// count cannot make a page of millions of controls.
const maxItems = 1000

// statedCount is the count of list name as the state says it, unbounded
// (0 when it is not a count).
func (st *formState) statedCount(name string) int {
	n, err := strconv.Atoi(st.get(ctlCount + name))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// overfull are the problems of the item lists st carries that hold more
// items than a form edits (the API takes any number): a save would cut
// them short, so none is made.
func overfull(ks *kindSchema, st *formState) []cms.Problem {
	var out []cms.Problem
	for _, f := range ks.fields {
		if f.Items == nil || !st.carries(f.Name) {
			continue
		}
		if n := st.statedCount(f.Name); n > maxItems {
			out = append(out, cms.Problem{Kind: ks.kind, Field: f.Name, Text: "holds " + strconv.Itoa(n) +
				" items, more than the " + strconv.Itoa(maxItems) + " a form edits: this record cannot be saved here without losing some; change it through the API"})
		}
	}
	return out
}
