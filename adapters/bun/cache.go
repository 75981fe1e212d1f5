package oncebun

import "sync"

// tableFields caches the fields to fill per *schema.Table.
var tableFields sync.Map
