// Package transport serves the /api/bw/v2 REST API of a [cms.Service] as
// one plain [http.Handler]: records (create or update, read with every
// option, delete, clone, schemas, batches), uploaded files (uploads, the
// media library, the bytes at public urls without a token, with
// thumbnails and tracks' GeoJSON), authentication (login, token
// validation, refresh with rotation, logout) with JWT access tokens, and
// the one table that turns the errors of cms into HTTP statuses and
// bodies. It knows no database.
//
// A host mounts the handler on any router, at [Handler.Path]:
//
//	api, err := transport.NewHandler(svc, &transport.Options{JWTSecret: secret, BasePath: "/cms"})
//	mux.Handle(api.Path(), api) // every path under /cms/api/bw/v2/
//
// [Options] set the base path, the refresh cookie (SameSite, Domain), the
// browser origins allowed (CORS and the cross-site protection of login),
// trusted proxies, body limits and deadlines, an [Observer] for metrics
// and an access log. [Liveness] and [Readiness] are probes a host mounts
// where its orchestrator looks. The package example runs a whole host
// program: the API under a prefix beside the host's own route, the batch
// workers, a login, a record, a batch.
package transport
