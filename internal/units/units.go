// Package units prints the API's integer units (milli-requests per second, parts per
// million, millicores, bytes, micro-dollars) for tables, reports and messages: one
// formatter per unit.
package units

import (
	"fmt"
	"strconv"
)

// FormatMilliRPS prints a rate in requests per second with one decimal.
func FormatMilliRPS(m int64) string { return strconv.FormatFloat(float64(m)/1000, 'f', 1, 64) }

// FormatPPM prints an error rate as a percentage.
func FormatPPM(ppm int64) string {
	if ppm == 0 {
		return "0%"
	}
	return strconv.FormatFloat(float64(ppm)/1e4, 'g', 3, 64) + "%"
}

// FormatMillicores prints CPU in cores: "0.42".
func FormatMillicores(m int64) string { return strconv.FormatFloat(float64(m)/1000, 'f', 2, 64) }

// FormatBytes prints memory in MiB or GiB.
func FormatBytes(b int64) string {
	if b >= 1<<30 {
		return strconv.FormatFloat(float64(b)/(1<<30), 'f', 2, 64) + "GiB"
	}
	return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + "MiB"
}

// FormatMicroUSD prints millionths of a dollar as dollars: "$0.2083".
func FormatMicroUSD(m int64) string { return fmt.Sprintf("$%.4f", float64(m)/1e6) }
