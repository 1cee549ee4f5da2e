package admin

import (
	"fmt"
	"math"

	"github.com/bwcms/cms/cms/track"
)

// trackFigures are what a track measured, as pages and scripts show them.
type trackFigures struct {
	Distance string `json:"distance"` // "12.4 km"; "850 m" under a kilometre
	Ascent   string `json:"ascent"`   // "640 m"; "—" without elevations
	Descent  string `json:"descent"`
	Duration string `json:"duration,omitempty"` // "3 h 05 min"; "" without times
	Circular bool   `json:"circular"`
	Start    string `json:"start"` // "45.07000, 7.68000" (latitude, longitude)
	End      string `json:"end"`
}

// figuresOf formats a track's measurement (nil for none).
func figuresOf(s *track.Summary) *trackFigures {
	if s == nil {
		return nil
	}
	f := &trackFigures{Distance: distanceText(s.Distance), Ascent: "—", Descent: "—", Circular: s.Circular,
		Start: positionText(s.Start), End: positionText(s.End)}
	if s.HasElevation {
		f.Ascent = fmt.Sprintf("%.0f m", math.Round(s.Ascent))
		f.Descent = fmt.Sprintf("%.0f m", math.Round(s.Descent))
	}
	if s.Duration != nil {
		f.Duration = durationText(*s.Duration)
	}
	return f
}

func distanceText(m float64) string {
	if m < 1000 {
		return fmt.Sprintf("%.0f m", math.Round(m))
	}
	return fmt.Sprintf("%.1f km", m/1000)
}

// durationText writes minutes as "45 min" or "3 h 05 min".
func durationText(minutes float64) string {
	n := int64(math.Round(minutes))
	if n < 60 {
		return fmt.Sprintf("%d min", n)
	}
	return fmt.Sprintf("%d h %02d min", n/60, n%60)
}

func positionText(p track.Position) string {
	return fmt.Sprintf("%.5f, %.5f", p.Lat, p.Lon)
}
