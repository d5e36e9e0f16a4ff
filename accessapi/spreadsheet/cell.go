// Package spreadsheet writes values into CSV files that people open in a
// spreadsheet program, where a cell that starts with a formula character
// is run as a formula (CSV injection): a username or note chosen by
// someone else must stay text.
package spreadsheet

import "strings"

// formulaStarts are the first characters a spreadsheet may read as the
// start of a formula (OWASP, "CSV Injection").
const formulaStarts = "=+-@\t\r"

// Cell is v as a CSV cell that a spreadsheet shows as text: a value that
// starts with a formula character gets a leading apostrophe, which
// spreadsheets hide. A lone sign and a signed number ("-", "-5"), which no
// spreadsheet runs, and any other value are unchanged, so that scripts
// reading the CSV see them as they are.
func Cell(v string) string {
	if v == "" || strings.IndexByte(formulaStarts, v[0]) < 0 {
		return v
	}
	if (v[0] == '-' || v[0] == '+') && (len(v) == 1 || isNumber(v[1:])) {
		return v
	}
	return "'" + v
}

// isNumber reports whether s is digits with at most one decimal point.
func isNumber(s string) bool {
	dot := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return s != "" && s != "."
}

// Row is Cell of every value of a record, in place.
func Row(record []string) []string {
	for i, v := range record {
		record[i] = Cell(v)
	}
	return record
}
