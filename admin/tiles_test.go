package admin

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestTilesDefaultsAndChecks(t *testing.T) {
	def, err := Tiles{}.normal()
	if err != nil || def.URL != DefaultTileURL || def.Attribution != "© OpenStreetMap contributors" ||
		def.AttributionURL != "https://www.openstreetmap.org/copyright" || def.MaxZoom != 19 {
		t.Fatalf("defaults = %+v, %v", def, err)
	}
	if def.origin() != "https://tile.openstreetmap.org" {
		t.Errorf("origin of the default = %q", def.origin())
	}
	blank, err := Tiles{URL: BlankTiles}.normal()
	if err != nil || blank.origin() != "" || blank.Attribution != "" {
		t.Errorf("blank = %+v, %v (origin %q)", blank, err, blank.origin())
	}
	own, err := Tiles{URL: "https://{s}.tiles.example.org/{z}/{x}/{y}.png", Attribution: "Example", MaxZoom: 17}.normal()
	if err != nil || own.Attribution != "Example" || own.AttributionURL != "" || own.origin() != "https://*.tiles.example.org" {
		t.Errorf("own = %+v, %v (origin %q)", own, err, own.origin())
	}
	for _, bad := range []Tiles{
		{URL: "ftp://tiles.example.org/{z}/{x}/{y}.png"},
		{URL: "https://tiles.example.org/{z}/{x}.png"},
		{URL: "tiles/{z}/{x}/{y}.png"},
		{URL: DefaultTileURL, MaxZoom: 30},
		{URL: DefaultTileURL, AttributionURL: "javascript:alert(1)"},
	} {
		if _, err := bad.normal(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestTilesOnPages(t *testing.T) {
	e := newEnv(t, envOptions{tiles: Tiles{URL: "https://tiles.example.org/{z}/{x}/{y}.png", Attribution: "Example <maps>"}})
	res := e.get(e.signIn("admin"), "/")
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	body := string(raw)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("overview: %d", res.StatusCode)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self' data: blob: https://tiles.example.org") {
		t.Errorf("img-src without the tiles' origin: %s", csp)
	}
	for _, want := range []string{`data-tile-template="https://tiles.example.org/{z}/{x}/{y}.png"`, `data-tile-attribution="Example &lt;maps&gt;"`, `data-tile-max-zoom="19"`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if _, err := NewHandler(Options{Service: e.svc, API: e.api, Tiles: Tiles{URL: "https://x.example/{z}.png"}}); err == nil {
		t.Error("NewHandler took a tile address without {x} and {y}")
	}
}
