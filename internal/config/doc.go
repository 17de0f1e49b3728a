// Package config owns the eval.yaml schema: its Go types, the strict loader
// that reports every problem with file:line:col, the defaults, and the JSON
// Schema generated from the same types. It reads files but never runs
// anything, and it never reads the environment behind the caller's back:
// "$VAR" values are resolved only through ResolveEnv.
package config
