// Package procstat reads what the benchmark commands report beside their
// timings from /proc: the one-minute load average and the process's peak
// resident set. Each reads 0 where /proc is not there (not Linux), so a
// benchmark still runs and reports the rest.
package procstat

import (
	"fmt"
	"os"
	"strings"
)

// Load1 is the one-minute load average, 0 where unreadable.
func Load1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	fmt.Sscan(string(b), &l)
	return l
}

// PeakMB is the process's peak resident set so far (VmHWM) in MB, 0 where
// unreadable.
func PeakMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			var kb float64
			fmt.Sscan(f[1], &kb)
			return kb / 1024
		}
	}
	return 0
}
