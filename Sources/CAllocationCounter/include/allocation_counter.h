#ifndef ALLOCATION_COUNTER_H
#define ALLOCATION_COUNTER_H

/// How many heap allocations (malloc, calloc, realloc and the aligned ones) the calling thread
/// has made since it started. Linked into the benchmark only: its definitions of malloc and
/// friends stand in for glibc's in the whole process.
unsigned long bulkhead_allocation_count(void);

#endif
