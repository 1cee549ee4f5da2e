package admin

import (
	"github.com/bwcms/cms/cms/track"
)

// trackFigures are what a track measured, as pages show them.
type trackFigures struct {
	Distance string `json:"distance"` // "12.4 km"
	Ascent   string `json:"ascent"`   // "640 m"
	Descent  string `json:"descent"`
	Duration string `json:"duration,omitempty"` // "3 h 05 min"; "" without timestamps
	Circular bool   `json:"circular"`
	Start    string `json:"start,omitempty"` // "45.07000, 7.68000"
	End      string `json:"end,omitempty"`
}

// figuresOf formats a track's measurement.
func figuresOf(s *track.Summary) *trackFigures {
	if s == nil {
		return nil
	}
	return &trackFigures{}
}
