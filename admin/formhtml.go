package admin

import (
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html"

	"github.com/bwcms/cms/cms"
)

// sanitized compares the HTML a save sent with what the service stored
// (DECISIONS §5: sanitized on write) and lists the fields it changed with
// the tags and attributes it removed, or "text" when only the text
// changed. A field only written out again (<br> as <br/>, & as &amp;) is
// not listed.
func sanitized(ks *kindSchema, sent object, after map[string]any) []cleaned {
	var out []cleaned
	var walk func(fields []cms.FieldInfo, sent object, after map[string]any, prefix string)
	walk = func(fields []cms.FieldInfo, sent object, after map[string]any, prefix string) {
		for _, f := range fields {
			for _, lang := range ks.fieldLangs(f) {
				wire := ks.wire(f, lang)
				v, ok := sent.get(wire)
				if !ok {
					continue
				}
				if f.Items != nil {
					items, _ := v.([]any)
					stored, _ := after[wire].([]any)
					for i, item := range items {
						obj, _ := item.(object)
						var st map[string]any
						if i < len(stored) {
							st, _ = stored[i].(map[string]any)
						}
						walk(f.Items, obj, st, prefix+itemNoun(f.Name)+" "+strconv.Itoa(i+1)+", ")
					}
					continue
				}
				if !f.HTML {
					continue
				}
				mine, _ := v.(string)
				theirs, _ := after[wire].(string)
				if mine == theirs {
					continue
				}
				removed := removedMarkup(mine, theirs)
				if len(removed) == 0 && textOf(mine) != textOf(theirs) {
					removed = []string{"text"}
				}
				if len(removed) > 0 {
					label := labelOf(f.Name)
					if lang != "" {
						label += " (" + lang + ")"
					}
					out = append(out, cleaned{Field: prefix + label, Removed: removed})
				}
			}
		}
	}
	walk(ks.fields, sent, after, "")
	return out
}

// maxRemoved bounds the list of one field.
const maxRemoved = 12

// removedMarkup lists the tags ("<script>") and attributes ("onerror of
// <img>") of before that after has fewer of.
func removedMarkup(before, after string) []string {
	b, a := markup(before), markup(after)
	var out []string
	for k, n := range b {
		if n > a[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	if len(out) > maxRemoved {
		out = append(out[:maxRemoved], "…")
	}
	return out
}

// markup counts the tags and attributes of an HTML fragment.
func markup(s string) map[string]int {
	counts := map[string]int{}
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return counts
		case html.StartTagToken, html.SelfClosingTagToken:
			t := z.Token()
			counts["<"+t.Data+">"]++
			for _, at := range t.Attr {
				counts[at.Key+" of <"+t.Data+">"]++
				if strings.HasPrefix(strings.ToLower(strings.TrimSpace(at.Val)), "javascript:") {
					counts["javascript: link in <"+t.Data+">"]++
				}
			}
		}
	}
}

// textOf is the text of an HTML fragment, spaces collapsed.
func textOf(s string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(strings.Fields(b.String()), " ")
		case html.TextToken:
			b.Write(z.Text())
			b.WriteByte(' ')
		}
	}
}
