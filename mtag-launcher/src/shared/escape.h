/* SPDX-License-Identifier: GPL-2.0-or-later */
/* escape.h -- make untrusted text safe to print on a terminal.
 *
 * A process name (PR_SET_NAME), a mapped file's path, a stack trace's
 * function names, /proc contents: whoever wrote them can put terminal
 * escape sequences in them (ESC ] 0 ; ... retitles the window, ESC [ 2 J
 * clears it, others have done worse).  Human output shows every control
 * character escaped as systemd's cescape() does: \a \b \t \n \v \f \r,
 * \\ for a backslash, \xHH for any other C0 control, DEL, a C1 control
 * (U+0080-U+009F, which some terminals obey) and every byte that is not
 * valid UTF-8.  Printable UTF-8 passes as it is.
 */
#ifndef MTAG_ESCAPE_H
#define MTAG_ESCAPE_H

#include <stddef.h>

/* The length of the valid UTF-8 sequence at S (N bytes left): 1-4, or
 * -K when it is invalid, K bytes to skip. */
int utf8_seq(const unsigned char *s, size_t n);

/* S (NUL-terminated, may be NULL: "") escaped into BUF of LEN bytes, cut
 * at a whole escape or character when it does not fit.  Returns BUF. */
char *cescape(const char *s, char *buf, size_t len);

#endif
