package admin

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
)

// A save whose If-Match no longer holds (someone else saved meanwhile)
// shows the conflict view: per property that differs, theirs (stored now)
// and mine (the form's) side by side, with a choice for each. Nothing is
// written until the editor chooses; the choices are saved with the ETag
// of what they saw. The answer is 409 Conflict, not 412: the page is not
// a failed precondition to retry but a conflict with the stored state
// that the editor resolves and sends again (RFC 9110, 15.5.10).
//
// The form carries _base, a hash of each property as opened, so the view
// tells who changed what: a property only the editor changed is kept
// without a question (the view lists it), one only they changed starts on
// "theirs", one both changed on neither (the editor must choose).

// normal is a value for comparing: empty ones (null, "", []) are nil,
// ordered objects plain maps.
func normal(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if x == "" {
			return nil
		}
		return x
	case []string:
		if len(x) == 0 {
			return nil
		}
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case []any:
		if len(x) == 0 {
			return nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normal(e)
		}
		return out
	case object:
		m := make(map[string]any, len(x))
		for _, mb := range x {
			if n := normal(mb.val); n != nil {
				m[mb.key] = n
			}
		}
		return m
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			if n := normal(e); n != nil {
				m[k] = n
			}
		}
		return m
	}
	return v
}

// valueHash is a short hash of a value as normal and canonical JSON.
func valueHash(v any) string {
	b, _ := json.Marshal(normal(v))
	h := fnv.New32a()
	h.Write(b)
	return strconv.FormatUint(uint64(h.Sum32()), 36)
}

func sameValue(a, b any) bool { return valueHash(a) == valueHash(b) }

// baseOf is the _base of properties: "wire:hash" pairs for those with a
// value; a property it does not list was empty.
func baseOf(fields []string, value func(string) any) string {
	var pairs []string
	for _, wire := range fields {
		if v := value(wire); normal(v) != nil {
			pairs = append(pairs, wire+":"+valueHash(v))
		}
	}
	return strings.Join(pairs, " ")
}

// withBase sets a property's hash in base.
func withBase(base, wire string, v any) string {
	pairs := slices.DeleteFunc(strings.Fields(base), func(p string) bool { return strings.HasPrefix(p, wire+":") })
	if normal(v) != nil {
		pairs = append(pairs, wire+":"+valueHash(v))
	}
	return strings.Join(pairs, " ")
}

// readBase reads _base: the hash of each carried property as opened.
func readBase(base string) map[string]string {
	m := map[string]string{}
	for p := range strings.FieldsSeq(base) {
		if wire, hash, ok := strings.Cut(p, ":"); ok {
			m[wire] = hash
		}
	}
	return m
}

// conflictView is the data of the conflict page.
type conflictView struct {
	Kind    cms.Kind
	ID      string
	Heading string
	Action  string
	ETag    string
	Base    string
	User    string
	Default string // the language of the bare names
	Shown   []string
	Fields  []string
	Hidden  []hiddenValue
	Clashes []clash
	// Kept are the properties only the editor changed: theirs is what
	// the editor opened, so the editor's value stays without a question.
	Kept    []string
	Missing bool // a choice was not made
	EditURL string
}

// clash is one property that differs.
type clash struct {
	Wire   string
	Label  string
	Name   string // of the radios
	ID     string
	Mine   string
	Theirs string
	// Who changed it since the editor opened it: "them" or "both" (a
	// property _base does not list was empty when opened).
	Who    string
	Choice string // "mine", "theirs" or "" (none yet)
	Block  bool   // a long or nested value, shown as a block
}

