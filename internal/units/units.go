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

// FormatSignedPPM prints a relative change in parts per million as a signed percentage
// with one decimal: "+20.3%", "-4.0%".
func FormatSignedPPM(ppm int64) string { return FormatSignedPPMNumber(ppm) + "%" }

// FormatSignedPPMNumber is FormatSignedPPM without the percent sign, for the bounds of an
// interval printed after one: "+20.3% [+15.1, +26.0]".
func FormatSignedPPMNumber(ppm int64) string {
	v := strconv.FormatFloat(float64(ppm)/1e4, 'f', 1, 64)
	if ppm >= 0 {
		return "+" + v
	}
	return v
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
