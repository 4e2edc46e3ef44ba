package metrics

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"net/http"
	"sort"
	"testing"
	"time"
)

// The cAdvisor tests feed Prometheus the way a cluster's samples can arrive: a remote-write
// 1.0 push (protobuf WriteRequest, snappy block). The encoding is small enough to write
// here with the standard library, so the tests need no Prometheus module.

// series is one time series to push: its labels (with __name__) and its samples.
type series struct {
	labels  map[string]string
	samples []sample
}

type sample struct {
	at time.Time
	v  float64
}

// pushSeries sends the series to the Prometheus under test and fails on any refusal.
func pushSeries(t *testing.T, all []series) {
	t.Helper()
	var req []byte
	for _, s := range all {
		req = appendBytes(req, 1, encodeSeries(s)) // WriteRequest.timeseries = 1
	}
	resp, err := http.Post(promURL+"/api/v1/write", "application/x-protobuf", bytes.NewReader(snappyLiterals(req)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("remote write: %s: %s", resp.Status, body)
	}
}

// encodeSeries is a prometheus.TimeSeries: labels = 1 (sorted by name), samples = 2.
func encodeSeries(s series) []byte {
	names := make([]string, 0, len(s.labels))
	for n := range s.labels {
		names = append(names, n)
	}
	sort.Strings(names)
	var b []byte
	for _, n := range names {
		var l []byte
		l = appendBytes(l, 1, []byte(n))
		l = appendBytes(l, 2, []byte(s.labels[n]))
		b = appendBytes(b, 1, l)
	}
	for _, p := range s.samples {
		var sm []byte
		sm = binary.AppendUvarint(sm, 1<<3|1) // value = 1, fixed64
		sm = binary.LittleEndian.AppendUint64(sm, math.Float64bits(p.v))
		sm = binary.AppendUvarint(sm, 2<<3|0) // timestamp = 2, varint (ms)
		sm = binary.AppendUvarint(sm, uint64(p.at.UnixMilli()))
		b = appendBytes(b, 2, sm)
	}
	return b
}

// appendBytes appends a length-delimited protobuf field.
func appendBytes(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// snappyLiterals is a valid snappy block that stores data as literals, uncompressed: the
// decoded length, then literal elements of at most 64 KiB (tag 61<<2: two length bytes).
func snappyLiterals(data []byte) []byte {
	out := binary.AppendUvarint(nil, uint64(len(data)))
	for len(data) > 0 {
		n := min(len(data), 1<<16)
		out = append(out, 61<<2, byte(n-1), byte((n-1)>>8))
		out = append(out, data[:n]...)
		data = data[n:]
	}
	return out
}
