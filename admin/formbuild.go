package admin

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// refTitle is what the form shows of a record an id names.
type refTitle struct {
	title string
	found bool
	url   string // its form, when the user may read its kind
}

// formBuild turns a form state into the page's rows.
type formBuild struct {
	ks       *kindSchema
	st       *formState
	stored   map[string][]string // the stored record's values (read-only fields)
	shown    []string            // the default language, then the others shown
	editable bool
	isNew    bool
	titles   map[string]refTitle // by target "\x00" id
	perms    cms.Principal
	files    map[string]*cms.File // the files track fields name, by URL
	controls map[string]*formControl
	order    map[string]int // of the controls on the page
	rendered map[string]bool
}

func titleKey(target, id string) string { return target + "\x00" + id }

// rows builds every row of the kind's fields.
func (b *formBuild) rows() []*formRow {
	b.controls = map[string]*formControl{}
	b.order = map[string]int{}
	b.rendered = map[string]bool{}
	return b.fieldRows(b.ks.fields, b.ks.props, "")
}

func (b *formBuild) fieldRows(fields []cms.FieldInfo, props map[string]*propSchema, prefix string) []*formRow {
	var rows []*formRow
	for _, f := range fields {
		if _, skip := notShown[f.Name]; skip && prefix == "" {
			continue
		}
		if f.WriteOnly {
			continue
		}
		switch {
		case f.Items != nil:
			rows = append(rows, &formRow{Items: b.items(f, props[f.Name], prefix+f.Name)})
		case f.MultiLang:
			rows = append(rows, &formRow{ML: b.mlRow(f, props, prefix)})
		default:
			rows = append(rows, &formRow{Control: b.control(f, props[f.Name], prefix+f.Name, "")})
		}
	}
	return rows
}

// mlRow is a multi-language field: one column per shown language.
func (b *formBuild) mlRow(f cms.FieldInfo, props map[string]*propSchema, prefix string) *mlRow {
	base := prefix + f.Name
	row := &mlRow{Field: base, Label: labelOf(f.Name), Hint: hintOf(f, props[f.Name]), HintID: controlID(base) + "-rowhint", HTML: f.HTML}
	defName := prefix + b.ks.wire(f, b.ks.langs.Default)
	defValue := strings.TrimSpace(b.st.get(defName))
	for _, lang := range b.shown {
		wire := b.ks.wire(f, lang)
		c := b.control(f, props[wire], prefix+wire, lang)
		c.LabelHidden = row.Label + ", "
		c.Label = lang
		c.Hint, c.HintID = row.Hint, row.HintID // shown once, above the columns
		if lang != b.ks.langs.Default && defValue != "" && strings.TrimSpace(c.Value) == "" {
			c.Missing = true
			if b.editable {
				c.Copy = "copy:" + base + ":" + b.ks.langs.Default + ":" + lang
				c.CopyFrom = b.ks.langs.Default
			}
		}
		row.Cols = append(row.Cols, c)
	}
	return row
}

// items is a nested list: a fieldset per item, with buttons that move
// and remove it.
func (b *formBuild) items(f cms.FieldInfo, p *propSchema, name string) *itemList {
	n := b.st.itemCount(name)
	list := &itemList{Path: name, ID: controlID(name), Label: labelOf(f.Name), Hint: hintOf(f, p),
		CountName: ctlCount + name, Count: max(n, b.st.statedCount(name)), ItemLabel: itemNoun(f.Name), AddLabel: strings.ToLower(itemNoun(f.Name))}
	b.rendered[list.CountName] = true
	if b.editable {
		list.Add = "add:" + name
	}
	for i := range n {
		idx := name + "[" + strconv.Itoa(i) + "]"
		it := &itemView{Index: i, ID: controlID(idx), Legend: list.ItemLabel + " " + strconv.Itoa(i+1)}
		it.Rows = b.fieldRows(f.Items, p.Items.Properties, idx+".")
		if b.editable {
			if i > 0 {
				it.Up = "up:" + idx
			}
			if i < n-1 {
				it.Down = "down:" + idx
			}
			it.Remove = "remove:" + idx
		}
		list.Items = append(list.Items, it)
	}
	return list
}

// itemNoun names one item of a list for its legend.
func itemNoun(list string) string {
	switch list {
	case "landingBlocks":
		return "Block"
	case "landingHotels", "hotels":
		return "Hotel section"
	case "relatedContents":
		return "Related content"
	case "tourMultiday":
		return "Day"
	}
	return "Item"
}

