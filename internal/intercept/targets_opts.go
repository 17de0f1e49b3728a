package intercept

import (
	"strings"
	"sync"
)

// The option layer: a client's command line read the way the client's own
// option parser reads it (getopt_long, pflag, argparse, my_getopt): short
// options clustered (-wh host) or with the value attached (-hhost), long
// ones as --opt=value or --opt value, abbreviated to a prefix where the
// parser accepts that, and options after operands. What the table does not
// know is read every way it could be: an unknown option may or may not take
// the next word, so that word is also read as an operand; a target option's
// letter anywhere in a cluster is a target. A target found in any reading is
// judged.

// optKind is what an option's value is to the hook.
type optKind uint8

const (
	kFlag       optKind = iota // no value
	kValue                     // a value that names no target
	kHost                      // a host or URL: judged by its host
	kConn                      // a database name, connection string or URL
	kName                      // a name judged as a whole (--context, --profile)
	kUnknowable                // picks a target the hook cannot read (a config file)
)

// optSpec is one option of a client.
type optSpec struct {
	kind optKind
	// optional: the value only ever attached (--opt=v, -ov): a bare --opt
	// takes nothing from the next word.
	optional bool
	// unsure: whether it takes the next word is not certain (the letter
	// means different things to different sub-commands): the next word is
	// read as its value and as a word of its own.
	unsure bool
}

// optTable is a client's options by spelling ("-h", "--host", "-chdir"),
// built on first use: the client tables are package-level, and every start
// of the binary (the hook's, once per tool call) would build them all.
type optTable func() map[string]optSpec

// parseOpts builds an option table from "h,host=H d,dbname=C p,port= w"
// words: the names of one option (one letter: -x; longer: --name, or
// -name with singleDash), then =K for a value of kind K (H host, C
// connection, N name, X unknowable; nothing after = a plain value, ? an
// optional one, ~ one it may or may not take), no = for a flag.
func parseOpts(spec string, singleDash bool) optTable {
	return sync.OnceValue(func() map[string]optSpec { return buildOpts(spec, singleDash) })
}

func buildOpts(spec string, singleDash bool) map[string]optSpec {
	t := map[string]optSpec{}
	for _, tok := range strings.Fields(spec) {
		names, kind, hasVal := strings.Cut(tok, "=")
		s := optSpec{kind: kFlag}
		if hasVal {
			switch kind {
			case "":
				s.kind = kValue
			case "?":
				s.kind, s.optional = kValue, true
			case "~":
				s.kind, s.unsure = kValue, true
			case "H":
				s.kind = kHost
			case "C":
				s.kind = kConn
			case "N":
				s.kind = kName
			case "X":
				s.kind = kUnknowable
			default:
				panic("intercept: bad option kind in " + tok)
			}
		}
		for _, n := range strings.Split(names, ",") {
			switch {
			case len(n) == 1:
				t["-"+n] = s
			case singleDash:
				t["-"+n] = s
			default:
				t["--"+n] = s
			}
		}
	}
	return t
}

// argSyntax is how a client's parser reads its command line.
type argSyntax uint8

const (
	gnuSyntax    argSyntax = iota // getopt_long: clusters, --opt=v, prefixes, options anywhere
	pflagSyntax                   // pflag / cobra: as gnu, without prefixes
	firstOperand                  // as gnu, but the first operand ends the options (git, aws sub-commands read their own)
	goFlag                        // Go's flag package, openssl: -name / --name, =value or next word, no clusters
)

// optHit is one option the parse found.
type optHit struct {
	name  string // as the table spells it
	spec  optSpec
	value string
	dyn   bool
	set   bool // a value was given
}

// parsedArgs is a command line read against a table.
type parsedArgs struct {
	opts []optHit
	// operands, in order; maybe marks a word that is an operand only if an
	// unknown option before it takes no value.
	operands []operand
	// unknownDyn is set when a word only known when it runs sits where an
	// option could be (it may name a target).
	unknownDyn string
}

type operand struct {
	word
	maybe bool
	// dashed: after "--" (a client may hand such words on to something
	// else: mysqlsh -- util …).
	dashed bool
}

