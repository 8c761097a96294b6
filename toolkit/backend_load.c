/* What dom0's backends do on each CPU (see backend_load.h). */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend_load.h"
#include "util/clock.h"

/* /proc/interrupts rows of Xen event channels whose handler is a backend
 * serving guests, by the name the kernel gives them: blkback, netback
 * ("vifD.N-q0-tx"...), scsiback, pvcalls, and every user-space backend
 * bound through /dev/xen/evtchn (xenstored, xenconsoled, QEMU). */
static const char *const backend_names[] = {
	"blkif-backend", "vif", "scsiif", "pvcalls", "evtchn:",
};

static bool is_backend(const char *name)
{
	for (size_t i = 0; i < sizeof(backend_names) / sizeof(backend_names[0]); i++)
		if (strncmp(name, backend_names[i], strlen(backend_names[i])) == 0)
			return true;
	return false;
}

/* The header names the CPUs of the columns (only online ones are there):
 * "           CPU0       CPU1". */
static unsigned header_cpus(const char *line, const char *end,
			    int *col_cpu, unsigned max)
{
	unsigned n = 0;

	while (line < end && n < max) {
		const char *c = strstr(line, "CPU");
		char *stop;
		unsigned long cpu;

		if (!c || c >= end)
			break;
		cpu = strtoul(c + 3, &stop, 10);
		if (stop == c + 3)
			break;
		col_cpu[n++] = cpu < TK_MAX_DOM0_CPUS ? (int)cpu : -1;
		line = stop;
	}
	return n;
}

void tk_backend_irqs_parse(const char *text, struct tk_backend_load *b)
{
	int col_cpu[TK_MAX_DOM0_CPUS];
	unsigned cols;
	const char *p = text, *eol;

	memset(b->irqs, 0, sizeof(b->irqs));
	b->irqs_ok = false;
	eol = strchr(p, '\n');
	if (!eol)
		return;
	cols = header_cpus(p, eol, col_cpu, TK_MAX_DOM0_CPUS);
	if (!cols)
		return;
	for (unsigned i = 0; i < cols; i++)
		if (col_cpu[i] >= 0 && (unsigned)col_cpu[i] + 1 > b->nr)
			b->nr = (unsigned)col_cpu[i] + 1;
	for (p = eol + 1; *p; p = eol + 1) {
		uint64_t counts[TK_MAX_DOM0_CPUS];
		const char *q, *name;
		char chip[32] = "";
		unsigned i;

		eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		q = strchr(p, ':');
		if (!q || q > eol)
			goto next;
		q++;
		for (i = 0; i < cols; i++) {
			char *stop;

			counts[i] = strtoull(q, &stop, 10);
			if (stop == q || stop > eol)
				break;
			q = stop;
		}
		if (i < cols)
			goto next;
		/* Then the chip ("xen-dyn", "xen-dyn-lateeoi"), a type
		 * ("-event"), and the handler's name, last on the line. */
		if (sscanf(q, " %31s", chip) != 1 || strncmp(chip, "xen-dyn", 7) != 0)
			goto next;
		for (name = eol; name > q && name[-1] != ' ' && name[-1] != '\t'; name--)
			;
		{
			char nm[64];
			size_t len = (size_t)(eol - name);

			if (len == 0 || len >= sizeof(nm))
				goto next;
			memcpy(nm, name, len);
			nm[len] = '\0';
			if (!is_backend(nm))
				goto next;
		}
		for (i = 0; i < cols; i++)
			if (col_cpu[i] >= 0)
				b->irqs[col_cpu[i]] += counts[i];
next:
		if (!*eol)
			break;
	}
	b->irqs_ok = true;
}

/* /proc/interrupts grows with the CPUs and interrupts: a generous bound. */
#define PROC_INTERRUPTS_MAX (4u << 20)

static void irqs_read(struct tk_backend_load *b)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char *text = NULL;
	size_t len = 0, cap = 0;

	if (!f)
		return;
	/* A proc file has no size: read until its end, within the bound. */
	for (;;) {
		size_t got;

		if (len + 1 >= cap) {
			char *t;

			if (cap >= PROC_INTERRUPTS_MAX)
				break;
			cap = cap ? cap * 2 : 16384;
			t = realloc(text, cap);
			if (!t)
				break;
			text = t;
		}
		got = fread(text + len, 1, cap - len - 1, f);
		if (got == 0)
			break;
		len += got;
	}
	fclose(f);
	if (text) {
		text[len] = '\0';
		tk_backend_irqs_parse(text, b);
	}
	free(text);
}


/* Backend threads by their name (comm, 15 bytes at most): netback's
 * "vifD.N-q0-guest-rx" and "-dealloc", the user-space backends, and
 * blkback's, "DOMID.DEV-RING" ("2.hda-0", Linux 6.1; "blkback.D.DEV"
 * before). */
