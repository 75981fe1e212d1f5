//go:build race

package nonce

// raceShift reduces the encrypted uniqueness counts 4-fold under the race
// detector, which slows ciphers and sorting ten-fold.
const raceShift = 2
