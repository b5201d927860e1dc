package vector

import "syscall"

const populateFlag = syscall.MAP_POPULATE
