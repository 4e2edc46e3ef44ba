// Package loadgen carries the k6 script, so binaries and ConfigMaps ship the reviewed
// file itself rather than a copy that could drift.
package loadgen

import _ "embed"

// Script is bench.js, byte for byte.
//
//go:embed bench.js
var Script []byte

// ScriptName is the file name k6 runs.
const ScriptName = "bench.js"