// parseArgs reads args (the words after the command name) against t.
// abbrev: long options may be shortened to a prefix.
func parseArgs(args []word, table optTable, sx argSyntax, abbrev bool) parsedArgs {
	t := table()
	var p parsedArgs
	ended, dashed, maybeNext := false, false, false
	stopAtOperand := sx == firstOperand
	for i := 0; i < len(args); i++ {
		a := args[i]
		maybe := maybeNext
		maybeNext = false
		if ended {
			p.operands = append(p.operands, operand{word: a, dashed: dashed})
			continue
		}
		if a.s == "--" && !a.dyn {
			ended, dashed = true, true
			continue
		}
		if len(a.s) < 2 || a.s[0] != '-' {
			if a.dyn && p.unknownDyn == "" {
				p.unknownDyn = a.s // "$X" may expand to options as well as to an operand
			}
			p.operands = append(p.operands, operand{word: a, maybe: maybe})
			if stopAtOperand && !maybe {
				ended = true
			}
			continue
		}
		if a.dyn && p.unknownDyn == "" {
			p.unknownDyn = a.s // an option whose name or value is only known when it runs
		}
		// take reads the next word as the value; keep: it is also read as a
		// word of its own (the reading is not certain).
		take := func(h *optHit, keep bool) {
			if i+1 >= len(args) {
				return
			}
			h.value, h.dyn, h.set = args[i+1].s, args[i+1].dyn || a.dyn, true
			if keep || h.spec.unsure {
				maybeNext = true
			} else {
				i++
			}
		}
		if strings.HasPrefix(a.s, "--") || sx == goFlag {
			name, val, eq := strings.Cut(a.s, "=")
			specs := lookupLong(t, name, abbrev, sx == goFlag)
			if len(specs) == 0 {
				maybeNext = !eq // an unknown option may take the next word
				continue
			}
			hit := worst(specs)
			h := optHit{name: hit.name, spec: hit.spec, dyn: a.dyn}
			switch {
			case eq:
				h.value, h.set = val, true
			case hit.spec.kind != kFlag && !hit.spec.optional:
				take(&h, len(specs) > 1)
			}
			p.opts = append(p.opts, h)
			continue
		}
		// A cluster of short options: -abc, -hhost, -wh host. An unknown
		// letter may be a flag (the rest are options: read on) or take the
		// rest as its value (then nothing after it is an option).
		body := a.s[1:]
		unknown := false
		for j := 0; j < len(body); j++ {
			name := "-" + body[j:j+1]
			s, known := t[name]
			if !known {
				unknown = true
				if j == len(body)-1 {
					maybeNext = true
				}
				continue
			}
			h := optHit{name: name, spec: s, dyn: a.dyn}
			if s.kind == kFlag {
				p.opts = append(p.opts, h)
				continue
			}
			if rest := body[j+1:]; rest != "" {
				h.value, h.set = strings.TrimPrefix(rest, "="), true
			} else if !s.optional {
				take(&h, unknown)
			}
			p.opts = append(p.opts, h)
			if !s.unsure {
				break
			}
			// It may be a flag for this program: the rest are options too.
		}
	}
	return p
}

type namedSpec struct {
	name string
	spec optSpec
}

// lookupLong finds a long option: exactly, or (abbrev) every option it is a
// prefix of. An option of the wrong form (--x for a -x table) is not found.
func lookupLong(t map[string]optSpec, name string, abbrev, goStyle bool) []namedSpec {
	forms := []string{name}
	if goStyle {
		bare := strings.TrimLeft(name, "-")
		forms = []string{"-" + bare, "--" + bare}
	}
	for _, f := range forms {
		if s, ok := t[f]; ok && (goStyle || len(f) > 2) {
			return []namedSpec{{f, s}}
		}
	}
	if !abbrev {
		return nil
	}
	var out []namedSpec
	for k, s := range t {
		if len(k) > 2 && strings.HasPrefix(k, "--") && len(name) > 2 && strings.HasPrefix(k, name) {
			out = append(out, namedSpec{k, s})
		}
	}
	return out
}

// worst is the candidate the hook must assume: an abbreviation that could
// be a target option is read as one.
func worst(c []namedSpec) namedSpec {
	rank := func(k optKind) int {
		switch k {
		case kUnknowable:
			return 5
		case kHost, kConn:
			return 4
		case kName:
			return 3
		case kValue:
			return 2
		}
		return 1
	}
	best := c[0]
	for _, x := range c[1:] {
		if rank(x.spec.kind) > rank(best.spec.kind) || rank(x.spec.kind) == rank(best.spec.kind) && x.name < best.name {
			best = x
		}
	}
	return best
}
