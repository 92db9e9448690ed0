// Counts heap allocations per thread, so the benchmark can show that an action allocates
// nothing. The allocation functions below stand in for glibc's (the dynamic linker binds
// every library's calls to the executable's definitions first) and hand each request on,
// unchanged, to glibc's own entry points. Frees need no counting and go to glibc directly.
#define _GNU_SOURCE
#include "allocation_counter.h"
#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

// Thread-local, so that other threads' work (the cooperative pool, Dispatch) is not counted.
static __thread unsigned long allocations;

unsigned long bulkhead_allocation_count(void) {
  return allocations;
}

void *malloc(size_t size) {
  allocations += 1;
  return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
  allocations += 1;
  return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
  allocations += 1;
  return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
  allocations += 1;
  return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  allocations += 1;
  return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
  if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  allocations += 1;
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL) return ENOMEM;
  *result = pointer;
  return 0;
}
