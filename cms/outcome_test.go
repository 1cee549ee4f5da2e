package cms_test

import (
	"fmt"
	"testing"

	"github.com/bwcms/cms/cms"
)

// TestOutcomeString: an Outcome prints as its name, in logs and %v.
func TestOutcomeString(t *testing.T) {
	t.Parallel()
	for o, want := range map[cms.Outcome]string{
		cms.Skipped: "skipped", cms.Created: "created", cms.Updated: "updated", cms.Deleted: "deleted",
		cms.Outcome(9): "Outcome(9)",
	} {
		if got := fmt.Sprint(o); got != want {
			t.Errorf("Outcome %d prints %q, want %q", uint8(o), got, want)
		}
	}
}
