package need

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// recorder is a T that records how the test would have ended. Skip and
// Fatal end the calling goroutine, as testing's do.
type recorder struct{ ended, msg string }

func (r *recorder) Skip(args ...any)  { r.end("skip", args) }
func (r *recorder) Fatal(args ...any) { r.end("fatal", args) }
func (r *recorder) end(how string, args []any) {
	r.ended, r.msg = how, fmt.Sprint(args...)
	runtime.Goexit()
}

// run calls f with a recorder in a goroutine of its own, as the testing
// package runs a test, and returns the recorder once f has ended.
func run(f func(T)) *recorder {
	r := &recorder{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f(r)
	}()
	wg.Wait()
	return r
}

const nowhere = "agent-eval-need-test-no-such-program"

func TestMissingSkipsHereAndFailsInCI(t *testing.T) {
	for _, tc := range []struct {
		ci, ended string
	}{
		{"", "skip"},
		{"false", "skip"},
		{"0", "skip"},
		{"true", "fatal"},
		{"1", "fatal"},
	} {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			r := run(func(t T) { Program(t, nowhere) })
			if r.ended != tc.ended || !strings.Contains(r.msg, nowhere+" is not on PATH") || !strings.Contains(r.msg, "install: "+nowhere) {
				t.Errorf("the test ended with %s %q; want %s naming the program and how to install it", r.ended, r.msg, tc.ended)
			}
			have, err := ProgramCondition(nowhere)
			if have || (err != nil) != (tc.ended == "fatal") {
				t.Errorf("ProgramCondition = %v, %v; want false and an error only in CI", have, err)
			}
		})
	}
}

func TestWhatIsThereGoesOn(t *testing.T) {
	t.Setenv("CI", "true")
	var path string
	r := run(func(t T) { path = Program(t, "sh") })
	if r.ended != "" || path == "" {
		t.Errorf("Program(sh) = %q and the test ended with %s %q; want its path and no end", path, r.ended, r.msg)
	}
	if have, err := ProgramCondition("sh"); !have || err != nil {
		t.Errorf("ProgramCondition(sh) = %v, %v; want true", have, err)
	}
}
