package view

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-eval/agent-eval/internal/atomicfile"
	"github.com/agent-eval/agent-eval/internal/rundir"
)

// Export writes the viewer's pages for every run under the server's root
// as static files under out, their links rewritten to each other: the
// index, each run's case table (page-N.html past the first PageSize
// cases) and each case's page (its first MaxItems transcript entries).
// It has no live updates, no side-by-side form and no raw files: those
// need the server. It returns how many pages it wrote.
func (s *Server) Export(ctx context.Context, out string) (int, error) {
	if abs, err := filepath.Abs(out); err == nil && (abs == s.Root || strings.HasPrefix(abs, s.Root+string(filepath.Separator))) {
		return 0, fmt.Errorf("export into %s: it is inside the runs root, whose runs it would mix with", out)
	}
	n := 0
	write := func(rel string, name string, data any) error {
		var b bytes.Buffer
		if err := pages().ExecuteTemplate(&b, name, data); err != nil {
			return fmt.Errorf("render %s: %w", rel, err)
		}
		p := filepath.Join(out, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if err := atomicfile.Write(p, withCSP(b.Bytes()), 0o644); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		n++
		return nil
	}
	root := links{export: true}
	groups, problems, err := s.evals(root)
	if err != nil {
		return 0, err
	}
	idx := indexPage{frame: newFrame("agent-eval view", root), Evals: groups}
	idx.Problems = problems
	if err := write("index.html", "index", idx); err != nil {
		return n, err
	}
	for _, g := range groups {
		for _, r := range g.Runs {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			d, err := s.openRun(r.Rel)
			if err != nil {
				continue // listed, not a run directory: its row says why
			}
			if err := s.exportRun(ctx, d, r.Rel, write); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

func (s *Server) exportRun(ctx context.Context, d rundir.Dir, rel string, write func(string, string, any) error) error {
	up := strings.Repeat("../", strings.Count(rel, "/")+2)
	l := links{export: true, up: up}
	first, err := buildRun(d, rel, filter{Page: 1}, l)
	if err != nil {
		return err
	}
	for page := 1; page <= first.Pages; page++ {
		p := first
		if page > 1 {
			if p, err = buildRun(d, rel, filter{Page: page}, l); err != nil {
				return err
			}
		}
		name := "index.html"
		if page > 1 {
			name = fmt.Sprintf("page-%d.html", page)
		}
		if err := write("runs/"+rel+"/"+name, "run", p); err != nil {
			return err
		}
	}
	cl := links{export: true, up: up + "../"}
	for _, c := range first.Run.Cases {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !caseKey(d, c.ID) {
			continue // a name summary.yaml has and no folder: no file is named after it
		}
		p, ok := buildCase(d, rel, c.ID, 0, cl)
		if !ok {
			continue
		}
		if err := write("runs/"+rel+"/cases/"+c.ID+".html", "case", p); err != nil {
			return err
		}
	}
	return nil
}

// withCSP puts the pages' policy in an exported page's head: a file has
// no headers to carry it.
func withCSP(b []byte) []byte {
	meta := `<meta http-equiv="Content-Security-Policy" content="` + metaCSP() + `">`
	return bytes.Replace(b, []byte(`<meta charset="utf-8">`), []byte(`<meta charset="utf-8">`+"\n"+meta), 1)
}
