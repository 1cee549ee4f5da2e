// Package cms is the content service of bwcms: the four record kinds
// (Resource, Map, Landing, Proposal) with their fields and validation,
// account languages and the wire codec, JSON Schemas from the struct
// tags, the typed errors, and [Service], which holds every business rule
// of the API (create or update with merge and Skip, references and
// assignments kept in agreement on both sides, aliases, reads, deletes,
// clones, batches, accounts, users and sessions) on top of a [Store].
//
// It imports no database and no HTTP package: adapters (SQLite,
// PostgreSQL) implement [Store], and the package transport serves a
// Service over HTTP. A host wires them:
//
//	store, err := sqlite.Open(ctx, "cms.db", nil)
//	svc, err := cms.NewService(store, &cms.Options{Logger: logger})
//	go svc.Run(ctx) // batch workers and the purge
//	api, err := transport.NewHandler(svc, &transport.Options{JWTSecret: secret})
//
// Every call that touches storage takes a [context.Context] first; the
// caller's identity travels in it ([WithPrincipal]). Errors are [*Error]
// values with a [Code] that transport maps to an HTTP status once.
package cms
