package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwcms/cms/bwcmstest"
	"github.com/bwcms/cms/cms"
)

const testPassword = bwcmstest.Password

// startServer serves the API (bwcmstest: SQLite in memory, a batch
// worker) with an account in en, it, de and its user loader (perms *), as
// a host embedding the library does. It returns the base URL.
func startServer(t *testing.T) string {
	t.Helper()
	langs, _ := cms.ParseLanguages("en,it,de")
	api := bwcmstest.New(t, &bwcmstest.Options{Langs: langs})
	api.User(t, "loader", "*")
	return api.URL
}

// stored lists the id and title of every Resource of the account whose id
// starts with prefix, read back through the API.
func stored(t *testing.T, base, prefix string) map[string]string {
	t.Helper()
	res, err := http.PostForm(base+"/api/bw/v2/auth", url.Values{"u": {"loader"}, "p": {testPassword}})
	if err != nil {
		t.Fatal(err)
	}
	var login struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(res.Body).Decode(&login)
	res.Body.Close()
	req, _ := http.NewRequest("GET", base+"/api/bw/v2/resource/published/*/fields/id,title", nil)
	req.Header.Set("Authorization", "Bearer "+login.AccessToken)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var recs []struct{ ID, Title string }
	if err := json.Unmarshal(body, &recs); res.StatusCode != 200 || err != nil {
		t.Fatalf("list: %d %s", res.StatusCode, body)
	}
	titles := map[string]string{}
	for _, r := range recs {
		if strings.HasPrefix(r.ID, prefix+"-") {
			titles[r.ID] = r.Title
		}
	}
	return titles
}

