// Command schemagen writes the JSON Schemas of the four record kinds for a
// language list: DIR/<kind>.schema.json and DIR/<kind>.schema.multiple.json;
// with -openapi, the OpenAPI document of the API for the same languages.
//
//	go run ./schemagen -langs en,it,de -out docs/schemas -openapi docs/openapi.json
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/transport"
)

func main() {
	langList := flag.String("langs", "en", "comma-separated language codes; the first is the default")
	out := flag.String("out", ".", "directory to write the schemas to")
	openapi := flag.String("openapi", "", "file to write the OpenAPI document to (none when empty)")
	flag.Parse()
	if err := run(*langList, *out, *openapi); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

func run(langList, out, openapi string) error {
	langs, err := cms.ParseLanguages(langList)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, kind := range cms.Kinds() {
		single, err := cms.JSONSchema(kind, langs)
		if err != nil {
			return err
		}
		multiple, err := cms.JSONSchemaMultiple(kind, langs)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, string(kind)+".schema.json"), single, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, string(kind)+".schema.multiple.json"), multiple, 0o644); err != nil {
			return err
		}
	}
	if openapi == "" {
		return nil
	}
	doc, err := transport.OpenAPI(langs)
	if err != nil {
		return err
	}
	return os.WriteFile(openapi, doc, 0o644)
}
