package harbor_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/harbor"
)

// BenchmarkExport1000 exports 1,000 trivial cases with a binary of a real
// agent-eval's size (16 MiB) and reports the tree's bytes on disk:
// apparent (every file's size, each link counted) and allocated (blocks,
// each file once, as du counts them). The binary is hard-linked, so the
// allocated size stays near one copy.
//
//	go test ./internal/harbor -run '^$' -bench Export1000 -benchtime 1x
func BenchmarkExport1000(b *testing.B) {
	dir := b.TempDir()
	write(b, filepath.Join(dir, "eval.yaml"), "name: bench\nmodels: {skill: m}\ndataset: {path: cases}\nexecution: {prompt: \"Say {x}.\"}\npermissions: {deny: [WebFetch]}\n")
	for i := range 1000 {
		write(b, filepath.Join(dir, "cases", fmt.Sprintf("case-%04d", i), "input.yaml"), fmt.Sprintf("x: %d\n", i))
	}
	ev, err := config.Load(filepath.Join(dir, "eval.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	bin := fakeBinary(b)
	f, err := os.OpenFile(bin, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		b.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i) // not a sparse file
	}
	for range 16 {
		if _, err := f.Write(chunk); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	var apparent, allocated int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := filepath.Join(b.TempDir(), "tasks")
		x, err := harbor.Export(context.Background(), harbor.Options{Eval: ev, Out: out, Image: "img", Binary: bin, ProjectRoot: dir, Version: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		if len(x.Tasks) != 1000 {
			b.Fatalf("%d tasks", len(x.Tasks))
		}
		b.StopTimer()
		apparent, allocated = diskUse(b, out)
		b.StartTimer()
	}
	b.ReportMetric(float64(apparent)/(1<<20), "MiB-apparent")
	b.ReportMetric(float64(allocated)/(1<<20), "MiB-allocated")
}

// diskUse is dir's apparent size and its allocated blocks, each inode once.
func diskUse(b *testing.B, dir string) (apparent, allocated int64) {
	seen := map[uint64]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		if !d.IsDir() {
			apparent += fi.Size()
		}
		if !seen[st.Ino] {
			seen[st.Ino] = true
			allocated += st.Blocks * 512
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return apparent, allocated
}
