package sample

// TestOnly is in a test file: neither counted nor checked (helperFunc).
func TestOnly() {}
