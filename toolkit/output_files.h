/* Where profiles go and how they are written: beside the domain's logs by
 * default, created with safe permissions, each file written under a
 * temporary name and renamed, so a reader never sees half a profile. */
#ifndef TK_OUTPUT_FILES_H
#define TK_OUTPUT_FILES_H

#include <stdio.h>

/* The path stem for this run's files ("DIR/NAME-YYYYmmddTHHMMSSZ"):
 * output may be NULL (default directory), a directory, or a stem. Creates
 * the default directory (mode 0750) if needed. Prints one error line and
 * returns NULL on failure. */
char *tk_output_stem(const char *output, const char *domain_name);

struct tk_file {
	FILE *f;
	char *tmp;
	char *path;
};

/* A profile file's mode, less the umask: owner and group read, never
 * others (xl-profile(1), FILES, says why). */
#define TK_FILE_MODE 0640

/* Open stem+suffix for writing through a temporary file (mode
 * TK_FILE_MODE & ~umask). 0, or -1 after one error line. */
int tk_file_open(struct tk_file *out, const char *stem, const char *suffix);

/* Close and rename into place; on error removes the temporary file. */
int tk_file_commit(struct tk_file *f);
void tk_file_abort(struct tk_file *f);

#endif
