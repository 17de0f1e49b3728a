package guard

import (
	"os"
	"testing"
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
	if !readerGone(int(w.Fd())) {
		t.Error("readerGone with the read end closed = false")
	}
}
