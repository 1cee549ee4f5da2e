//go:build unix

package cmstest

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used (user and system),
// cgo's included: what a benchmark costs on a machine other work shares,
// where the time it takes depends on the others.
func processCPU() (time.Duration, bool) {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0, false
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano()), true
}
