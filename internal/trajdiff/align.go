package trajdiff

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agent-eval/agent-eval/internal/rundir"
)

// lcs aligns a and b by their longest common subsequence: pairs (i, j) of
// equal elements, in order. The common head and tail are matched first;
// a middle too large to align (more than maxAlignCells) is left
// unmatched: all of it removed, then added.
func lcs(a, b []string) [][2]int {
	var pairs [][2]int
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		pairs = append(pairs, [2]int{head, head})
		head++
	}
	ta, tb := len(a), len(b)
	for ta > head && tb > head && a[ta-1] == b[tb-1] {
		ta--
		tb--
	}
	ma, mb := a[head:ta], b[head:tb]
	if len(ma) > 0 && len(mb) > 0 && len(ma)*len(mb) <= maxAlignCells {
		// t[i][j] is the LCS length of ma[i:] and mb[j:].
		w := len(mb) + 1
		t := make([]int32, (len(ma)+1)*w)
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					t[i*w+j] = t[(i+1)*w+j+1] + 1
				} else {
					t[i*w+j] = max(t[(i+1)*w+j], t[i*w+j+1])
				}
			}
		}
		for i, j := 0, 0; i < len(ma) && j < len(mb); {
			switch {
			case ma[i] == mb[j]:
				pairs = append(pairs, [2]int{head + i, head + j})
				i++
				j++
			case t[(i+1)*w+j] >= t[i*w+j+1]:
				i++
			default:
				j++
			}
		}
	}
	for k := 0; ta+k < len(a); k++ {
		pairs = append(pairs, [2]int{ta + k, tb + k})
	}
	return pairs
}

// script turns the matched pairs into ops: between two matches, what a
// has is removed, then what b has is added.
func script(na, nb int, pairs [][2]int, emit func(op string, i, j int)) {
	i, j := 0, 0
	for _, p := range append(pairs, [2]int{na, nb}) {
		for ; i < p[0]; i++ {
			emit(OpRemoved, i, -1)
		}
		for ; j < p[1]; j++ {
			emit(OpAdded, -1, j)
		}
		if p[0] < na {
			emit(OpSame, p[0], p[1])
		}
		i, j = p[0]+1, p[1]+1
	}
}

// align aligns two trajectories on (tool, target); a matched call that
// ended otherwise is changed.
func align(a, b []Call) []Step {
	ka, kb := make([]string, len(a)), make([]string, len(b))
	for i, c := range a {
		ka[i] = c.key()
	}
	for i, c := range b {
		kb[i] = c.key()
	}
	var out []Step
	script(len(a), len(b), lcs(ka, kb), func(op string, i, j int) {
		s := Step{Op: op}
		if i >= 0 {
			s.IndexA, s.A = i+1, &a[i]
		}
		if j >= 0 {
			s.IndexB, s.B = j+1, &b[j]
		}
		if op == OpSame && !a[i].same(b[j]) {
			s.Op = OpChanged
		}
		out = append(out, s)
	})
	return out
}

// compareFiles compares the kept files of one (case, attempt) by content
// hash, with a unified diff of each small text file that changed.
func compareFiles(da, db rundir.Dir, key string, a, b []rundir.KeptFile, red func(string) string) ([]File, error) {
	ha, hb := map[string]string{}, map[string]string{}
	for _, f := range a {
		ha[f.Path] = f.SHA256
	}
	for _, f := range b {
		hb[f.Path] = f.SHA256
	}
	var out []File
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j >= len(b) || i < len(a) && a[i].Path < b[j].Path:
			out = append(out, File{Path: safe(red(a[i].Path), false), Change: "removed"})
			i++
		case i >= len(a) || b[j].Path < a[i].Path:
			out = append(out, File{Path: safe(red(b[j].Path), false), Change: "added"})
			j++
		default:
			if a[i].SHA256 != b[j].SHA256 {
				f := File{Path: safe(red(a[i].Path), false), Change: "changed"}
				if a[i].Size <= maxDiffFile && b[j].Size <= maxDiffFile {
					d, err := fileDiff(da, db, key, a[i].Path, red)
					if err != nil {
						return nil, err
					}
					f.Diff = d
				}
				out = append(out, f)
			}
			i++
			j++
		}
	}
	return out, nil
}

func fileDiff(da, db rundir.Dir, key, rel string, red func(string) string) (string, error) {
	ba, err := da.ReadKept(key, rel, maxDiffFile)
	if err != nil {
		return "", err
	}
	bb, err := db.ReadKept(key, rel, maxDiffFile)
	if err != nil {
		return "", err
	}
	if !text(ba) || !text(bb) {
		return "", nil
	}
	name := safe(red(rel), false)
	return unified(name, safe(red(string(ba)), true), safe(red(string(bb)), true)), nil
}

func text(b []byte) bool { return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 }

// unified is the unified diff of a and b, unifiedContext lines of context.
func unified(name, a, b string) string {
	la, lb := lines(a), lines(b)
	type op struct {
		kind byte
		i, j int
	}
	var ops []op
	script(len(la), len(lb), lcs(la, lb), func(o string, i, j int) {
		k := map[string]byte{OpSame: ' ', OpRemoved: '-', OpAdded: '+'}[o]
		ops = append(ops, op{k, i, j})
	})
	var w strings.Builder
	fmt.Fprintf(&w, "--- a/%s\n+++ b/%s\n", name, name)
	for s := 0; s < len(ops); {
		if ops[s].kind == ' ' {
			s++
			continue
		}
		// a hunk: from unifiedContext before this change to unifiedContext
		// after the last change closer than twice that.
		start := max(0, s-unifiedContext)
		end := s
		for k := s; k < len(ops); k++ {
			if ops[k].kind != ' ' {
				end = k
			} else if k-end > 2*unifiedContext {
				break
			}
		}
		end = min(len(ops), end+unifiedContext+1)
		ai, bi, an, bn := -1, -1, 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				if ai < 0 {
					ai = o.i
				}
				an++
			}
			if o.kind != '-' {
				if bi < 0 {
					bi = o.j
				}
				bn++
			}
		}
		if ai < 0 || bi < 0 { // one side has no line here: the hunk starts after those before it
			before := [2]int{}
			for _, o := range ops[:start] {
				if o.kind != '+' {
					before[0]++
				}
				if o.kind != '-' {
					before[1]++
				}
			}
			if ai < 0 {
				ai = before[0] - 1
			}
			if bi < 0 {
				bi = before[1] - 1
			}
		}
		fmt.Fprintf(&w, "@@ -%d,%d +%d,%d @@\n", ai+1, an, bi+1, bn)
		for _, o := range ops[start:end] {
			l := ""
			if o.kind == '+' {
				l = lb[o.j]
			} else {
				l = la[o.i]
			}
			w.WriteByte(o.kind)
			w.WriteString(l)
			w.WriteByte('\n')
		}
		s = end
	}
	return w.String()
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
