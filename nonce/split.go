package nonce

import "time"

// Parts are the fields of a 64-bit nonce.
type Parts struct {
	Time      time.Time // the timestamp, in the epoch's location (UTC for the default)
	MachineID int       // 0..511
	Counter   int       // 0..8191
}

// Split64 takes a 64-bit counter or sortable nonce apart; epoch is the
// factory's epoch (zero means the default). Split64 of an encrypted nonce
// is meaningless: decrypt it first.
func Split64(v uint64, epoch time.Time) Parts {
	if epoch.IsZero() {
		epoch = DefaultEpoch()
	}
	return Parts{
		Time:      epoch.Add(time.Duration(v>>tsShift) * time.Millisecond),
		MachineID: int(v >> count64Bits & MaxMachineID),
		Counter:   int(v & count64Mask),
	}
}
