package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
	"github.com/go-json-experiment/json/jsontext"
)

// Upsert creates or updates rec (POST <kind>), sending the fields that are
// set (a field left unset keeps its stored value; cms.Nil sets null), and
// tells what the server did: cms.Created, cms.Updated, cms.Skipped (the
// record was already so), or cms.Deleted for a record that asks
// deleteElementIrreversibly. A refused record is an *Error 409 with every
// problem in Problems.
func (c *Client) Upsert(ctx context.Context, rec cms.Record, opts ...WriteOption) (cms.Outcome, error) {
	var o writeOptions
	for _, opt := range opts {
		opt(&o)
	}
	if err := checkRecord(rec); err != nil {
		return cms.Skipped, err
	}
	codec, err := c.codec()
	if err != nil {
		return cms.Skipped, err
	}
	if err := checkLangs(rec, codec.Languages()); err != nil {
		return cms.Skipped, err
	}
	req := &request{method: http.MethodPost, path: string(rec.Kind()), body: codec.AppendPatch(nil, rec), contentType: contentJSON}
	if o.ifMatch != "" {
		req.header = http.Header{"If-Match": {o.ifMatch}}
	}
	res, err := c.do(ctx, req)
	if err != nil {
		return cms.Skipped, err
	}
	var body struct {
		Done string `json:"done"`
	}
	switch res.StatusCode {
	case http.StatusOK:
		drain(res)
		return cms.Skipped, nil
	case http.StatusCreated:
		drain(res)
		return cms.Created, nil
	case http.StatusAccepted:
		if err := readJSON(res, http.StatusAccepted, &body); err != nil {
			return cms.Skipped, err
		}
		if strings.HasPrefix(body.Done, "Delete ") {
			return cms.Deleted, nil
		}
		return cms.Updated, nil
	}
	return cms.Skipped, failure(res)
}

// Get reads one record of kind by id (GET <kind>/{id}) and its ETag. A
// missing record (or one the published filter hides: by default only
// published ones are read) is an *Error 404 (ErrNotFound). With
// IfNoneMatch and a record that still has that ETag, the record is nil
// and the error ErrNotModified.
func (c *Client) Get(ctx context.Context, kind cms.Kind, id string, opts ...ReadOption) (cms.Record, string, error) {
	o := readOpts(opts)
	if err := checkKind(kind); err != nil {
		return nil, "", err
	}
	if o.pageSize != 0 {
		return nil, "", errPageSize
	}
	if o.searched {
		return nil, "", errSearchGet
	}
	req := &request{method: http.MethodGet, path: o.path(c, kind, []string{id}, o.limit, o.after)}
	if o.ifNoneMatch != "" {
		req.header = http.Header{"If-None-Match": {o.ifNoneMatch}}
	}
	res, err := c.do(ctx, req)
	if err != nil {
		return nil, "", err
	}
	etag := res.Header.Get("ETag")
	switch res.StatusCode {
	case http.StatusOK:
	case http.StatusNotModified:
		drain(res)
		return nil, etag, ErrNotModified
	default:
		return nil, "", failure(res)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, "", fmt.Errorf("client: reading %s %s: %w", kind, id, err)
	}
	codec, err := c.codec()
	if err != nil {
		return nil, "", err
	}
	rec := cms.NewRecord(kind)
	if err := codec.Decode(raw, rec); err != nil {
		return nil, "", fmt.Errorf("client: decoding %s %s: %w", kind, id, err)
	}
	return rec, etag, nil
}

// GetMany reads the records of kind with these ids (GET <kind>/{ids}), in
// the order asked, leaving out the ones that are missing or hidden; none
// found is an empty slice. More than 1000 ids take several requests.
func (c *Client) GetMany(ctx context.Context, kind cms.Kind, ids []string, opts ...ReadOption) ([]cms.Record, error) {
	o := readOpts(opts)
	if err := o.forLists(kind); err != nil {
		return nil, err
	}
	recs := make([]cms.Record, 0, len(ids))
	for chunk := range slices.Chunk(ids, MaxPageSize) {
		if len(chunk) == 1 && !o.searched {
			// One id answers an object, not an array (in the path form).
			rec, _, err := c.Get(ctx, kind, chunk[0], opts...)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			recs = append(recs, rec)
			continue
		}
		page, err := c.getList(ctx, kind, o.path(c, kind, chunk, o.limit, o.after))
		if errors.Is(err, ErrNotFound) { // none of them exists
			continue
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, page...)
	}
	return recs, nil
}

// ListPage reads one list of kind (GET <kind>/options...) with the options
// as given: Limit and After are the request's /limit and /after. Without
// Limit the answer holds every record that matches; List pages instead.
func (c *Client) ListPage(ctx context.Context, kind cms.Kind, opts ...ReadOption) ([]cms.Record, error) {
	o := readOpts(opts)
	if err := o.forLists(kind); err != nil {
		return nil, err
	}
	return c.getList(ctx, kind, o.path(c, kind, nil, o.limit, o.after))
}

