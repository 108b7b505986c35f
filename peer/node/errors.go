package node

import "errors"

// ErrConfig: a configuration is refused; the message says which field.
var ErrConfig = errors.New("node: invalid config")
