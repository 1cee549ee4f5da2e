package postgres

import (
	"syscall"
	"time"
)

// tcpUserTimeout is Linux's TCP_USER_TIMEOUT socket option.
const tcpUserTimeout = 0x12

// userTimeout sets TCP_USER_TIMEOUT on a dialled socket: data left
// unacknowledged for d ends the connection, where the kernel's default
// retries for about a quarter of an hour.
func userTimeout(d time.Duration) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, c syscall.RawConn) error {
		if network != "tcp" && network != "tcp4" && network != "tcp6" {
			return nil
		}
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, tcpUserTimeout, int(ceilMillis(d)))
		})
		if err != nil {
			return err
		}
		return serr
	}
}
