package replay

// HTML renders the report; see report.go.
func HTML(s *Summary) []byte { return renderHTML(s) }
