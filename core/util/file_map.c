/* Files mapped rather than copied (see file_map.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file_map.h"

/* Mappings live at once: a load maps an image and each of its loaders
 * maps it again; uniprofd keeps one per cached image for its source
 * lines. Past this, callers copy as they did before. */
#define SLOTS 256

/* The handler reads a slot without the lock, as a seqlock: gen is odd
 * while the slot changes, and a read between two equal even gens is of
 * one mapping (start and len never of two). */
struct slot {
	atomic_uint gen;
	_Atomic uintptr_t start;        /* 0: free */
	_Atomic size_t len;
	atomic_bool cut;
	int fd;
	struct file_stamp stamp;
};

static struct slot slots[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction old_bus;
static bool installed;
static uintptr_t page_size;

static uintptr_t page_down(uintptr_t a)
{
	return a & ~(page_size - 1);
}

/* A read past the end of a file shortened under us: zero pages from the
 * faulting page to the mapping's end, and the read goes on. Anything else
 * goes where it went before we were here. */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;

	/* Only a fault the kernel raised (si_code > 0), not a kill(). */
	for (int i = 0; si->si_code > 0 && i < SLOTS; i++) {
		unsigned g = atomic_load(&slots[i].gen);
		uintptr_t s = atomic_load(&slots[i].start);
		size_t n = atomic_load(&slots[i].len);

		if ((g & 1) || atomic_load(&slots[i].gen) != g ||
		    !s || a < s || a - s >= n)
			continue;
		uintptr_t from = page_down(a), to = page_down(s + n + page_size - 1);

		if (mmap((void *)from, to - from, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
			atomic_store(&slots[i].cut, true);
			return;
		}
		break;
	}
	if ((old_bus.sa_flags & SA_SIGINFO) && old_bus.sa_sigaction) {
		old_bus.sa_sigaction(sig, si, uc);
	} else if (old_bus.sa_handler != SIG_DFL && old_bus.sa_handler != SIG_IGN) {
		old_bus.sa_handler(sig);
	} else if (si->si_code > 0) {
		/* The default action, on the access re-run as we return. */
		struct sigaction dfl = { .sa_handler = SIG_DFL };

		sigemptyset(&dfl.sa_mask);
		sigaction(SIGBUS, &dfl, NULL);
	} else if (old_bus.sa_handler == SIG_DFL) {
		/* A SIGBUS sent, not a fault: what it would have done. */
		struct sigaction dfl = { .sa_handler = SIG_DFL };

		sigemptyset(&dfl.sa_mask);
		sigaction(SIGBUS, &dfl, NULL);
		raise(SIGBUS);
	}
}

/* Installed with each new mapping, unless it still is: a program may
 * have set its own SIGBUS handler since (xl profile top's terminal
 * restore), which ours then goes on to. Under the lock. */
static int install(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus,
				.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART };
	struct sigaction cur, old;

	if (installed && sigaction(SIGBUS, NULL, &cur) == 0 &&
	    (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigbus)
		return 0;
	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	sigemptyset(&sa.sa_mask);
	/* old_bus is what the handler chains to: set before it can run,
	 * from what is there now. */
	if (sigaction(SIGBUS, NULL, &old) < 0)
		return -1;
	old_bus = old;
	if (sigaction(SIGBUS, &sa, NULL) < 0)
		return -1;
	installed = true;
	return 0;
}

static struct slot *find(const void *p)
{
	for (int i = 0; i < SLOTS; i++)
		if (p && atomic_load(&slots[i].start) == (uintptr_t)p)
			return &slots[i];
	return NULL;
}

/* Map and publish: fd is a duplicate the slot takes (closed on failure). */
static int map_registered(int fd, size_t len, const struct file_stamp *st,
			  uint8_t **out)
{
	struct slot *s = NULL;
	void *p;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < SLOTS && !s; i++)
		if (!atomic_load(&slots[i].start))
			s = &slots[i];
	if (!s || install() < 0) {
		int e = s ? errno : EMFILE;

		pthread_mutex_unlock(&lock);
		close(fd);
		errno = e;
		return -1;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		int e = errno;

		pthread_mutex_unlock(&lock);
		close(fd);
		errno = e;
		return -1;
	}
	s->fd = fd;
	s->stamp = *st;
	s->stamp.fd = -1;
	atomic_fetch_add(&s->gen, 1);           /* odd: changing */
	atomic_store(&s->cut, false);
	atomic_store(&s->len, len);
	atomic_store(&s->start, (uintptr_t)p);
	atomic_fetch_add(&s->gen, 1);           /* even: one mapping */
	pthread_mutex_unlock(&lock);
	*out = p;
	return 0;
}

