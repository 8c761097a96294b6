/* The terminal of xl profile top: see top_term.h. */
#include "config.h"

#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "top_term.h"

#define ENTER "\033[?1049h\033[?25l"
#define LEAVE "\033[?25h\033[?1049l"

static struct termios saved;
static volatile sig_atomic_t taken, raw_keys;

bool xlp_term_usable(void)
{
	const char *term = getenv("TERM");
	unsigned cols, rows;

	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO) || !term || !*term ||
	    strcmp(term, "dumb") == 0)
		return false;
	xlp_term_size(&cols, &rows);
	return cols >= 60 && rows >= 16;
}

void xlp_term_size(unsigned *cols, unsigned *rows)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	} else {
		*cols = 80;
		*rows = 24;
	}
}

/* Only async-signal-safe calls: a fatal signal's handler runs it. */
void xlp_term_leave(void)
{
	if (!taken)
		return;
	taken = 0;
	if (raw_keys)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
	raw_keys = 0;
	if (write(STDOUT_FILENO, LEAVE, sizeof(LEAVE) - 1) < 0) {
		/* nothing more can be done */
	}
}

static void on_fatal(int sig)
{
	xlp_term_leave();
	signal(sig, SIG_DFL);
	raise(sig);
}

static struct termios raw_mode;
volatile sig_atomic_t xlp_term_resumed;

/* Ctrl-Z: the shell gets its terminal back; fg gives us ours again. */
static void on_stop(int sig)
{
	int was = taken;

	(void)sig;
	xlp_term_leave();
	taken = was;          /* to take it again on SIGCONT */
	signal(SIGTSTP, SIG_DFL);
	raise(SIGTSTP);
}

static void on_continue(int sig)
{
	(void)sig;
	signal(SIGTSTP, on_stop);
	if (!taken)
		return;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw_mode) == 0)
		raw_keys = 1;
	if (write(STDOUT_FILENO, ENTER, sizeof(ENTER) - 1) < 0) {
		/* drawn again on the next screen anyway */
	}
	xlp_term_resumed = 1;
}

int xlp_term_enter(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGQUIT };
	struct termios raw;

	if (tcgetattr(STDIN_FILENO, &saved) < 0)
		return -1;
	raw = saved;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) < 0)
		return -1;
	raw_mode = raw;
	raw_keys = 1;
	taken = 1;
	atexit(xlp_term_leave);
	signal(SIGTSTP, on_stop);
	signal(SIGCONT, on_continue);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], on_fatal);
	if (write(STDOUT_FILENO, ENTER, sizeof(ENTER) - 1) < 0) {
		xlp_term_leave();
		return -1;
	}
	return 0;
}

int xlp_term_key(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	unsigned char c;

	if (!raw_keys || poll(&p, 1, 0) != 1 || read(STDIN_FILENO, &c, 1) != 1)
		return -1;
	return c;
}

void xlp_term_show(const char *text, size_t len)
{
	unsigned cols, rows, line = 0;
	size_t end = 0;
	char *buf;

	xlp_term_size(&cols, &rows);
	/* The lines that fit, the last row left for the cursor's home. */
	while (end < len && line + 1 < rows) {
		const char *nl = memchr(text + end, '\n', len - end);

		end = nl ? (size_t)(nl - text) + 1 : len;
		line++;
	}
	buf = malloc(end * 5 + 16);
	if (!buf)
		return;
	/* Home, then each line with the rest of it cleared (\n -> clear,
	 * CR LF: the terminal is in raw output for nothing but keys). */
	size_t n = 0;

	memcpy(buf, "\033[H", 3);
	n = 3;
	/* Each line cut to the width (a column a character: the text is
	 * UTF-8 with every control escaped), so none wraps. */
	unsigned col = 0;

	for (size_t i = 0; i < end; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n') {
			memcpy(buf + n, "\033[K\r\n", 5);
			n += 5;
			col = 0;
			continue;
		}
		if ((c & 0xc0) != 0x80 && ++col >= cols)
			continue;
		if ((c & 0xc0) == 0x80 && col >= cols)
			continue;
		buf[n++] = (char)c;
	}
	memcpy(buf + n, "\033[J", 3);
	n += 3;
	for (size_t off = 0; off < n;) {
		ssize_t w = write(STDOUT_FILENO, buf + off, n - off);

		if (w <= 0)
			break;
		off += (size_t)w;
	}
	free(buf);
}
