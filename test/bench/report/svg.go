package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Plot geometry (pixels).
const (
	plotWidth  = 860
	labelWidth = 170
	barHeight  = 16
	barGap     = 3
	groupGap   = 22
	topMargin  = 56
	axisHeight = 40
	legendRow  = 18
)

var targetColors = map[string]string{
	cxlVirt: "#1b7837",
	qemuDev: "#c51b7d",
	legacy:  "#2166ac",
	anonRAM: "#878787",
}

// plot draws median IOPS per target as horizontal bars on a log scale (the
// QEMU device is ~30x slower than the rest under TCG), one group per metric,
// with the min-max range of the runs as a whisker.
func plot(r Report) string {
	targets := []string{cxlVirt, qemuDev, legacy, anonRAM}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range dataMetrics {
		for _, t := range targets {
			if s := find(r.Stats, m, t); s != nil && s.Min > 0 {
				lo, hi = math.Min(lo, s.Min), math.Max(hi, s.Max)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 1e3, 1e6
	}
	decadeLo, decadeHi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if decadeHi == decadeLo {
		decadeHi++
	}
	x0, x1 := float64(labelWidth), float64(plotWidth-20)
	xOf := func(v float64) float64 {
		return x0 + (math.Log10(v)-decadeLo)/(decadeHi-decadeLo)*(x1-x0)
	}
	groupHeight := len(targets)*(barHeight+barGap) + groupGap
	height := topMargin + len(dataMetrics)*groupHeight + axisHeight + legendRow

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", plotWidth, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="15" font-weight="bold">1 KiB random I/O, IOPS (log scale, median, whisker = min-max)</text>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="38" fill="#555">%s, %s, %s</text>`+"\n",
		html.EscapeString(r.Environment["guest_kernel"]), html.EscapeString(r.Environment["qemu"]), "TCG")
	axisY := topMargin + len(dataMetrics)*groupHeight
	for d := decadeLo; d <= decadeHi; d++ {
		x := xOf(math.Pow(10, d))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", x, topMargin-6, x, axisY)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x, axisY+16, number(math.Pow(10, d)))
	}
	for g, m := range dataMetrics {
		y := topMargin + g*groupHeight
		fmt.Fprintf(&b, `<text x="10" y="%d" font-weight="bold">%s</text>`+"\n", y+barHeight-3, html.EscapeString(name(metricNames, m)))
		for i, t := range targets {
			by := y + i*(barHeight+barGap)
			s := find(r.Stats, m, t)
			if s == nil || s.Median <= 0 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#999">%s: not measured</text>`+"\n", x0+4, by+barHeight-4, t)
				continue
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n",
				x0, by, xOf(s.Median)-x0, barHeight, targetColors[t])
			cy := by + barHeight/2
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black"/>`+"\n", xOf(s.Min), cy, xOf(s.Max), cy)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", xOf(s.Max)+4, by+barHeight-4, number(s.Median))
		}
	}
	ly := axisY + axisHeight
	for i, t := range targets {
		lx := 10 + i*210
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/>`+"\n", lx, ly-10, targetColors[t])
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", lx+16, ly, html.EscapeString(name(targetNames, t)))
	}
	b.WriteString("</svg>\n")
	return b.String()
}
