package admin

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/bwcms/cms/cms"
)

// TestEveryAddressStaysInsideThePrefix signs in at each mount point and
// follows every link, asset and form of every page it reaches: each must
// stay inside the prefix and answer.
func TestEveryAddressStaysInsideThePrefix(t *testing.T) {
	for _, prefix := range []string{"", "/admin", "/x/y/admin"} {
		t.Run("prefix="+prefix, func(t *testing.T) {
			e := newEnv(t, envOptions{prefix: prefix})
			crawlFiles := seedCrawl(t, e)
			c := e.signIn("admin")
			seen := map[string]bool{}
			files := map[string]bool{}
			fileURLs := e.srv.URL + "/api/bw/v2/file/"
			queue := []string{prefix + "/", prefix + "/login"}
			for len(queue) > 0 && len(seen) < 400 {
				path := queue[0]
				queue = queue[1:]
				if seen[path] {
					continue
				}
				seen[path] = true
				res := e.do(c, mustGet(t, e.srv.URL+path))
				if res.StatusCode != http.StatusOK {
					t.Errorf("GET %s: status %d", path, res.StatusCode)
					continue
				}
				if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
					continue
				}
				doc, err := goquery.NewDocumentFromReader(res.Body)
				if err != nil {
					t.Fatal(err)
				}
				for _, ref := range references(doc) {
					if ref.what == "img[src]" && strings.HasPrefix(ref.value, fileURLs) {
						// The service's files (their thumbnails), which
						// the API serves.
						files[ref.value] = true
						continue
					}
					u, err := url.Parse(ref.value)
					if err != nil || u.Host != "" || u.Scheme != "" {
						t.Errorf("%s: %s %q leaves the admin", path, ref.what, ref.value)
						continue
					}
					abs := u.Path
					if abs == "" {
						abs = path
					}
					if !strings.HasPrefix(abs, prefix+"/") {
						t.Errorf("%s: %s %q is outside %s/", path, ref.what, ref.value, prefix)
						continue
					}
					if ref.follow && !strings.HasSuffix(abs, "/logout") {
						queue = append(queue, abs+query(&http.Request{URL: u}))
					}
				}
			}
			if len(seen) < 3 {
				t.Errorf("crawled only %v", seen)
			}
			for _, want := range []string{prefix + "/file/", prefix + "/file/" + crawlFiles[0], prefix + "/file/" + crawlFiles[1]} {
				if !seen[want] {
					t.Errorf("the crawl did not reach %s", want)
				}
			}
			if len(files) < 2 {
				t.Errorf("images of files shown: %v, want the thumbnail and the preview", files)
			}
		})
	}
}

// seedCrawl stores records of each kind that name one another, so that
// lists, forms, id lists and nested items link somewhere, and an image
// and a track that a Resource uses; it returns the files' ids.
func seedCrawl(t *testing.T, e *env) []string {
	t.Helper()
	img := e.uploadFile("crawl.png", pngOf(t, 320, 200))
	track := e.uploadFile("crawl.gpx", gpxNorth(30))
	defer e.put(cms.KindResource, `{"id":"crawl-files","title":"Files","resourceType":"TRACK","image":"`+e.fileURL(img)+`","trackFile":"`+e.fileURL(track)+`"}`)
	e.storeRecords(cms.KindMap, `{"id":"crawl-map","title":"Crawl map"}`)
	e.storeRecords(cms.KindResource, `{"id":"crawl-res","title":"Crawl","resourceType":"POI","resourceCategories":["cat"],"mapIds":["crawl-map"]}`)
	e.storeRecords(cms.KindLanding, `{"id":"crawl-landing","mapId":"crawl-map"}`)
	e.storeRecords(cms.KindProposal, `{"id":"crawl-proposal"}`)
	e.put(cms.KindResource, `{"id":"r-0","title":"Crawled"}`, `{"id":"r-1","title":"Links","poiResourceIds":["r-0"]}`)
	e.put(cms.KindMap, `{"id":"m-1","title":"Map","resourceIds":["r-1"],"trackResourceId":"r-0"}`)
	e.put(cms.KindLanding, `{"id":"l-1","title":"Landing","mapId":"m-1","landingBlocks":[{"title":"B","resourceIds":["m-1"]}]}`)
	e.put(cms.KindProposal, `{"id":"p-1","title":"Proposal","mapId":"m-1","hotels":[{"title":"H","resourceIds":["r-1"]}]}`)
	return []string{img.ID, track.ID}
}

type reference struct {
	what, value string
	follow      bool // a GET the crawler should answer
}

func references(doc *goquery.Document) []reference {
	var refs []reference
	add := func(sel, attr string, follow func(*goquery.Selection) bool) {
		doc.Find(sel).Each(func(_ int, s *goquery.Selection) {
			if v, ok := s.Attr(attr); ok && !strings.HasPrefix(v, "#") {
				refs = append(refs, reference{sel + "[" + attr + "]", v, follow(s)})
			}
		})
	}
	always := func(*goquery.Selection) bool { return true }
	add("a", "href", always)
	add("link", "href", always)
	add("script", "src", always)
	add("img", "src", always)
	add("form", "action", func(s *goquery.Selection) bool {
		m, _ := s.Attr("method")
		return m == "" || strings.EqualFold(m, "get")
	})
	add("[formaction]", "formaction", func(*goquery.Selection) bool { return false })
	return refs
}

func mustGet(t *testing.T, u string) *http.Request {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
