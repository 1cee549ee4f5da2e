package admin

import (
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// attachProblems puts each problem beside its control and lists them all
// for the error summary: a link to the control, or for a language not
// shown a button that shows it.
func (b *formBuild) attachProblems(problems []cms.Problem) []summaryItem {
	// In the order of the page, as the editor reads it; those without a
	// control last.
	problems = slices.Clone(problems)
	at := func(p cms.Problem) int {
		if name, _, ok := splitIndex(p.Field); ok && b.controls[p.Field] == nil {
			p.Field = name
		}
		if i, ok := b.order[p.Field]; ok {
			return i
		}
		return len(b.order)
	}
	slices.SortStableFunc(problems, func(x, y cms.Problem) int { return at(x) - at(y) })
	var out []summaryItem
	for _, p := range problems {
		text := problemText(p.Text)
		label := problemLabel(b.ks, p.Field)
		item := summaryItem{Text: label + ": " + p.Text}
		if c := b.controlOf(p.Field); c != nil {
			c.Problems = append(c.Problems, text)
			item.Href = "#" + c.ID
		} else if lang := b.ks.langOf(p.Field); lang != "" && !slices.Contains(b.shown, lang) {
			item.ShowLang = lang
		} else if list, _, ok := splitIndex(p.Field); ok && b.rendered[ctlCount+list] {
			item.Href = "#" + controlID(p.Field)
		} else if b.rendered[ctlCount+p.Field] {
			item.Href = "#" + controlID(p.Field)
		}
		out = append(out, item)
	}
	return out
}

// controlOf is the control of a problem's field: the field's own, or the
// list's for an item of a list of strings (multimedia[1]).
func (b *formBuild) controlOf(field string) *formControl {
	if c := b.controls[field]; c != nil {
		return c
	}
	if name, _, ok := splitIndex(field); ok {
		return b.controls[name]
	}
	return nil
}

// problemText is a problem's text as a sentence.
func problemText(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// problemLabel names a problem's field for people: "Title (it)",
// "Block 2, title", "Multimedia, item 3".
func problemLabel(ks *kindSchema, field string) string {
	var parts []string
	rest := field
	if top, sub, nested := strings.Cut(field, "."); nested {
		if list, i, ok := splitIndex(top); ok {
			parts = append(parts, itemNoun(list)+" "+strconv.Itoa(i+1))
			rest = sub
		}
	}
	name := rest
	suffix := ""
	if list, i, ok := splitIndex(rest); ok {
		name, suffix = list, ", item "+strconv.Itoa(i+1)
	}
	label := labelOf(name)
	if f, lang, ok := ks.topField(name); ok && f.MultiLang {
		label = labelOf(f.Name) + " (" + lang + ")"
	} else if i := strings.LastIndexByte(name, '_'); i > 0 && len(name)-i == 3 {
		label = labelOf(name[:i]) + " (" + name[i+1:] + ")"
	}
	parts = append(parts, label+suffix)
	return strings.Join(parts, ", ")
}
