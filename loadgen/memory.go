package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// memory is a process's resident set size now and at its peak, in bytes.
type memory struct {
	rss, hwm int64
}

// readMemory reads VmRSS and VmHWM from /proc/pid/status (Linux).
func readMemory(pid int) (memory, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, fmt.Errorf("-pid %d: %w", pid, err)
	}
	var m memory
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != "VmRSS" && name != "VmHWM" {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return memory{}, fmt.Errorf("-pid %d: %s: %q", pid, name, value)
		}
		if name == "VmRSS" {
			m.rss = kb << 10
		} else {
			m.hwm = kb << 10
		}
		found++
	}
	if found != 2 {
		return memory{}, fmt.Errorf("-pid %d: no VmRSS and VmHWM in /proc/%d/status", pid, pid)
	}
	return m, nil
}
