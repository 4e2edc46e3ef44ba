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

// Series is one time series: its labels (with __name__) and its samples, float or native
// histogram.
type Series struct {
	Labels     map[string]string
	Samples    []Sample
	Histograms []Histogram
}

// Histogram is one native histogram sample (integer counts, positive buckets only): Counts
// are the observations of consecutive buckets from index Offset at Schema, as k6 writes
// its trends (schema 3: bucket i holds values in (2^((i-1)/8), 2^(i/8)]).
type Histogram struct {
	At     time.Time
	Schema int32
	Offset int32
	Counts []uint64
	Sum    float64
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
	for _, h := range s.Histograms {
		b = appendBytes(b, 4, encodeHistogram(h)) // TimeSeries.histograms = 4
	}
	return b
}

// encodeHistogram is a prometheus.Histogram: count_int = 1, sum = 3, schema = 4 (sint32),
// positive_spans = 11 (one span: offset = 1 sint32, length = 2), positive_deltas = 12
// (packed sint64, each bucket's count less the previous one's), timestamp = 15.
func encodeHistogram(h Histogram) []byte {
	var count uint64
	var deltas []byte
	prev := int64(0)
	for _, c := range h.Counts {
		count += c
		deltas = binary.AppendUvarint(deltas, zigzag(int64(c)-prev))
		prev = int64(c)
	}
	var span []byte
	span = binary.AppendUvarint(span, 1<<3|0) //nolint:staticcheck // SA4016: field 1, varint
	span = binary.AppendUvarint(span, zigzag(int64(h.Offset)))
	span = binary.AppendUvarint(span, 2<<3|0) //nolint:staticcheck // SA4016: field 2, varint
	span = binary.AppendUvarint(span, uint64(len(h.Counts)))
	var b []byte
	b = binary.AppendUvarint(b, 1<<3|0) //nolint:staticcheck // SA4016: field 1, varint
	b = binary.AppendUvarint(b, count)
	b = binary.AppendUvarint(b, 3<<3|1)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(h.Sum))
	b = binary.AppendUvarint(b, 4<<3|0) //nolint:staticcheck // SA4016: field 4, varint
	b = binary.AppendUvarint(b, zigzag(int64(h.Schema)))
	b = appendBytes(b, 11, span)
	b = appendBytes(b, 12, deltas)
	b = binary.AppendUvarint(b, 15<<3|0) //nolint:staticcheck // SA4016: field 15, varint
	b = binary.AppendUvarint(b, uint64(h.At.UnixMilli()))
	return b
}

// zigzag is protobuf's sint encoding.
func zigzag(n int64) uint64 { return uint64(n<<1) ^ uint64(n>>63) }

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

// Forged is what a writer other than a trial's runners can push to Prometheus's receiver
// to pass for them: requests answered in about latency seconds under the trial's testid
// and a runner's label (both readable by anyone who may query), as a counter and a native
// histogram of the same count (so the reader's count check holds), in series of their own
// (label instance).
func Forged(testID, runner string, at time.Time, requests uint64, latency float64) []Series {
	labels := func(name string) map[string]string {
		return map[string]string{"__name__": name, "testid": testID, "phase": "measure", "runner": runner,
			"expected_response": "true", "instance": "forger"}
	}
	bucket := int32(math.Ceil(8 * math.Log2(latency))) // schema 3: (2^((i-1)/8), 2^(i/8)]
	return []Series{
		{Labels: labels("k6_http_reqs_total"), Samples: []Sample{{At: at, V: float64(requests)}}},
		{Labels: labels("k6_http_req_duration_seconds"), Histograms: []Histogram{{At: at, Schema: 3, Offset: bucket,
			Counts: []uint64{requests}, Sum: float64(requests) * latency}}},
	}
}
