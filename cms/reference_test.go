package cms

import (
	"fmt"
	"slices"
	"testing"
)

// TestDedupe: each id at its first place, short lists and long, and the
// argument left as it was.
func TestDedupe(t *testing.T) {
	for _, n := range []int{0, 1, 16, 17, 100} {
		var ids, want []string
		for i := range n {
			id := fmt.Sprint("r-", i%7, "-", i%5)
			if !slices.Contains(want, id) {
				want = append(want, id)
			}
			ids = append(ids, id)
		}
		given := slices.Clone(ids)
		if got := Dedupe(ids); !slices.Equal(got, want) {
			t.Errorf("Dedupe of %d ids: %v, want %v", n, got, want)
		}
		if !slices.Equal(ids, given) {
			t.Errorf("Dedupe of %d ids changed its argument", n)
		}
	}
}

// TestReferenceTargets: the targets a kind answers to are those whose
// kinds include it, and every target a field names is one of them.
func TestReferenceTargets(t *testing.T) {
	want := map[Kind][]string{KindResource: {"resource"}, KindMap: {"map", RefMapOrLanding},
		KindLanding: {RefMapOrLanding}, KindProposal: {}}
	for _, kind := range Kinds() {
		if got := ReferenceTargets(kind); !slices.Equal(got, want[kind]) {
			t.Errorf("ReferenceTargets(%s) = %v, want %v", kind, got, want[kind])
		}
	}
	for _, kind := range Kinds() {
		for _, f := range NewDocumentCodec().kinds[kind].spec.fields {
			if f.refKind != "" && !slices.Contains(refTargets, f.refKind) {
				t.Errorf("%s.%s names the target %q", kind, f.name, f.refKind)
			}
		}
	}
}
