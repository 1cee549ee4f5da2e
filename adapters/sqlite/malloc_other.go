//go:build !linux || !cgo

package sqlite

// setTrimThreshold is glibc's alone: elsewhere nothing is set.
func setTrimThreshold(int) bool { return false }
