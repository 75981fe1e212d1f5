//go:build !race

package nonce

const raceShift = 0
