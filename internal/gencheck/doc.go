// Package gencheck proves that the common generators make working clients
// of docs/openapi.json: its test generates a Go client with oapi-codegen
// and a TypeScript client with openapi-typescript and openapi-fetch (all
// versions pinned), compiles both, and runs a session through each
// against a test server. The generated code lives in temporary folders,
// never in this module. The test needs the Go module proxy, the npm
// registry and Node.js 20+, so it runs only with CMS_GENCHECK=1 (CI sets
// it); it has no code of its own.
package gencheck
