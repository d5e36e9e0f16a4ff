package spreadsheet_test

import (
	"testing"

	"github.com/appaccess/appaccess/accessapi/spreadsheet"
)

func TestCell_AFormulaStaysText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`=HYPERLINK("https://evil.example","click")`, `'=HYPERLINK("https://evil.example","click")`},
		{"+1+1", "'+1+1"},
		{"-2+3", "'-2+3"},
		{"-", "-"},
		{"+", "+"},
		{"-5", "-5"},
		{"+1.5", "+1.5"},
		{"-.", "'-."},
		{"-cmd|' /C calc'!A0", "'-cmd|' /C calc'!A0"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"alice", "alice"},
		{"AAAA-BBBB-CCCC", "AAAA-BBBB-CCCC"},
		{"1440", "1440"},
		{"", ""},
		{"a=b", "a=b"},
	} {
		if got := spreadsheet.Cell(tc.in); got != tc.want {
			t.Errorf("Cell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
