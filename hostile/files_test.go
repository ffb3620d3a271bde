package hostile

// reportFileSection is the doc's part on report and log files; filled in
// by the file cases.
func reportFileSection() string { return "" }
