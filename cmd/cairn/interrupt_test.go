package main

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// TestSecondInterruptExits: the first Ctrl-C cancels the command and the
// second ends the process with status 130 at once, whatever the command is
// blocked in (ux U12: a sync reading /proc/kmsg, or a file of a hung mount,
// lived through two SIGINTs; by hand, a sync of /proc/kmsg now ends on the
// second).
func TestSecondInterruptExits(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	cancelled := make(chan struct{})
	exited := make(chan int, 1)
	var errb bytes.Buffer
	go interrupts(sigs, func() { close(cancelled) }, &errb, func(code int) { exited <- code })
	sigs <- os.Interrupt
	<-cancelled
	select {
	case code := <-exited:
		t.Fatalf("exit(%d) after one interrupt", code)
	case <-time.After(50 * time.Millisecond):
	}
	sigs <- os.Interrupt
	if code := <-exited; code != 130 || errb.String() != "cairn: interrupted twice: stopped at once\n" {
		t.Errorf("second interrupt: exit %d, stderr %q; want 130 and the line", code, errb.String())
	}
}
