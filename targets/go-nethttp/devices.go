package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"
)

const (
	commandLatency = 2 * time.Millisecond // seed 000's simulated hardware latency
	maxLongPoll    = 500                  // ms, the contract's cap
	maxCommandBody = 64 << 10
)

type commandResponse struct {
	DeviceID  int64  `json:"deviceId"`
	Action    string `json:"action"`
	Status    string `json:"status"`
	LatencyMs int    `json:"latencyMs"`
}

type eventResponse struct {
	Event    string `json:"event"`
	DeviceID int    `json:"deviceId"`
	TS       int64  `json:"ts"`
}

func deviceCommand(w http.ResponseWriter, r *http.Request) {
	id, err := parseUint(r.PathValue("id"))
	if err != nil || id < 1 {
		writeError(w, http.StatusBadRequest, "device id must be a positive integer below 2^63")
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxCommandBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "body larger than 64 KiB")
			return
		}
		writeError(w, http.StatusBadRequest, "cannot read body")
		return
	}
	action, reason := parseCommand(raw)
	if reason != "" {
		writeError(w, http.StatusBadRequest, reason)
		return
	}
	if !pause(r.Context(), commandLatency) {
		return // client gone
	}
	body, _ := json.Marshal(commandResponse{DeviceID: id, Action: action, Status: "accepted", LatencyMs: 2})
	writeJSON(w, http.StatusOK, body)
}

// parseCommand checks the command body and returns its action, or a reason to reject it.
func parseCommand(raw []byte) (action, reason string) {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return "", "body is not valid JSON"
	}
	fields, ok := doc.(map[string]any)
	if !ok {
		return "", "body must be a JSON object"
	}
	action, ok = fields["action"].(string)
	if !ok || action == "" {
		return "", "action must be a non-empty string"
	}
	if v, present := fields["value"]; present {
		if _, ok := v.(float64); !ok {
			return "", "value must be a number"
		}
	}
	if u, present := fields["unit"]; present {
		if _, ok := u.(string); !ok {
			return "", "unit must be a string"
		}
	}
	return action, ""
}

func eventsLive(w http.ResponseWriter, r *http.Request) {
	wait, err := queryUint(r.URL.Query(), "wait", 0)
	if errors.Is(err, errTooLarge) {
		wait, err = maxLongPoll, nil // still a non-negative integer: the cap applies
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "wait must be a non-negative integer")
		return
	}
	if wait > 0 && !pause(r.Context(), time.Duration(min(wait, maxLongPoll))*time.Millisecond) {
		return
	}
	body, _ := json.Marshal(eventResponse{Event: "motion", DeviceID: 5, TS: time.Now().UnixMilli()})
	writeJSON(w, http.StatusOK, body)
}

// pause parks the goroutine (other requests keep running); false if the client went away.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
