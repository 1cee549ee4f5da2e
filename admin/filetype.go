package admin

import (
	"regexp"
	"slices"
	"strings"

	"github.com/bwcms/cms/cms/media"
)

// mediaType is a type of file the service accepts, with the extensions a
// file field's URL may name it by.
type mediaType struct {
	Type  string
	Label string
	Exts  []string
}

// mediaTypes are the types of files the service keeps (the extension of a
// file's url is cms.FileExt of its type, the first of Exts).
var mediaTypes = []mediaType{
	{media.JPEG, "JPEG image", []string{"jpg", "jpeg"}},
	{media.PNG, "PNG image", []string{"png"}},
	{media.WebP, "WebP image", []string{"webp"}},
	{media.GPX, "GPX track", []string{"gpx"}},
	{media.KML, "KML", []string{"kml"}},
	{media.KMZ, "KMZ", []string{"kmz"}},
}

// typeLabel names a media type for people.
func typeLabel(typ string) string {
	for _, m := range mediaTypes {
		if m.Type == typ {
			return m.Label
		}
	}
	return typ
}

func isImageType(typ string) bool { return strings.HasPrefix(typ, "image/") }

// fileGroup is a set of media types a file field takes, which the media
// library filters by and the field's picker lists.
type fileGroup struct {
	Name  string // the value of ?kind=
	Label string
	Types []string
	// Track keeps only files holding a measured track.
	Track bool
}

var fileGroups = []fileGroup{
	{"image", "Images (JPEG, PNG, WebP)", []string{media.JPEG, media.PNG, media.WebP}, false},
	{"layer", "Map layers (KML, KMZ)", []string{media.KML, media.KMZ}, false},
	{"track", "Tracks (GPX, KML)", []string{media.GPX, media.KML}, true},
}

// groupNamed is the group of a ?kind= value; ok false for an unknown one.
func groupNamed(name string) (fileGroup, bool) {
	for _, g := range fileGroups {
		if g.Name == name {
			return g, true
		}
	}
	return fileGroup{}, false
}

// fileAccept is what a file field of the schema takes.
type fileAccept struct {
	// Exts are the extensions its URL may end in, in mediaTypes' order.
	Exts []string
	// Group is the group of the types they name ("" when none matches
	// them: the field then gets an upload control but no picker).
	Group string
}

// Accept is the file input's accept attribute: ".jpg,.jpeg,.png".
func (a *fileAccept) Accept() string {
	dotted := make([]string, len(a.Exts))
	for i, e := range a.Exts {
		dotted[i] = "." + e
	}
	return strings.Join(dotted, ",")
}

// probeURL is a URL with the file name that acceptOf tries each
// extension on.
const probeURL = "https://example.com/files/name."

// acceptOf reads what a URL property's pattern accepts by trying the
// extension of every media type on it: the file fields of the schema are
// found by what their rule accepts (the record tags' image, layer and
// trackfile rules), not by a list of names. nil when it accepts no file
// of a media type (a plain URL field accepts every one; it is no file
// field).
func acceptOf(pattern string, compiled map[string]*regexp.Regexp) *fileAccept {
	re, ok := compiled[pattern]
	if !ok {
		re, _ = regexp.Compile(pattern) // nil: no file field
		compiled[pattern] = re
	}
	if re == nil || re.MatchString(probeURL+"txt") {
		return nil
	}
	a := &fileAccept{}
	var types []string
	for _, m := range mediaTypes {
		took := false
		for _, ext := range m.Exts {
			if re.MatchString(probeURL+ext) && re.MatchString(probeURL+strings.ToUpper(ext)) {
				a.Exts = append(a.Exts, ext)
				took = true
			}
		}
		if took {
			types = append(types, m.Type)
		}
	}
	if len(a.Exts) == 0 {
		return nil
	}
	for _, g := range fileGroups {
		if slices.Equal(sorted(g.Types), sorted(types)) {
			a.Group = g.Name
		}
	}
	return a
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// markFileFields sets File on every URL property of props (and of nested
// items, and the items of lists of URLs) that takes files.
func markFileFields(props map[string]*propSchema) {
	compiled := map[string]*regexp.Regexp{}
	var mark func(p *propSchema)
	mark = func(p *propSchema) {
		if p == nil {
			return
		}
		if p.Format == "uri" && p.Pattern != "" {
			p.File = acceptOf(p.Pattern, compiled)
		}
		mark(p.Items)
		for _, sub := range p.Properties {
			mark(sub)
		}
	}
	for _, p := range props {
		mark(p)
	}
}

// fileAcceptOf is what the control of p takes: p's own for a URL, its
// items' for a list of URLs (multimedia); nil for no file field.
func fileAcceptOf(p *propSchema) *fileAccept {
	if p == nil {
		return nil
	}
	if p.File != nil {
		return p.File
	}
	if p.Type == "array" && p.Items != nil && p.Items.Properties == nil {
		return p.Items.File
	}
	return nil
}
