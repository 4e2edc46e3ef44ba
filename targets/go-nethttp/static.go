package main

import (
	"net/http"
	"strconv"
	"time"
)

// Fixed bodies are built once: seed 001's services pre-serialize them too.
var (
	pingBody    = []byte(`{"ok":true,"message":"OK"}`)
	healthzBody = []byte(`{"status":"ok"}`)
	devicesBody = []byte(`[{"id":1,"type":"lightbulb","on":true},{"id":2,"type":"thermostat","on":true},{"id":3,"type":"lock","on":false},{"id":4,"type":"camera","on":true},{"id":5,"type":"sensor","on":true}]`)
)

func ping(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, pingBody) }

func healthz(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, healthzBody) }

func devicesStatus(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, devicesBody)
}

func serverTime(w http.ResponseWriter, _ *http.Request) {
	body := strconv.AppendInt([]byte(`{"serverTime":`), time.Now().Unix(), 10)
	writeJSON(w, http.StatusOK, append(body, '}'))
}
