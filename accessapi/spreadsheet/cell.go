// Package spreadsheet writes values into CSV files that people open in a
// spreadsheet program, where a cell that starts with a formula character
// is run as a formula (CSV injection): a username or note chosen by
// someone else must stay text.
package spreadsheet

// formulaStarts are the first characters a spreadsheet may read as the
// start of a formula (OWASP, "CSV Injection").
const formulaStarts = "=+-@\t\r"

// Cell is v as a CSV cell that a spreadsheet shows as text: a value that
// starts with a formula character gets a leading apostrophe, which
// spreadsheets hide; any other value is unchanged.
func Cell(v string) string {
	if v != "" && containsByte(formulaStarts, v[0]) {
		return "'" + v
	}
	return v
}

// Row is Cell of every value of a record, in place.
func Row(record []string) []string {
	for i, v := range record {
		record[i] = Cell(v)
	}
	return record
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}
