// A worker template ("zygote"): a process that has loaded a worker's code once and forks a
// new worker for each request from its host, so that workers start without exec and share
// the template's pages copy-on-write. See `WorkerTemplate` (the host's side) and
// `TemplateRole` (the template's Swift side).
#define _GNU_SOURCE
#include "csystem.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

enum { maximum_descriptors = 8 };

ssize_t bulkhead_send_with_descriptors(int connection, const void *bytes, size_t length,
                                       const int *descriptors, int count) {
  if (count < 0 || count > maximum_descriptors) {
    errno = EINVAL;
    return -1;
  }
  struct iovec part = {.iov_base = (void *)bytes, .iov_len = length};
  union {
    char buffer[CMSG_SPACE(sizeof(int) * maximum_descriptors)];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof(control));
  struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1};
  if (count > 0) {
    message.msg_control = control.buffer;
    message.msg_controllen = CMSG_SPACE(sizeof(int) * count);
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * count);
    memcpy(CMSG_DATA(header), descriptors, sizeof(int) * count);
  }
  ssize_t sent;
  do {
    sent = sendmsg(connection, &message, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  return sent;
}

ssize_t bulkhead_receive_with_descriptors(int connection, void *bytes, size_t capacity,
                                          int *descriptors, int maximum, int *count) {
  *count = 0;
  struct iovec part = {.iov_base = bytes, .iov_len = capacity};
  union {
    char buffer[CMSG_SPACE(sizeof(int) * maximum_descriptors)];
    struct cmsghdr align;
  } control;
  struct msghdr message = {
      .msg_iov = &part, .msg_iovlen = 1, .msg_control = control.buffer, .msg_controllen = sizeof(control.buffer)};
  ssize_t received;
  do {
    received = recvmsg(connection, &message, MSG_CMSG_CLOEXEC);
  } while (received < 0 && errno == EINTR);
  if (received < 0) return -1;
  for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    int arrived = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    int *data = (int *)CMSG_DATA(header);
    for (int index = 0; index < arrived; index++) {
      // More than the caller takes: closed here, so that none is left open unseen.
      if (*count < maximum) descriptors[(*count)++] = data[index];
      else close(data[index]);
    }
  }
  if (message.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) {
    for (int index = 0; index < *count; index++) close(descriptors[index]);
    *count = 0;
    errno = EMSGSIZE;
    return -1;
  }
  return received;
}

int bulkhead_child_wait(int pidfd, pid_t pid, int reap, int *exited, int *status) {
  siginfo_t info;
  memset(&info, 0, sizeof(info));
  int options = WEXITED | __WALL | (reap ? 0 : WNOWAIT);
  int result;
  do {
    result = pidfd >= 0 ? waitid((idtype_t)3 /* P_PIDFD */, (id_t)pidfd, &info, options)
                        : waitid(P_PID, (id_t)pid, &info, options);
  } while (result < 0 && errno == EINTR);
  if (result < 0) return -1;
  *exited = info.si_code == CLD_EXITED;
  *status = info.si_status;
  return 0;
}

/// The number of threads of this process, from /proc/self/task; -1 if it cannot be read.
static int thread_count(void) {
  DIR *tasks = opendir("/proc/self/task");
  if (tasks == NULL) return -1;
  int count = 0;
  struct dirent *entry;
  while ((entry = readdir(tasks)) != NULL) {
    if (entry->d_name[0] != '.') count++;
  }
  closedir(tasks);
  return count;
}

struct template_server {
  int connection;
  int input;
  bulkhead_template_child child;
  void *context;
  int result;
  /// Whether the template has been seen with only its two threads, after which it cannot
  /// have more: a thread is started only by another of the same process, and neither of
  /// these starts one (the main thread waits in pthread_join, this one runs the loop below,
  /// and the code of each child runs in the new process only).
  int is_down_to_two_threads;
};

