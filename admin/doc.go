// Package admin is the editors' web UI: server-rendered pages over a
// cms.Service, mounted by a host under any prefix as a plain http.Handler.
//
// It signs users in with the API handler's own tokens (it shares the
// transport.Handler's signer) in cookies of its own, never the API's
// refresh cookie, and works only through the service: the same rules,
// permissions and texts as the API. Its pages, styles, scripts and the
// few third-party browser libraries it uses are embedded: a host needs no
// Node.js, build step or network.
//
//	api, _ := transport.NewHandler(svc, &transport.Options{JWTSecret: secret})
//	ui, _ := admin.NewHandler(admin.Options{Service: svc, API: api, Prefix: "/admin"})
//	mux.Handle("/admin/", ui)
package admin
