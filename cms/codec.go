package cms

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// Codec reads and writes records of every kind for one language
// configuration, and checks them. It is safe for concurrent use; build one
// per language configuration and keep it (building reflects the types).
type Codec struct {
	langs Languages
	// document marks the storage form (NewDocumentCodec).
	document bool
	kinds    map[Kind]*objectCodec
	decoder  sync.Pool // *jsontext.Decoder
}

// objectCodec is a record kind or nested item type expanded with the
// languages: every wire name bound to its field and language, and the order
// in which fields are written.
type objectCodec struct {
	kind  Kind // the record kind, also for nested items
	spec  *typeSpec
	names map[string]binding
	out   []binding // readable fields in write order
	// bindings lists each field's wire bindings (one per language).
	bindings map[*fieldSpec][]binding
	// plan writes answers from stored documents (a codec of languages).
	plan wirePlan
}

type binding struct {
	field *fieldSpec
	lang  string // "" unless the field is multi-language
	wire  string
	// quoted is `"wire":`, ready to append.
	quoted []byte
	// langMap: the storage form of a multi-language field, one JSON object
	// from language code to value.
	langMap bool
	item    *objectCodec // for nested items
	// slot numbers the object's bindings, for the duplicate-name check.
	slot int
	// inLangMap: a value inside a language map (lang is its key).
	inLangMap bool
}

// path names the binding in problem texts: "title", "title_it", or for a
// value of a stored language map "title.it".
func (b binding) path() string {
	if b.inLangMap {
		return b.wire + "." + b.lang
	}
	return b.wire
}

// NewCodec builds a Codec for langs.
func NewCodec(langs Languages) (*Codec, error) {
	if _, err := NewLanguages(langs.Default, langs.All...); err != nil {
		return nil, err
	}
	return newCodec(langs, false)
}

// NewDocumentCodec returns the Codec of the storage form that adapters keep:
// independent of any language configuration (each multi-language field is
// one object from language code to value, holding whatever languages the
// record has), without read-only, write-only and assignment fields, which
// the store keeps beside the document. Validate does not apply to it.
func NewDocumentCodec() *Codec {
	c, err := newCodec(Languages{}, true)
	if err != nil {
		panic(err) // the struct tags are fixed at compile time
	}
	return c
}

func newCodec(langs Languages, document bool) (*Codec, error) {
	c := &Codec{langs: langs, document: document, kinds: make(map[Kind]*objectCodec, 4)}
	for _, k := range Kinds() {
		spec, err := specOf(reflect.TypeOf(NewRecord(k)).Elem())
		if err != nil {
			return nil, err
		}
		oc := c.objectCodec(k, spec)
		if !document {
			oc.plan = buildPlan(oc, NewRecord(k))
		}
		c.kinds[k] = oc
	}
	return c, nil
}

// Languages returns the codec's language configuration.
func (c *Codec) Languages() Languages { return c.langs }

func (c *Codec) objectCodec(k Kind, spec *typeSpec) *objectCodec {
	oc := &objectCodec{kind: k, spec: spec, names: make(map[string]binding), bindings: make(map[*fieldSpec][]binding)}
	allLangs := append([]string{c.langs.Default}, c.langs.Others()...)
	for _, f := range spec.fields {
		if c.document && (f.readOnly || f.writeOnly || f.assign) {
			continue
		}
		langs := []string{""}
		if f.multiLang && !c.document {
			langs = allLangs
		}
		var item *objectCodec
		if f.item != nil {
			item = c.objectCodec(k, f.item)
			if !c.document {
				item.plan = buildPlan(item, nil)
			}
		}
		for _, lang := range langs {
			b := binding{field: f, lang: lang, wire: f.name, item: item, langMap: f.multiLang && c.document}
			if lang != "" {
				b.wire = c.langs.WireName(f.name, lang)
			}
			b.quoted, _ = jsontext.AppendQuote(nil, b.wire)
			b.quoted = append(b.quoted, ':')
			b.slot = len(oc.names)
			oc.names[b.wire] = b
			oc.bindings[f] = append(oc.bindings[f], b)
			if !f.writeOnly {
				oc.out = append(oc.out, b)
			}
		}
	}
	return oc
}

func (c *Codec) kind(rec Record) (*objectCodec, reflect.Value) {
	oc := c.kinds[rec.Kind()]
	if oc == nil {
		panic(fmt.Sprintf("cms: unknown record kind %q", rec.Kind()))
	}
	return oc, reflect.ValueOf(rec).Elem()
}

// codec returns the (cached) codec of a language configuration.
func (s *Service) codec(langs Languages) (*Codec, error) {
	key := langs.String()
	if c, ok := s.codecs.Load(key); ok {
		return c.(*Codec), nil
	}
	c, err := NewCodec(langs)
	if err != nil {
		return nil, err
	}
	actual, _ := s.codecs.LoadOrStore(key, c)
	return actual.(*Codec), nil
}

// AccountLanguages returns p with the languages its account has now,
// which drive what a request reads and writes: a token keeps the
// languages of its issue until it expires, and the account's may have
// changed since (a language added, another default). One read of the
// account by its key, a request. Errors: CodeUnauthorized when the
// account is gone, the store's.
func (s *Service) AccountLanguages(ctx context.Context, p Principal) (Principal, error) {
	acc, err := s.store.GetAccount(ctx, p.Account)
	if ErrorCode(err) == CodeNotFound {
		return Principal{}, errUnauthorized()
	}
	if err != nil {
		return Principal{}, err
	}
	p.Langs = acc.Langs
	return p, nil
}
