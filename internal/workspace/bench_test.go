package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// childCPU is the user+system CPU time of the finished child processes
// (the git processes a benchmark runs).
func childCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// smallWorkspace writes a case-sized workspace: 20 files in 4 folders.
func smallWorkspace(b *testing.B, dir string) {
	for i := 0; i < 20; i++ {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%4), fmt.Sprintf("f%d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBaselineModified is a case's git work: the baseline before the
// agent runs and Modified after it changed a file and added one.
// child-ms/op is the CPU of the git processes.
func BenchmarkBaselineModified(b *testing.B) {
	root := b.TempDir()
	cpu0 := childCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ws := filepath.Join(root, fmt.Sprintf("ws%d", i))
		b.StopTimer()
		smallWorkspace(b, ws)
		b.StartTimer()
		if err := Baseline(ws, ws+".git"); err != nil {
			b.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(ws, "d0", "f0.txt"), []byte("changed\n"), 0o644)
		_ = os.WriteFile(filepath.Join(ws, "new.txt"), []byte("new\n"), 0o644)
		files, err := Modified(ws, ws+".git", nil)
		if err != nil || len(files) != 2 {
			b.Fatalf("Modified = %q, %v", files, err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(childCPU()-cpu0)/float64(time.Millisecond)/float64(b.N), "child-ms/op")
}

// BenchmarkRemove removes 200 case-sized workspaces: one by one, as the
// run did, and with RemoveAll.
func BenchmarkRemove(b *testing.B) {
	for _, mode := range []string{"serial", "parallel"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				root := b.TempDir()
				var paths []string
				for j := 0; j < 200; j++ {
					ws := filepath.Join(root, fmt.Sprint(j))
					smallWorkspace(b, ws)
					paths = append(paths, ws)
				}
				b.StartTimer()
				if mode == "serial" {
					for _, p := range paths {
						if err := os.RemoveAll(p); err != nil {
							b.Fatal(err)
						}
					}
				} else if err := RemoveAll(paths); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