// figure finds the number that pattern's group captures in out.
func figure(t *testing.T, out, pattern string) int {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q in the output:\n%s", pattern, out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestBatch: two batches of 50 full records end done and every record is
// stored with the example's title; -pid reports the server's memory (here
// the test process is the server).
func TestBatch(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	var out strings.Builder
	err := run(t.Context(), options{URL: base, User: "loader", Password: testPassword, Scenario: "batch",
		Batches: 2, Size: 50, Record: "full", Prefix: "tb", PID: os.Getpid()}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log(out.String())
	if figure(t, out.String(), `batch: 2 x 50 records \([0-9.]+ MB\), done (\d+), error 0, \d+ records/s`) != 2 {
		t.Errorf("not done 2:\n%s", out.String())
	}
	if !regexp.MustCompile(`server memory: RSS before [0-9.]+ MB, peak RSS \(VmHWM\) [0-9.]+ MB`).MatchString(out.String()) {
		t.Errorf("no memory line:\n%s", out.String())
	}
	got := stored(t, base, "tb")
	langs, _ := cms.ParseLanguages("en,it,de")
	want := cms.SampleRecord(cms.KindResource, langs).(*cms.Resource).Title["en"]
	if len(got) != 100 {
		t.Fatalf("%d records stored, want 100", len(got))
	}
	for _, id := range []string{"tb-b1-0", "tb-b1-49", "tb-b2-0", "tb-b2-49"} {
		if got[id] != want {
			t.Errorf("%s: title %q, want %q", id, got[id], want)
		}
	}
	if _, ok := got["tb-probe"]; ok {
		t.Error("the probe record is left behind")
	}
}

// TestUpsert: the reported requests are the records stored, all created,
// with their titles.
func TestUpsert(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	var out strings.Builder
	err := run(t.Context(), options{URL: base, User: "loader", Password: testPassword, Scenario: "upsert",
		Clients: 2, Duration: 300 * time.Millisecond, Prefix: "tu"}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log(out.String())
	n := figure(t, out.String(), `upsert: (\d+) requests in`)
	if created := figure(t, out.String(), `status 201 (\d+), 202 0, 200 0, other 0`); created != n || n == 0 {
		t.Errorf("%d requests, %d created", n, created)
	}
	got := stored(t, base, "tu")
	if len(got) != n {
		t.Errorf("%d records stored, %d requests reported", len(got), n)
	}
	if got["tu-1-0"] != smallTitle("tu-1-0", "en") {
		t.Errorf("tu-1-0: title %q", got["tu-1-0"])
	}
}

// TestRead: reads of the records it created all answer 200.
func TestRead(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	var out strings.Builder
	err := run(t.Context(), options{URL: base, User: "loader", Password: testPassword, Scenario: "read",
		Records: 20, Duration: 300 * time.Millisecond, Prefix: "tr", Langs: "en,it,de"}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log(out.String())
	if n := figure(t, out.String(), `read: (\d+) reads in`); n == 0 {
		t.Error("no reads")
	}
	if failed := figure(t, out.String(), `reads/s, (\d+) not 200`); failed != 0 {
		t.Errorf("%d reads failed", failed)
	}
	if got := stored(t, base, "tr"); len(got) != 20 {
		t.Errorf("%d records created, want 20", len(got))
	}
}

// TestWrongPassword fails on the login's 401 and writes nothing.
func TestWrongPassword(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	var out strings.Builder
	err := run(t.Context(), options{URL: base, User: "loader", Password: "not the password", Scenario: "batch",
		Size: 10, Prefix: "tw"}, &out)
	if err == nil || !strings.Contains(err.Error(), "login failed: 401") {
		t.Errorf("error %v, want the login's 401", err)
	}
	if got := stored(t, base, "tw"); len(got) != 0 {
		t.Errorf("%d records written", len(got))
	}
}

// TestUnreachable names the server that does not answer.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	err := run(t.Context(), options{URL: srv.URL, Password: "x"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "server unreachable at "+srv.URL) {
		t.Errorf("error %v", err)
	}
}

// TestLoginAgain: a request refused with 401 logs in again and succeeds.
func TestLoginAgain(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	c := newClient(base, "loader", testPassword, 1)
	c.token = "expired"
	status, body, err := c.do(t.Context(), "GET", "/resource", nil)
	if err != nil || status != 200 || c.currentToken() == "expired" {
		t.Errorf("after a 401: %d %s %v", status, body, err)
	}
}

// TestOptions reads the flags, the password from the environment.
func TestOptions(t *testing.T) {
	t.Parallel()
	env := func(string) string { return "from env" }
	o, err := parseOptions([]string{"-scenario", "batch", "-size", "500", "-pid", "7"}, env, io.Discard)
	if err != nil || o.Password != "from env" || o.Scenario != "batch" || o.Size != 500 || o.PID != 7 || o.Clients != 2 {
		t.Errorf("%+v, %v", o, err)
	}
	for _, args := range [][]string{{"-scenario", "delete"}, {"-record", "huge"}, {"-prefix", "bad prefix"}} {
		o, err := parseOptions(args, env, io.Discard)
		if err == nil {
			_, err = o.withDefaults()
		}
		if err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
}

// TestScale fills a small scale set, runs every operation with every
// answer as expected, leaves the set as it found it, and a second run with
// the same prefix finds the set instead of filling it again.
func TestScale(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	ops := []string{"read-one", "read-50", "map-page", "bbox-page", "updated-page", "map-read",
		"create-into-map", "update", "clone", "delete"}
	for round, want := range []string{`scale: filled 400 Resources on 20 Maps, 10 Landings and 10 Proposals`,
		`scale: 400 Resources with prefix ts- found, not filled again`} {
		var out strings.Builder
		err := run(t.Context(), options{URL: base, User: "loader", Password: testPassword, Scenario: "scale",
			Records: 400, Others: 10, Duration: 100 * time.Millisecond, Prefix: "ts"}, &out)
		if err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, out.String())
		}
		t.Log(out.String())
		if !strings.Contains(out.String(), want) {
			t.Errorf("round %d: no %q", round, want)
		}
		for _, op := range ops {
			if n := figure(t, out.String(), `scale: `+op+`: +(\d+) requests in .*, 0 failed\n`); n == 0 {
				t.Errorf("round %d: %s: no requests", round, op)
			}
		}
		got := stored(t, base, "ts")
		if len(got) != 400 {
			t.Errorf("round %d: %d Resources stored, want the set's 400", round, len(got))
		}
		if title := got["ts-r000399"]; !strings.HasPrefix(title, "Scale resource ts-r000399, revised ") {
			t.Errorf("round %d: last Resource titled %q, want it revised", round, title)
		}
	}
}
