package guard

import (
	"os"
	"testing"
	"time"
)

// readerGone tells a status pipe whose run still reads it from one whose
// run has ended.
func TestReaderGone(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if readerGone(int(w.Fd())) {
		t.Error("readerGone with the read end open = true")
	}
	r.Close()
	// A process another test forks at this moment holds a copy of the read
	// end until it execs (the descriptor is close-on-exec): give it time.
	gone := false
	for deadline := time.Now().Add(5 * time.Second); !gone && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		gone = readerGone(int(w.Fd()))
	}
	if !gone {
		t.Error("readerGone with the read end closed = false")
	}
}
