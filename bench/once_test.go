package bench

func onceGenerate() []impl         { return nil }
func onceGenerateParallel() []impl { return nil }
func onceParse() []impl            { return nil }
func onceFormat() []impl           { return nil }
