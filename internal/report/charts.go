package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// The two charts a benchmarker reads first: latency by percentile (HDR-style) and latency
// against offered rate. Both are inline SVG, like the rest of the report.

// spectrumPercentiles are the percentiles a row carries, and where max is drawn: at the
// right edge, 99.99% (max is not a percentile; it is the end of the spectrum).
var spectrumPercentiles = []float64{50, 90, 95, 99, 99.9, 99.99}

// spectrumX is the HDR histogram's x: log10(1/(1-q)), so 90% is 1, 99% is 2, 99.99% is 4.
func spectrumX(percent float64) float64 { return math.Log10(100 / (100 - percent)) }

// spectrumChart draws latency (log y) against percentile (log x up to 99.99%), one line per
// series: Values are the latencies at spectrumPercentiles, the last being max.
func spectrumChart(title string, ss []series, format func(float64) string) template.HTML {
	var all []float64
	for _, s := range ss {
		all = append(all, s.Values...)
	}
	a := newAxis(all, true)
	lo, hi := spectrumX(50), spectrumX(99.99)
	px := func(p float64) float64 { return float64(padL) + float64(plotW)*(spectrumX(p)-lo)/(hi-lo) }
	py := func(v float64) float64 { return float64(padT+plotH) - a.y(v) }
	var b strings.Builder
	frame(&b, title, a, format, ss)
	for i, p := range spectrumPercentiles {
		label := fmt.Sprintf("%g%%", p)
		if i == len(spectrumPercentiles)-1 {
			label = "max"
		}
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#eee"/>`, px(p), px(p), padT, padT+plotH)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" %s>%s</text>`, px(p), padT+plotH+16, fontStyle, esc(label))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" %s>percentile (log scale: each step right is ten times rarer)</text>`,
		padL+plotW/2, padT+plotH+36, fontStyle)
	for i, s := range ss {
		var pts []string
		for j, v := range s.Values {
			if j >= len(spectrumPercentiles) || math.IsNaN(v) || v <= 0 {
				continue
			}
			x, y := px(spectrumPercentiles[j]), py(v)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
			fmt.Fprintf(&b, `<circle class="data" cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s p%g: %s</title></circle>`,
				x, y, palette[i%len(palette)], esc(s.Name), spectrumPercentiles[j], esc(format(v)))
			if j < len(s.Lo) && j < len(s.Hi) && !math.IsNaN(s.Lo[j]) && s.Hi[j] > s.Lo[j] {
				errorBar(&b, x, py(s.Lo[j]), py(s.Hi[j]), fmt.Sprintf("%s: min %s, max %s", s.Name, format(s.Lo[j]), format(s.Hi[j])))
			}
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(pts, " "), palette[i%len(palette)])
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// ratePoint is one measurement at an offered rate: a result row (Full, with its spread)
// or a search's short step.
type ratePoint struct {
	Rate, Latency float64
	Lo, Hi        float64 // NaN: no spread
	Full, Failed  bool
	Note          string
}

// rateSeries is one target's points, and its capacity when a search found one.
type rateSeries struct {
	Name     string
	Points   []ratePoint
	Capacity float64 // 0: none
	AtLeast  bool    // the capacity is a lower bound
}

// rateChart draws a latency (log y) against offered rate (linear x), one colour per target:
// filled dots are full-length rows with their min-max, rings short search steps (red
// outline: failed); the dashed line is the SLO, a vertical line each capacity.
func rateChart(title string, ss []rateSeries, slo float64, format, rate func(float64) string) template.HTML {
	var ys, xs []float64
	legend := make([]series, len(ss))
	for i, s := range ss {
		legend[i].Name = s.Name
		for _, p := range s.Points {
			ys, xs = append(ys, p.Latency, p.Hi), append(xs, p.Rate)
		}
		xs = append(xs, s.Capacity)
	}
	if slo > 0 {
		ys = append(ys, slo)
	}
	a := newAxis(ys, true)
	var b strings.Builder
	px, py := xyFrame(&b, title, a, newAxis(xs, false), format, rate, "offered rate (req/s)", legend)
	if slo > 0 {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#c00" stroke-dasharray="6 4"/><text x="%d" y="%.1f" text-anchor="end" fill="#c00" %s>SLO %s</text>`,
			padL, padL+plotW, py(slo), py(slo), padL+plotW-4, py(slo)-4, fontStyle, esc(format(slo)))
	}
	for i, s := range ss {
		color := palette[i%len(palette)]
		if s.Capacity > 0 {
			label := "capacity " + rate(s.Capacity)
			if s.AtLeast {
				label = "≥ " + rate(s.Capacity) + " (generator or maxRate bound)"
			}
			fmt.Fprintf(&b, `<line class="data" x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" stroke-width="2" stroke-dasharray="2 3"><title>%s %s</title></line>`,
				px(s.Capacity), px(s.Capacity), padT, padT+plotH, color, esc(s.Name), esc(label))
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="%s" %s>%s</text>`, px(s.Capacity)+3, padT+24+12*i, color, fontStyle, esc(s.Name+": "+label))
		}
		var full []string
		// Rings first, so a row's filled dot at the same rate stays visible on top.
		for _, p := range s.Points {
			if p.Full {
				continue
			}
			stroke := color
			if p.Failed {
				stroke = "#c00"
			}
			fmt.Fprintf(&b, `<circle class="data" cx="%.1f" cy="%.1f" r="5" fill="white" stroke="%s" stroke-width="2"><title>%s</title></circle>`,
				px(p.Rate), py(p.Latency), stroke, esc(fmt.Sprintf("%s @ %s: %s %s", s.Name, rate(p.Rate), format(p.Latency), p.Note)))
		}
		for _, p := range s.Points {
			if !p.Full {
				continue
			}
			x, y := px(p.Rate), py(p.Latency)
			tip := fmt.Sprintf("%s @ %s: %s %s", s.Name, rate(p.Rate), format(p.Latency), p.Note)
			full = append(full, fmt.Sprintf("%.1f,%.1f", x, y))
			fmt.Fprintf(&b, `<circle class="data" cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s</title></circle>`, x, y, color, esc(tip))
			if !math.IsNaN(p.Lo) && p.Hi > p.Lo {
				errorBar(&b, x, py(p.Lo), py(p.Hi), tip+" (min–max)")
			}
		}
		if len(full) > 1 {
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`, strings.Join(full, " "), color)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
