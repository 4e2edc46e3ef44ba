package wire

// PairerOf exposes a capture's pairing to the external tests (package wire_test), which
// compare its latencies with tcpdump's through wiretest (which imports wire).
func PairerOf(c *Capture) *Pairer { return c.pairer }