// control is the one control of a value (lang "" for a field of one
// value).
func (b *formBuild) control(f cms.FieldInfo, p *propSchema, name, lang string) *formControl {
	c := &formControl{Name: name, ID: controlID(name), Label: labelOf(f.Name), Lang: lang,
		Hint: hintOf(f, p), Value: b.st.get(name), ReadOnly: !b.editable, Disabled: !b.editable}
	c.HintID, c.ErrorID = c.ID+"-hint", c.ID+"-error"
	b.controls[name] = c
	b.order[name] = len(b.order)
	b.rendered[name] = true
	switch {
	case p.ReadOnly:
		c.Widget = "output"
		c.Value = firstOf(b.stored[name])
		if c.Value == "" {
			c.Value = "—"
		}
	case name == "id":
		c.Widget, c.InputType, c.Required = "text", "text", true
		c.ReadOnly = !b.isNew || !b.editable
	case f.Ref != "" && p.Type == "array":
		c.Widget, c.RefKind = "idlist", f.Ref
		if b.editable {
			c.AddAction = "addid:" + name
		}
		c.Label = labelOf(f.Name)
		var ids []string
		for _, id := range b.st.vals[name] {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
		for i, id := range ids {
			t := b.titles[titleKey(f.Ref, id)]
			e := idEntry{ID: id, Title: t.title, Missing: !t.found, URL: t.url}
			if b.editable {
				idx := name + "[" + strconv.Itoa(i) + "]"
				if i > 0 {
					e.Up = "up:" + idx
				}
				if i < len(ids)-1 {
					e.Down = "down:" + idx
				}
				e.Remove = "remove:" + idx
			}
			c.IDs = append(c.IDs, e)
		}
	case f.Ref != "":
		c.Widget, c.InputType, c.RefKind = "ref", "text", f.Ref
		if id := strings.TrimSpace(c.Value); id != "" {
			t := b.titles[titleKey(f.Ref, id)]
			c.RefTitle, c.RefNone, c.RefURL = t.title, !t.found, t.url
		}
	case p.Type == "array":
		c.Widget = "lines"
		c.Value = strings.Join(b.st.vals[name], "\n")
	case p.Type == "boolean" && p.Nullable:
		c.Widget = "tristate"
		c.Options = []option{{"", "Not set", c.Value == ""}, {"true", "Yes", c.Value == "true"}, {"false", "No", c.Value == "false"}}
	case p.Type == "boolean":
		c.Widget, c.Checked = "checkbox", slices.Contains(b.st.vals[name], "true")
	case f.Enum != nil:
		c.Widget = "select"
		if p.Nullable {
			c.Options = append(c.Options, option{"", "Not set", c.Value == ""})
		}
		for _, v := range f.Enum {
			s := strconv.FormatFloat(v, 'f', -1, 64)
			c.Options = append(c.Options, option{s, s, c.Value == s})
		}
	case p.Type == "number" || p.Type == "integer":
		c.Widget, c.InputType, c.InputMode = "number", "text", "decimal"
		if p.Type == "integer" {
			c.InputMode = "numeric"
		}
	case f.HTML:
		c.Widget = "html"
	case p.Format == "uri":
		c.Widget, c.InputType = "text", "url"
	case p.Format == "date":
		c.Widget, c.InputType = "text", "date"
	case p.MaxLength == nil || *p.MaxLength > 500:
		c.Widget = "textarea"
	default:
		c.Widget, c.InputType = "text", "text"
		if strings.HasSuffix(f.Name, "Email") {
			c.InputType = "email"
		}
	}
	c.File = b.fileControlOf(c, p)
	return c
}

// hidden lists the values of carried properties that have no control on
// the page (the items' languages not shown), in a stable order.
func (b *formBuild) hidden() []hiddenValue {
	var keys []string
	for k := range b.st.vals {
		if b.rendered[k] {
			continue
		}
		for _, wire := range b.st.fields {
			if ownsKey(wire, k) {
				keys = append(keys, k)
				break
			}
		}
	}
	sort.Strings(keys)
	var out []hiddenValue
	for _, k := range keys {
		for _, v := range b.st.vals[k] {
			out = append(out, hiddenValue{k, v})
		}
	}
	return out
}

// refIDs lists the ids the state's reference fields name, by target.
func refIDs(ks *kindSchema, st *formState) map[string][]string {
	out := map[string][]string{}
	var walk func(fields []cms.FieldInfo, prefix string)
	walk = func(fields []cms.FieldInfo, prefix string) {
		for _, f := range fields {
			for _, lang := range ks.fieldLangs(f) {
				name := prefix + ks.wire(f, lang)
				if f.Items != nil {
					for i := range st.itemCount(name) {
						walk(f.Items, name+"["+strconv.Itoa(i)+"].")
					}
					continue
				}
				if f.Ref == "" || f.WriteOnly {
					continue
				}
				for _, id := range st.vals[name] {
					if id = strings.TrimSpace(id); id != "" && !slices.Contains(out[f.Ref], id) {
						out[f.Ref] = append(out[f.Ref], id)
					}
				}
			}
		}
	}
	walk(ks.fields, "")
	return out
}
