package dashboard

import (
	"fmt"

	"github.com/appaccess/appaccess/accessapi/access"
)

// chartDays is how many days the home page's chart shows, today included.
const chartDays = 14

// activityChart is an application's sign-ups and activations per day,
// laid out as the bars of an SVG drawn by the template (no script, so the
// strict Content-Security-Policy holds).
type activityChart struct {
	Width, Height int
	Bars          []chartBar
	// Max is the tallest bar's count, the chart's scale.
	Max int64
	// SignUps and Activations are the totals over the days shown.
	SignUps, Activations int64
	First, Last          string
}

// chartBar is one bar: a day's sign-ups or activations.
type chartBar struct {
	X, Y, W, H int
	Class      string
	Title      string
}

// Geometry of the chart, in SVG user units.
const (
	chartHeight = 80
	dayWidth    = 20
	barWidth    = 8
)

// newActivityChart lays out days (oldest first) as pairs of bars.
func newActivityChart(days []access.DayActivity) activityChart {
	c := activityChart{Width: dayWidth * len(days), Height: chartHeight}
	for _, d := range days {
		c.Max = max(c.Max, d.SignUps, d.Activations)
		c.SignUps += d.SignUps
		c.Activations += d.Activations
	}
	if len(days) > 0 {
		c.First, c.Last = days[0].Day.Format("Jan 2"), days[len(days)-1].Day.Format("Jan 2")
	}
	scale := max(c.Max, 1)
	for i, d := range days {
		date := d.Day.Format("2006-01-02")
		for j, bar := range []struct {
			n           int64
			class, what string
		}{{d.SignUps, "signups", "sign-ups"}, {d.Activations, "activations", "activations"}} {
			h := int(bar.n * (chartHeight - 2) / scale)
			if bar.n > 0 {
				h = max(h, 1)
			}
			c.Bars = append(c.Bars, chartBar{X: i*dayWidth + 2 + j*barWidth, Y: chartHeight - h, W: barWidth - 1, H: h,
				Class: bar.class, Title: fmt.Sprintf("%s: %d %s", date, bar.n, bar.what)})
		}
	}
	return c
}
