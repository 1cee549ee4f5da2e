package admin

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// object is a JSON object that keeps its keys in order (the schema's).
type object []member

type member struct {
	key string
	val any
}

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.val)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o object) get(key string) (any, bool) {
	for _, m := range o {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// jsonNumber is the shape of a JSON number literal.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// body is the JSON object a save sends: the id and every carried property
// in schema order, each read from its controls by the schema's types.
// Creating, it leaves out empty values, so that the defaults of a new
// record apply (an alias made from the title, the route planner's
// colour).
func body(ks *kindSchema, st *formState, id string, creating bool) object {
	out := object{{"id", id}}
	for _, f := range ks.fields {
		for _, lang := range ks.fieldLangs(f) {
			wire := ks.wire(f, lang)
			if wire == "id" || !st.carries(wire) {
				continue
			}
			v := fieldValue(ks, f, ks.props[wire], wire, st)
			if creating && isEmpty(v) {
				continue
			}
			out = append(out, member{wire, v})
		}
	}
	return out
}

// fieldValue reads the value of the control(s) name of a field.
func fieldValue(ks *kindSchema, f cms.FieldInfo, p *propSchema, name string, st *formState) any {
	if f.Items != nil {
		n := st.itemCount(name)
		items := make([]any, 0, n)
		for i := range n {
			prefix := name + "[" + strconv.Itoa(i) + "]."
			item := object{}
			for _, sub := range f.Items {
				for _, lang := range ks.fieldLangs(sub) {
					wire := ks.wire(sub, lang)
					if _, ok := st.vals[prefix+wire]; !ok && !isList(p.Items.Properties[wire]) {
						continue // a language the item never had: unset
					}
					item = append(item, member{wire, fieldValue(ks, sub, p.Items.Properties[wire], prefix+wire, st)})
				}
			}
			items = append(items, item)
		}
		return items
	}
	raw := st.vals[name]
	switch p.Type {
	case "array":
		var list []string
		for _, v := range raw {
			for line := range strings.SplitSeq(v, "\n") {
				if line = strings.TrimSpace(line); line != "" {
					list = append(list, line)
				}
			}
		}
		if len(list) == 0 {
			if p.Nullable {
				return nil
			}
			return []string{}
		}
		return list
	case "boolean":
		v := ""
		for _, x := range raw {
			if x != "" {
				v = x
			}
		}
		switch {
		case v == "true":
			return true
		case v == "" && p.Nullable:
			return nil
		}
		return false
	case "number", "integer":
		v := strings.TrimSpace(firstOf(raw))
		if v == "" {
			if p.Nullable {
				return nil
			}
			return ""
		}
		if p.Type == "integer" {
			// A whole number has no decimals: "1,000" and "1.000" are a
			// thousand to some editors and one to others. Sent as
			// written, the service refuses them on the field.
			if strings.ContainsAny(v, ".,") {
				return v
			}
		} else if strings.Count(v, ",") == 1 && !strings.Contains(v, ".") {
			v = strings.Replace(v, ",", ".", 1) // 45,07: a decimal comma
		}
		if jsonNumber.MatchString(v) {
			return json.Number(v)
		}
		return v // a string: the service names the field and wants a number
	}
	v := strings.ReplaceAll(firstOf(raw), "\r\n", "\n")
	if v == "" && p.Nullable {
		return nil
	}
	return v
}

func isList(p *propSchema) bool { return p != nil && p.Type == "array" }

func firstOf(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// isEmpty reports a value that says nothing: null, "", false, an empty
// list.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case []string:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// isBlank is isEmpty without false: a value a form cannot tell from
// nothing.
func isBlank(v any) bool {
	if _, ok := v.(bool); ok {
		return false
	}
	return isEmpty(v)
}
