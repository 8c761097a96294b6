/* C++ names through the C++ runtime's own demangler, at load time only.
 * A name is untrusted: a few hundred bytes can demangle to gigabytes in
 * minutes (each substitution may repeat everything before it), and
 * __cxa_demangle can be neither bounded nor interrupted. So the names are
 * demangled in a child process (a fork: it already holds them) that
 * reports each result in turn; a name that takes longer than
 * DEMANGLE_NAME_MS is abandoned with its child, and a new child goes on
 * after it. Results longer than DEMANGLE_MAX_OUT are not kept: the mangled
 * name stays. A table without C++ names costs nothing. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symbols/table_impl.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
		     int *status);

/* A mangled name longer than this is kept as it is (real ones: < 1 KiB,
 * the longest in libclang-cpp ~ 2 KiB), a demangled one too. */
#define DEMANGLE_MAX_IN 4096
#define DEMANGLE_MAX_OUT 4096
/* Real names take microseconds; this is generous for a loaded machine. */
#define DEMANGLE_NAME_MS 500
/* After this many abandoned children the rest stays mangled. */
#define DEMANGLE_MAX_RESTARTS 8

bool symbol_is_mangled(const char *name)
{
	return strncmp(name, "_Z", 2) == 0 &&
	       strnlen(name, DEMANGLE_MAX_IN + 1) <= DEMANGLE_MAX_IN;
}

struct record {
	uint32_t index;        /* into the batch */
	uint32_t len;          /* 0: not a C++ name after all */
};

#define TOO_LONG UINT32_MAX    /* record.len: over DEMANGLE_MAX_OUT */

static bool write_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p = (const char *)p + w;
		n -= (size_t)w;
	}
	return true;
}

static void child(int fd, const char *const *names, size_t from, size_t n)
{
	for (size_t i = from; i < n; i++) {
		int status = 0;
		char *out = __cxa_demangle(names[i], NULL, NULL, &status);
		size_t len = status == 0 && out ? strlen(out) : 0;
		struct record r = { (uint32_t)i, len <= DEMANGLE_MAX_OUT ?
				    (uint32_t)len : TOO_LONG };

		if (!write_all(fd, &r, sizeof(r)) ||
		    (r.len != TOO_LONG && !write_all(fd, out, r.len)))
			_exit(1);
		free(out);
	}
	_exit(0);
}

/* Read exactly n bytes, each wait at most DEMANGLE_NAME_MS. */
static bool read_timed(int fd, void *p, size_t n)
{
	while (n) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int rc = poll(&pfd, 1, DEMANGLE_NAME_MS);
		ssize_t got;

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			return false;
		got = read(fd, p, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		p = (char *)p + got;
		n -= (size_t)got;
	}
	return true;
}

/* One child from index `from`; returns the index it stopped at (n when it
 * finished), results in out. */
static size_t run_child(const char *const *names, size_t from, size_t n,
			char **out, size_t *too_long, size_t *budget)
{
	int fds[2];
	pid_t pid;
	size_t next = from;

	if (pipe(fds) < 0)
		return from;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child(fds[1], names, from, n);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return from;
	}
	while (next < n) {
		struct record r;
		char *s;

		if (!read_timed(fds[0], &r, sizeof(r)) || r.index != next)
			break;
		if (r.len == TOO_LONG) {
			(*too_long)++;
			next++;
			continue;
		}
		if (r.len > DEMANGLE_MAX_OUT)
			break;
		s = malloc((size_t)r.len + 1);
		if (!s || !read_timed(fds[0], s, r.len)) {
			free(s);
			break;
		}
		s[r.len] = '\0';
		if (r.len && r.len + 1 <= *budget) {
			out[next] = s;
			*budget -= r.len + 1;
		} else {
			if (r.len)              /* the table's name cap */
				(*too_long)++;
			free(s);
		}
		next++;
	}
	kill(pid, SIGKILL);
	close(fds[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return next;
}

/* Names too long, too slow or too big demangled are counted, kept. */
size_t symbol_demangle_batch(const char *const *names, size_t n, char **out,
			     size_t budget)
{
	size_t next = 0, refused = 0;

	for (size_t i = 0; i < n; i++)
		out[i] = NULL;
	for (unsigned restarts = 0; next < n; restarts++) {
		size_t stop;

		if (restarts > DEMANGLE_MAX_RESTARTS) {
			refused += n - next;
			break;
		}
		stop = run_child(names, next, n, out, &refused, &budget);
		if (stop < n) {         /* names[stop] was too slow (or fatal) */
			refused++;
			next = stop + 1;
		} else {
			next = n;
		}
	}
	return refused;
}
