// Package track reads GPS tracks (GPX, KML) and measures them.
package track

// Summary is a track's measurement (placeholder until the package lands).
type Summary struct{}
