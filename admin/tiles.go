package admin

import (
	"errors"
	"net/url"
	"strings"
)

// Tiles is the base layer of the admin's maps: raster tiles from a
// {z}/{x}/{y} address, with the attribution their provider requires.
type Tiles struct {
	// URL is the address of a tile with {z}, {x} and {y} (and optionally
	// {s} with Subdomains, {r} for retina). "" = DefaultTileURL;
	// BlankTiles draws no base layer (offline use, tests).
	URL string
	// Attribution is the text every map shows in its corner; "" with the
	// default URL = "© OpenStreetMap contributors".
	Attribution string
	// AttributionURL is where the attribution links; "" with the default
	// URL = https://www.openstreetmap.org/copyright.
	AttributionURL string
	// MaxZoom is the deepest zoom the provider serves; 0 = 19.
	MaxZoom int
}

// DefaultTileURL is OpenStreetMap's standard layer. Its tile usage policy
// asks for the attribution shown and a Referer sent with each tile: the
// maps send the admin's origin (strict-origin-when-cross-origin on the
// tile images) although pages otherwise send no referrer off-site. Heavy
// or commercial use should take its own or a paid tile provider.
const DefaultTileURL = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"

// BlankTiles as Tiles.URL draws maps without a base layer: nothing is
// fetched from outside the admin.
const BlankTiles = "blank"

// defaultMaxZoom is the tile layer's deepest zoom when Tiles.MaxZoom is 0.
const defaultMaxZoom = 19

// normal returns t with its defaults filled in, or an error naming what
// is wrong.
func (t Tiles) normal() (Tiles, error) {
	if t.URL == "" {
		t.URL = DefaultTileURL
		if t.Attribution == "" && t.AttributionURL == "" {
			t.Attribution = "© OpenStreetMap contributors"
			t.AttributionURL = "https://www.openstreetmap.org/copyright"
		}
	}
	if t.MaxZoom == 0 {
		t.MaxZoom = defaultMaxZoom
	}
	if t.MaxZoom < 1 || t.MaxZoom > 24 {
		return t, errors.New("admin: Tiles.MaxZoom must be within 1..24")
	}
	if t.URL == BlankTiles {
		return t, nil
	}
	// A {s} subdomain template is no host url.Parse takes.
	u, err := url.Parse(strings.ReplaceAll(t.URL, "{s}", "s"))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return t, errors.New("admin: Tiles.URL must be an http(s) address with {z}, {x} and {y}, or \"blank\"")
	}
	for _, p := range []string{"{z}", "{x}", "{y}"} {
		if !strings.Contains(t.URL, p) {
			return t, errors.New("admin: Tiles.URL must hold {z}, {x} and {y}")
		}
	}
	if t.AttributionURL != "" {
		a, err := url.Parse(t.AttributionURL)
		if err != nil || (a.Scheme != "https" && a.Scheme != "http") || a.Host == "" {
			return t, errors.New("admin: Tiles.AttributionURL must be an http(s) address")
		}
	}
	return t, nil
}

// origin is the origin the tiles come from, for the pages' img-src; ""
// for blank tiles. A {s} subdomain template allows every subdomain.
func (t Tiles) origin() string {
	if t.URL == BlankTiles {
		return ""
	}
	u, err := url.Parse(strings.ReplaceAll(t.URL, "{s}", "s"))
	if err != nil {
		return ""
	}
	host := u.Host
	if strings.Contains(t.URL, "{s}.") {
		host = "*" + host[strings.Index(host, "."):]
	}
	return u.Scheme + "://" + host
}
