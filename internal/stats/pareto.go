package stats

import (
	"cmp"
	"math"
	"slices"
)

// Point is one configuration's cost (lower is better) and score (higher is
// better).
type Point struct {
	Cost, Score float64
}

// Pareto returns the indices of the points on the cost-versus-score Pareto
// front: those that no other point dominates, where p dominates q when
// p.Cost <= q.Cost and p.Score >= q.Score with at least one strict. Points with
// the same cost and score as a front point are on the front too. The indices
// come in increasing cost (and so increasing score); equal points keep their
// input order. Points with a NaN coordinate are never on the front.
func Pareto(points []Point) []int {
	idx := make([]int, 0, len(points))
	for i, p := range points {
		if !math.IsNaN(p.Cost) && !math.IsNaN(p.Score) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		pa, pb := points[a], points[b]
		if c := cmp.Compare(pa.Cost, pb.Cost); c != 0 {
			return c
		}
		return cmp.Compare(pb.Score, pa.Score)
	})
	var front []int
	for _, i := range idx {
		p := points[i]
		if len(front) == 0 {
			front = append(front, i)
			continue
		}
		last := points[front[len(front)-1]]
		switch {
		case p.Score > last.Score:
			front = append(front, i)
		case p.Score == last.Score && p.Cost == last.Cost:
			front = append(front, i)
		}
	}
	return front
}
