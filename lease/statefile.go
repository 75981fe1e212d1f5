package lease

import (
	"encoding/json"
	"io"
	"os"
)

// stateFile persists the lease a manager holds (Options.StateFile) so that
// the process can reclaim it after a restart. The file stays open and
// exclusively locked while the manager runs; the lock dies with the
// process, so a crashed holder's file is free for its successor while a
// second live manager is refused. A nil *stateFile does nothing.
type stateFile struct {
	f    *os.File
	path string
}

// stateRecord is the file's content. Token is []byte so that JSON keeps any
// bytes an opaque token holds (base64).
type stateRecord struct {
	Strategy  string `json:"strategy"`
	MachineID int    `json:"machine_id"`
	Token     []byte `json:"token"`
}

func openStateFile(path string) (*stateFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, configError("StateFile: %v", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, configError("StateFile %q is in use by another live manager (%v)", path, err)
	}
	return &stateFile{f: f, path: path}, nil
}

// load returns the lease recorded for strategy, if any.
func (sf *stateFile) load(strategy string) (Lease, bool) {
	if sf == nil {
		return Lease{}, false
	}
	b, err := io.ReadAll(io.NewSectionReader(sf.f, 0, 1<<16))
	if err != nil || len(b) == 0 {
		return Lease{}, false
	}
	var r stateRecord
	if json.Unmarshal(b, &r) != nil || r.Strategy != strategy || len(r.Token) == 0 || r.MachineID < 0 || r.MachineID > maxMachineID {
		return Lease{}, false
	}
	return Lease{MachineID: r.MachineID, Token: string(r.Token)}, true
}

// store records l as held under strategy.
func (sf *stateFile) store(strategy string, l Lease) error {
	if sf == nil {
		return nil
	}
	b, err := json.Marshal(stateRecord{Strategy: strategy, MachineID: l.MachineID, Token: []byte(l.Token)})
	if err != nil {
		return err
	}
	if err := sf.f.Truncate(0); err != nil {
		return err
	}
	if _, err := sf.f.WriteAt(b, 0); err != nil {
		return err
	}
	return sf.f.Sync()
}

// clear forgets the recorded lease.
func (sf *stateFile) clear() error {
	if sf == nil {
		return nil
	}
	if err := sf.f.Truncate(0); err != nil {
		return err
	}
	return sf.f.Sync()
}

// close unlocks and closes the file.
func (sf *stateFile) close() error {
	if sf == nil {
		return nil
	}
	return sf.f.Close()
}
