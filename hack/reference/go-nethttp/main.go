// Command go-nethttp is the smallest net/http JSON server: one handler writing the contract's
// ping body, on PORT, with the target's go directive (go 1.26) and toolchain.
package main

import (
	"log"
	"net/http"
	"os"
)

var body = []byte(`{"ok":true,"message":"OK"}`)

func main() {
	http.HandleFunc("GET /api/ping", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	log.Fatal(http.ListenAndServe(":"+os.Getenv("PORT"), nil))
}