static int stamp_of(int fd, struct file_stamp *st)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		return -1;
	st->size = (uint64_t)sb.st_size;
	st->mtime_s = (int64_t)sb.st_mtim.tv_sec;
	st->mtime_ns = (int64_t)sb.st_mtim.tv_nsec;
	return 0;
}

int file_map(int fd, size_t len, uint8_t **out)
{
	struct file_stamp st = { .fd = -1 };
	int dup;

	if (len == 0) {
		errno = EINVAL;
		return -1;
	}
	if (stamp_of(fd, &st) < 0)
		return -1;
	dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup < 0)
		return -1;
	return map_registered(dup, len, &st, out);
}

bool file_map_owns(const void *p)
{
	bool ours;

	pthread_mutex_lock(&lock);
	ours = find(p) != NULL;
	pthread_mutex_unlock(&lock);
	return ours;
}

int file_map_again(const void *p, size_t len, uint8_t **out)
{
	struct file_stamp st;
	int dup = -1;

	pthread_mutex_lock(&lock);
	struct slot *s = find(p);

	if (s && atomic_load(&s->len) == len && !atomic_load(&s->cut)) {
		st = s->stamp;
		dup = fcntl(s->fd, F_DUPFD_CLOEXEC, 0);
	}
	pthread_mutex_unlock(&lock);
	if (dup < 0)
		return 0;
	return map_registered(dup, len, &st, out) == 0 ? 1 : 0;
}

int file_map_stamp(const void *p, struct file_stamp *st)
{
	int rc = -1;

	pthread_mutex_lock(&lock);
	struct slot *s = find(p);

	if (s) {
		*st = s->stamp;
		st->fd = fcntl(s->fd, F_DUPFD_CLOEXEC, 0);
		rc = st->fd < 0 ? -1 : 0;
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

int file_map_stamped(const struct file_stamp *st, uint8_t **out)
{
	struct file_stamp now;
	int dup;

	if (st->fd < 0 || stamp_of(st->fd, &now) < 0)
		return -1;
	if (now.size != st->size || now.mtime_s != st->mtime_s ||
	    now.mtime_ns != st->mtime_ns || st->size == 0 || st->size > SIZE_MAX) {
		errno = ESTALE;
		return -1;
	}
	dup = fcntl(st->fd, F_DUPFD_CLOEXEC, 0);
	if (dup < 0)
		return -1;
	return map_registered(dup, (size_t)st->size, st, out);
}

int file_read_stamped(const struct file_stamp *st, uint8_t **out)
{
	struct file_stamp now;
	uint8_t *buf;
	size_t got = 0;

	if (st->fd < 0 || st->size == 0 || st->size > SIZE_MAX ||
	    !(buf = malloc((size_t)st->size)))
		return -1;
	while (got < st->size) {
		ssize_t n = pread(st->fd, buf + got, (size_t)st->size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got != st->size || stamp_of(st->fd, &now) < 0 || now.size != st->size ||
	    now.mtime_s != st->mtime_s || now.mtime_ns != st->mtime_ns) {
		free(buf);
		errno = ESTALE;
		return -1;
	}
	*out = buf;
	return 0;
}

void file_map_release(void *p)
{
	size_t len = 0;
	int fd = -1;

	pthread_mutex_lock(&lock);
	struct slot *s = find(p);

	if (s) {
		len = atomic_load(&s->len);
		fd = s->fd;
		atomic_fetch_add(&s->gen, 1);
		atomic_store(&s->start, 0);
		atomic_fetch_add(&s->gen, 1);
	}
	pthread_mutex_unlock(&lock);
	if (!s)
		return;
	munmap(p, len);
	close(fd);
}

bool file_map_was_cut(const void *p)
{
	bool cut = false;

	pthread_mutex_lock(&lock);
	struct slot *s = find(p);

	if (s)
		cut = atomic_load(&s->cut);
	pthread_mutex_unlock(&lock);
	return cut;
}
