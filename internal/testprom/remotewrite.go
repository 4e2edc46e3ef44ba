package testprom

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"time"
)

// A remote-write 1.0 push (protobuf WriteRequest, snappy block) is small enough to encode
// with the standard library, so tests need no Prometheus module.

// Series is one time series: its labels (with __name__) and its samples.
type Series struct {
	Labels  map[string]string
	Samples []Sample
}

// Sample is one value at one time.
type Sample struct {
	At time.Time
	V  float64
}

// Push sends the series to Prometheus at url; a refusal is an error with its body.
func Push(url string, all []Series) error {
	var req []byte
	for _, s := range all {
		req = appendBytes(req, 1, encodeSeries(s)) // WriteRequest.timeseries = 1
	}
	resp, err := http.Post(url+"/api/v1/write", "application/x-protobuf", bytes.NewReader(snappyLiterals(req)))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if body, _ := io.ReadAll(resp.Body); resp.StatusCode/100 != 2 {
		return fmt.Errorf("remote write: %s: %s", resp.Status, body)
	}
	return nil
}

// encodeSeries is a prometheus.TimeSeries: labels = 1 (sorted by name), samples = 2.
func encodeSeries(s Series) []byte {
	names := make([]string, 0, len(s.Labels))
	for n := range s.Labels {
		names = append(names, n)
	}
	sort.Strings(names)
	var b []byte
	for _, n := range names {
		var l []byte
		l = appendBytes(l, 1, []byte(n))
		l = appendBytes(l, 2, []byte(s.Labels[n]))
		b = appendBytes(b, 1, l)
	}
	for _, p := range s.Samples {
		var sm []byte
		sm = binary.AppendUvarint(sm, 1<<3|1) // value = 1, fixed64
		sm = binary.LittleEndian.AppendUint64(sm, math.Float64bits(p.V))
		sm = binary.AppendUvarint(sm, 2<<3|0) //nolint:staticcheck // SA4016: field 2, wire type 0 (varint): timestamp in ms
		sm = binary.AppendUvarint(sm, uint64(p.At.UnixMilli()))
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
