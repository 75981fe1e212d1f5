package main

import "errors"

func worker(args []string) error         { return errors.New("not yet") }
func runSoak(args []string) (int, error) { return 2, errors.New("not yet") }
