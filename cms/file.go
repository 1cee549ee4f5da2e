package cms

import (
	"context"
	"io"
	"slices"
	"time"

	"github.com/bwcms/cms/cms/track"
)

// RefFile is the target of a reference that names an uploaded file, as
// Reference.ToKind holds it: a record's file field (image, multimedia,
// mapLayerFile, trackFile, the Maps' custom...File, items' images) or an
// <img src> in one of its HTML fields whose URL is one of the service's
// file urls. Store.Referrers with []string{RefFile} lists the records that
// use a file.
const RefFile = "file"

// File is an uploaded file as the service keeps it: its bytes live in the
// blob store (Options.Files), this metadata in the Store.
type File struct {
	// Account owns the file; ID is random (FileIDLength characters of
	// lowercase base32) and unique in the deployment.
	Account string
	ID      string
	// Name is the name it was uploaded with, as given (shown as text).
	Name string
	// Type is the media type judged from the content (the media package's
	// constants); never the name's or the declared one.
	Type string
	// Size is the byte length and SHA256 the hex digest of the bytes; an
	// account holds one file per digest.
	Size   int64
	SHA256 string
	// Width and Height are an image's dimensions in pixels (0 otherwise).
	Width, Height int
	// Track is what a GPX or KML track measured on upload (nil when the
	// file holds no track).
	Track *track.Summary
	// Created is when the upload committed.
	Created time.Time
}

// FileIDLength is the length of a file id: 130 random bits in lowercase
// base32 (a-z, 2-7).
const FileIDLength = 26

// FileQuery selects a page of an account's files, newest first (Created
// descending, then ID descending).
type FileQuery struct {
	// Account is the files' owner: always set.
	Account string
	// Type, when set, keeps files of that media type.
	Type string
	// After, when set, is the id of the last file of the page before: the
	// page starts after it. A file id the account does not hold starts
	// nowhere (an empty page).
	After string
	// Limit is the most files returned (above 0).
	Limit int
}

// FileStore keeps uploaded files' metadata. The bytes are the Service's
// business (the blob store); a store never sees them.
type FileStore interface {
	// CreateFile stores f. CodeConflict when its id exists, or when its
	// account already holds a file of the same SHA256 (two uploads of one
	// content racing: the caller reads the winner with FileBySHA256).
	CreateFile(ctx context.Context, f File) error
	// GetFiles returns the files of account among ids, in no set order;
	// ids it does not hold are left out. Inside WithTx the files found
	// stay as they are until the transaction ends: a LockFile of them
	// waits (a record naming a file and the file's deletion serialize).
	GetFiles(ctx context.Context, account string, ids []string) ([]File, error)
	// FileByID returns the file of id, whatever its account (public
	// urls carry only the id). CodeNotFound when there is none.
	FileByID(ctx context.Context, id string) (*File, error)
	// FileBySHA256 returns account's file of that digest. CodeNotFound
	// when there is none.
	FileBySHA256(ctx context.Context, account, sha256 string) (*File, error)
	// ListFiles returns a page of q.Account's files, newest first.
	ListFiles(ctx context.Context, q FileQuery) ([]File, error)
	// LockFile returns account's file id and, inside WithTx, holds it
	// alone until the transaction ends (GetFiles of other transactions
	// wait). CodeNotFound when there is none.
	LockFile(ctx context.Context, account, id string) (*File, error)
	// DeleteFile deletes account's file id. CodeNotFound when there is
	// none. References to it are not the store's business: the caller
	// checks them (Referrers with RefFile) under LockFile first.
	DeleteFile(ctx context.Context, account, id string) error
	// ExistingFileIDs returns which of ids are files of any account, so
	// the purge can tell bytes without a row.
	ExistingFileIDs(ctx context.Context, ids []string) ([]string, error)
	// UnusedFiles returns up to limit files created before the instant
	// that no record references (no reference with target RefFile) and
	// no kept revision of a record named (DECISIONS §16), oldest first.
	UnusedFiles(ctx context.Context, before time.Time, limit int) ([]File, error)
	// FileBytes returns how many bytes the files of account hold
	// together, and how many files there are ("" account: every account),
	// for metrics.
	FileBytes(ctx context.Context, account string) (count, bytes int64, err error)
}

// Upload is one file sent to UploadFile.
type Upload struct {
	// Name is the name the file came with (a multipart filename, ?name=);
	// it becomes File.Name and the slug of its url, never its type.
	Name string
	// Body is the content, read once to its end (or until it is over the
	// largest accepted size).
	Body io.Reader
}

// FilePage selects a page of the caller's files (FileQuery without the
// account).
type FilePage struct {
	// Type, when set, keeps files of that media type.
	Type string
	// After is the last id of the page before ("" for the first page).
	After string
	// Limit is the page size: 1 to MaxFilePage; 0 means DefaultFilePage.
	Limit int
}

// The page sizes of ListFiles.
const (
	DefaultFilePage = 100
	MaxFilePage     = 1000
)

// The widths a thumbnail may have (FileContent of OpenFile).
var thumbnailWidths = []int{160, 320, 640, 1280}

// ThumbnailWidths lists the widths OpenFile makes thumbnails in.
func ThumbnailWidths() []int { return slices.Clone(thumbnailWidths) }

// FileContent is a file's bytes to serve: the original, a thumbnail or a
// track's GeoJSON. The caller closes Body.
type FileContent struct {
	// File is the file served (its metadata).
	File File
	// Type is the media type of Body (a thumbnail of a WebP may be a PNG
	// or a JPEG; a track's GeoJSON is application/geo+json).
	Type string
	// Body reads the bytes and seeks in them (Range requests).
	Body io.ReadSeekCloser
	// Size is Body's length; ETag its strong validator (quoted).
	Size int64
	ETag string
}

// FileUse is one record field that names a file.
type FileUse = Reference
