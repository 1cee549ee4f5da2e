package scale

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/bwcms/cms/cms"
)

// TestBoxHoldsHundred: every box holds exactly BoxCells² Resources of the
// set, at a small and a large size.
func TestBoxHoldsHundred(t *testing.T) {
	for _, n := range []int{1000, 100000} {
		s, err := New("", n, Others, "en")
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{0, 1, s.Boxes() / 2, s.Boxes() - 1, s.Boxes()} {
			var box [4]float64
			for j, v := range strings.Split(s.Box(k), ",") {
				if box[j], err = strconv.ParseFloat(v, 64); err != nil {
					t.Fatal(err)
				}
			}
			inside := 0
			for i := range n {
				lat, lon := s.location(i)
				if lon >= box[0] && lat >= box[1] && lon <= box[2] && lat <= box[3] {
					inside++
				}
			}
			if inside != BoxCells*BoxCells {
				t.Errorf("%d Resources, box %d (%s): holds %d", n, k, s.Box(k), inside)
			}
		}
	}
}

// TestBodiesAreValid: every body of the set decodes and validates, and
// the Resources are assigned as described.
func TestBodiesAreValid(t *testing.T) {
	s, err := New("t-", 1000, 10, "en")
	if err != nil {
		t.Fatal(err)
	}
	langs, _ := cms.NewLanguages("en", "en", "it")
	codec, _ := cms.NewCodec(langs)
	for _, c := range []struct {
		kind cms.Kind
		body []byte
		n    int
	}{
		{cms.KindMap, s.AppendMaps(nil), Maps},
		{cms.KindResource, s.AppendResources(nil, 10, 3), 3},
		{cms.KindResource, s.AppendTouch(nil, "x"), Touched},
		{cms.KindLanding, s.AppendLandings(nil, 0, 2), 2},
		{cms.KindProposal, s.AppendProposals(nil, 0, 2), 2},
	} {
		var recs []json.RawMessage
		if err := json.Unmarshal(c.body, &recs); err != nil || len(recs) != c.n {
			t.Fatalf("%s: %d records, %v", c.kind, len(recs), err)
		}
		for _, raw := range recs {
			rec := cms.NewRecord(c.kind)
			if err := codec.Decode(raw, rec); err != nil {
				t.Errorf("%s: %v", c.kind, err)
			}
		}
	}
	var r cms.Resource
	if err := codec.Decode(s.AppendResource(nil, 27), &r); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(r.ID, r.MapIDs.Value, r.MapSecondaryIDs.Value, r.POIResourceIDs.Value, r.URLAlias["en"])
	if want := "t-r000027[t-m07] [t-m14] [t-r000026]/t-r000027"; got != want {
		t.Errorf("Resource 27: %s, want %s", got, want)
	}
	if len(s.AppendResource(nil, 27)) < 2000 {
		t.Errorf("a Resource of %d bytes, want the typical shape", len(s.AppendResource(nil, 27)))
	}
}