/// Answers a request: a status, a detail, and the new worker's pidfd when it started.
static void reply(int connection, int32_t status, int32_t detail, int pidfd) {
  int32_t answer[2] = {status, detail};
  (void)bulkhead_send_with_descriptors(connection, answer, sizeof(answer), &pidfd, pidfd >= 0 ? 1 : 0);
}

/// Names this process a forked worker in its command line (/proc/PID/cmdline, which `ps` and
/// `pgrep -f` read): the template's flag, `--bulkhead-zygote`, is overwritten in place with
/// `--bulkhead-forked`, of the same length, so that a worker is not taken for the template.
static void rename_as_worker(void) {
  static const char template_flag[] = "--bulkhead-zygote";
  static const char worker_flag[] = "--bulkhead-forked";
  _Static_assert(sizeof(template_flag) == sizeof(worker_flag), "the flags must have the same length");
  extern char *program_invocation_name;
  // The arguments lie one after another in memory, each ending in NUL.
  char *argument = program_invocation_name;
  for (int index = 0; index < 4 && argument != NULL; index++) {
    if (strcmp(argument, template_flag) == 0) {
      memcpy(argument, worker_flag, sizeof(worker_flag));
      return;
    }
    argument += strlen(argument) + 1;
  }
}

/// Becomes a worker: joins the cgroups whose `tasks` files came after the request's first
/// descriptors, takes those as standard input, output and error and as its connections
/// (descriptors 3 and 4, closed on exec), closes every other descriptor the template had, and
/// runs the child's code, which never returns. Runs in the new process, on its only thread.
static void become_worker(struct template_server *server, const int *descriptors, int received, const char *request,
                          struct robust_list_head *robust, size_t robust_length) {
  // What glibc's fork does in the child besides the clone itself: the kernel forgets the
  // robust-futex list of a new process. (The thread id glibc keeps is written by the kernel,
  // CLONE_CHILD_SETTID; the pid is not cached by glibc since 2.25.)
  if (robust != NULL) syscall(SYS_set_robust_list, robust, robust_length);
  // A new process may run before its parent, on its processor: the template answers its host
  // first, and is free to fork the next worker while this one starts (its launch is waiting
  // for it already, unless it has limits).
  sched_yield();
  enum { count = bulkhead_template_request_descriptors };
  // Writing "0" moves the writing thread, the process's only one: the worker is in its groups
  // before it runs any code of its own, and one that cannot join them never runs at all.
  for (int index = count; index < received; index++) {
    if (write(descriptors[index], "0", 1) != 1) _exit(72);
  }
  // Moved above their places first: one may arrive as another's place (3 or 4).
  int moved[count];
  for (int index = 0; index < count; index++) {
    moved[index] = fcntl(descriptors[index], F_DUPFD_CLOEXEC, count);
    if (moved[index] < 0) _exit(71);
  }
  for (int target = 0; target < count; target++) {
    // Standard input, output and error stay open in what the worker executes; its
    // connections do not.
    if (dup3(moved[target], target, target < 3 ? 0 : O_CLOEXEC) < 0) _exit(71);
  }
  if (syscall(SYS_close_range, count, ~0U, 0) != 0) {
    for (int descriptor = count; descriptor < 65536; descriptor++) close(descriptor);
  }
  rename_as_worker();
  server->child(server->context, request);
  _exit(70);
}

