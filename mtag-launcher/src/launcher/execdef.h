/* SPDX-License-Identifier: GPL-2.0-or-later */
/* execdef.h -- the mtag kernel's MTE exec default (patches/linux/0006):
 * the tag checking the process tree is asked to run with, kept by the
 * kernel across every execve and read by the mtag glibc at start-up when
 * no tunable is set, so that supervisors that clean the environment
 * (pg_ctlcluster, postfix's and dovecot's masters, su, env -i, set-user-ID
 * programs) cannot switch the policy off. */
#ifndef MTAG_EXECDEF_H
#define MTAG_EXECDEF_H

#include <stddef.h>

#include "mte-uapi.h"

/* The tag inclusion mask glibc uses (every tag but 0). */
#define EXECDEF_TAGS 0xfffeUL

/* The exec default that asks for what glibc's tunable VALUE asks for
 * (mode_tunable_value(): bit 0 heap, 2 sync, 4 the CPU's preferred mode,
 * any other non-zero value async); 0 for 0. */
unsigned long execdef_from_tunable(unsigned value);

/* FLAGS in /proc's words: "none", "sync heap", "async", "sync,async heap". */
const char *execdef_str(unsigned long flags, char *buf, size_t len);

/* Set this process's exec default (inherited by the service and kept
 * across its execs).  Returns 0 or -errno (-EINVAL: no MTE or a kernel
 * without the prctl). */
int execdef_set(unsigned long flags);

/* This process's exec default, or -errno. */
long execdef_get(void);

#endif
