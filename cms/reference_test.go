package cms

import (
	"fmt"
	"slices"
	"testing"
)

// TestDedupe: each id at its first place, below and above the size where
// Dedupe switches to a set, and the argument left as it was.
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
