package watch

import (
	"fmt"
	"html/template"
	"strings"
)

// A chart is drawn on the server as inline SVG: a frame and one polyline
// a series, scaled to the largest value, with a caption that says the
// latest values, the time span and the scale.

type line struct {
	name  string
	color string
	value func(Point) float64
}

const chartW, chartH = 600, 150

func chart(title, unit string, pts []Point, lines []line) template.HTML {
	var b strings.Builder
	top := 0.0
	for _, p := range pts {
		for _, l := range lines {
			top = max(top, l.value(p))
		}
	}
	span := 0.0
	if len(pts) > 0 {
		span = pts[len(pts)-1].T
	}
	var caption []string
	for _, l := range lines {
		v := 0.0
		if len(pts) > 0 {
			v = l.value(pts[len(pts)-1])
		}
		caption = append(caption, fmt.Sprintf(`<span style="color:%s">%s</span> %s`, l.color, l.name, num(v)))
	}
	// The labels are the caption's, in HTML: a text browser shows them
	// as text and skips the drawing.
	fmt.Fprintf(&b, `<figure class="chart" id="%s">`, id(title))
	fmt.Fprintf(&b, `<svg viewBox="0 0 %d %d" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`,
		chartW, chartH, template.HTMLEscapeString(title))
	plotW, plotH := float64(chartW-10), float64(chartH-10)
	fmt.Fprintf(&b, `<rect x="5" y="5" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`, plotW, plotH)
	for _, l := range lines {
		if len(pts) == 0 {
			break
		}
		var coords []string
		for _, p := range pts {
			x, y := 5.0, 5+plotH
			if span > 0 {
				x += p.T / span * plotW
			}
			if top > 0 {
				y -= l.value(p) / top * plotH
			}
			coords = append(coords, fmt.Sprintf("%.1f,%.1f", x, y))
		}
		fmt.Fprintf(&b, `<polyline class="series" data-name="%s" points="%s" fill="none" stroke="%s" stroke-width="2"/>`, l.name, strings.Join(coords, " "), l.color)
	}
	fmt.Fprintf(&b, `</svg><figcaption><p>%s: %s after %.0f s; the top of the chart is %s %s.</p></figcaption></figure>`,
		template.HTMLEscapeString(title), strings.Join(caption, ", "), span, num(top), unit)
	return template.HTML(b.String())
}

func id(title string) string {
	return strings.ToLower(strings.ReplaceAll(title, " ", "-"))
}

// num writes a value shortly: 1234567 as 1.2M.
func num(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.1fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
