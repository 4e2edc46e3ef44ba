// Package targets carries what the operator needs from the target folders at run time;
// the folders themselves (sources, Dockerfiles) are built into images, not into binaries.
package targets

import _ "embed"

// SchemaSQL is schema.sql byte for byte: the operator loads it into every database it
// provisions, so the cluster and the local mode serve the same rows.
//
//go:embed schema.sql
var SchemaSQL string
