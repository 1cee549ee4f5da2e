// Package client is a Go client of the API /api/bw/v2 that package
// transport serves: login, validate, refresh and logout; create and
// update; reads of one record, several, and lists with every path option,
// a list also as an iterator that pages; delete, clone, schemas; batches,
// with a helper that submits one and waits for it; files: uploads
// streamed from any io.Reader, the media library, a file's uses, delete;
// a record's history and revisions, the changes feed (followed page after
// page, or kept following at the present), webhooks and their delivery
// log, the audit list.
//
// Records are the types of package cms (*cms.Resource, *cms.Map,
// *cms.Landing, *cms.Proposal), sent and read in the wire form of the
// account's languages: the access token names them (claims lang and
// langs), and the client builds the cms.Codec of them at each login and
// refresh. A write sends only the fields that are set
// (cms.Codec.AppendPatch), so a field left unset keeps its stored value.
//
// Tokens are kept in memory. Every call that needs an access token, when
// answered 401 or 403, refreshes once and sends the request again;
// concurrent calls share one refresh, so a refresh token is never spent
// twice (which, outside the server's grace period, would revoke the whole
// login). The refresh token is sent as the form field refresh_token, as
// clients outside browsers do; no cookie jar is needed. A refresh the
// server refuses ends the session: the call's error matches
// ErrLoginRequired, and so does every call after it until the next Login.
//
// A Client is safe for concurrent use. Every method takes a context.
// Errors the API answers are *Error values, with the status, the fail
// text, the problems of a 409 and the ids a delete left.
package client
