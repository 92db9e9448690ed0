// The few Linux calls Swift cannot import directly (variadic, or hidden behind _GNU_SOURCE).
#ifndef BULKHEAD_CSYSTEM_H
#define BULKHEAD_CSYSTEM_H

#include <sys/types.h>

/// Asks the kernel to send `signal` to this process when its parent dies.
int bulkhead_set_parent_death_signal(int signal);

/// A file descriptor that becomes readable when process `pid` exits, or -1.
int bulkhead_pidfd_open(pid_t pid);

/// A file descriptor that becomes readable when thread `tid` of this process has exited,
/// after the kernel has sent the parent-death signals of the children it started
/// (PIDFD_THREAD, Linux 6.9 and later), or -1.
int bulkhead_pidfd_open_thread(pid_t tid);

/// Sends `signal` to the process of a pidfd: never to another process that reused its pid.
int bulkhead_pidfd_send_signal(int descriptor, int signal);

/// The kernel's id of the calling thread.
pid_t bulkhead_thread_id(void);

/// Pins every thread of process `pid` (and the threads and children it starts afterwards) to
/// CPU `cpu`.
int bulkhead_pin_to_cpu(pid_t pid, int cpu);

/// A descriptor that one thread signals to wake another from `poll` (an eventfd), or -1.
int bulkhead_wakeup_create(void);

/// Makes the wakeup descriptor readable.
int bulkhead_wakeup_signal(int descriptor);

/// Makes the wakeup descriptor unreadable again.
int bulkhead_wakeup_clear(int descriptor);

/// How many heap allocations (malloc, calloc, realloc and the aligned ones) the calling thread
/// has made since it started.
unsigned long bulkhead_allocation_count(void);

#endif
