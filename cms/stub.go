package cms

import "errors"

// errNotYet marks what the skeleton of issue 26 has not built yet.
var errNotYet = errors.New("cms: not built yet")
