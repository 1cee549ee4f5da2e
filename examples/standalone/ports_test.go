package main

import (
	"net"
	"testing"
)

// holdDefaultPort listens on the server's default address, when it is
// free, until release: every test of the package then runs as it would
// beside a server started with `go run ./examples/standalone`, so a test
// that opens the default port instead of one the system picks fails here,
// not on a developer's machine or a busy CI runner.
func holdDefaultPort() (release func()) {
	ln, err := net.Listen("tcp", defaultAddr)
	if err != nil {
		return func() {} // taken already, by a server or another test binary: the same conditions
	}
	return func() { ln.Close() }
}

// TestDefaultPortHeld: while the package's tests run, the default address
// is taken.
func TestDefaultPortHeld(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", defaultAddr)
	if err == nil {
		ln.Close()
		t.Fatalf("%s is free while the tests run: TestMain does not hold it", defaultAddr)
	}
}
