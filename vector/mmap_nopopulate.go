//go:build unix && !linux

package vector

const populateFlag = 0
