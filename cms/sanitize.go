package cms

import "reflect"

// sanitize runs the HTML sanitizer (Options.HTML) over every HTML field
// of a body, nested items included, so what is stored (and compared for
// Skip) is the sanitized text.
func (s *Service) sanitize(rec Record) {
	s.sanitizeObject(s.doc.kinds[rec.Kind()].spec, reflect.ValueOf(rec).Elem())
}

// decode is Codec.Decode of a body the service will store: its HTML
// fields are sanitized before the rules judge them, so their limits hold
// for what is stored (DECISIONS §13) and a stored record read and posted
// back passes them again.
func (s *Service) decode(codec *Codec, body []byte, rec Record) error {
	return codec.decodeClean(body, rec, true, s.sanitize)
}

func (s *Service) sanitizeObject(spec *typeSpec, v reflect.Value) {
	for _, f := range spec.fields {
		fv := v.Field(f.index)
		if f.item != nil {
			list := fv.Field(0)
			for i := range list.Len() {
				s.sanitizeObject(f.item, list.Index(i))
			}
			continue
		}
		if !f.html {
			continue
		}
		switch p := fv.Addr().Interface().(type) {
		case *Langs[Null[string]]:
			for lang, text := range *p {
				if text.Valid {
					(*p)[lang] = NullOf(s.opts.HTML.Sanitize(text.Value))
				}
			}
		case *Null[string]:
			if p.Valid {
				p.Value = s.opts.HTML.Sanitize(p.Value)
			}
		case *Langs[string]:
			for lang, text := range *p {
				(*p)[lang] = s.opts.HTML.Sanitize(text)
			}
		case *Opt[string]:
			if p.Set {
				p.Value = s.opts.HTML.Sanitize(p.Value)
			}
		}
	}
}
