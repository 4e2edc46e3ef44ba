package units

import "testing"

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{FormatMilliRPS(123456), "123.5"},
		{FormatPPM(0), "0%"},
		{FormatPPM(12345), "1.23%"},
		{FormatSignedPPM(203000), "+20.3%"},
		{FormatSignedPPM(-40000), "-4.0%"},
		{FormatSignedPPMNumber(0), "+0.0"},
		{FormatMillicores(425), "0.42"},
		{FormatBytes(3 << 20), "3.0MiB"},
		{FormatBytes(3 << 30), "3.00GiB"},
		{FormatMicroUSD(208300), "$0.2083"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
