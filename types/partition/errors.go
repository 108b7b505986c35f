package partition

import "errors"

// ErrSpec: a partition spec that does not parse. engine/data's ErrSpec is
// this same error.
var ErrSpec = errors.New("partition: bad partition spec")
