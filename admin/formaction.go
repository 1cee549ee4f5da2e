package admin

import (
	"slices"
	"strconv"
	"strings"
)

// applyAction changes the form state as a button asks (everything but
// save, the language buttons, clone and delete) and says what it did for
// the page's notice; ok is false for an action it does not know, or one
// naming a field the form does not have. Nothing is saved.
func applyAction(ks *kindSchema, st *formState, action string) (string, bool) {
	verb, arg, _ := strings.Cut(action, ":")
	switch verb {
	case "copy":
		return copyAction(ks, st, arg)
	case "add":
		f, _, ok := ks.topField(arg)
		if !ok || f.Items == nil || !st.carries(arg) {
			return "", false
		}
		n := st.itemCount(arg)
		if n >= maxItems {
			return "The list holds " + strconv.Itoa(maxItems) + " items, as many as a form can.", true
		}
		st.vals.Set(ctlCount+arg, strconv.Itoa(n+1))
		return itemNoun(arg) + " " + strconv.Itoa(n+1) + " added (not saved yet).", true
	case "up", "down", "remove":
		name, i, ok := splitIndex(arg)
		if !ok {
			return "", false
		}
		f, p, ok := ks.fieldAt(name)
		if !ok || !st.carries(topOf(name)) {
			return "", false
		}
		if f.Items != nil && !strings.Contains(name, ".") {
			return moveItem(st, name, i, verb)
		}
		if p.Type == "array" && f.Ref != "" {
			return moveID(st, name, i, verb)
		}
		return "", false
	case "addid":
		f, p, ok := ks.fieldAt(arg)
		if !ok || f.Ref == "" || p.Type != "array" || !st.carries(topOf(arg)) {
			return "", false
		}
		ids := cleanIDs(st.vals[arg])
		st.vals[arg] = ids
		if len(ids) == 0 {
			return "Type an id to add.", true
		}
		return ids[len(ids)-1] + " added (not saved yet).", true
	}
	return "", false
}

// topOf is the top-level property of a control name.
func topOf(name string) string {
	top, _, _ := strings.Cut(name, ".")
	if list, _, ok := splitIndex(top); ok {
		return list
	}
	return top
}

// copyAction copies a language's value into an empty one:
// copy:<field path>:<from>:<to>, the path without language
// (landingBlocks[0].title).
func copyAction(ks *kindSchema, st *formState, arg string) (string, bool) {
	parts := strings.Split(arg, ":")
	if len(parts) != 3 {
		return "", false
	}
	path, from, to := parts[0], parts[1], parts[2]
	if !slices.Contains(ks.langs.All, from) || !slices.Contains(ks.langs.All, to) || from == to {
		return "", false
	}
	prefix, base := "", path
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		prefix, base = path[:i+1], path[i+1:]
	}
	f, _, ok := ks.fieldAt(path)
	if !ok || !f.MultiLang || f.Name != base {
		return "", false
	}
	src, dst := prefix+ks.langs.WireName(base, from), prefix+ks.langs.WireName(base, to)
	if !st.carries(topOf(dst)) {
		return "", false
	}
	if strings.TrimSpace(st.get(dst)) != "" {
		return labelOf(base) + " (" + to + ") is not empty: nothing copied.", true
	}
	st.vals[dst] = []string{st.get(src)}
	return labelOf(base) + " copied from " + from + " to " + to + " (not saved yet).", true
}

// moveItem moves or removes item i of a nested list, renumbering the
// controls of the items after it.
func moveItem(st *formState, list string, i int, verb string) (string, bool) {
	n := st.itemCount(list)
	if i >= n {
		return "", false
	}
	items := make([]map[string][]string, n)
	for j := range items {
		items[j] = map[string][]string{}
	}
	for k, v := range st.vals {
		rest, ok := strings.CutPrefix(k, list+"[")
		if !ok {
			continue
		}
		num, sub, ok := strings.Cut(rest, "].")
		j, err := strconv.Atoi(num)
		if !ok || err != nil || j < 0 || j >= n {
			delete(st.vals, k)
			continue
		}
		items[j][sub] = v
		delete(st.vals, k)
	}
	noun := itemNoun(list) + " " + strconv.Itoa(i+1)
	msg := ""
	switch verb {
	case "up":
		if i == 0 {
			return "", false
		}
		items[i-1], items[i] = items[i], items[i-1]
		msg = noun + " moved up (not saved yet)."
	case "down":
		if i == n-1 {
			return "", false
		}
		items[i+1], items[i] = items[i], items[i+1]
		msg = noun + " moved down (not saved yet)."
	case "remove":
		items = slices.Delete(items, i, i+1)
		msg = noun + " removed (not saved yet)."
	}
	for j, item := range items {
		for sub, v := range item {
			st.vals[list+"["+strconv.Itoa(j)+"]."+sub] = v
		}
	}
	st.vals.Set(ctlCount+list, strconv.Itoa(len(items)))
	return msg, true
}

// moveID moves or removes id i of an id list.
func moveID(st *formState, name string, i int, verb string) (string, bool) {
	ids := cleanIDs(st.vals[name])
	if i >= len(ids) {
		return "", false
	}
	id := ids[i]
	switch verb {
	case "up":
		if i == 0 {
			return "", false
		}
		ids[i-1], ids[i] = ids[i], ids[i-1]
	case "down":
		if i == len(ids)-1 {
			return "", false
		}
		ids[i+1], ids[i] = ids[i], ids[i+1]
	case "remove":
		ids = slices.Delete(ids, i, i+1)
	}
	st.vals[name] = ids
	verbs := map[string]string{"up": "moved up", "down": "moved down", "remove": "removed"}
	return id + " " + verbs[verb] + " (not saved yet).", true
}

// cleanIDs drops the empty values of an id list (the empty "add an id"
// input) and trims the others.
func cleanIDs(vals []string) []string {
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
