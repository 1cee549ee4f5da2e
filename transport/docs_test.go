package transport

import (
	"os"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// TestDocsDefaults: docs/api.md states the defaults the constants hold,
// as the OpenAPI document does (a changed default fails here until the
// text follows).
func TestDocsDefaults(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	// Line breaks in the document are spaces here.
	doc := strings.Join(strings.Fields(string(b)), " ")
	for _, want := range []string{
		"default " + bytesText(DefaultMaxBody) + " for create/update and " + bytesText(DefaultMaxBatchBody) + " for a batch",
		"each " + bytesText(DefaultBodyReadChunk) + " of it, or its end, within " + durationText(DefaultBodyReadTimeout),
		"gets " + durationText(DefaultWriteTimeout) + " (by default: `WriteTimeout`)",
		"at most " + bytesText(DefaultMaxBody) + " by default (`transport.Options.MaxBody`)",
		"at most " + countText(cms.DefaultMaxBatchRecords) + " records (`cms.Options.MaxBatchRecords`) and " +
			bytesText(DefaultMaxBatchBody) + " (`transport.Options.MaxBatchBody`) by default",
		"(up to `cms.Options.BatchHandoff`, " + bytesText(cms.DefaultBatchHandoff) + " by default)",
		"kept " + durationText(cms.DefaultBatchRetention) + " by default (`cms.Options.BatchRetention`)",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/api.md does not say %q", want)
		}
	}
}
