/* The terminal of xl profile top's interactive form: raw keys, the
 * alternate screen, and the terminal given back as it was on every way
 * out (a normal end, exit(), a fatal signal). */
#ifndef XLP_TOP_TERM_H
#define XLP_TOP_TERM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* Whether stdout and stdin are a terminal that can take the screen: not
 * dumb, and at least 60 columns by 16 rows. */
bool xlp_term_usable(void);

/* Take the terminal: keys unbuffered and unechoed, the alternate screen,
 * no cursor. 0, or -1 (nothing changed). */
int xlp_term_enter(void);

/* Give it back (once; safe to call again, and from a signal handler). */
void xlp_term_leave(void);

/* Set when the terminal was taken again after Ctrl-Z and fg: the screen
 * needs drawing again (the caller clears it). */
extern volatile sig_atomic_t xlp_term_resumed;

/* A key pressed, or -1 when none is waiting. */
int xlp_term_key(void);

/* The terminal's size now. */
void xlp_term_size(unsigned *cols, unsigned *rows);

/* Show a screen of text, cut to the terminal's rows and columns' worth of
 * lines, in one write. */
void xlp_term_show(const char *text, size_t len);

#endif
