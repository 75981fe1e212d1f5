package oncebun

import "sync"

// tableFields caches the fields to fill per *schema.Table.
var tableFields sync.Map

// registered holds the *schema.Table values Register has prepared.
var registered sync.Map