// conflict renders the conflict between the form (sent) and the record
// stored now. choices are the editor's earlier choices ("" on the first
// showing), read from the posted form.
func (h *editor) conflict(w http.ResponseWriter, r *http.Request, fc *formCtx, sent object, missing string) {
	now, err := h.readRecord(r.Context(), fc.ks, fc.kind, fc.id)
	if err != nil {
		h.fail(w, r, err) // deleted meanwhile: 404
		return
	}
	base := readBase(fc.base)
	v := &conflictView{Kind: fc.kind, ID: fc.id, Heading: kindLabels[fc.kind].one + " " + fc.id + " was changed by someone else",
		Action: h.editURL(fc.kind, fc.id), ETag: now.etag, User: fc.s.P.User, Default: fc.ks.langs.Default, Shown: fc.shown, Fields: fc.st.fields,
		Missing: missing != "", EditURL: h.editURL(fc.kind, fc.id)}
	// What the editor opened stays the base: a choice still to make is
	// judged against it on the next showing too.
	v.Base = fc.base
	for _, m := range sent {
		if m.key == "id" || sameValue(m.val, now.obj[m.key]) {
			continue
		}
		b, ok := base[m.key]
		if !ok {
			b = valueHash(nil) // empty when opened
		}
		label := problemLabel(fc.ks, m.key)
		if b == valueHash(now.obj[m.key]) {
			// Only the editor changed it: theirs is what they opened.
			v.Kept = append(v.Kept, label)
			continue
		}
		c := clash{Wire: m.key, Label: label, Name: ctlTake + m.key, ID: controlID(ctlTake + m.key),
			Mine: display(m.val), Theirs: display(now.obj[m.key]), Who: "both"}
		c.Block = strings.ContainsAny(c.Mine+c.Theirs, "\n") || len(c.Mine)+len(c.Theirs) > 160
		if b == valueHash(m.val) {
			c.Who, c.Choice = "them", "theirs"
		}
		if prev := r.PostForm.Get(c.Name); prev == "mine" || prev == "theirs" {
			c.Choice = prev
		}
		v.Clashes = append(v.Clashes, c)
	}
	if len(v.Clashes) == 0 {
		// They changed nothing the form holds (another language, or the
		// account's languages changed the version): the form stands on
		// the new version as it is.
		fc.etag, fc.rec = now.etag, now
		fc.base = baseOf(fc.st.fields, func(wire string) any { return now.obj[wire] })
		h.showForm(w, r, http.StatusConflict, fc, []notice{{Kind: "warn",
			Text: "This record changed after you opened it, but not in the fields you see here. Nothing was saved: check the form and save again."}}, nil)
		return
	}
	for k, vals := range fc.st.vals {
		owned := false
		for _, wire := range fc.st.fields {
			owned = owned || ownsKey(wire, k)
		}
		if !owned {
			continue
		}
		for _, val := range vals {
			v.Hidden = append(v.Hidden, hiddenValue{k, val})
		}
	}
	slices.SortStableFunc(v.Hidden, func(a, b hiddenValue) int { return strings.Compare(a.Name, b.Name) })
	h.render(w, r, http.StatusConflict, "conflict", &view{Title: "Conflict: " + v.Heading, Session: fc.s, Section: string(fc.kind), Page: v})
}

// display is a value as the conflict view shows it.
func display(v any) string {
	switch x := normal(v).(type) {
	case nil:
		return "(empty)"
	case string:
		return x
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case json.Number:
		return x.String()
	case []any:
		if len(x) > 0 {
			if _, plain := x[0].(string); plain {
				s := make([]string, len(x))
				for i, e := range x {
					s[i], _ = e.(string)
				}
				return strings.Join(s, "\n")
			}
		}
	}
	b, _ := json.MarshalIndent(normal(v), "", "  ")
	return string(b)
}

// resolve applies the editor's choices in a conflict: "theirs" takes the
// stored value, "mine" keeps the form's. save sends the result with the
// ETag the conflict showed; otherwise the form is shown again with it.
func (h *editor) resolve(w http.ResponseWriter, r *http.Request, fc *formCtx, save bool) {
	if fc.isNew || !fc.canWrite() {
		h.fail(w, r, &cms.Error{Code: cms.CodeForbidden, Message: "Forbidden"})
		return
	}
	missing := ""
	for _, wire := range r.PostForm[ctlClash] {
		if !fc.st.carries(wire) {
			continue
		}
		switch r.PostForm.Get(ctlTake + wire) {
		case "theirs":
			fc.st.carry(wire, fc.rec.vals)
		case "mine":
		default:
			missing = wire
		}
	}
	if missing != "" {
		h.conflict(w, r, fc, body(fc.ks, fc.st, fc.id, false), missing)
		return
	}
	if save {
		h.save(w, r, fc)
		return
	}
	// The form now stands on the version the conflict showed.
	fc.base = baseOf(fc.st.fields, func(wire string) any { return fc.rec.obj[wire] })
	h.showForm(w, r, http.StatusOK, fc, []notice{{Kind: "ok", Text: "Your choices are in the form: nothing is saved until you save."}}, nil)
}
