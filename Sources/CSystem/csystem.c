#define _GNU_SOURCE
#include "csystem.h"
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int bulkhead_set_parent_death_signal(int signal) {
  return prctl(PR_SET_PDEATHSIG, signal);
}

int bulkhead_pidfd_open(pid_t pid) {
  return (int)syscall(SYS_pidfd_open, pid, 0);
}

int bulkhead_pin_to_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set);
}

int bulkhead_wakeup_create(void) {
  return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

int bulkhead_wakeup_signal(int descriptor) {
  return eventfd_write(descriptor, 1);
}

int bulkhead_wakeup_clear(int descriptor) {
  eventfd_t value;
  return eventfd_read(descriptor, &value);
}
