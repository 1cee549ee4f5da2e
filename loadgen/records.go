package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"

	"github.com/bwcms/cms/cms"
)

// records builds Resource bodies in the account's languages.
type records struct {
	codec *cms.Codec
	langs cms.Languages
	full  bool
}

func newRecords(langs cms.Languages, full bool) (*records, error) {
	codec, err := cms.NewCodec(langs)
	if err != nil {
		return nil, err
	}
	return &records{codec: codec, langs: langs, full: full}, nil
}

// writer returns a recordWriter for one goroutine.
func (r *records) writer() *recordWriter {
	w := &recordWriter{records: r}
	if r.full {
		w.rec = cms.SampleRecord(cms.KindResource, r.langs).(*cms.Resource)
	} else {
		w.rec = &cms.Resource{Published: cms.Some(true), Title: cms.Langs[string]{},
			HTMLContent: cms.Langs[cms.Null[string]]{}, ResourceCategories: cms.NullOf([]string{"cat1", "cat2"})}
	}
	return w
}

// recordWriter appends records to a buffer, reusing one Resource; it is
// not safe for concurrent use.
type recordWriter struct {
	*records
	rec *cms.Resource
}

// append appends the record with id (the n-th of its writer) to dst. A
// small record is published, titled smallTitle in every language, located
// and categorised; a full one is cms.SampleRecord with its own id and aliases.
func (w *recordWriter) append(dst []byte, id string, n int) []byte {
	rec := w.rec
	rec.ID = id
	if w.full {
		for _, lang := range w.langs.All {
			rec.URLAlias[lang] = "/" + lang + "/" + id
		}
	} else {
		for _, lang := range w.langs.All {
			rec.Title[lang] = smallTitle(id, lang)
			rec.HTMLContent[lang] = cms.NullOf("<p>Text of " + id + ".</p>")
		}
		rec.LocationLat = cms.NullOf(45 + float64(n%1000)/1000)
		rec.LocationLon = cms.NullOf(9 + float64(n%997)/1000)
	}
	return w.codec.AppendPatch(dst, rec)
}

// smallTitle is the title of small record id in lang.
func smallTitle(id, lang string) string { return "Resource " + id + " " + lang }

// appendBatch appends a JSON array of n records with ids <prefix>-<from>,
// <prefix>-<from+1>, ... to dst: one buffer, no slice of records.
func (w *recordWriter) appendBatch(dst []byte, prefix string, from, n int) []byte {
	dst = append(dst, '[')
	for i := from; i < from+n; i++ {
		if i > from {
			dst = append(dst, ',')
		}
		dst = w.append(dst, fmt.Sprintf("%s-%d", prefix, i), i)
	}
	return append(dst, ']')
}

// missingRef finds, in a 409 text, a reference to a record that does not
// exist: "...: Map ref-mapids1 does not exist".
var missingRef = regexp.MustCompile(`: (Resource|Map|Map or Landing|Landing) (\S+) does not exist`)

// refKinds gives the kind to create for each name a 409 uses.
var refKinds = map[string]string{"Resource": "resource", "Map": "map", "Map or Landing": "map", "Landing": "landing"}

// prepareFull makes sure the records the full example refers to (Maps,
// Landings, Resources) exist: it posts one full record with id probe,
// creates each record the 409 lists as missing as {"id":...} of its kind,
// checks the record is then accepted, and deletes it again. It returns the
// number of records created.
func prepareFull(ctx context.Context, c *client, r *records, probe string) (int, error) {
	body := r.writer().append(nil, probe, 0)
	status, answer, err := c.do(ctx, "POST", "/resource", body)
	if err != nil {
		return 0, err
	}
	created := 0
	if status == http.StatusConflict {
		var fail struct{ Fail string }
		json.Unmarshal(answer, &fail)
		var made []string
		for _, m := range missingRef.FindAllStringSubmatch(fail.Fail, -1) {
			kind, id := refKinds[m[1]], m[2]
			if slices.Contains(made, kind+"/"+id) {
				continue
			}
			made = append(made, kind+"/"+id)
			st, ans, err := c.do(ctx, "POST", "/"+kind, []byte(`{"id":"`+id+`"}`))
			if err != nil {
				return created, err
			}
			if st != http.StatusCreated && st != http.StatusOK && st != http.StatusAccepted {
				return created, fmt.Errorf("creating %s %s the full record refers to: %s", kind, id, failure(st, ans))
			}
			created++
		}
		if created == 0 {
			return 0, fmt.Errorf("the full record is refused: %s", failure(status, answer))
		}
		if status, answer, err = c.do(ctx, "POST", "/resource", body); err != nil {
			return created, err
		}
	}
	if status != http.StatusCreated && status != http.StatusAccepted && status != http.StatusOK {
		return created, fmt.Errorf("the full record is refused: %s", failure(status, answer))
	}
	status, answer, err = c.do(ctx, "DELETE", "/resource/"+probe, nil)
	if err != nil {
		return created, err
	}
	if status != http.StatusAccepted {
		return created, fmt.Errorf("deleting the probe record %s: %s", probe, failure(status, answer))
	}
	return created, nil
}
