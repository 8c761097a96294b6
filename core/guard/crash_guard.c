/* The crash guard (see include/uniprof/crash_guard.h). A signal handler
 * could not unpause safely (libxenctrl takes locks and allocates) and does
 * not run at all on SIGKILL; a watchdog process can do both. It is a
 * separate program started with posix_spawn, not a fork of the profiler:
 * a forked copy would share Xen handles, hypercall buffers and mappings. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error_impl.h"
#include "guard/pause_state.h"
#include "target/target_impl.h"
#include "uniprof/crash_guard.h"
#include "private.h"

extern char **environ;

static const char *guard_path(void)
{
	const char *p = getenv("UNIPROF_GUARD");

	return p && *p ? p : UNIPROF_GUARD_PATH;
}

static void unmap_shared(struct pause_state *shared)
{
	munmap(shared, sizeof(*shared));
}

/* The watchdog's three descriptors, where it finds them: only these cross
 * its exec. Ours are close-on-exec from birth, so a guard spawned by
 * another thread (the daemon samples several domains) never holds the
 * socket of another target open. */
enum { GUARD_SOCKET_FD = 3, GUARD_FLAG_FD = 4, GUARD_ALARM_FD = 5 };

/* fd moved above the descriptors the child gets (close-on-exec). */
static int high_cloexec(int fd)
{
	int h = fcntl(fd, F_DUPFD_CLOEXEC, 10);

	close(fd);
	return h;
}

int up_crash_guard_install(struct up_target *t)
{
	char a_sock[16], a_flag[16], a_dom[16], a_alarm[16];
	char *argv[6];
	struct pause_state *shared;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int fds[2], flag_fd, alarm_fd, rc;
	pid_t pid;

	if (t->guard_pid > 0)
		return up_fail(UP_EINVAL, "a crash guard is already installed");
	flag_fd = memfd_create("uniprof-guard", MFD_CLOEXEC);
	if (flag_fd >= 0)
		flag_fd = high_cloexec(flag_fd);
	if (flag_fd < 0 || ftruncate(flag_fd, sizeof(*shared)) < 0) {
		if (flag_fd >= 0)
			close(flag_fd);
		return up_fail(UP_EIO, "cannot start the crash guard: %s", strerror(errno));
	}
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED,
		      flag_fd, 0);
	if (shared == MAP_FAILED) {
		close(flag_fd);
		return up_fail(UP_EIO, "cannot start the crash guard: %s", strerror(errno));
	}
	ps_init(shared);
	ps_copy(shared, t->ps);
	/* A socket, not a pipe: a word to a guard that died must fail, not
	 * raise SIGPIPE in the profiler (send's MSG_NOSIGNAL). */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0) {
		unmap_shared(shared);
		close(flag_fd);
		return up_fail(UP_EIO, "cannot start the crash guard: %s", strerror(errno));
	}
	fds[0] = high_cloexec(fds[0]);
	/* Best effort: without it the guard wakes a period past each
	 * sample announced, and every period between. Never blocks, so the
	 * guard's read cannot wait for a ring we moved. */
	alarm_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (alarm_fd >= 0)
		alarm_fd = high_cloexec(alarm_fd);
	snprintf(a_sock, sizeof(a_sock), "%d", GUARD_SOCKET_FD);
	snprintf(a_alarm, sizeof(a_alarm), "%d", GUARD_ALARM_FD);
	snprintf(a_flag, sizeof(a_flag), "%d", GUARD_FLAG_FD);
	/* Image targets (tests) get the same watchdog; it then ends pauses
	 * in the shared stand-in for Xen's pause count. */
	if (t->ops->live)
		snprintf(a_dom, sizeof(a_dom), "%u", t->info.domid);
	else
		snprintf(a_dom, sizeof(a_dom), "image");
	argv[0] = (char *)"uniprof-guard";
	argv[1] = a_sock;
	argv[2] = a_flag;
	argv[3] = a_dom;
	argv[4] = alarm_fd >= 0 ? a_alarm : NULL;
	argv[5] = NULL;
	/* A session of its own: Ctrl-C and kill -- -PGID reach our process
	 * group, not the watchdog that must outlive it. A kill of our whole
	 * cgroup (systemd's final SIGKILL, cgroup.kill) takes it too: it
	 * stays in our cgroup on purpose, since leaving it would need
	 * privileges and escape the limits the administrator set. */
	rc = fds[0] < 0 ? errno : posix_spawn_file_actions_init(&fa);
	if (rc == 0) {
		rc = posix_spawn_file_actions_adddup2(&fa, fds[0], GUARD_SOCKET_FD);
		if (rc == 0)
			rc = posix_spawn_file_actions_adddup2(&fa, flag_fd, GUARD_FLAG_FD);
		if (rc == 0 && alarm_fd >= 0)
			rc = posix_spawn_file_actions_adddup2(&fa, alarm_fd, GUARD_ALARM_FD);
		if (rc == 0)
			rc = posix_spawnattr_init(&attr);
		if (rc == 0) {
#ifdef POSIX_SPAWN_SETSID
			posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
#else
			posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
#endif
			rc = posix_spawn(&pid, guard_path(), &fa, &attr, argv, environ);
			posix_spawnattr_destroy(&attr);
		}
		posix_spawn_file_actions_destroy(&fa);
	}
	if (fds[0] >= 0)
		close(fds[0]);
	close(flag_fd);
	if (rc != 0) {
		close(fds[1]);
		if (alarm_fd >= 0)
			close(alarm_fd);
		unmap_shared(shared);
		return up_fail(UP_EIO, "cannot start the crash guard %s: %s",
			       guard_path(), strerror(rc));
	}
	t->guard_pid = pid;
	t->guard_fd = fds[1];
	t->guard_alarm_fd = alarm_fd;
	t->guard_alarm_at = 0;
	t->ps = shared;
	return 0;
}

void up_crash_guard_release(struct up_target *t)
{
	struct pause_state *shared = t->ps;
	bool held;

	if (t->guard_pid <= 0)
		return;
	ps_copy(&t->ps_local, shared);
	t->ps = &t->ps_local;
	/* Our last unpause failed: the watchdog must not quit. Closing the
	 * socket instead tells it we are gone; it then keeps trying to unpause
	 * on its own, and we do not wait for it. */
	held = ps_held(shared);
	if (!held && send(t->guard_fd, "q", 1, MSG_NOSIGNAL) == 1)
		while (waitpid(t->guard_pid, NULL, 0) < 0 && errno == EINTR)
			;
	close(t->guard_fd);
	if (t->guard_alarm_fd >= 0)
		close(t->guard_alarm_fd);
	unmap_shared(shared);
	t->guard_fd = -1;
	t->guard_alarm_fd = -1;
	t->guard_alarm_at = 0;
	t->guard_pid = -1;
}

void crash_guard_wake(struct up_target *t)
{
	/* Never waits: a guard with words unread is awake already. */
	if (t->guard_pid > 0)
		(void)!send(t->guard_fd, "w", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

int crash_guard_alarm(struct up_target *t, uint64_t ns)
{
	struct itimerspec at = { .it_value = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull) } };

	/* One system call, between samples: a guard woken for every sample
	 * costs a switch to another process, which in a PV dom0 is dearer. */
	if (t->guard_pid <= 0 || t->guard_alarm_fd < 0)
		return 0;
	return timerfd_settime(t->guard_alarm_fd, TFD_TIMER_ABSTIME, &at, NULL);
}

uint64_t up_crash_guard_pid(const struct up_target *t)
{
	return t && t->guard_pid > 0 ? (uint64_t)t->guard_pid : 0;
}
