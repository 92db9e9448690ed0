// The few Linux calls Swift cannot import directly (variadic, or hidden behind _GNU_SOURCE).
#ifndef BULKHEAD_CSYSTEM_H
#define BULKHEAD_CSYSTEM_H

#include <stddef.h>
#include <stdint.h>
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

/// Gives the calling thread the lowest priority (nice 19); 0, or -1 with errno set. On Linux a
/// thread's nice value is its own.
int bulkhead_lower_thread_priority(void);

/// Pins every thread of process `pid` (and the threads and children it starts afterwards) to
/// CPU `cpu`.
int bulkhead_pin_to_cpu(pid_t pid, int cpu);

/// The resource limits a host sets on a worker (`bulkhead_set_limit`).
enum { bulkhead_limit_data = 0, bulkhead_limit_files = 1 };

/// Sets the soft and hard limit of `which` (a `bulkhead_limit_*`) for process `pid` (prlimit):
/// 0, or -1 with errno.
int bulkhead_set_limit(pid_t pid, int which, uint64_t soft, uint64_t hard);

/// The pid of the process `pidfd` refers to (the `Pid:` line of its fdinfo), or -1.
pid_t bulkhead_pidfd_pid(int pidfd);

/// A pipe whose ends are closed in programs this process executes (pipe2 with O_CLOEXEC).
int bulkhead_pipe(int descriptors[2]);

/// A descriptor that one thread signals to wake another from `poll` (an eventfd), or -1.
int bulkhead_wakeup_create(void);

/// Makes the wakeup descriptor readable.
int bulkhead_wakeup_signal(int descriptor);

/// Makes the wakeup descriptor unreadable again.
int bulkhead_wakeup_clear(int descriptor);

/// The CRC-32C of `count` bytes, continuing from `crc` (0 to begin).
uint32_t bulkhead_crc32c(uint32_t crc, const void *bytes, size_t count);

// .. Worker templates (template.c) ..........................................................

/// The longest request a worker template takes, in bytes.
enum { bulkhead_template_request_limit = 1024 };

/// The descriptors that come with a request, in this order: the new worker's standard input,
/// output and error, then its two connections to the host, which it finds as descriptors
/// `bulkhead_template_control_descriptor` and `bulkhead_template_effects_descriptor`. Up to
/// `bulkhead_template_join_descriptors` more may follow: each a cgroup v1 `tasks` file open for
/// writing, which the new worker joins itself, as its first act, by writing "0" to it (a task
/// moving itself alone skips the kernel's global lock that moving another process takes).
enum {
  bulkhead_template_request_descriptors = 5,
  bulkhead_template_join_descriptors = 2,
  bulkhead_template_control_descriptor = 3,
  bulkhead_template_effects_descriptor = 4,
};

/// How a worker template answers a request: the status, then a detail (the new worker's pid,
/// an errno, or a count), and the new worker's pidfd with `bulkhead_template_started`.
enum {
  bulkhead_template_started = 0,
  bulkhead_template_fork_failed = 1,
  bulkhead_template_too_many_threads = 2,
  bulkhead_template_no_thread_address = 3,
  bulkhead_template_bad_request = 4,
  /// The first answer, unasked: the template is ready for requests.
  bulkhead_template_ready = 5,
};

/// Runs in each worker a template forks, on its only thread, with the request's text. Must
/// not return.
typedef void (*bulkhead_template_child)(void *context, const char *request);

/// Serves a host's requests on `connection` until it closes, or `input` ends: for each, forks
/// a worker whose parent is the template's parent, hands it the descriptors that came with the
/// request (`bulkhead_template_request_descriptors`: its standard input, output and error, and
/// its two connections), has it join the cgroups whose `tasks` files follow them (it exits
/// with 72 if it cannot), and calls `child` in it. Serves
/// from a thread of its own (the calling thread waits), so that the new workers do not
/// inherit the calling thread's caches of its thread id. 0 when the host let it go, -1 with
/// errno on failure.
int bulkhead_template_serve(int connection, int input, bulkhead_template_child child, void *context);

/// Sends `length` bytes and `count` (at most 8) descriptors on a Unix socket: the bytes sent,
/// or -1 with errno.
ssize_t bulkhead_send_with_descriptors(int connection, const void *bytes, size_t length,
                                       const int *descriptors, int count);

/// Receives up to `capacity` bytes and up to `maximum` descriptors (close-on-exec; any more
/// are closed), their number in `count`: the bytes received (0 at end of file), or -1 with
/// errno (EMSGSIZE when the message or its descriptors did not fit, none of them kept).
ssize_t bulkhead_receive_with_descriptors(int connection, void *bytes, size_t capacity,
                                          int *descriptors, int maximum, int *count);

/// Waits for this process's child to exit, through `pidfd`, or by `pid` when `pidfd` is -1,
/// and reaps it when `reap` is 1 (with 0 it stays waitable, and its pid stays its own):
/// `exited` is 1 when it exited (`status` its exit status), 0 when a signal ended it
/// (`status` the signal). 0, or -1 with errno.
int bulkhead_child_wait(int pidfd, pid_t pid, int reap, int *exited, int *status);

/// An epoll instance, closed in programs this process starts; or -1 with errno.
int bulkhead_epoll_create(void);

/// Watches `descriptor` in `epoll` for input or its end (level-triggered), named `token` in
/// what `bulkhead_epoll_wait` returns. 0, or -1 with errno.
int bulkhead_epoll_add(int epoll, int descriptor, uint64_t token);

/// Stops watching `descriptor`. 0, or -1 with errno.
int bulkhead_epoll_remove(int epoll, int descriptor);

/// Watches `descriptor`, already added, for input or its end again (`armed`), or for nothing
/// but its errors and hang-up, without waking a thread that waits on `epoll`. 0, or -1 with errno.
int bulkhead_epoll_arm(int epoll, int descriptor, uint64_t token, int armed);

/// Waits until a watched descriptor is ready, at most `timeout` milliseconds (-1: for ever),
/// and writes the tokens of up to `capacity` ready ones into `tokens`: their number (0 when
/// the wait timed out), or -1 with errno (EINTR: ask again).
int bulkhead_epoll_wait(int epoll, uint64_t *tokens, int capacity, int timeout);

#endif
