/* SPDX-License-Identifier: GPL-2.0-or-later */
/* coreframes.h -- the top frames of the faulting thread in a core, each
 * as the object, file offset and build-id that name it on every host.
 *
 * libdw's unwinder (dwfl_core_file_report(), dwfl_core_file_attach(),
 * dwfl_getthread_frames()) walks the thread's stack from the registers
 * of its NT_PRSTATUS note: with the CFI of the objects when their files
 * are found (by the core's NT_FILE paths, regular files only, whose
 * build-id must be the one in the core), else by aarch64 frame records
 * (x29).  Each frame's object and offset come from the core's NT_FILE
 * note, as /proc/PID/maps gives them for the pc (bugid.h), and its
 * build-id from the object's first page in the core (the kernel dumps
 * an ELF file mapping's first page, coredump_filter bit 4), read with
 * libdw (dwelf_elf_gnu_build_id()).
 */
#ifndef MTAG_COREFRAMES_H
#define MTAG_COREFRAMES_H

#include <stddef.h>
#include <sys/types.h>

#include "bugid.h"

/* Unwind thread TID (0: the dumping thread) of the core DATA (SIZE
 * bytes; malloc'ed by the caller and writable: libelf's elf_memory() may
 * write to its image) into FR, at most MAX frames: FR[0] the pc, then
 * the callers, innermost first.  Returns the number of frames (the
 * unwinding stops early at a frame it cannot get past), or -errno with
 * *WHY. */
int core_frames(void *data, size_t size, pid_t tid, struct bug_frame *fr, size_t max,
		const char **why);

#endif
