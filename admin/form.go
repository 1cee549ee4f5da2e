package admin

// The record form: one page per record (<prefix>/<kind>/{id}/edit, and
// <prefix>/<kind>/new for a new one), generated from the account's JSON
// Schema of the kind (cms.JSONSchema: types, null, bounds, descriptions)
// and cms.FormFields (HTML, references, languages, nested items). It works
// without JavaScript: every action (copy a translation, add, move or
// remove an item or an id, show another language) is a submit button that
// re-renders the form with the change and saves nothing.
//
// DOM conventions, which the admin's scripts (drafts, drag reordering, the
// id picker, the HTML editor) rely on; keep them stable:
//
//   - <form id="record-form" method="post" data-kind="resource"
//     data-id="<id, empty when new>" data-etag="<ETag opened>"
//     data-user="<username>" enctype="multipart/form-data"> (the server
//     reads urlencoded posts too).
//   - File fields have an upload control beside their URL input
//     (<div class="file-tools">, filefield.go).
//   - Control names are the wire names: title, title_it, locationLat,
//     landingBlocks[0].title, landingBlocks[0].resourceIds. Ids are "f-" and
//     the name with "[", "]" and "." made "-" and "" ("f-title_it",
//     "f-landingBlocks-0-title"). Every control has a visible
//     <label for="<id>">; hints are #<id>-hint, errors #<id>-error, both
//     in its aria-describedby.
//   - Multi-language rows: <div class="ml" data-field="title"> (nested:
//     data-field="landingBlocks[0].title") holding, inside
//     <div class="ml-cols">, one <div class="ml-col" data-lang="it"> per
//     shown language, the default first; inputs carry lang="it". A missing translation (empty while
//     the default language has a value) has class "missing" on its column.
//   - Nested lists: <fieldset class="items" data-path="landingBlocks">
//     with <input type="hidden" name="_count.landingBlocks" value="n"> and
//     one <fieldset class="item" data-index="0"> per item, each with a
//     <legend>.
//   - Id lists: <div class="idlist" data-kind="resource"
//     data-field="poiResourceIds"> (data-kind "mapOrLanding" for a
//     Landing block's ids) holding an <ol> whose <li data-id="..."> each
//     hold <input type="hidden" name="poiResourceIds" value="...">
//     (repeated names, in order), then the "add an id" text input with
//     the same name (empty is ignored) and the id f-poiResourceIds.
//     Single references (mapId, trackResourceId) are a text input with
//     class "ref" and data-kind.
//   - HTML fields: <textarea data-html>.
//   - data-saved="created|updated|skipped" on the form right after a
//     save; data-unsaved when a posted form's values differ from those
//     opened (formdirty.go).
//   - Lists of plain strings (multimedia, categories): a <textarea
//     data-lines>, one item per line.
//   - Buttons are <button type="submit" name="_action" value="...">:
//     save, copy:<field path>:<from>:<to>, add:<list path>,
//     up:/down:/remove:<list path>[i] (items and ids alike),
//     addid:<id list path>, langs, show:<lang>, clone, delete.
//   - Hidden inputs: _fields (one per top-level property the form carries:
//     a save sends exactly these, so unchecked boxes and emptied lists are
//     sent too, and the languages not shown stay as stored), _etag (the
//     version opened, sent as If-Match), _base (hashes of the opened
//     values, which tell a conflict's changes apart), and the values of
//     carried properties without a control (the items' languages not
//     shown) under their own names.
//   - _langs checkboxes pick the languages shown beside the default (up
//     to three; GET ?langs=it,de does the same); the choice is kept in
//     the admin's cookie bw_admin_langs, so the server renders the
//     columns, with or without scripts.

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/bwcms/cms/cms"
)

// notShown are the properties the form leaves out on purpose, each with
// the reason; every other property of the schema has exactly one control
// (TestEveryPropertyHasOneLabelledControl).
var notShown = map[string]string{
	"mapIdsAdd":                 "write-only: the form edits the whole mapIds list",
	"mapSecondaryIdsAdd":        "write-only: the form edits the whole mapSecondaryIds list",
	"poiResourceIdsAdd":         "write-only: the form edits the whole poiResourceIds list",
	"resourceIdsAdd":            "write-only: the form edits the whole resourceIds list",
	"secondaryResourceIdsAdd":   "write-only: the form edits the whole secondaryResourceIds list",
	"deleteElementIrreversibly": "write-only: the form's Delete button deletes, after a confirmation and with If-Match",
}

// formView is the data of the edit page.
type formView struct {
	Kind    cms.Kind
	ID      string // "" for a new record
	New     bool
	Heading string
	Action  string
	ListURL string
	// HistoryURL is the record's history ("" for a new record).
	HistoryURL string
	ETag       string
	Base       string
	User       string
	CanWrite   bool
	CanClone   bool
	CanDel     bool
	// Default and Shown are the languages of the columns; Picker offers
	// every language but the default.
	Default string
	Shown   []string
	Picker  []langChoice
	Rows    []*formRow
	Hidden  []hiddenValue
	Fields  []string
	Summary []summaryItem
	Notices []notice
	// Saved is the outcome of the save that led to this page ("created",
	// "updated", "skipped"; "" otherwise): the drafts script removes the
	// draft it kept (data-saved).
	Saved string
	// Unsaved marks a page rendered from a posted form whose values differ
	// from those opened (an action's result, a refused save, a restored
	// draft): the page holds changes not saved yet (data-unsaved).
	Unsaved bool
	// Placing marks a form with the location map and the track panel
	// (placing.go): the page loads the map's assets.
	Placing bool
	// Delete, when set, is shown instead of the form: the delete
	// confirmation or its refusal.
	Delete *deleteView
	// MapEditor, on a Map's form, is its map (mapeditor.go).
	MapEditor *mapEditorView
}

