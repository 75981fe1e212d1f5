package graph

// Resolver is the root resolver: the users table it reads and writes.
type Resolver struct {
	Store *Store
}
