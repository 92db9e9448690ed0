#define _GNU_SOURCE
#include "csystem.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int bulkhead_set_parent_death_signal(int signal) {
  return prctl(PR_SET_PDEATHSIG, signal);
}

int bulkhead_pidfd_open(pid_t pid) {
  return (int)syscall(SYS_pidfd_open, pid, 0);
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

int bulkhead_pidfd_open_thread(pid_t tid) {
  return (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
}

int bulkhead_pidfd_send_signal(int descriptor, int signal) {
  return (int)syscall(SYS_pidfd_send_signal, descriptor, signal, NULL, 0);
}

pid_t bulkhead_thread_id(void) {
  return (pid_t)syscall(SYS_gettid);
}

int bulkhead_lower_thread_priority(void) {
  return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
}

int bulkhead_pin_to_cpu(pid_t pid, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  // Affinity belongs to threads: pin every thread there is; threads and processes started
  // later inherit it from the thread that starts them.
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
  DIR *tasks = opendir(path);
  if (tasks == NULL) return sched_setaffinity(pid, sizeof(set), &set);
  int result = 0;
  struct dirent *entry;
  while ((entry = readdir(tasks)) != NULL) {
    if (entry->d_name[0] == '.') continue;
    if (sched_setaffinity((pid_t)atoi(entry->d_name), sizeof(set), &set) != 0) result = -1;
  }
  closedir(tasks);
  return result;
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

pid_t bulkhead_pidfd_pid(int pidfd) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
  int file = open(path, O_RDONLY | O_CLOEXEC);
  if (file < 0) return -1;
  char text[512];
  ssize_t length;
  do {
    length = read(file, text, sizeof(text) - 1);
  } while (length < 0 && errno == EINTR);
  close(file);
  if (length <= 0) return -1;
  text[length] = 0;
  const char *line = strstr(text, "\nPid:");
  return line == NULL ? -1 : (pid_t)atoi(line + 5);
}

int bulkhead_pipe(int descriptors[2]) {
  return pipe2(descriptors, O_CLOEXEC);
}

int bulkhead_set_limit(pid_t pid, int which, uint64_t soft, uint64_t hard) {
  static const int resources[] = {RLIMIT_DATA, RLIMIT_NOFILE};
  if (which < 0 || which > 1) {
    errno = EINVAL;
    return -1;
  }
  struct rlimit limit = {.rlim_cur = soft, .rlim_max = hard};
  return prlimit(pid, resources[which], &limit, NULL);
}

int bulkhead_epoll_create(void) {
  return epoll_create1(EPOLL_CLOEXEC);
}

int bulkhead_epoll_add(int epoll, int descriptor, uint64_t token) {
  struct epoll_event event = {.events = EPOLLIN | EPOLLRDHUP, .data.u64 = token};
  return epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event);
}

int bulkhead_epoll_remove(int epoll, int descriptor) {
  return epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, NULL);
}

int bulkhead_epoll_arm(int epoll, int descriptor, uint64_t token, int armed) {
  struct epoll_event event = {.events = armed ? EPOLLIN | EPOLLRDHUP : 0, .data.u64 = token};
  return epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event);
}

int bulkhead_epoll_wait(int epoll, uint64_t *tokens, int capacity, int timeout) {
  struct epoll_event events[64];
  int count = epoll_wait(epoll, events, capacity < 64 ? capacity : 64, timeout);
  for (int index = 0; index < count; index++) tokens[index] = events[index].data.u64;
  return count;
}
