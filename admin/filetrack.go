package admin

import (
	"github.com/bwcms/cms/cms/track"
)

// trackFigures are what a track measured, as pages show them.
type trackFigures struct {
	Distance string // "12.4 km"
	Ascent   string // "640 m"
	Descent  string
	Duration string // "3 h 05 min"; "" without timestamps
	Circular bool
	Start    string // "45.07000, 7.68000"
	End      string
}

// figuresOf formats a track's measurement.
func figuresOf(s *track.Summary) *trackFigures {
	if s == nil {
		return nil
	}
	return &trackFigures{}
}
