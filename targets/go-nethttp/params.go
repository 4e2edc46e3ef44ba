package main

import (
	"errors"
	"strconv"
)

var (
	errNotUint  = errors.New("not a non-negative decimal integer")
	errTooLarge = errors.New("integer too large")
)

// parseUint accepts only decimal digits (no sign, no spaces, no empty string), so "+5" or
// "1e3" are rejected where strconv alone would accept or misread them.
func parseUint(s string) (int64, error) {
	if s == "" {
		return 0, errNotUint
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, errNotUint
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil { // digits were checked: only overflow is left
		return 0, errTooLarge
	}
	return n, nil
}

// queryUint reads an optional integer query parameter; absent means def.
func queryUint(values map[string][]string, key string, def int64) (int64, error) {
	v, ok := values[key]
	if !ok {
		return def, nil
	}
	return parseUint(v[0])
}
