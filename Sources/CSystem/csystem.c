#define _GNU_SOURCE
#include "csystem.h"
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int bulkhead_set_parent_death_signal(int signal) {
  return prctl(PR_SET_PDEATHSIG, signal);
}

int bulkhead_pidfd_open(pid_t pid) {
  return (int)syscall(SYS_pidfd_open, pid, 0);
}