type langChoice struct {
	Code    string
	Checked bool
}

type hiddenValue struct{ Name, Value string }

// summaryItem is one problem of the error summary: a link to its control,
// or, for a language not shown, a button that shows it.
type summaryItem struct {
	Text     string
	Href     string
	ShowLang string
}

// notice is a message above the form; Kind is "ok" or "warn".
type notice struct {
	Kind  string
	Text  string
	Items []string
}

// formRow is one row of the form: a control, a multi-language row or a
// nested list.
type formRow struct {
	Control *formControl
	ML      *mlRow
	Items   *itemList
	// Place and Track are the Resource form's map rows (placing.go).
	Place *placeRow
	Track *trackRow
}

type mlRow struct {
	Field  string // path of the default-language name: title, landingBlocks[0].title
	Label  string
	Hint   string
	HintID string
	HTML   bool
	Cols   []*formControl
}

type itemList struct {
	Path      string
	ID        string
	Label     string
	Hint      string
	CountName string
	Count     int
	Items     []*itemView
	Add       string // the add button's action; "" read-only
	ItemLabel string // "Block"
	AddLabel  string // "block"
}

type itemView struct {
	Index  int
	ID     string
	Legend string
	Rows   []*formRow
	Up     string
	Down   string
	Remove string
}

// formControl is one labelled control.
type formControl struct {
	Name  string
	ID    string
	Label string
	// LabelHidden is read by screen readers before Label: the field's
	// name in front of a language column's code.
	LabelHidden string
	Lang        string
	// Widget: text, textarea, html, lines, number, checkbox, tristate,
	// select, ref, idlist, output.
	Widget    string
	InputType string
	InputMode string
	Value     string
	Checked   bool
	Options   []option
	IDs       []idEntry
	RefKind   string
	RefTitle  string
	RefURL    string
	RefNone   bool // the named record does not exist
	Hint      string
	HintID    string
	Problems  []string
	ErrorID   string
	Missing   bool
	Copy      string // the copy button's action
	CopyFrom  string
	ReadOnly  bool
	Disabled  bool
	Required  bool
	AddAction string
	// File is the upload control of a file field (filefield.go).
	File *fileControl
}

// Describedby is the control's aria-describedby: its hint and its error.
func (c *formControl) Describedby() string {
	var ids []string
	if c.Hint != "" {
		ids = append(ids, c.HintID)
	}
	if len(c.Problems) > 0 {
		ids = append(ids, c.ErrorID)
	}
	return strings.Join(ids, " ")
}

type option struct {
	Value, Label string
	Selected     bool
}

// idEntry is one id of an id list, with the title of the record it names.
type idEntry struct {
	ID      string
	Title   string
	URL     string // the named record's form
	Missing bool
	Up      string
	Down    string
	Remove  string
}

// controlID is the id of the control named name: "f-" and the name with
// brackets and dots made dashes (f-landingBlocks-0-title).
func controlID(name string) string {
	r := strings.NewReplacer("[", "-", "]", "", ".", "-")
	return "f-" + r.Replace(name)
}

// acronyms are the words labels write in capitals.
var acronyms = map[string]string{"cta": "CTA", "url": "URL", "html": "HTML", "poi": "POI", "id": "ID",
	"ids": "IDs", "seo": "SEO"}

// labelOf makes a label of a wire name: locationLat -> "Location lat",
// poiResourceIds -> "POI resource IDs".
func labelOf(name string) string {
	var words []string
	start := 0
	rs := []rune(name)
	for i := 1; i <= len(rs); i++ {
		if i == len(rs) || unicode.IsUpper(rs[i]) {
			words = append(words, strings.ToLower(string(rs[start:i])))
			start = i
		}
	}
	for i, w := range words {
		if a, ok := acronyms[w]; ok {
			words[i] = a
		} else if i == 0 {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}

// hintOf is a field's hint: its description (without the language the
// schema adds) and its bounds.
func hintOf(f cms.FieldInfo, p *propSchema) string {
	d, _, _ := strings.Cut(p.Description, " (language ")
	var extra []string
	switch {
	case f.HTML:
		extra = append(extra, "Scripts, event handlers and javascript: links are removed when saved.")
	case p.Type == "string" && p.MaxLength != nil && f.Ref == "":
		extra = append(extra, "Up to "+strconv.Itoa(*p.MaxLength)+" characters.")
	case (p.Type == "number" || p.Type == "integer") && f.Enum == nil && p.Minimum != "" && p.Maximum != "" && !p.ReadOnly:
		if len(p.Maximum) < 10 {
			extra = append(extra, "From "+p.Minimum.String()+" to "+p.Maximum.String()+".")
		} else {
			extra = append(extra, "At least "+p.Minimum.String()+".")
		}
	case p.Type == "array" && f.Ref == "" && f.Items == nil:
		extra = append(extra, "One per line.")
	}
	if d != "" {
		d = strings.ToUpper(d[:1]) + d[1:]
		if !strings.HasSuffix(d, ".") {
			d += "."
		}
	}
	return strings.TrimSpace(strings.Join(append([]string{d}, extra...), " "))
}
