//go:build desktop && !linux

package main

// releaseFreedHeap does nothing where the C heap is not glibc's.
func releaseFreedHeap() {}
