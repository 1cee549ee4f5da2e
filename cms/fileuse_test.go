package cms_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// TestImageInEveryHTMLField: an <img> of one of the service's files in
// any HTML field, of any kind, in any language, in a list's item, makes
// the file used: its delete is refused and GET file/{id} names the record.
func TestImageInEveryHTMLField(t *testing.T) {
	forEachFileDatabase(t, nil, func(t *testing.T, e *files) {
		ctx := e.as(t, "root")
		cases := []struct {
			kind  cms.Kind
			field string // the field usedBy names
			body  string // %s is the <img>, as a JSON string's content
		}{
			{cms.KindResource, "htmlDescription", `{"id":"%[2]s","htmlDescription":"<p>%[1]s</p>"}`},
			{cms.KindResource, "htmlContent", `{"id":"%[2]s","htmlContent_it":"<p>%[1]s</p>"}`},
			{cms.KindMap, "tourMultiday.htmlContent", `{"id":"%[2]s","tourMultiday":[{"dayLabels":["D1"]},{"dayLabels":["D2"],"htmlContent_it":"%[1]s"}]}`},
			{cms.KindLanding, "proposalCalendar", `{"id":"%[2]s","proposalCalendar_it":"%[1]s"}`},
			{cms.KindLanding, "landingBlocks.htmlContent", `{"id":"%[2]s","landingBlocks":[{"title":"B","htmlContent":"%[1]s"}]}`},
			{cms.KindLanding, "landingHotels.htmlContent", `{"id":"%[2]s","landingHotels":[{"title":"H","htmlContent_it":"%[1]s"}]}`},
			{cms.KindProposal, "infoSummary", `{"id":"%[2]s","infoSummary":"%[1]s"}`},
			{cms.KindProposal, "pricing", `{"id":"%[2]s","pricing":"<p>From 90 EUR %[1]s</p>"}`},
			{cms.KindProposal, "relatedContents.htmlContent", `{"id":"%[2]s","relatedContents":[{"title":"R","htmlContent":"%[1]s"}]}`},
			{cms.KindProposal, "hotels.htmlContent", `{"id":"%[2]s","hotels":[{"title":"H","htmlContent_it":"%[1]s"}]}`},
		}
		for i, c := range cases {
			f := e.upload(t, ctx, "shown.png", pngImage(t, 4+i, 3))
			id := fmt.Sprintf("html-%d", i)
			img := `<img src=\"` + urlOf(f) + `\" alt=\"x\">`
			if _, err := e.svc.Upsert(ctx, c.kind, []byte(fmt.Sprintf(c.body, img, id)), nil); err != nil {
				t.Fatalf("%s %s: %v", c.kind, c.field, err)
			}
			_, uses, err := e.svc.GetFile(ctx, f.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(uses) != 1 || uses[0].FromKind != c.kind || uses[0].FromID != id || uses[0].Field != c.field {
				t.Errorf("%s %s: used by %+v, want %s %s %s", c.kind, c.field, uses, c.kind, id, c.field)
			}
			err = e.svc.DeleteFile(ctx, f.ID)
			if cms.ErrorCode(err) != cms.CodeConflict || !strings.Contains(err.Error(), "is used by "+c.kind.Title()+" "+id) {
				t.Errorf("%s %s: delete of a file an <img> shows: %v", c.kind, c.field, err)
			}
			if _, _, err := e.svc.GetFile(ctx, f.ID); err != nil {
				t.Errorf("%s %s: the file shown is gone: %v", c.kind, c.field, err)
			}
		}
	})
}
