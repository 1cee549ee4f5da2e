// Command schemagen writes the JSON Schemas of the four record kinds for a
// language list: DIR/<kind>.schema.json and DIR/<kind>.schema.multiple.json.
//
//	go run ./schemagen -langs en,it,de -out docs/schemas
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bwcms/cms/cms"
)

func main() {
	langList := flag.String("langs", "en", "comma-separated language codes; the first is the default")
	out := flag.String("out", ".", "directory to write the schemas to")
	flag.Parse()
	if err := run(*langList, *out); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

func run(langList, out string) error {
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
	return nil
}
