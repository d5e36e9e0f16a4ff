package wire

// Problem is an RFC 9457 problem details body, with App Access's stable
// machine code and, for validation errors, the offending fields.
type Problem struct {
	// Type is a URN naming the problem: ProblemTypePrefix and the code.
	Type string `json:"type"`
	// Title is the short, fixed title of the code.
	Title string `json:"title"`
	// Status is the HTTP status of the answer.
	Status int `json:"status"`
	// Detail says what happened, in words safe to show to a user.
	Detail string `json:"detail"`
	// Code is the stable machine-readable reason.
	Code string `json:"code"`
	// Errors lists the invalid fields of a 422 validation_failed answer.
	Errors []FieldError `json:"errors,omitempty"`
}

// FieldError names one invalid input field.
type FieldError struct {
	// Field is the JSON name of the field ("body" for the body itself).
	Field string `json:"field"`
	// Message says what is wrong, to be read after the field's name.
	Message string `json:"message"`
}

// ProblemTypePrefix prefixes every problem type URI; the code follows it.
const ProblemTypePrefix = "urn:app-access:problem:"