/// Forks one worker for `request`, with `descriptors` (standard input, output and error, and
/// its connections) as its own, in the cgroups whose `tasks` files follow them (`received`
/// descriptors in all), and with the template's parent as its parent (CLONE_PARENT): the host
/// reaps it, sees it exit through the pidfd, and its parent-death signal follows the host.
static void fork_worker(struct template_server *server, const int *descriptors, int received, const char *request,
                        int *tid_address, struct robust_list_head *robust, size_t robust_length) {
  // The main thread waits in pthread_join and this one: anything more (a Dispatch or Swift
  // concurrency thread started by the app's code) may hold a lock the new worker would
  // never see released. Counted until there are two, which stay two.
  if (!server->is_down_to_two_threads) {
    int threads = thread_count();
    if (threads != 2) {
      reply(server->connection, bulkhead_template_too_many_threads, threads, -1);
      return;
    }
    server->is_down_to_two_threads = 1;
  }
  if (tid_address == NULL) {
    reply(server->connection, bulkhead_template_no_thread_address, 0, -1);
    return;
  }
  fflush(NULL);
  int pidfd = -1;
  struct clone_args arguments;
  memset(&arguments, 0, sizeof(arguments));
  arguments.flags = CLONE_PARENT | CLONE_PIDFD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID;
  arguments.pidfd = (uint64_t)(uintptr_t)&pidfd;
  arguments.child_tid = (uint64_t)(uintptr_t)tid_address;
  // The new worker signals its parent (the host) as the template does, SIGCHLD; clone3 takes
  // no signal of its own with CLONE_PARENT.
  arguments.exit_signal = 0;
  long pid = syscall(SYS_clone3, &arguments, sizeof(arguments));
  if (pid == 0) become_worker(server, descriptors, received, request, robust, robust_length);
  if (pid < 0) {
    reply(server->connection, bulkhead_template_fork_failed, errno, -1);
    return;
  }
  reply(server->connection, bulkhead_template_started, (int32_t)pid, pidfd);
  close(pidfd);
}

static void *serve_requests(void *raw) {
  struct template_server *server = raw;
  // Where glibc keeps this thread's id, which the kernel clears when the thread exits: the
  // new worker's copy of it must hold the worker's own id.
  int *tid_address = NULL;
  if (prctl(PR_GET_TID_ADDRESS, &tid_address) != 0) tid_address = NULL;
  struct robust_list_head *robust = NULL;
  size_t robust_length = 0;
  if (syscall(SYS_get_robust_list, 0, &robust, &robust_length) != 0) robust = NULL;
  char request[bulkhead_template_request_limit + 1];
  // The host asks nothing before this: whatever it sent earlier could have been read with
  // the handshake, and its descriptors lost.
  reply(server->connection, bulkhead_template_ready, 0, -1);
  for (;;) {
    struct pollfd watched[2] = {{.fd = server->connection, .events = POLLIN}, {.fd = server->input, .events = POLLIN}};
    if (poll(watched, 2, -1) < 0) {
      if (errno == EINTR) continue;
      server->result = -1;
      return NULL;
    }
    // Input ends (or anything arrives on it) when the host lets the template go.
    if (watched[1].revents != 0) return NULL;
    if (watched[0].revents == 0) continue;
    enum { most = bulkhead_template_request_descriptors + bulkhead_template_join_descriptors };
    int descriptors[most];
    int count = 0;
    ssize_t length = bulkhead_receive_with_descriptors(server->connection, request, bulkhead_template_request_limit,
                                                       descriptors, most, &count);
    if (length == 0) return NULL;
    if (length < 0) {
      if (errno == EMSGSIZE) {
        reply(server->connection, bulkhead_template_bad_request, 0, -1);
        continue;
      }
      server->result = -1;
      return NULL;
    }
    request[length] = 0;
    if (count >= bulkhead_template_request_descriptors && memchr(request, 0, (size_t)length) == NULL) {
      fork_worker(server, descriptors, count, request, tid_address, robust, robust_length);
    } else {
      reply(server->connection, bulkhead_template_bad_request, count, -1);
    }
    for (int index = 0; index < count; index++) close(descriptors[index]);
  }
}

int bulkhead_template_serve(int connection, int input, bulkhead_template_child child, void *context) {
  struct template_server server = {
      .connection = connection, .input = input, .child = child, .context = context, .result = 0};
  pthread_t thread;
  int failed = pthread_create(&thread, NULL, serve_requests, &server);
  if (failed != 0) {
    errno = failed;
    return -1;
  }
  pthread_join(thread, NULL);
  return server.result;
}