// List yields the records of kind that match the options, in ascending
// id order, asking for them a page at a time (/limit/{PageSize}/after/{the
// last id}) and holding one page in memory. Limit caps how many it yields
// in all; After starts after that id. A failed request yields its error
// and ends the sequence; an access token that expires between two pages
// is refreshed like in any call.
func (c *Client) List(ctx context.Context, kind cms.Kind, opts ...ReadOption) iter.Seq2[cms.Record, error] {
	return func(yield func(cms.Record, error) bool) {
		o := readOpts(opts)
		if err := o.forLists(kind); err != nil {
			yield(nil, err)
			return
		}
		size := c.pageSize
		if o.pageSize != 0 {
			size = o.pageSize
		}
		if size < 1 || size > MaxPageSize {
			yield(nil, fmt.Errorf("client: PageSize %d: want 1 to %d", size, MaxPageSize))
			return
		}
		after, left := o.after, o.limit
		for {
			n := size
			if o.limit > 0 {
				n = min(n, left)
			}
			page, err := c.getList(ctx, kind, o.path(c, kind, nil, n, after))
			if err != nil {
				yield(nil, err)
				return
			}
			for _, rec := range page {
				if !yield(rec, nil) {
					return
				}
			}
			left -= len(page)
			if len(page) < n || (o.limit > 0 && left <= 0) {
				return
			}
			after = page[len(page)-1].RecordID()
		}
	}
}

// forLists checks the options of a read that answers a list.
func (o *readOptions) forLists(kind cms.Kind) error {
	if err := checkKind(kind); err != nil {
		return err
	}
	if o.ifNoneMatch != "" {
		return errIfNoneMatch
	}
	return nil
}

// getList sends a read that answers an array and decodes it.
func (c *Client) getList(ctx context.Context, kind cms.Kind, path string) ([]cms.Record, error) {
	res, err := c.open(ctx, &request{method: http.MethodGet, path: path}, http.StatusOK)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	codec, err := c.codec()
	if err != nil {
		return nil, err
	}
	recs, err := decodeRecords(codec, kind, jsontext.NewDecoder(res.Body))
	if err != nil {
		return nil, fmt.Errorf("client: reading a list of %s: %w", kind, err)
	}
	return recs, nil
}

