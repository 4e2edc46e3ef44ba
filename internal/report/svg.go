package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
)

// Inline SVG charts, drawn here so the report renders offline with no script or CDN.

var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

const (
	chartW, chartH         = 820, 320
	padL, padR, padT, padB = 70, 20, 40, 80
	plotW, plotH           = chartW - padL - padR, chartH - padT - padB
	fontStyle              = `font-family="sans-serif" font-size="11"`
	titleStyle             = `font-family="sans-serif" font-size="13" font-weight="bold"`
)

// series is one coloured set of bars or one line; a NaN value is missing. Lo and Hi, when
// set, are each value's spread (min-max over the repetitions), drawn as error bars.
type series struct {
	Name   string
	Values []float64
	Lo, Hi []float64
}

// axis maps values to pixels, linearly from 0 or on a log scale.
type axis struct {
	lo, hi float64
	log    bool
}

func newAxis(values []float64, log bool) axis {
	lo, hi := math.Inf(1), 0.0
	for _, v := range values {
		if !math.IsNaN(v) && v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi == 0 {
		return axis{lo: 0, hi: 1}
	}
	if log {
		return axis{lo: math.Pow(10, math.Floor(math.Log10(lo))), hi: math.Pow(10, math.Ceil(math.Log10(hi*1.0001))), log: true}
	}
	step := niceStep(hi / 5)
	return axis{lo: 0, hi: math.Ceil(hi*1.05/step) * step}
}

func niceStep(raw float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

// y is the pixel height of v above the plot's bottom.
func (a axis) y(v float64) float64 {
	if a.log {
		if v <= 0 {
			return 0
		}
		return plotH * (math.Log10(v) - math.Log10(a.lo)) / (math.Log10(a.hi) - math.Log10(a.lo))
	}
	return plotH * (v - a.lo) / (a.hi - a.lo)
}

func (a axis) ticks() []float64 {
	var t []float64
	if a.log {
		for v := a.lo; v <= a.hi*1.0001; v *= 10 {
			t = append(t, v)
		}
		return t
	}
	step := niceStep(a.hi / 5)
	for v := 0.0; v <= a.hi*1.0001; v += step {
		t = append(t, v)
	}
	return t
}

// frame draws the title, the y axis with its grid and the legend.
func frame(b *strings.Builder, title string, a axis, format func(float64) string, ss []series) {
	fmt.Fprintf(b, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img">`, chartW, chartH, chartW, chartH)
	fmt.Fprintf(b, `<title>%s</title><text x="%d" y="18" %s>%s</text>`, esc(title), padL, titleStyle, esc(title))
	for _, v := range a.ticks() {
		y := float64(padT+plotH) - a.y(v)
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e5e5e5"/>`, padL, padL+plotW, y, y)
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end" %s>%s</text>`, padL-6, y+4, fontStyle, esc(format(v)))
	}
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`, padL, padL+plotW, padT+plotH, padT+plotH)
	// The legend sits on its own row under the title, left to right.
	x := padL
	for i, s := range ss {
		fmt.Fprintf(b, `<rect x="%d" y="28" width="10" height="10" fill="%s"/><text x="%d" y="37" %s>%s</text>`,
			x, palette[i%len(palette)], x+14, fontStyle, esc(s.Name))
		x += 14 + 7*len(s.Name) + 16
	}
}

// barChart draws groups of bars: one group per category, one bar per series.
func barChart(title string, categories []string, ss []series, log bool, format func(float64) string) template.HTML {
	return bandedBarChart(title, categories, ss, nil, log, format)
}

// band is a range drawn behind a category's bars (the generator floor: p50 to p99); NaN
// bounds draw nothing.
type band struct{ Lo, Hi float64 }

// bandedBarChart is barChart with a grey band behind each category's bars.
// A chart with no value at all (CPU never sampled) is left out: every chart drawn has data.
func bandedBarChart(title string, categories []string, ss []series, bands []band, log bool, format func(float64) string) template.HTML {
	if !anyValue(ss) {
		return ""
	}
	var all []float64
	for _, s := range ss {
		all = append(all, s.Values...)
	}
	for _, bd := range bands {
		all = append(all, bd.Lo, bd.Hi)
	}
	for _, s := range ss {
		all = append(all, s.Hi...)
	}
	a := newAxis(all, log)
	var b strings.Builder
	frame(&b, title, a, format, ss)
	group := float64(plotW) / float64(max(len(categories), 1))
	bar := group * 0.8 / float64(max(len(ss), 1))
	for c, name := range categories {
		x0 := float64(padL) + group*float64(c) + group*0.1
		if c < len(bands) && !math.IsNaN(bands[c].Lo) && !math.IsNaN(bands[c].Hi) {
			lo, hi := a.y(bands[c].Lo), a.y(bands[c].Hi)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#888" fill-opacity="0.25"><title>%s: generator floor %s–%s</title></rect>`,
				x0-group*0.05, float64(padT+plotH)-hi, group*0.9, math.Max(hi-lo, 1), esc(name), esc(format(bands[c].Lo)), esc(format(bands[c].Hi)))
		}
		for i, s := range ss {
			if c >= len(s.Values) || math.IsNaN(s.Values[c]) {
				continue
			}
			v := s.Values[c]
			h := a.y(v)
			fmt.Fprintf(&b, `<rect class="data" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`,
				x0+bar*float64(i), float64(padT+plotH)-h, math.Max(bar-1, 1), h, palette[i%len(palette)], esc(name), esc(s.Name), esc(format(v)))
			if c < len(s.Lo) && c < len(s.Hi) && !math.IsNaN(s.Lo[c]) && s.Hi[c] > s.Lo[c] {
				errorBar(&b, x0+bar*float64(i)+math.Max(bar-1, 1)/2, float64(padT+plotH)-a.y(s.Lo[c]), float64(padT+plotH)-a.y(s.Hi[c]),
					fmt.Sprintf("%s %s: min %s, max %s", name, s.Name, format(s.Lo[c]), format(s.Hi[c])))
			}
		}
		cx := float64(padL) + group*(float64(c)+0.5)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="end" transform="rotate(-30 %.1f %d)" %s>%s</text>`,
			cx, padT+plotH+14, cx, padT+plotH+14, fontStyle, esc(name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// lineChart draws one line per series over shared x values, with the line y = x dashed
// when identity is set (achieved against offered: a point below it fell short).
func lineChart(title, xLabel string, xs []float64, ss []series, identity bool, format func(float64) string) template.HTML {
	all := append([]float64(nil), xs...)
	for _, s := range ss {
		all = append(all, s.Values...)
	}
	a := newAxis(all, false)
	xAxis := newAxis(xs, false)
	var b strings.Builder
	px, py := xyFrame(&b, title, a, xAxis, format, format, xLabel, ss)
	if identity {
		top := math.Min(a.hi, xAxis.hi)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999" stroke-dasharray="4 4"/>`, px(0), py(0), px(top), py(top))
	}
	for i, s := range ss {
		var pts []string
		for j, v := range s.Values {
			if j < len(xs) && !math.IsNaN(v) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(xs[j]), py(v)))
				// Earlier series get larger dots, so targets at the same point stay visible.
				fmt.Fprintf(&b, `<circle class="data" cx="%.1f" cy="%.1f" r="%d" fill="%s"><title>%s @ %s: %s</title></circle>`,
					px(xs[j]), py(v), 3+2*(len(ss)-i), palette[i%len(palette)], esc(s.Name), esc(format(xs[j])), esc(format(v)))
			}
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(pts, " "), palette[i%len(palette)])
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func anyValue(ss []series) bool {
	for _, s := range ss {
		for _, v := range s.Values {
			if !math.IsNaN(v) {
				return true
			}
		}
	}
	return false
}

// xyFrame is frame with a linear x axis from 0: its ticks and label. It returns the pixel
// mappings of x and y values.
func xyFrame(b *strings.Builder, title string, a, xa axis, format, xFormat func(float64) string, xLabel string, ss []series) (px, py func(float64) float64) {
	px = func(v float64) float64 { return float64(padL) + float64(plotW)*v/xa.hi }
	py = func(v float64) float64 { return float64(padT+plotH) - a.y(v) }
	frame(b, title, a, format, ss)
	for _, v := range xa.ticks() {
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" %s>%s</text>`, px(v), padT+plotH+16, fontStyle, esc(xFormat(v)))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle" %s>%s</text>`, padL+plotW/2, padT+plotH+36, fontStyle, esc(xLabel))
	return px, py
}

// errorBar draws a vertical whisker from y1 to y2 at x, with caps.
func errorBar(b *strings.Builder, x, y1, y2 float64, title string) {
	fmt.Fprintf(b, `<g class="spread" stroke="#222" stroke-width="1"><title>%s</title><line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`+
		`<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/><line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/></g>`,
		esc(title), x, x, y1, y2, x-3, x+3, y1, y1, x-3, x+3, y2, y2)
}

func esc(s string) string { return html.EscapeString(s) }
