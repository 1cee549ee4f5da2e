package bunstore

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestPlainPairs: the quick reading of assignment pairs reads what
// json.Unmarshal reads, and gives up on what it does not take.
func TestPlainPairs(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		`[["map-1","PRIMARY"]]`,
		`[["map-1", "PRIMARY"], ["map-2", "SECONDARY"]]`,
		` [ [ "a" , "b" ] ,["c","d"] ] `,
		`[["",""]]`,
	} {
		got, ok := plainPairs(text)
		var want [][2]string
		if err := json.Unmarshal([]byte(text), &want); err != nil {
			t.Fatal(err)
		}
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: plainPairs reads %q (%v), json.Unmarshal %q", text, got, ok, want)
		}
	}
	for _, text := range []string{
		`[]`, `[ ]`, `[["a\"b","PRIMARY"]]`, `[["é","PRIMARY"]]`, `[["a","b","c"]]`, `[["a"]]`,
		`[["a","b"]`, `[["a","b"]]x`, `[["a",1]]`, `{}`, ``,
	} {
		if got, ok := plainPairs(text); ok {
			t.Errorf("%s: plainPairs reads %q, want it to give up", text, got)
		}
	}
}
