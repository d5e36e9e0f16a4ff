package caddymodule

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/appaccess/appaccess/accessapi/spreadsheet"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// column is one typed column of the command's output: its label and how a
// value shows in it.
type column[T any] struct {
	label string
	value func(T) string
}

// printer writes the command's output: a table, or the route's JSON.
type printer struct {
	out  io.Writer
	json bool
}

func (c *cli) printer() printer { return printer{out: c.out, json: c.json} }

func (p printer) writeJSON(v any) error {
	enc := json.NewEncoder(p.out)
	return enc.Encode(v)
}

// object prints one value as label/value rows.
func printObject[T any](p printer, v T, cols []column[T]) error {
	if p.json {
		return p.writeJSON(v)
	}
	tw := tabwriter.NewWriter(p.out, 0, 4, 2, ' ', 0)
	for _, col := range cols {
		fmt.Fprintf(tw, "%s\t%s\n", col.label, col.value(v))
	}
	return tw.Flush()
}

// printTable prints values as a table with a header row.
func printTable[T any](w io.Writer, items []T, cols []column[T]) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	labels := make([]string, len(cols))
	for i, col := range cols {
		labels[i] = strings.ToUpper(col.label)
	}
	fmt.Fprintln(tw, strings.Join(labels, "\t"))
	row := make([]string, len(cols))
	for _, it := range items {
		for i, col := range cols {
			row[i] = col.value(it)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// printPage prints a page of a listing and how to get the next one.
func printPage[T wire.Listable](p printer, page *wire.Page[T], cols []column[T]) error {
	if p.json {
		return p.writeJSON(page)
	}
	if err := printTable(p.out, page.Items, cols); err != nil {
		return err
	}
	if page.Next != nil {
		_, err := fmt.Fprintf(p.out, "(more: --after %s)\n", *page.Next)
		return err
	}
	return nil
}

// printDone reports a route that answers no body: "done", or in JSON
// {"ok":true}, so that every command's JSON output parses.
func printDone(p printer) error {
	if p.json {
		return p.writeJSON(doneJSON{OK: true})
	}
	_, err := fmt.Fprintln(p.out, "done")
	return err
}

// doneJSON is the JSON output of a command whose route answers no body
// (Path: of a command that wrote a file).
type doneJSON struct {
	OK   bool   `json:"ok"`
	Path string `json:"path,omitempty"`
}

// The cell formats.

func text(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func optional(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

func yesNo(b bool) string { return strconv.FormatBool(b) }

func number[N int | int64](n N) string { return strconv.FormatInt(int64(n), 10) }

func optionalNumber(n *int64) string {
	if n == nil {
		return "-"
	}
	return number(*n)
}

// membershipText words a membership: "active until …", "active, lifetime",
// "inactive since …" or "inactive, never activated".
func membershipText(m wire.Membership) string {
	switch {
	case m.IsLifetime:
		return "active, lifetime"
	case m.ExpiresAt == nil:
		return "inactive, never activated"
	case m.IsActive:
		return "active until " + *m.ExpiresAt
	}
	return "inactive since " + *m.ExpiresAt
}

// writeCSV writes a header and one record a value.
func writeCSV[T any](w io.Writer, items []T, cols []column[T]) error {
	cw := csv.NewWriter(w)
	record := make([]string, len(cols))
	for i, col := range cols {
		record[i] = col.label
	}
	_ = cw.Write(record)
	for _, it := range items {
		for i, col := range cols {
			record[i] = spreadsheet.Cell(col.value(it))
		}
		_ = cw.Write(record)
	}
	cw.Flush()
	return cw.Error()
}
