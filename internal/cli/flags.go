package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agent-eval/agent-eval/internal/config"
	"github.com/agent-eval/agent-eval/internal/engine"
	"github.com/agent-eval/agent-eval/internal/redact"
)

// durationValue is a duration flag that takes plain seconds (600) as well
// as a Go duration (10m, 1h30m), like the durations in eval.yaml.
type durationValue time.Duration

func (d *durationValue) String() string {
	if *d == 0 {
		return "0" // pflag shows no "(default …)" for it
	}
	return time.Duration(*d).String()
}
func (d *durationValue) Type() string { return "duration" }

func (d *durationValue) Set(s string) error {
	v, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = durationValue(v)
	return nil
}

// parseDuration reads plain seconds (600, 1.5) or a Go duration (10m).
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 {
			return 0, errors.New("negative")
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, errors.New("not a duration")
	}
	return d, nil
}

// flagError turns pflag's errors about a flag's value into a sentence a
// person can act on: --parallel: "abc" is not a whole number.
func flagError(err error) error {
	var inv *pflag.InvalidValueError
	if !errors.As(err, &inv) || inv.GetFlag() == nil {
		return &UsageError{Err: err}
	}
	f := inv.GetFlag()
	what := "is not a valid value"
	switch f.Value.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		what = "is not a whole number"
	case "float32", "float64":
		what = "is not a number"
	case "duration":
		what = "is not a duration (seconds like 600, or 10m, 1h30m)"
	case "bool":
		what = "is not true or false"
	}
	return usageErrorf("--%s: %q %s", f.Name, inv.GetValue(), what)
}

// flagRange is the values a numeric flag takes: at least min (above it,
// when above), and at most max when max > min.
type flagRange struct {
	min, max float64
	above    bool
}

// numericFlags are the ranges of the numeric flags, whichever command has
// them: a count of 0 would run nothing, a timeout of 0 would end every case
// at once, a negative budget means nothing. A flag left at its default (0
// for "as eval.yaml says") is not checked.
var numericFlags = map[string]flagRange{
	"parallel":      {min: 1},
	"concurrency":   {min: 1},
	"repeat":        {min: 1, max: 1000},
	"retry-errors":  {min: 0, max: 100},
	"retry-backoff": {min: 0},
	"timeout":       {min: 0, above: true},
	"max-budget":    {min: 0},
	"port":          {min: 0, max: 65535},
}

// checkNumericFlags refuses a numeric flag given a value outside its
// range: a usage error naming the flag.
func checkNumericFlags(cmd *cobra.Command) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		r, ok := numericFlags[f.Name]
		if !ok || err != nil {
			return
		}
		v, perr := strconv.ParseFloat(f.Value.String(), 64)
		if d, isDur := f.Value.(*durationValue); isDur {
			v, perr = time.Duration(*d).Seconds(), nil
		}
		switch {
		case perr != nil:
			return // not a number: pflag said so already
		case r.above && v <= r.min:
			err = usageErrorf("--%s must be more than %g, got %s", f.Name, r.min, f.Value.String())
		case v < r.min:
			err = usageErrorf("--%s must be at least %g, got %s", f.Name, r.min, f.Value.String())
		case r.max > r.min && v > r.max:
			err = usageErrorf("--%s must be at most %g, got %s", f.Name, r.max, f.Value.String())
		}
	})
	return err
}

// resolveConfigFlag makes -c DIR mean DIR/eval.yaml for every command
// taking -c.
func resolveConfigFlag(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup("config")
	if f == nil || f.Value.Type() != "string" {
		return nil
	}
	return f.Value.Set(configPath(f.Value.String()))
}

// configPath is p, or p/eval.yaml when p is a folder holding one (a folder
// without one is left for the loader to report).
func configPath(p string) string {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		if in := filepath.Join(p, "eval.yaml"); fileExists(in) {
			return in
		}
	}
	return p
}

// suggest is cobra's "did you mean" for a mistyped subcommand name.
func suggest(root *cobra.Command, name string) string {
	s := root.SuggestionsFor(name)
	if len(s) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(s, " or ") + "?"
}

// jsonError is what a --json command prints on stdout when it fails: one
// document a script can parse, beside the human text on stderr.
type jsonError struct {
	Error jsonErrorBody `json:"error"`
}

type jsonErrorBody struct {
	Code     int       `json:"code"`
	Message  string    `json:"message"`
	Problems []problem `json:"problems"`
}

// wantsJSON reports whether cmd was asked for --json, also when the
// flags could not all be parsed.
func wantsJSON(cmd *cobra.Command, args []string) bool {
	if cmd == nil {
		return false
	}
	f := cmd.Flags().Lookup("json")
	if f == nil || f.Value.Type() != "bool" {
		return false
	}
	if f.Value.String() == "true" {
		return true
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// writeJSONError prints err as a jsonError document on w.
func writeJSONError(w io.Writer, code int, err error) {
	body := jsonErrorBody{Code: code, Message: err.Error(), Problems: []problem{}}
	var cfg config.Errors
	if errors.As(err, &cfg) {
		body.Problems = toProblems(cfg)
		body.Message = fmt.Sprintf("%s has %s", firstFile(cfg), engine.Plural(len(cfg), "problem"))
	}
	if errors.Is(err, context.Canceled) {
		body.Message = "interrupted"
	}
	// What is printed is redacted like every other value the harness shows.
	body.Message = redact.String(body.Message)
	for i := range body.Problems {
		body.Problems[i].Message = redact.String(body.Problems[i].Message)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(jsonError{Error: body})
}

func firstFile(es config.Errors) string {
	for _, e := range es {
		if e.File != "" {
			return e.File
		}
	}
	return "the config"
}

// runConfigFlag is -c of the commands that read a run (score, report,
// compare): without it they use the run's own copy of eval.yaml, which their
// usage text says, so pflag's `(default "eval.yaml")` is left out.
func runConfigFlag(f *pflag.FlagSet, p *string, usage string) {
	f.StringVarP(p, "config", "c", "eval.yaml", usage)
	f.Lookup("config").DefValue = ""
}
