package admin

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/bwcms/cms/cms"
)

// The languages shown beside the default are the editor's choice, kept in
// a cookie of the admin's (Path=<prefix>/): the server renders the
// columns, so the choice works without scripts and holds on every form,
// and a link may set it (?langs=it,de).
const (
	langsCookie = "bw_admin_langs"
	// maxShown is how many languages a form shows beside the default.
	maxShown = 3
	// noLangs is the cookie's value for "the default language only".
	noLangs = "-"
	// langsKept is how long the choice is remembered.
	langsKept = 365 * 24 * time.Hour
)

// pickLangs keeps the codes of asked (each may be a comma-separated list)
// that are languages of the account besides the default, in the account's
// order, at most maxShown; more says whether some were left out.
func pickLangs(langs cms.Languages, asked []string) (shown []string, more bool) {
	want := map[string]bool{}
	for _, a := range asked {
		for code := range strings.SplitSeq(a, ",") {
			want[strings.TrimSpace(code)] = true
		}
	}
	for _, code := range langs.Others() {
		if !want[code] {
			continue
		}
		if len(shown) == maxShown {
			return shown, true
		}
		shown = append(shown, code)
	}
	return shown, false
}

// defaultLangs are the first maxShown languages besides the default.
func defaultLangs(langs cms.Languages) []string {
	others := langs.Others()
	return others[:min(len(others), maxShown)]
}

// shownLangs are the languages a form shows beside the default: those
// asked (remembered for next time) when ask, else the remembered ones,
// else the first three of the account.
func (h *Handler) shownLangs(w http.ResponseWriter, r *http.Request, langs cms.Languages, asked []string, ask bool) []string {
	if ask {
		shown, _ := pickLangs(langs, asked)
		h.rememberLangs(w, r, shown)
		return shown
	}
	switch c := h.cookie(r, langsCookie); c {
	case "":
		return defaultLangs(langs)
	case noLangs:
		return nil
	default:
		v, err := url.QueryUnescape(c)
		if err != nil {
			return defaultLangs(langs)
		}
		shown, _ := pickLangs(langs, []string{v})
		return shown
	}
}

func (h *Handler) rememberLangs(w http.ResponseWriter, r *http.Request, shown []string) {
	v := noLangs
	if len(shown) > 0 {
		v = strings.Join(shown, ",")
	}
	h.setCookie(w, r, langsCookie, v, langsKept)
}

// postedLangs are the languages of a posted form: the picker's boxes when
// its button was pressed, a language added by a "show" button (in place
// of the last when there are three), else those the page showed.
func (h *Handler) postedLangs(w http.ResponseWriter, r *http.Request, langs cms.Languages, form url.Values, action string) []string {
	if action == "langs" {
		return h.shownLangs(w, r, langs, form[ctlLangs], true)
	}
	shown, _ := pickLangs(langs, form["_shown"])
	if !form.Has("_shown") {
		shown = h.shownLangs(w, r, langs, nil, false)
	}
	if code, ok := strings.CutPrefix(action, "show:"); ok && slices.Contains(langs.Others(), code) && !slices.Contains(shown, code) {
		if len(shown) == maxShown {
			shown = shown[:maxShown-1]
		}
		shown, _ = pickLangs(langs, append(shown, code))
		h.rememberLangs(w, r, shown)
	}
	return shown
}

// renameLangs rewrites a form made when the account's default language
// was another (its _lang) to the names of now: a bare name addressed that
// language then (title was English), and the name of today's default with
// its code is the bare one now (title_it is title). Control names, nested
// items' too, the properties the form lists, their opened hashes and the
// languages shown follow, so that no text lands in another language.
func renameLangs(ks *kindSchema, form url.Values) url.Values {
	from, to := form.Get(ctlLang), ks.langs.Default
	if from == "" || from == to || !slices.Contains(ks.langs.All, from) {
		return form
	}
	multi := map[string]bool{}
	var collect func([]cms.FieldInfo)
	collect = func(fields []cms.FieldInfo) {
		for _, f := range fields {
			multi[f.Name] = multi[f.Name] || f.MultiLang
			collect(f.Items)
		}
	}
	collect(ks.fields)
	rename := func(name string) string {
		head, last := "", name
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			head, last = name[:i+1], name[i+1:]
		}
		base, lang := last, from
		if !multi[last] {
			i := strings.LastIndexByte(last, '_')
			if i <= 0 || !multi[last[:i]] || !slices.Contains(ks.langs.All, last[i+1:]) {
				return name
			}
			base, lang = last[:i], last[i+1:]
		}
		return head + ks.langs.WireName(base, lang)
	}
	code := func(c string) string {
		if c == to {
			return from
		}
		return c
	}
	out := make(url.Values, len(form))
	for k, vals := range form {
		vals = slices.Clone(vals)
		switch k {
		case ctlFields, ctlClash:
			for i, v := range vals {
				vals[i] = rename(v)
			}
		case ctlBase:
			for i, v := range vals {
				pairs := strings.Fields(v)
				for j, p := range pairs {
					if wire, hash, ok := strings.Cut(p, ":"); ok {
						pairs[j] = rename(wire) + ":" + hash
					}
				}
				vals[i] = strings.Join(pairs, " ")
			}
		case "_shown", ctlLangs:
			for i, v := range vals {
				codes := strings.Split(v, ",")
				for j, c := range codes {
					codes[j] = code(strings.TrimSpace(c))
				}
				vals[i] = strings.Join(codes, ",")
			}
		case ctlLang:
			vals = []string{to}
		}
		out[rename(k)] = vals
	}
	return out
}
