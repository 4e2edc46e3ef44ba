package verify

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strings"
)

// The rows of targets/schema.sql, rebuilt from the same formulas, so the verifier knows what a
// database endpoint must answer without asking the database.

// DocumentCount and ItemCount are the rows schema.sql loads.
const (
	DocumentCount = 10000
	ItemCount     = 1000
)

// ExpectedDocument is row id of documents, keyed like the JSON object the target returns.
func ExpectedDocument(id int) map[string]any {
	return map[string]any{
		"id":         int64(id),
		"queue":      "queue-" + lpad(id%16, 2),
		"sender":     "device-" + lpad(id%997, 4) + "@home.example",
		"subject":    fmt.Sprintf("status report %d", id),
		"body":       strings.Repeat(md5hex(fmt.Sprint(id))+" ", 10)[:278],
		"created_at": int64(1700000000 + id*37),
		"ttl":        int64(3600 + (id%5)*600),
	}
}

var categories = []string{"lighting", "climate", "security", "sensors", "audio"}

// ExpectedItem is row id of items.
func ExpectedItem(id int) map[string]any {
	return map[string]any{
		"id":          int64(id),
		"name":        "item " + lpad(id, 4) + " " + md5hex(fmt.Sprint("item", id))[:12],
		"category":    categories[id%5],
		"price_cents": int64(499 + (id*7919)%50000),
		"in_stock":    id%7 != 0,
		"updated_at":  int64(1700000000 + id*61),
	}
}

// DocumentKeys and ItemKeys are the columns, in the order of the contract's SELECTs.
var (
	DocumentKeys = []string{"id", "queue", "sender", "subject", "body", "created_at", "ttl"}
	ItemKeys     = []string{"id", "name", "category", "price_cents", "in_stock", "updated_at"}
)

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// lpad is PostgreSQL's lpad(n::text, width, '0') for the non-negative n schema.sql uses.
func lpad(n, width int) string {
	s := fmt.Sprint(n)
	if len(s) >= width {
		return s[:width]
	}
	return strings.Repeat("0", width-len(s)) + s
}

// PrimesBelow returns every prime below n (a sieve: the verifier's reference, not the
// workload, which the contract fixes as trial division).
func PrimesBelow(n int) []int {
	if n < 3 {
		return []int{}
	}
	composite := make([]bool, n)
	var out []int
	for k := 2; k < n; k++ {
		if composite[k] {
			continue
		}
		out = append(out, k)
		for m := k * k; m < n; m += k {
			composite[m] = true
		}
	}
	return out
}
