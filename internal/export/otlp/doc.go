// Package otlp exports a run directory as OpenTelemetry traces over OTLP/HTTP
// (protobuf): one trace per run, a span per case attempt under the run's, and
// under each case a span per agent turn with a span per tool call, carrying
// the hook's decision. It reads the run directory through internal/rundir
// only, and redacts every string it sends.
//
// It must not write to the terminal, and it links neither the OpenTelemetry
// SDK nor a protobuf runtime nor gRPC: it encodes the OTLP request itself
// (wire.go) and sends it with its own net/http client (client.go), since
// every package linked initialises on each start of the binary, the hook's
// included (the SDK's resource detection compiles regexps, protobuf's
// runtime hashes the executable). TestWireGolden decodes what is sent with
// the official OTLP types, a test-only dependency.
//
// # Times
//
// The run's span runs from run_result.json's started_at to its ended_at (or
// started_at plus wall_clock_s, whichever is later). A case attempt's span
// ends when its run_result.json was written (the file's modification time,
// when that lies inside the run) and starts duration_s before; when the file's
// time is outside the run (a copied or imported run directory) the attempts
// are laid end to end from the run's start, each as long as its duration_s.
// A hook ledger time inside the run widens its case's span to cover it.
//
// Transcript events carry no times of their own. A tool call the hook
// decided is placed at its ledger time (ts) when that lies inside the case
// and after the calls placed before it; every other event is spread evenly,
// in transcript order, between the placed times around it (the case's start
// and end at either side). A turn runs from its first event to the next
// turn's first event (the last one to the case's end), and a tool call from
// its placement to its result's (at most to its turn's end). Every span lies
// inside its parent's.
//
// # Ids
//
// The trace id is derived from the run id, and each span id from the run id
// and the span's place in the run (case key, turn or call index), so
// exporting the same run again sends the same ids: receivers that dedupe
// keep one copy.
package otlp
