package config

import (
	"fmt"
	"strconv"
	"strings"
)

// Reducer is a judge's reduce: how a case's repeated attempts become one
// verdict. K is pass@k's and pass^k's k (0 for the others).
type Reducer struct {
	Kind string // mean, median, min, max, majority, any, all, pass@k, pass^k
	K    int
}

// The reducers' kinds; pass@k and pass^k carry their k.
const (
	ReduceMean     = "mean"
	ReduceMedian   = "median"
	ReduceMin      = "min"
	ReduceMax      = "max"
	ReduceMajority = "majority"
	ReduceAny      = "any"
	ReduceAll      = "all"
	ReducePassAtK  = "pass@k"
	ReducePassHatK = "pass^k"
)

// ParseReducer reads a reduce value ("" is mean).
func ParseReducer(s string) (Reducer, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "", ReduceMean:
		return Reducer{Kind: ReduceMean}, nil
	case ReduceMedian, ReduceMin, ReduceMax, ReduceMajority, ReduceAny, ReduceAll:
		return Reducer{Kind: s}, nil
	}
	for _, p := range []struct{ prefix, kind string }{{"pass@", ReducePassAtK}, {"pass^", ReducePassHatK}} {
		if k, ok := strings.CutPrefix(s, p.prefix); ok {
			n, err := strconv.Atoi(k)
			if err != nil || n < 1 {
				return Reducer{}, fmt.Errorf("reduce %q: k in %sk is a whole number of attempts, 1 or more", s, p.prefix)
			}
			return Reducer{Kind: p.kind, K: n}, nil
		}
	}
	return Reducer{}, fmt.Errorf("reduce %q is not a reducer: mean, median, min, max, majority, any, all, pass@k or pass^k (k a number)", s)
}

// PassFail reports whether the reducer counts passed attempts, which only
// a pass/fail judge has.
func (r Reducer) PassFail() bool {
	switch r.Kind {
	case ReduceMajority, ReduceAny, ReduceAll, ReducePassAtK, ReducePassHatK:
		return true
	}
	return false
}

// String is the reducer as eval.yaml spells it.
func (r Reducer) String() string {
	switch r.Kind {
	case ReducePassAtK:
		return "pass@" + strconv.Itoa(r.K)
	case ReducePassHatK:
		return "pass^" + strconv.Itoa(r.K)
	}
	return r.Kind
}
