package main

// catalogue is every planted lease protocol bug. Each entry's comment says
// what its targeted check saw with the bug planted.
var catalogue = []Bug{
	// --- SQL (lease/sqllease) ---

	// targeted: TestTakeover/postgres: "stale Renew: <nil>; want ErrLost", and the new holder's row was rewritten (lock_version 2 -> 3).
	{
		Name:  "sql-renew-no-token",
		Class: ClassRenew,
		What:  "SQL renewal matches the row by machine ID alone, so a holder whose ID was taken over renews the new holder's row",
		Patch: []Patch{{
			File: "lease/sqllease/queries.go",
			Old:  "p.from(n).next() + ` AND token = ` + p.next()\n\tq.reclaimSeen",
			New:  "p.from(n).next() + ` AND (token = ` + p.next() + ` OR true)`\n\tq.reclaimSeen",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease/sqllease"}, Run: "^TestTakeover$/^postgres$"},
		Coordinator: "postgres",
		SoakBlind:   "a renewal the manager accepts landed inside the holder's window, when no other process could hold the ID; a late one (held in the network past the deadline, applied after another process's claim) only extends that holder's row, since the renewal writes no token, and changes no ID",
	},
	// targeted: TestConcurrentAcquire/postgres: "machine ID handed out twice" (5 times); 417 of 600 won, 0 exhausted.
	{
		Name:  "sql-claim-no-cas",
		Class: ClassClaim,
		What:  "SQL claim updates the candidate row without the compare-and-set (neither lock_version nor the free predicate), so two contenders both win one row",
		Patch: []Patch{{
			File: "lease/sqllease/queries.go",
			Old:  "` AND lock_version = ` + p.next() + ` AND ` + free\n",
			New:  "` AND (lock_version = ` + p.next() + ` OR true)`\n",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease/sqllease"}, Run: "^TestConcurrentAcquire$/^postgres$"},
		Coordinator: "postgres",
	},
	// targeted: TestClaimRereadsRowChangedSinceItsRead: "claim reports PrevExpiry 1970-01-01 00:00:00 +0000 UTC, before the release at 19:39:46.210206 of the holder that claimed the row after its read".
	{
		Name:  "sql-claim-no-lock-version",
		Class: ClassClaim,
		What:  "SQL claim drops the lock_version condition but keeps the free predicate: a row released and freed again since the read is claimed with the stale PrevExpiry of the read, so the hand-off guard waits for the wrong (earlier) expiry",
		Patch: []Patch{{
			File: "lease/sqllease/queries.go",
			Old:  "` AND lock_version = ` + p.next() + ` AND ` + free\n",
			New:  "` AND (lock_version = ` + p.next() + ` OR true) AND ` + free\n",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease/sqllease"}, Run: "^TestClaimRereadsRowChangedSinceItsRead$"},
		Coordinator: "postgres",
		SoakBlind:   "it needs another process to claim and release the row between this claim's read and its write (about a millisecond), and then only shortens the hand-off guard's wait",
	},
	// targeted: TestKillHolder/postgres: "ID 7 handed out ... 991.7ms before its expiry".
	{
		Name:  "sql-free-early",
		Class: ClassFree,
		What:  "PostgreSQL free predicate counts a row as free a second before its expires_at",
		Patch: []Patch{{
			File: "lease/sqllease/queries.go",
			Old:  "c.free = `expires_at < ` + c.now\n\t\tc.returning = true",
			New:  "c.free = `expires_at < ` + c.now + ` + INTERVAL '1 second'`\n\t\tc.returning = true",
		}},
		Targeted:    Check{Dir: "tests", Pkgs: []string{"./faultsuite"}, Run: "^TestKillHolder$/^postgres$"},
		Coordinator: "postgres",
	},
	// targeted: TestTakeover/postgres: the old holder's stale Release freed the new holder's row (Held false).
	{
		Name:  "sql-release-any-holder",
		Class: ClassRelease,
		What:  "SQL release matches the row by machine ID alone, so a stale holder's (or a late) release frees the ID under its new holder",
		Patch: []Patch{{
			File: "lease/sqllease/queries.go",
			Old:  "p.from(0).next() + ` AND token = ` + p.next()\n\tholderCol",
			New:  "p.from(0).next() + ` AND (token = ` + p.next() + ` OR true)`\n\tholderCol",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease/sqllease"}, Run: "^TestTakeover$/^postgres$"},
		Coordinator: "postgres",
	},
	// targeted: TestHandoffForcedFree/postgres: new holder's first timestamp 1.202s below the killed holder's clock at the kill (notBefore 1970 + 1s).
	{
		Name:  "sql-release-drops-evidence",
		Class: ClassRelease,
		What:  "PostgreSQL release (and so lease free --force) sets expires_at to 1970 instead of the database's now, dropping the evidence of when the old holder stopped: the next holder's hand-off guard waits for nothing",
		Patch: []Patch{{
			File: "lease/sqllease/queries.go",
			Old:  "q.release = `UPDATE ` + t + ` SET expires_at = ` + now + `,",
			New:  "q.release = `UPDATE ` + t + ` SET expires_at = '1970-01-01T00:00:00.000000Z',",
		}},
		Targeted:    Check{Dir: "tests", Pkgs: []string{"./faultsuite"}, Run: "^TestHandoffForcedFree$/^postgres$"},
		Coordinator: "postgres",
	},
	// targeted: TestTakeover/postgres: "stale Reclaim: <nil>; want ErrLost"; the new holder's token was replaced and its Renew lost.
	{
		Name:  "sql-reclaim-no-token",
		Class: ClassState,
		What:  "PostgreSQL reclaim takes the row by machine ID alone: a state file's stale token reclaims an ID that another process holds now",
		Patch: []Patch{
			{
				File: "lease/sqllease/queries.go",
				Old:  "` WHERE id = ` + id + ` AND token = ` + token + ` FOR UPDATE) `",
				New:  "` WHERE id = ` + id + ` AND (token = ` + token + ` OR true) FOR UPDATE) `",
			},
			{
				File: "lease/sqllease/queries.go",
				Old:  "` WHERE cur.id = old.id AND cur.token = ` + token +",
				New:  "` WHERE cur.id = old.id AND (cur.token = ` + token + ` OR true)` +",
			},
		},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease/sqllease"}, Run: "^TestTakeover$/^postgres$"},
		Coordinator: "postgres",
	},

	// --- Redis (lease/redislease) ---

	// targeted: TestTakeover/redis8/key: "Renew by A after takeover = <nil>, want ErrLost".
	{
		Name:  "redis-renew-no-token",
		Class: ClassRenew,
		What:  "Redis key-mode renewal extends the key without comparing its value to the token (and reports success for a key that is gone)",
		Patch: []Patch{{
			File: "lease/redislease/scripts/renew.lua",
			Old:  "if redis.call('GET', KEYS[1]) == ARGV[1] then",
			New:  "if true then",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease/redislease"}, Run: "^TestTakeover$/^redis8$/^key$"},
		Coordinator: "redis7",
		SoakBlind:   "a renewal the manager accepts landed inside the holder's window, before its key could expire; a late one (applied after another process's claim) only extends that holder's key, since PEXPIRE writes no token, and changes no ID",
	},
	// targeted: TestTakeover/redis8/hash: "Renew by A after takeover = <nil>, want ErrLost".
	{
		Name:  "redis-hash-renew-no-token",
		Class: ClassRenew,
		What:  "Redis hash-mode renewal rewrites the ID's field with the caller's token without checking that it still holds it",
		Patch: []Patch{{
			File: "lease/redislease/scripts/hash_renew.lua",
			Old:  "if redis.call('HGET', KEYS[1], id) ~= token or\n    redis.call('HEXISTS', KEYS[1], tokenField) == 0 then",
			New:  "if false then",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease/redislease"}, Run: "^TestTakeover$/^redis8$/^hash$"},
		Coordinator: "redis8",
	},
	// targeted: TestContention600/redis8/key: IDs "won twice"; 364 winners, 0 exhausted.
	{
		Name:  "redis-claim-no-nx",
		Class: ClassClaim,
		What:  "Redis key-mode claim SETs the ID's key without NX, overwriting a live holder's key",
		Patch: []Patch{{
			File: "lease/redislease/scripts/acquire.lua",
			Old:  "ARGV[2], 'NX', 'PX', ARGV[3]",
			New:  "ARGV[2], 'PX', ARGV[3]",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease/redislease"}, Run: "^TestContention600$/^redis8$/^key$"},
		Coordinator: "redis7",
	},
	// targeted: TestContention600/redis8/hash: IDs "won twice"; 352 winners, 0 exhausted.
	{
		Name:  "redis-hash-claim-no-check",
		Class: ClassClaim,
		What:  "Redis hash-mode claim writes the ID's field without checking that it is absent, overwriting a live holder",
		Patch: []Patch{{
			File: "lease/redislease/scripts/hash_acquire.lua",
			Old:  "local v = redis.call('HGET', KEYS[1], c)",
			New:  "local v = nil",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease/redislease"}, Run: "^TestContention600$/^redis8$/^hash$"},
		Coordinator: "redis8",
	},
	// targeted: TestEviction/redis8/key/allkeys-lru: "accepted, but 0 of 20 held leases survived; next Acquire: ID 0".
	{
		Name:  "redis-eviction-accepted",
		Class: ClassConfig,
		What:  "redislease accepts every maxmemory eviction policy, including those that can evict held leases",
		Patch: []Patch{{
			File: "lease/redislease/eviction.go",
			Old:  "\t}\n\treturn false\n}",
			New:  "\t}\n\treturn true\n}",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease/redislease"}, Run: "^TestEviction$/^redis8$/^key$/^allkeys-lru$"},
		Coordinator: "redis7",
	},
	// targeted: TestHandoffRelease/redis8-key/hold: new holder's first timestamp 145ms below the old holder's clock when it stopped; 54 of its 54 values inside the old holder's range.
	{
		Name:  "redis-release-no-hold",
		Class: ClassRelease,
		What:  "Redis key-mode release deletes the key at once while the lease still reports a release hold, so the next holder's guard subtracts a hold that was never kept",
		Patch: []Patch{{
			File: "lease/redislease/scripts/release.lua",
			Old:  "if hold > 0 then",
			New:  "if false then",
		}},
		Targeted:    Check{Dir: "tests", Pkgs: []string{"./faultsuite"}, Run: "^TestHandoffRelease$/^redis8-key$/^hold$"},
		Coordinator: "redis7",
	},

	// targeted: TestLeasetest/redis8/key/Reclaim: "second Reclaim of the same record: <nil>, want driver.ErrLost".
	{
		Name:  "redis-reclaim-no-token",
		Class: ClassState,
		What:  "Redis key-mode reclaim replaces any holder's token: a state file's stale record takes an ID that another process holds now",
		Patch: []Patch{{
			File: "lease/redislease/scripts/reclaim.lua",
			Old:  "if v == ARGV[1] then",
			New:  "if v then",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease/redislease"}, Run: "^TestLeasetest$/^redis8$/^key$/^Reclaim$"},
		Coordinator: "redis7",
	},

	// targeted: TestHandoffRelease/redis8-hash/hold: new holder's first timestamp 97ms below the old holder's clock when it stopped; 22 of its 54 values inside the old holder's range.
	{
		Name:  "redis-hash-release-no-hold",
		Class: ClassRelease,
		What:  "Redis hash-mode release deletes the ID's fields at once while the lease still reports a release hold, so the next holder's guard subtracts a hold that was never kept",
		Patch: []Patch{{
			File: "lease/redislease/scripts/hash_release.lua",
			Old:  "if tonumber(ARGV[3]) > 0 then",
			New:  "if false then",
		}},
		Targeted:    Check{Dir: "tests", Pkgs: []string{"./faultsuite"}, Run: "^TestHandoffRelease$/^redis8-hash$/^hold$"},
		Coordinator: "redis8",
	},

	// --- etcd (lease/etcdlease) ---

	// targeted: etcdlease TestContention600: dozens of IDs "won twice".
	{
		Name:  "etcd-claim-no-create-revision",
		Class: ClassClaim,
		What:  "etcd claim puts the ID's key unconditionally (no CreateRevision == 0 compare), overwriting a live holder's key",
		Patch: []Patch{{
			File: "lease/etcdlease/strategy.go",
			Old:  "If(clientv3.Compare(clientv3.CreateRevision(key), \"=\", 0)).",
			New:  "If().",
		}},
		Targeted:    Check{Dir: "lease/etcdlease", Pkgs: []string{"."}, Run: "^TestContention600$"},
		Coordinator: "etcd",
	},
	// targeted: etcdlease TestRenewLost/key_overwritten: "Renew: <nil>, want ErrLost".
	{
		Name:  "etcd-renew-no-token",
		Class: ClassRenew,
		What:  "etcd renewal accepts the ID's key whatever token it holds, and keeps alive the etcd lease of whoever holds it now",
		Patch: []Patch{{
			File: "lease/etcdlease/strategy.go",
			Old:  "case string(r.Kvs[0].Value) != token:",
			New:  "case len(token) < 0:",
		}},
		Targeted:    Check{Dir: "lease/etcdlease", Pkgs: []string{"."}, Run: "^TestRenewLost$"},
		Coordinator: "etcd",
		SoakBlind:   "a renewal the manager accepts landed inside the holder's window, when no other process could hold the ID; a late one (applied after another process's claim) only keeps that holder's etcd lease alive, and changes no ID",
	},
	// targeted: etcdlease TestLeasetest/Lifecycle: "Renew(machine ID 256, 2s): ... etcd lease not found (expired or revoked)": renewals did not extend it. tests/etcd/faults TestKillHolder and TestPartitionShort pass with it.
	{
		Name:  "etcd-ttl-not-refreshed",
		Class: ClassRenew,
		What:  "etcd renewal reads the etcd lease's granted TTL instead of sending a keep-alive: the manager trusts a renewal that never extended the lease",
		Patch: []Patch{{
			File: "lease/etcdlease/strategy.go",
			Old:  "\tclientv3 \"go.etcd.io/etcd/client/v3\"\n",
			New:  "\t\"go.etcd.io/etcd/api/v3/v3rpc/rpctypes\"\n\tclientv3 \"go.etcd.io/etcd/client/v3\"\n",
		}, {
			File: "lease/etcdlease/strategy.go",
			Old:  "return s.c.KeepAliveOnce(rctx, lid)",
			New:  "r, err := s.c.TimeToLive(rctx, lid)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tif r.TTL <= 0 {\n\t\treturn nil, rpctypes.ErrLeaseNotFound\n\t}\n\treturn &clientv3.LeaseKeepAliveResponse{ID: lid, TTL: r.GrantedTTL}, nil",
		}},
		Targeted:    Check{Dir: "lease/etcdlease", Pkgs: []string{"."}, Run: "^TestLeasetest$/^Lifecycle$"},
		Coordinator: "etcd",
	},

	// targeted: etcdlease TestLeasetest/Lifecycle: after the old holder's stale Release the new holder's Renew says "the key holds another token: lease: lost".
	{
		Name:  "etcd-release-any-holder",
		Class: ClassRelease,
		What:  "etcd release replaces the ID's key whatever token it holds, so a stale holder's release takes the ID from its new holder",
		Patch: []Patch{{
			File: "lease/etcdlease/release.go",
			Old:  "clientv3.Compare(clientv3.Value(key), \"=\", token),\n",
			New:  "clientv3.Compare(clientv3.Value(key), \"!=\", token+\"\\x00\"),\n",
		}},
		Targeted:    Check{Dir: "lease/etcdlease", Pkgs: []string{"."}, Run: "^TestLeasetest$/^Lifecycle$"},
		Coordinator: "etcd",
	},

	// --- Kubernetes (lease/k8slease) ---

	// targeted: TestJudge: "9s of 10: {free:true left:0}" and "renewed record 6s after: {free:true left:0}".
	{
		Name:  "k8s-expiry-early",
		Class: ClassExpiry,
		What:  "k8slease judges a Lease expired after half its leaseDurationSeconds of unchanged resourceVersion",
		Patch: []Patch{{
			File: "lease/k8slease/observe.go",
			Old:  "left := first.Add(d).Sub(now)",
			New:  "left := first.Add(d / 2).Sub(now)",
		}},
		Targeted:    Check{Dir: "lease/k8slease", Pkgs: []string{"."}, Run: "^TestJudge$"},
		Coordinator: "kubernetes",
	},
	// targeted: TestFreeKeepsEvidence: "after an operator's release the next holder starts after 18:50:48.40, 1h0m59.986s below the gone holder's evidence".
	{
		Name:  "k8s-free-drops-evidence",
		Class: ClassRelease,
		What:  "k8slease's forced free (lease free --force of a holder that is gone) replaces the holder's timestamp bound by the freer's clock, dropping the evidence the next holder's guard needs",
		Patch: []Patch{{
			File: "lease/k8slease/record.go",
			Old:  "setTime(rec, AnnotationTimestampsBefore, evidence(rec))\n}",
			New:  "setTime(rec, AnnotationTimestampsBefore, now)\n}",
		}},
		Targeted:    Check{Dir: "lease/k8slease", Pkgs: []string{"."}, Run: "^TestFreeKeepsEvidence$"},
		Coordinator: "kubernetes",
	},
	// targeted: TestTakeoverYieldsToLateWrite: "takeover with a renewal after its judgement: <nil>, want ErrConflict (the renewal must not be overwritten)"; "holder after the race: pod-b/…, want the renewing holder pod-a/…" (and the same for a contender's claim of a released Lease). TestProcessRace600 and TestContendLastIDs pass with it. (A plainly unconditional update is no plant: the API server refuses a Lease update without resourceVersion, "must be specified for an update".)
	{
		Name:  "k8s-claim-no-resource-version",
		Class: ClassClaim,
		What:  "k8slease takes over a released or expired Lease conditioned on the resourceVersion it reads just before the update, not the one it judged, so a renewal or a contender that slipped in is overwritten",
		Patch: []Patch{{
			File: "lease/k8slease/strategy.go",
			Old:  "next := rec.DeepCopy()\n\ts.takeOver(next, identity, secs, now)\n",
			New:  "next := rec.DeepCopy()\n\tif cur, err := s.leases.Get(rctx, s.name(id), metav1.GetOptions{}); err == nil {\n\t\tnext.ResourceVersion = cur.ResourceVersion\n\t}\n\ts.takeOver(next, identity, secs, now)\n",
		}},
		Targeted:    Check{Dir: "lease/k8slease", Pkgs: []string{"."}, Run: "^TestTakeoverYieldsToLateWrite$"},
		Coordinator: "kubernetes",
	},
	// targeted: TestLayout: "old holder's Renew: <nil>, want ErrLost naming pod-b".
	{
		Name:  "k8s-renew-no-identity",
		Class: ClassRenew,
		What:  "k8slease rewrites (renews, reclaims, releases) a Lease held by another identity",
		Patch: []Patch{{
			File: "lease/k8slease/renew.go",
			Old:  "case h != identity:",
			New:  "case h == \"\\x00\":",
		}},
		Targeted:    Check{Dir: "lease/k8slease", Pkgs: []string{"."}, Run: "^TestLayout$"},
		Coordinator: "kubernetes",
	},

	// --- The manager (lease) ---

	// targeted: TestWindowCountsFromRequest: "deadline 7h59m55s after the request when the reply took 5s, 7h59m50s when it came at once" (faultsuite TestKillHolder/postgres caught it in 2 of 3 runs only: a local reply takes ~3ms, its check allows 2ms).
	{
		Name:  "window-from-reply",
		Class: ClassExpiry,
		What:  "the manager measures a grant's or renewal's safe window from its reply instead of from when the request was sent",
		Patch: []Patch{{
			File: "lease/call.go",
			Old:  "o.sent, o.took = sent, time.Since(sent)",
			New:  "o.sent, o.took = time.Now(), time.Since(sent)",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease"}, Run: "^TestWindowCountsFromRequest$"},
		Coordinator: "postgres",
	},
	// targeted: TestHandoffSkew/postgres: new holder's first timestamp 1.165s below the old holder's last possible one; values repeated (46 faults).
	{
		Name:  "handoff-guard-off",
		Class: ClassHandoff,
		What:  "the manager activates a fresh lease without the hand-off guard (notBefore from PrevExpiry / CoordinatorNow ignored)",
		Patch: []Patch{{
			File: "lease/acquire.go",
			Old:  "notBefore = handoffNotBefore(l, time.Now(), m.o.HandoffSkew, m.tm.margin)",
			New:  "_ = handoffNotBefore",
		}},
		Targeted:    Check{Dir: "tests", Pkgs: []string{"./faultsuite"}, Run: "^TestHandoffSkew$/^postgres$"},
		Coordinator: "postgres",
	},
	// targeted: TestHandoffSkew/postgres: new holder's first timestamp 894ms below the old holder's last possible one; values repeated (45 faults).
	{
		Name:  "handoff-no-skew",
		Class: ClassHandoff,
		What:  "the hand-off guard waits for PrevExpiry alone, without HandoffSkew",
		Patch: []Patch{{
			File: "lease/timing.go",
			Old:  "return l.PrevExpiry.Add(skew)",
			New:  "return l.PrevExpiry",
		}},
		Targeted:    Check{Dir: "tests", Pkgs: []string{"./faultsuite"}, Run: "^TestHandoffSkew$/^postgres$"},
		Coordinator: "postgres",
	},
	// targeted: TestReclaimNeverRepeatsPreviousIncarnation: new incarnation's first timestamp .002 while the old one emitted up to .802 (coordinator-clock and boot-clock cases).
	{
		Name:  "reclaim-guard-off",
		Class: ClassHandoff,
		What:  "the manager activates a lease reclaimed from the state file without the reclaim guard, so the restarted process may repeat its previous incarnation's timestamps",
		Patch: []Patch{{
			File: "lease/acquire.go",
			Old:  "notBefore = reclaimNotBefore(l, time.Now(), m.o.HandoffSkew, m.state.clockBound())",
			New:  "_ = reclaimNotBefore",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease"}, Run: "^TestReclaimNeverRepeatsPreviousIncarnation$"},
		Coordinator: "postgres",
		SoakBlind:   "the reclaim guard matters after a wall-clock step between two incarnations that both the manager and the factory see; the soak's processes share the host's clock and its offsets are the factories' alone",
	},
	// targeted: tests/guard TestHandoffTimestamps/postgres: "successor's first timestamp 18:07:19.829 is not after its predecessor's last 18:07:19.871".
	{
		Name:  "guard-lease-unguarded",
		Class: ClassHandoff,
		What:  "the manager treats every deterministic strategy as a fixed ID, so a guardlease lease (which a coordinator hands over) gets no hand-off guard",
		Patch: []Patch{{
			File: "lease/acquire.go",
			Old:  "return s.Deterministic() && l.PrevExpiry.IsZero()",
			New:  "return s.Deterministic() || false && l.PrevExpiry.IsZero()",
		}},
		Targeted:    Check{Dir: "tests", Pkgs: []string{"./guard"}, Run: "^TestHandoffTimestamps$/^postgres$"},
		Coordinator: "guard",
	},
	// targeted: TestTimingFormulas: "safe(2s) = 2s, want 1.8s" (every case).
	{
		Name:  "no-safety-margin",
		Class: ClassExpiry,
		What:  "the manager trusts a lease for its whole TTL (no safety margin subtracted)",
		Patch: []Patch{{
			File: "lease/timing.go",
			Old:  "func (tm timing) safe(ttl time.Duration) time.Duration { return ttl - tm.margin }",
			New:  "func (tm timing) safe(ttl time.Duration) time.Duration { return ttl }",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease"}, Run: "^TestTimingFormulas$"},
		Coordinator: "postgres",
	},
	// targeted: TestLossPaths: "factories never disabled" on all four loss paths.
	{
		Name:  "running-after-loss",
		Class: ClassDeadline,
		What:  "on a loss the manager leaves the factories enabled (it disables them only on Close)",
		Patch: []Patch{{
			File: "lease/manager.go",
			Old:  "func (m *Manager) loseLocked(p phase, reason error) {\n\tm.fs.disable()",
			New:  "func (m *Manager) loseLocked(p phase, reason error) {\n\tif p != lost {\n\t\tm.fs.disable()\n\t}",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease"}, Run: "^TestLossPaths$"},
		Coordinator: "postgres",
	},
	// targeted: TestCloseDisablesBeforeRelease: "Close released the lease before it disabled the factories" (faultsuite TestHandoffRelease/postgres passed with it: 50ms headroom).
	{
		Name:  "release-before-disable",
		Class: ClassRelease,
		What:  "Close releases the lease before it disables the factories, which keep generating while a new holder may take the ID",
		Patch: []Patch{
			{
				File: "lease/manager.go",
				Old:  "m.loseLocked(closed, ErrClosed)\n\tm.mu.Unlock()\n\tm.stop(ErrClosed)",
				New:  "m.mu.Unlock()\n\tm.stop(ErrClosed)",
			},
			{
				File: "lease/manager.go",
				Old:  "\tm.mu.Lock()\n\tm.loseLocked(closed, ErrClosed)\n\tm.mu.Unlock()\n\tvar err error\n\tif m.owed {\n\t\tm.owed = false\n\t\terr = m.release(m.cur, sourceShutdown)\n\t}\n",
				New:  "\tvar err error\n\tif m.owed {\n\t\tm.owed = false\n\t\terr = m.release(m.cur, sourceShutdown)\n\t}\n\tm.mu.Lock()\n\tm.loseLocked(closed, ErrClosed)\n\tm.mu.Unlock()\n",
			},
		},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease"}, Run: "^TestCloseDisablesBeforeRelease$"},
		Coordinator: "postgres",
	},
	// targeted: TestRenewHangsPastDeadline: "manager disabled the factories at -2562047h47m16s, want exactly at the deadline" (never).
	{
		Name:  "unbounded-call",
		Class: ClassDeadline,
		What:  "the manager waits for a strategy call without the deadline of the lease's safe window: a hung renewal holds the manager past it",
		Patch: []Patch{{
			File: "lease/call.go",
			Old:  "cctx, cancel := withDeadline(ctx, deadline)",
			New:  "cctx, cancel := withDeadline(ctx, time.Time{})",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease"}, Run: "^TestRenewHangsPastDeadline$"},
		Coordinator: "postgres",
	},
	// targeted: TestOptionsValidation: "Start(LeaseDuration 1m, RenewInterval 50s) = <nil>, want ErrConfig".
	{
		Name:  "renew-interval-unchecked",
		Class: ClassConfig,
		What:  "Start accepts a RenewInterval at or above LeaseDuration minus the margin, so the lease expires between renewals",
		Patch: []Patch{{
			File: "lease/options.go",
			Old:  "if o.RenewInterval >= o.LeaseDuration-tm.margin {",
			New:  "if o.RenewInterval >= o.LeaseDuration+tm.margin*1000 {",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease"}, Run: "^TestOptionsValidation$"},
		Coordinator: "postgres",
	},

	// targeted: TestOptionsValidation: "HandoffSkew:-1s ... = <nil>, want ErrConfig \"HandoffSkew -1s is outside\"".
	{
		Name:  "negative-skew-accepted",
		Class: ClassConfig,
		What:  "Start accepts a negative HandoffSkew, which moves every hand-off guard before the previous holder's last timestamp",
		Patch: []Patch{{
			File: "lease/options.go",
			Old:  "case o.HandoffSkew < 0 || o.HandoffSkew > maxHandoffSkew:",
			New:  "case o.HandoffSkew > maxHandoffSkew:",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease"}, Run: "^TestOptionsValidation$"},
		Coordinator: "postgres",
	},

	// --- The state file (lease) ---

	// targeted: TestStateFileCopyOfLiveManagerNotReclaimed: "the copy's manager holds machine ID 0; machine ID 0's token changed: true".
	{
		Name:  "statefile-reclaim-copy",
		Class: ClassState,
		What:  "the state file's record is reclaimed without proof that its writer stopped: a copy of a live holder's file takes over its machine ID",
		Patch: []Patch{{
			File: "lease/holder.go",
			Old:  "case r.File.Ino != 0 && r.File == f:",
			New:  "case r.File.Ino != 0 || r.File == f:",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease"}, Run: "^TestStateFileCopyOfLiveManagerNotReclaimed$"},
		Coordinator: "postgres",
	},
	// targeted: TestJudge: another_host, same_file_from_another_boot_(a_cloned_disk) and copy_from_another_boot judged reclaimable. TestStateFileFromAnotherHostNotReclaimed passes with it (its record names no writer file or process).
	{
		Name:  "statefile-other-host",
		Class: ClassState,
		What:  "a state file written on another host or before a reboot is reclaimed",
		Patch: []Patch{
			{File: "lease/holder.go", Old: "case r.Host != self.host:", New: "case r.Host == \"\\x00\":"},
			{File: "lease/holder.go", Old: "case r.BootID != self.boot:", New: "case r.BootID == \"\\x00\":"},
		},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease"}, Run: "^TestJudge$"},
		Coordinator: "postgres",
	},

	// --- The factory (nonce) ---

	// targeted: nonce TestDeadlineTimer: "Counter64: err = <nil>, want ErrDisabled".
	{
		Name:  "factory-no-deadline-timer",
		Class: ClassDeadline,
		What:  "the factory arms no deadline timer: Counter64's fast path keeps generating past the deadline while the manager waits for a hung call",
		Patch: []Patch{{
			File: "nonce/lifecycle.go",
			Old:  "f.timer = time.AfterFunc(validUntil.Sub(now), func() { f.onDeadline(st, seq) })",
			New:  "_ = seq",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./nonce"}, Run: "^TestDeadlineTimer$"},
		Coordinator: "postgres",
	},
	// targeted: nonce TestExpiryDetectedByGenerators: Sortable64 and Counter64's slow path succeed past the deadline.
	{
		Name:  "factory-ignores-deadline",
		Class: ClassDeadline,
		What:  "the factory stores no deadline for a lease (Activate/Extend/Enable's validUntil ignored), so it generates until disabled",
		Patch: []Patch{{
			File: "nonce/lifecycle.go",
			Old:  "st.deadline.Store(int64(validUntil.Sub(st.baseT)))",
			New:  "st.deadline.Store(noDeadline)",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./nonce"}, Run: "^TestExpiryDetectedByGenerators$"},
		Coordinator: "postgres",
	},
	// targeted: TestHandoffGuardRealFactory: "first timestamp 00:00:00, previous holder's expiry + skew 00:00:03".
	{
		Name:  "factory-ignores-notbefore",
		Class: ClassHandoff,
		What:  "Activate ignores the hand-off bound notBefore: the first timestamp is the clock's",
		Patch: []Patch{{
			File: "nonce/lifecycle.go",
			Old:  "if !notBefore.IsZero() {",
			New:  "if false {",
		}},
		Targeted:    Check{Dir: ".", Pkgs: []string{"./lease"}, Run: "^TestHandoffGuardRealFactory$"},
		Coordinator: "postgres",
	},
}
