// Command soakplot draws the series bench/soak.sh recorded (soak.csv and soak-bursts.csv
// in one run's folder) as PNG charts: Cairn's memory, the other processes' memory, the
// goroutine and open-file counts with each burst's quiet figures, and what is on disk.
// It is its own module so the plotting library stays out of the app's dependencies.
//
//	soakplot -in bench/out/soak-60min -out docs -name soak-60min -warmup 5
package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// table is a CSV file read by column name.
type table struct {
	cols map[string]int
	rows [][]string
}

func readTable(path string) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("read the header of %s: %w", path, err)
	}
	t := &table{cols: map[string]int{}}
	for i, c := range head {
		t.cols[c] = i
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return t, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		t.rows = append(t.rows, rec)
	}
}

// xy is one column against time in minutes, scaled by div; cells that are not numbers or
// are negative (a figure that could not be read) are left out.
func (t *table) xy(col string, div float64) (plotter.XYs, error) {
	tc, ok := t.cols["t_s"]
	c, ok2 := t.cols[col]
	if !ok || !ok2 {
		return nil, fmt.Errorf("column %q or t_s missing", col)
	}
	var out plotter.XYs
	for _, r := range t.rows {
		x, err1 := strconv.ParseFloat(r[tc], 64)
		y, err2 := strconv.ParseFloat(r[c], 64)
		if err1 != nil || err2 != nil || y < 0 {
			continue
		}
		out = append(out, plotter.XY{X: x / 60, Y: y / div})
	}
	return out, nil
}

// series is one line of a chart; an optional one is left out when its column is not in
// the file.
type series struct {
	label    string
	col      string
	div      float64
	optional bool
}

// palette is distinguishable in print and for the common colour blindnesses (Okabe–Ito).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},
	color.RGBA{213, 94, 0, 255},
	color.RGBA{0, 158, 115, 255},
	color.RGBA{204, 121, 167, 255},
	color.RGBA{230, 159, 0, 255},
	color.RGBA{86, 180, 233, 255},
}

// chart draws the series of t into path, with a dashed line where the warm-up ends.
func chart(t *table, path, title, ylabel string, warmup float64, ss []series, extra func(*plot.Plot) error) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "minutes"
	p.Y.Label.Text = ylabel
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	ymax := 0.0
	for i, s := range ss {
		if _, ok := t.cols[s.col]; !ok && s.optional {
			continue // a run recorded before the column was added
		}
		pts, err := t.xy(s.col, s.div)
		if err != nil {
			return err
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return fmt.Errorf("%s: %w", s.label, err)
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		if i >= len(palette) {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l)
		p.Legend.Add(s.label, l)
		for _, q := range pts {
			ymax = max(ymax, q.Y)
		}
	}
	if extra != nil {
		if err := extra(p); err != nil {
			return err
		}
	}
	// Head room for the legend above the lines.
	p.Y.Max = max(p.Y.Max, ymax*1.35)
	if warmup > 0 {
		w, err := plotter.NewLine(plotter.XYs{{X: warmup, Y: 0}, {X: warmup, Y: p.Y.Max}})
		if err != nil {
			return err
		}
		w.Color = color.Gray{Y: 120}
		w.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(w)
		p.Legend.Add("end of warm-up", w)
	}
	if err := p.Save(9*vg.Inch, 4*vg.Inch, path); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	return nil
}

// burstPoints marks each burst's quiet goroutine count before and after it, and after it
// less two goroutines per idle connection to the model and one per incoming connection
// the burst added (what the connection pools hold until their idle timeouts).
func burstPoints(path string) func(*plot.Plot) error {
	return func(p *plot.Plot) error {
		b, err := readTable(path)
		if err != nil {
			return err
		}
		glyphs := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.CrossGlyph{}, draw.BoxGlyph{}}
		for i, s := range []series{
			{"goroutines before a burst", "goroutines_before", 1, false},
			{"goroutines 8 s after it", "goroutines_after", 1, false},
			{"… less those of the idle keep-alive connections it added", "goroutines_after_less_conns", 1, true},
		} {
			if _, ok := b.cols[s.col]; !ok && s.optional {
				continue
			}
			pts, err := b.xy(s.col, s.div)
			if err != nil {
				return err
			}
			if len(pts) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return err
			}
			sc.Color = palette[(i+3)%len(palette)]
			sc.Shape = glyphs[i]
			sc.Radius = vg.Points(3)
			p.Add(sc)
			p.Legend.Add(s.label, sc)
		}
		return nil
	}
}

func run() error {
	in := flag.String("in", "bench/out/soak-60min", "the run's folder (soak.csv, soak-bursts.csv)")
	out := flag.String("out", "docs", "where the PNG files go")
	name := flag.String("name", "soak", "file name prefix: NAME-memory.png, …")
	warmup := flag.Float64("warmup", 5, "minutes of warm-up (a dashed line)")
	flag.Parse()
	t, err := readTable(filepath.Join(*in, "soak.csv"))
	if err != nil {
		return err
	}
	const kib, mib = 1024, 1 << 20
	file := func(kind string) string { return filepath.Join(*out, *name+"-"+kind+".png") }
	charts := []struct {
		kind, title, ylabel string
		ss                  []series
		extra               func(*plot.Plot) error
	}{
		{"memory", "Cairn (serve): memory", "MiB", []series{
			{"PSS", "serve_pss_kib", kib, false}, {"RSS", "serve_rss_kib", kib, false},
			{"Go heap in use, live (after a collection)", "live_heap_inuse_b", mib, false}, {"Go heap in use, as sampled", "heap_inuse_b", mib, false},
		}, nil},
		{"others", "MCP servers and the browser: memory", "MiB", []series{
			{"MCP servers PSS (2 node processes)", "mcp_pss_kib", kib, false}, {"Chromium PSS (all processes)", "chromium_pss_kib", kib, false},
			{"Chromium renderers PSS", "renderer_pss_kib", kib, false}, {"tab A live JS heap", "tab_a_js_heap_b", mib, false}, {"tab B live JS heap", "tab_b_js_heap_b", mib, false},
		}, nil},
		{"counts", "Cairn (serve): goroutines and open files", "count", []series{
			{"goroutines (sampled every 30 s)", "goroutines", 1, false}, {"open files", "fds", 1, false},
			{"… of them SQLite's (cairn.db, -wal, -shm)", "db_fds", 1, true}, {"… of them TCP connections", "conn_fds", 1, true},
			{"bus subscriptions", "event_subscribers", 1, false},
		}, burstPoints(filepath.Join(*in, "soak-bursts.csv"))},
		{"storage", "Data directory", "MiB", []series{
			{"cairn.db", "db_b", mib, false}, {"cairn.db-wal", "wal_b", mib, false},
			{"tool-results/ (spilled results)", "spill_b", mib, false}, {"logs/ (MCP server logs)", "mcp_logs_b", mib, false},
		}, nil},
	}
	for _, c := range charts {
		if err := chart(t, file(c.kind), c.title, c.ylabel, *warmup, c.ss, c.extra); err != nil {
			return fmt.Errorf("%s chart: %w", c.kind, err)
		}
		fmt.Println(file(c.kind))
	}
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "soakplot:", err)
		os.Exit(1)
	}
}
