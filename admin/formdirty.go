package admin

// unsaved reports whether the form's values differ from those the editor
// opened: for a record, a carried property whose value is not the one
// _base remembers; for a new record, any value a save would send. The
// drafts script reads it (data-unsaved) on pages rendered from a posted
// form, whose values it cannot compare with what is stored.
func (fc *formCtx) unsaved() bool {
	if fc.isNew {
		sent := body(fc.ks, fc.st, fc.st.get("id"), true)
		return len(sent) > 1 || fc.st.get("id") != ""
	}
	base := readBase(fc.base)
	for _, m := range body(fc.ks, fc.st, fc.id, false) {
		if m.key == "id" {
			continue
		}
		was, ok := base[m.key]
		if !ok {
			if normal(m.val) != nil {
				return true
			}
			continue
		}
		if was != valueHash(m.val) {
			return true
		}
	}
	return false
}
