package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent-eval/agent-eval/internal/lazyre"
)

// maxFileSize bounds what Load reads; an eval.yaml is a few kilobytes.
const maxFileSize = 4 << 20

// Load reads, decodes and validates the eval.yaml at path. On failure the
// error is an Errors value holding every problem found, sorted by position.
// Warnings (deprecated keys, suspicious values) are in Eval.Warnings.
func Load(path string) (*Eval, error) {
	fileErr := func(msg string) error {
		return Errors{{File: path, Code: CodeFile, Msg: msg}}
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fileErr("no such file")
	case err != nil:
		return nil, fileErr(err.Error())
	case st.IsDir():
		return nil, fileErr("is a directory, not an eval.yaml file")
	case !st.Mode().IsRegular():
		return nil, fileErr("is not a regular file")
	case st.Size() > maxFileSize:
		return nil, fileErr(fmt.Sprintf("is %d bytes; an eval.yaml may be at most %d", st.Size(), maxFileSize))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fileErr(err.Error())
	}
	return Parse(path, data)
}

// Parse decodes and validates eval.yaml content; name is used in positions
// and to derive defaults (the eval name).
func Parse(name string, data []byte) (*Eval, error) {
	return parse(name, name, data)
}

// ParseCopy decodes and validates a copy of an eval.yaml (a run's own, in
// its run directory) as if it were the original at origin: relative paths
// (dataset.path, prompt files, judge commands) resolve against origin's
// folder (Dir) and the eval's name derives from origin; Path and positions
// name file, the copy.
func ParseCopy(file string, data []byte, origin string) (*Eval, error) {
	return parse(file, origin, data)
}

// parse is Parse with errors naming file and the eval placed at origin.
func parse(file, origin string, data []byte) (*Eval, error) {
	return parseEval(&Eval{path: file, origin: origin, src: data})
}

// parseEval decodes and validates e.src into e, which names its file
// (path, origin) and, for a matrix cell's eval, what it was made from.
func parseEval(e *Eval) (*Eval, error) {
	file, data := e.path, e.src
	d := &decoder{file: file, pos: map[string]pos{}, keys: map[string]pos{}}
	root, err := parseYAML(file, data)
	if err != nil {
		return nil, err
	}
	if root == nil {
		what := "file is empty"
		if len(bytes.TrimSpace(data)) > 0 {
			what = "file holds only comments"
		}
		return nil, Errors{{File: file, Line: 1, Col: 1, Code: CodeRequired,
			Msg: what + "; an eval.yaml needs at least an execution block (run `agent-eval init` for a starter)"}}
	}
	if root.Kind != yaml.MappingNode {
		return nil, Errors{{File: file, Line: root.Line, Col: root.Column, Code: CodeType,
			Msg: "the top level must be a mapping of keys (name, execution, ...), got " + describe(root)}}
	}
	d.structure(root, reflect.ValueOf(e).Elem(), "")
	if !hasCode(d.errs, CodeSyntax) {
		e.validate(d, root)
	}
	d.errs.Sort()
	d.warns.Sort()
	e.pos = d.pos
	e.Warnings = d.warns
	if len(d.errs) > 0 {
		return e, d.errs
	}
	return e, nil
}

func hasCode(es Errors, c Code) bool {
	for _, e := range es {
		if e.Code == c {
			return true
		}
	}
	return false
}

// parseYAML parses exactly one YAML document. It returns a nil node for an
// empty document.
func parseYAML(name string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, syntaxError(name, data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, Errors{{File: name, Line: extra.Line, Col: extra.Column, Code: CodeSyntax,
			Msg: "the file holds more than one YAML document (a second \"---\"); put everything in one"}}
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(name, data, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

var yamlLineRE = lazyre.New(`^yaml: line (\d+): (.*)$`)
var (
	anchorRE        = lazyre.New(`unknown anchor '([^']*)'`)
	parserProblemRE = lazyre.New(`^did not find expected (<document start>|node content|key|'-' indicator|',' or '\]'|',' or '\}')`)
)

// aliasLine finds the line of the first use of alias *name outside a
// comment.
func aliasLine(lines []string, name string) int {
	use := regexp.MustCompile(`(^|[\s:\[{,-])\*` + regexp.QuoteMeta(name) + `($|[\s,\]}])`)
	for i, l := range lines {
		if c := strings.Index(l, " #"); c >= 0 {
			l = l[:c]
		}
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		if use.MatchString(l) {
			return i + 1
		}
	}
	return 1
}

// syntaxError turns a yaml.v3 parse error into a positioned Error. yaml.v3
// reports a line but no column, so the column is found by looking at the
// line: the tab for a tab error, else its first non-blank character.
func syntaxError(name string, data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	lines := strings.Split(string(data), "\n")
	if m := yamlLineRE().FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		if parserProblemRE().MatchString(msg) {
			line++ // yaml.v3 counts parser (not scanner) error lines from 0
		}
	} else if m := anchorRE().FindStringSubmatch(msg); m != nil {
		line = aliasLine(lines, m[1])
	}
	line = min(max(line, 1), len(lines))
	if strings.Contains(msg, "tab character") || strings.Contains(msg, "cannot start any token") {
		// yaml.v3 may name the line before the tab: look from there on.
		for i := line - 1; i < len(lines); i++ {
			indent := lines[i][:len(lines[i])-len(strings.TrimLeft(lines[i], " \t"))]
			if t := strings.IndexByte(indent, '\t'); t >= 0 {
				return Errors{{File: name, Line: i + 1, Col: t + 1, Code: CodeSyntax,
					Msg: "invalid YAML: a tab character in the indentation; YAML indents with spaces only"}}
			}
		}
	}
	text := lines[line-1]
	col := len(text) - len(strings.TrimLeft(text, " ")) + 1
	return Errors{{File: name, Line: line, Col: col, Code: CodeSyntax, Msg: "invalid YAML: " + msg}}
}