// decodeRecords reads one JSON array of records of kind from dec.
func decodeRecords(codec *cms.Codec, kind cms.Kind, dec *jsontext.Decoder) ([]cms.Record, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	if tok.Kind() != '[' {
		return nil, fmt.Errorf("want an array, got %v", tok.Kind())
	}
	var recs []cms.Record
	for {
		switch dec.PeekKind() {
		case ']':
			_, err := dec.ReadToken()
			return recs, err
		case 0:
			_, err := dec.ReadToken()
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		rec := cms.NewRecord(kind)
		if err := codec.DecodeFrom(dec, rec); err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
}

// DeleteResult is what a delete did.
type DeleteResult struct {
	// Deleted counts the records deleted.
	Deleted int
	// Failed are the ids that exist but were not deleted: another record
	// names them in a single reference (Landing.mapId, Proposal.mapId,
	// Map.trackResourceId).
	Failed []string
}

// Delete deletes the records of kind with these ids (DELETE
// <kind>/{ids}), at most 1000, in one transaction. Some deleted: the
// result, with the ids not deleted in Failed. None exists: an *Error 404.
// Some exist but none was deleted: an *Error 409 with the ids in Failed.
func (c *Client) Delete(ctx context.Context, kind cms.Kind, ids ...string) (DeleteResult, error) {
	if err := checkKind(kind); err != nil {
		return DeleteResult{}, err
	}
	if len(ids) == 0 || len(ids) > MaxPageSize {
		return DeleteResult{}, fmt.Errorf("client: Delete takes 1 to %d ids, not %d", MaxPageSize, len(ids))
	}
	var b strings.Builder
	b.WriteString(string(kind) + "/")
	writeList(&b, ids)
	var body struct {
		Count  int      `json:"count"`
		Failed []string `json:"failed"`
	}
	if err := c.call(ctx, &request{method: http.MethodDelete, path: b.String()}, http.StatusAccepted, &body); err != nil {
		return DeleteResult{}, err
	}
	return DeleteResult{Deleted: body.Count, Failed: body.Failed}, nil
}

// Clone copies the record of kind with id ("": the record Base) to a new,
// unpublished record (POST <kind>/clone/{id}[/map/{mapID}]) and returns
// its id (id-copy, id-copy-2, ...). mapID, for Resources only, assigns
// the clone to that Map as primary.
func (c *Client) Clone(ctx context.Context, kind cms.Kind, id, mapID string) (string, error) {
	if err := checkKind(kind); err != nil {
		return "", err
	}
	path := string(kind) + "/" + cms.KeywordClone
	if id != "" {
		path += "/" + url.PathEscape(id)
	}
	if mapID != "" {
		path += "/" + cms.KeywordMap + "/" + url.PathEscape(mapID)
	}
	var body struct {
		ID string `json:"id"`
	}
	if err := c.call(ctx, &request{method: http.MethodPost, path: path}, http.StatusCreated, &body); err != nil {
		return "", err
	}
	return body.ID, nil
}

// Schema returns the JSON Schema of one record of kind for the account's
// languages as they are now (GET <kind>/schema.json); multiple: of an
// array of them, a batch's body (schema.multiple.json).
func (c *Client) Schema(ctx context.Context, kind cms.Kind, multiple bool) (json.RawMessage, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	path := string(kind) + "/" + cms.KeywordSchema
	if multiple {
		path = string(kind) + "/" + cms.KeywordSchemaMultiple
	}
	res, err := c.open(ctx, &request{method: http.MethodGet, path: path}, http.StatusOK)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	doc, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("client: reading the schema of %s: %w", kind, err)
	}
	return doc, nil
}

// SchemaFull returns the JSON Schema of one record of kind with every
// record of the kind, published or not (GET <kind>/schema.json/full). The
// records are read in the languages of the session's token; log in again
// after a language is added to the account.
func (c *Client) SchemaFull(ctx context.Context, kind cms.Kind) (json.RawMessage, []cms.Record, error) {
	if err := checkKind(kind); err != nil {
		return nil, nil, err
	}
	var body struct {
		Schema json.RawMessage `json:"schema"`
		Data   json.RawMessage `json:"data"`
	}
	if err := c.call(ctx, &request{method: http.MethodGet, path: string(kind) + "/" + cms.KeywordSchema + "/" + cms.KeywordFull},
		http.StatusOK, &body); err != nil {
		return nil, nil, err
	}
	codec, err := c.codec()
	if err != nil {
		return nil, nil, err
	}
	recs, err := decodeRecords(codec, kind, jsontext.NewDecoder(strings.NewReader(string(body.Data))))
	if err != nil {
		return nil, nil, fmt.Errorf("client: reading the records of %s: %w", kind, err)
	}
	return body.Schema, recs, nil
}

// Get is (*Client).Get typed by the record: client.Get[*cms.Resource](ctx,
// c, id) reads a Resource.
func Get[R cms.Record](ctx context.Context, c *Client, id string, opts ...ReadOption) (R, string, error) {
	var zero R
	rec, etag, err := c.Get(ctx, zero.Kind(), id, opts...)
	if err != nil {
		return zero, etag, err
	}
	return rec.(R), etag, nil
}

// List is (*Client).List typed by the record: client.List[*cms.Map](ctx,
// c) yields Maps.
func List[R cms.Record](ctx context.Context, c *Client, opts ...ReadOption) iter.Seq2[R, error] {
	return func(yield func(R, error) bool) {
		var zero R
		for rec, err := range c.List(ctx, zero.Kind(), opts...) {
			if err != nil {
				yield(zero, err)
				return
			}
			if !yield(rec.(R), nil) {
				return
			}
		}
	}
}

func checkKind(kind cms.Kind) error {
	if _, err := cms.ParseKind(string(kind)); err != nil {
		return fmt.Errorf("client: %w", err)
	}
	return nil
}

func checkRecord(rec cms.Record) error {
	if rec == nil {
		return errors.New("client: no record")
	}
	return checkKind(rec.Kind())
}

// drain reads what is left of an answer and closes it, so its connection
// is used again.
func drain(res *http.Response) {
	io.Copy(io.Discard, io.LimitReader(res.Body, maxErrorBody))
	res.Body.Close()
}

// checkLangs refuses a record with a language variant outside langs
// (nested items included): the codec would leave it out of the body
// without a word, and the server would never see it.
func checkLangs(rec cms.Record, langs cms.Languages) error {
	var bad []string
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Struct:
			t := v.Type()
			for i := range t.NumField() {
				if f := t.Field(i); f.IsExported() {
					name := path
					if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag != "" && tag != "-" {
						name = joinPath(path, tag)
					}
					walk(v.Field(i), name)
				}
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i), path+"["+strconv.Itoa(i)+"]")
			}
		case reflect.Map:
			if v.Type().Key().Kind() != reflect.String {
				return
			}
			for _, k := range v.MapKeys() {
				if code := k.String(); !slices.Contains(langs.All, code) {
					bad = append(bad, path+" in "+strconv.Quote(code))
				}
			}
		}
	}
	walk(reflect.ValueOf(rec), "")
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	return fmt.Errorf("client: %s %s: %s: not a language of the session (%s)", rec.Kind().Title(), rec.RecordID(),
		strings.Join(bad, ", "), langs.String())
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
