// Command standalone will serve the whole /api/bw/v2 API on an embedded
// SQLite file. The storage adapters and the HTTP layer are not built yet, so
// for now it says so and exits.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "standalone: not built yet: the server needs the storage adapters and the HTTP layer (see CHANGELOG.md).")
	fmt.Fprintln(os.Stderr, "The record types, validation and JSON Schemas are ready: go run ./schemagen -langs en,it,de -out DIR")
	os.Exit(1)
}
