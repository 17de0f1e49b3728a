package config

import (
	"strconv"
	"strings"
)

// KeepJudges is a copy of the eval with only the judges keep keeps, in
// their order; their positions in eval.yaml move with them, so an error
// about judges[k] of the copy still names the judge's own line. The copy
// shares everything else with e: a caller changing another field (the
// thresholds) replaces it rather than editing it in place.
func (e *Eval) KeepJudges(keep func(Judge) bool) *Eval {
	c := *e
	c.Judges = nil
	renum := map[string]string{} // "judges[i]" of e → "judges[k]" of the copy
	for i, j := range e.Judges {
		if !keep(j) {
			continue
		}
		renum[judgeKey(i)] = judgeKey(len(c.Judges))
		c.Judges = append(c.Judges, j)
	}
	c.pos = make(map[string]pos, len(e.pos))
	for p, at := range e.pos {
		if !strings.HasPrefix(p, "judges[") {
			c.pos[p] = at
			continue
		}
		end := strings.IndexByte(p, ']')
		if end < 0 {
			c.pos[p] = at
			continue
		}
		if k, ok := renum[p[:end+1]]; ok {
			c.pos[k+p[end+1:]] = at
		} // a dropped judge's places go with it
	}
	return &c
}

func judgeKey(i int) string { return "judges[" + strconv.Itoa(i) + "]" }
