package controllers

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

// A remote-write 1.0 push (protobuf WriteRequest, snappy block), written with the standard
// library as internal/metrics' tests do: how the test's kubelet delivers cAdvisor samples.

type sample struct {
	labels map[string]string
	at     time.Time
	v      float64
}

func pushSamples(url string, all []sample) error {
	var req []byte
	for _, s := range all {
		req = appendBytes(req, 1, encodeSample(s)) // WriteRequest.timeseries = 1
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

// encodeSample is a prometheus.TimeSeries: labels = 1 (sorted by name), samples = 2.
func encodeSample(s sample) []byte {
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
	var sm []byte
	sm = binary.AppendUvarint(sm, 1<<3|1) // value = 1, fixed64
	sm = binary.LittleEndian.AppendUint64(sm, math.Float64bits(s.v))
	sm = binary.AppendUvarint(sm, 2<<3|0) // timestamp = 2, varint (ms)
	sm = binary.AppendUvarint(sm, uint64(s.at.UnixMilli()))
	return appendBytes(b, 2, sm)
}

func appendBytes(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// snappyLiterals is a valid snappy block storing data as literals of at most 64 KiB.
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
