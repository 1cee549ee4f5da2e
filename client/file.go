package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/cms/track"
)

// File is an uploaded file as the API describes it.
type File struct {
	// ID is the file's id (26 characters, a-z and 2-7).
	ID string
	// URL serves the bytes to anyone who has it, without a token: the
	// value to put in a record's file field. Images take ?w=160, 320, 640
	// or 1280 for a thumbnail of that width.
	URL string
	// Name is the name the file was first uploaded with.
	Name string
	// Type is the media type the server found in the content: image/jpeg,
	// image/png, image/webp, application/vnd.google-earth.kml+xml,
	// application/vnd.google-earth.kmz or application/gpx+xml.
	Type string
	// Size is the length in bytes; SHA256 the hex digest of the bytes.
	Size   int64
	SHA256 string
	// Created is when the upload was stored, to the second.
	Created time.Time
	// Width and Height are an image's dimensions in pixels (0 for other
	// files).
	Width, Height int
	// Track is what the server measured of a GPX or KML track; nil when
	// the file holds none.
	Track *Track
	// UsedBy are the record fields that name the file: set by File (an
	// empty slice when none does), nil from UploadFile and Files.
	UsedBy []FileUse
	// Existing is set by UploadFile when the account already held these
	// bytes: nothing was stored, and the File is the stored one (its
	// Name the first upload's).
	Existing bool
}

// Track is a track's measurement, as package track computes it on
// upload (distance and elevations in meters, the duration in minutes),
// and the URL of its simplified line as GeoJSON.
type Track struct {
	track.Summary
	// GeoJSON serves the simplified line and the figures as
	// application/geo+json, without a token.
	GeoJSON string `json:"geojson"`
}

// FileUse is one record field that names a file: a file field, or an
// <img> in an HTML field.
type FileUse struct {
	Kind  cms.Kind `json:"kind"`
	ID    string   `json:"id"`
	Field string   `json:"field"`
}

// FileListOptions choose the files Files yields. The zero value yields
// every file of the account.
type FileListOptions struct {
	// Type keeps the files of that media type (one of File.Type's).
	// Default: every type.
	Type string
	// Limit is the most files yielded in all. Default 0: no limit.
	Limit int
	// After starts after the file of that id, in the list's order.
	// Default "": from the newest.
	After string
}

// wireFile is a file object as the API writes it.
type wireFile struct {
	ID      string    `json:"id"`
	URL     string    `json:"url"`
	Name    string    `json:"name"`
	Type    string    `json:"type"`
	Size    int64     `json:"size"`
	SHA256  string    `json:"sha256"`
	Created string    `json:"created"`
	Width   int       `json:"width"`
	Height  int       `json:"height"`
	Track   *Track    `json:"track"`
	UsedBy  []FileUse `json:"usedBy"`
}

// timeLayout is how the API writes instants, in the service's zone.
const timeLayout = "2006-01-02 15:04:05"

// file converts w, reading its time in the service's zone.
func (c *Client) file(w wireFile) (*File, error) {
	created, err := time.ParseInLocation(timeLayout, w.Created, c.loc)
	if err != nil {
		return nil, fmt.Errorf("client: file %s: created %q: %w", w.ID, w.Created, err)
	}
	return &File{ID: w.ID, URL: w.URL, Name: w.Name, Type: w.Type, Size: w.Size, SHA256: w.SHA256, Created: created,
		Width: w.Width, Height: w.Height, Track: w.Track, UsedBy: w.UsedBy}, nil
}

// Files yields the account's files, newest first (GET file), asking for
// them a page at a time (PageSize of Options, following the answer's
// next) and holding one page in memory. A failed request yields its
// error and ends the sequence.
func (c *Client) Files(ctx context.Context, opts FileListOptions) iter.Seq2[File, error] {
	if err := opts.check(); err != nil {
		return failed[File](err)
	}
	return paged(opts.Limit, c.pageSize, opts.After, func(n int, after string) ([]File, string, error) {
		q := url.Values{"limit": {strconv.Itoa(n)}}
		if after != "" {
			q.Set("after", after)
		}
		if opts.Type != "" {
			q.Set("type", opts.Type)
		}
		var page struct {
			Files []wireFile `json:"files"`
			Next  *string    `json:"next"`
		}
		if err := c.call(ctx, &request{method: http.MethodGet, path: "file?" + q.Encode()}, http.StatusOK, &page); err != nil {
			return nil, "", err
		}
		files := make([]File, len(page.Files))
		for i, w := range page.Files {
			f, err := c.file(w)
			if err != nil {
				return nil, "", err
			}
			files[i] = *f
		}
		return files, deref(page.Next), nil
	})
}

// check refuses what the API would answer 400.
func (o FileListOptions) check() error {
	if o.Limit < 0 {
		return fmt.Errorf("client: FileListOptions.Limit is %d: must be 0 (no limit) or more", o.Limit)
	}
	if o.Type != "" && cms.FileExt(o.Type) == "" {
		return fmt.Errorf("client: FileListOptions.Type %q is not a type of file the API keeps", o.Type)
	}
	if o.After != "" && !cms.IsFileID(o.After) {
		return fmt.Errorf("client: FileListOptions.After %q is not a file id", o.After)
	}
	return nil
}

// File reads one file of the account and the record fields that name it
// (GET file/{id}). A file the account does not hold is an *Error 404
// (ErrNotFound).
func (c *Client) File(ctx context.Context, id string) (*File, error) {
	if err := checkFileID(id); err != nil {
		return nil, err
	}
	var w wireFile
	if err := c.call(ctx, &request{method: http.MethodGet, path: "file/" + id}, http.StatusOK, &w); err != nil {
		return nil, err
	}
	f, err := c.file(w)
	if err != nil {
		return nil, err
	}
	if f.UsedBy == nil {
		f.UsedBy = []FileUse{}
	}
	return f, nil
}

// DeleteFile deletes one file of the account, its bytes and thumbnails
// (DELETE file/{id}): its URL answers 404 afterwards. A file a record
// still names is an *Error 409 (ErrConflict) whose Fail names the
// record; one the account does not hold an *Error 404.
func (c *Client) DeleteFile(ctx context.Context, id string) error {
	if err := checkFileID(id); err != nil {
		return err
	}
	var body struct {
		Count int `json:"count"`
	}
	return c.call(ctx, &request{method: http.MethodDelete, path: "file/" + id}, http.StatusAccepted, &body)
}

// checkFileID refuses what cannot be a file id before it reaches a path.
func checkFileID(id string) error {
	if !cms.IsFileID(id) {
		return fmt.Errorf("client: %q is not a file id", id)
	}
	return nil
}

// errNoReader is the error of an upload without content.
var errNoReader = errors.New("client: UploadFile: no reader")

// decodeFile reads a file object answer (as UploadFile gets it).
func (c *Client) decodeFile(raw []byte) (*File, error) {
	var w wireFile
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("client: reading the answer: %w", err)
	}
	return c.file(w)
}
