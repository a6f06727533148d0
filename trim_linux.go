//go:build desktop && linux

package main

/*
#include <malloc.h>
*/
import "C"

// releaseFreedHeap hands the C heap's free pages back to the kernel. GTK and WebKit's UI
// side free a few MiB of start-up buffers that glibc would otherwise keep resident for
// the life of the window.
func releaseFreedHeap() { C.malloc_trim(0) }
