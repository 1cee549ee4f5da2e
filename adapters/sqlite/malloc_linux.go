//go:build linux && cgo

package sqlite

/*
// glibc's mallopt, declared weak: other C libraries lack it, and then the
// setting is skipped.
extern int mallopt(int param, int value) __attribute__((weak));

static int set_trim_threshold(int bytes) {
	if (!mallopt) {
		return 0;
	}
	return mallopt(-1, bytes); // -1: M_TRIM_THRESHOLD
}
*/
import "C"

// setTrimThreshold sets glibc's M_TRIM_THRESHOLD for the process and
// reports whether it was set.
func setTrimThreshold(bytes int) bool { return C.set_trim_threshold(C.int(bytes)) == 1 }
