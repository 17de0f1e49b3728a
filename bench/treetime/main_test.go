package main

import (
	"os"
	"testing"
	"time"
)

// The readings treetime takes from /proc, on this test's own process.
func TestProcReadings(t *testing.T) {
	deadline := time.Now().Add(50 * time.Millisecond)
	for n := 0; time.Now().Before(deadline); n++ { // burn some CPU
		_ = n * n
	}
	cpu, err := ownCPU(os.Getpid())
	if err != nil || cpu <= 0 {
		t.Errorf("ownCPU = %v, %v; want a positive time", cpu, err)
	}
	if kb, ok := vmHWM(os.Getpid()); !ok || kb < 1024 {
		t.Errorf("vmHWM = %d KB, %v; want at least 1 MB", kb, ok)
	}
	if _, err := ownCPU(-1); err == nil {
		t.Errorf("ownCPU(-1) = nil error")
	}
}