static const char *const thread_names[] = {
	"blkback.", "vif", "xenstored", "oxenstored", "xenconsoled",
	"qemu-system-i38", "qemu-dm",
};

static bool is_blkback_ring(const char *comm, size_t len)
{
	size_t i = 0, dot, dash;

	while (i < len && comm[i] >= '0' && comm[i] <= '9')
		i++;
	if (i == 0 || i == len || comm[i] != '.')
		return false;
	dot = i;
	for (dash = len; dash > dot && comm[dash - 1] >= '0' && comm[dash - 1] <= '9'; dash--)
		;
	return dash < len && dash > dot + 2 && comm[dash - 1] == '-';
}

static bool is_backend_thread(const char *comm, size_t len)
{
	for (size_t i = 0; i < sizeof(thread_names) / sizeof(thread_names[0]); i++) {
		size_t n = strlen(thread_names[i]);

		if (len >= n && memcmp(comm, thread_names[i], n) == 0)
			return true;
	}
	return is_blkback_ring(comm, len);
}

/* "TID (COMM) S PPID ...": utime and stime are the 14th and 15th fields,
 * the CPU it last ran on the 39th; COMM may hold spaces and parentheses,
 * so the fields count from the last ')'. */
void tk_backend_task_parse(const char *stat, struct tk_backend_load *b)
{
	const char *open = strchr(stat, '('), *close = strrchr(stat, ')'), *p;
	unsigned long long utime = 0, stime = 0;
	long cpu = -1, tid;
	unsigned field = 3;
	char *end;

	if (!open || !close || close < open ||
	    !is_backend_thread(open + 1, (size_t)(close - open - 1)) ||
	    b->nr_threads >= TK_MAX_BACKEND_THREADS)
		return;
	tid = strtol(stat, &end, 10);
	if (end == stat || tid <= 0)
		return;
	for (p = close + 1; *p && field <= 39; field++) {
		while (*p == ' ')
			p++;
		if (field == 14)
			utime = strtoull(p, &end, 10);
		else if (field == 15)
			stime = strtoull(p, &end, 10);
		else if (field == 39)
			cpu = strtol(p, &end, 10);
		p = strchr(p, ' ');
		if (!p)
			break;
	}
	if (field < 39 || cpu < 0 || cpu >= TK_MAX_DOM0_CPUS)
		return;
	b->threads[b->nr_threads++] = (struct tk_backend_thread){
		.tid = tid, .cpu = (unsigned)cpu, .ticks = utime + stime,
	};
	if ((unsigned)cpu + 1 > b->nr)
		b->nr = (unsigned)cpu + 1;
}

void tk_backend_ticks_between(const struct tk_backend_load *a,
			       const struct tk_backend_load *b,
			       uint64_t *ticks, unsigned nr_cpus)
{
	memset(ticks, 0, nr_cpus * sizeof(*ticks));
	for (unsigned i = 0; i < b->nr_threads; i++) {
		const struct tk_backend_thread *t = &b->threads[i];
		uint64_t before = 0;

		/* A thread not there before started since: all of it. */
		for (unsigned j = 0; j < a->nr_threads; j++)
			if (a->threads[j].tid == t->tid) {
				before = a->threads[j].ticks;
				break;
			}
		if (t->cpu < nr_cpus && t->ticks > before)
			ticks[t->cpu] += t->ticks - before;
	}
}

/* Every task of every process: a dom0 has some hundreds. */
static void threads_read(struct tk_backend_load *b)
{
	DIR *procs = opendir("/proc");
	struct dirent *pe;

	if (!procs)
		return;
	while ((pe = readdir(procs))) {
		char path[64];
		DIR *tasks;
		struct dirent *te;

		if (pe->d_name[0] < '1' || pe->d_name[0] > '9' ||
		    snprintf(path, sizeof(path), "/proc/%s/task", pe->d_name) >= (int)sizeof(path) ||
		    !(tasks = opendir(path)))
			continue;
		while ((te = readdir(tasks))) {
			char stat[64], line[1024];
			FILE *f;

			if (te->d_name[0] < '1' || te->d_name[0] > '9' ||
			    snprintf(stat, sizeof(stat), "/proc/%s/task/%s/stat",
				     pe->d_name, te->d_name) >= (int)sizeof(stat) ||
			    !(f = fopen(stat, "r")))
				continue;
			if (fgets(line, sizeof(line), f))
				tk_backend_task_parse(line, b);
			fclose(f);
		}
		closedir(tasks);
	}
	closedir(procs);
	b->threads_ok = true;
}

void tk_backend_load_read(struct tk_backend_load *b)
{
	memset(b, 0, sizeof(*b));
	b->at_ns = mono_ns();
	/* One dom0 CPU: no choice for the load to inform, and the walk of
	 * every thread's stat costs hundreds of ms under emulation. */
	if (sysconf(_SC_NPROCESSORS_ONLN) == 1)
		return;
	irqs_read(b);
	threads_read(b);
}
