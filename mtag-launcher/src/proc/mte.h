/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mte.h -- what the CPU and kernel say about MTE. */
#ifndef MTAG_MTE_H
#define MTAG_MTE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SYSFS_CPU_DIR "/sys/devices/system/cpu"

/* Does this CPU and kernel offer MTE to user space (HWCAP2_MTE)? */
bool mte_supported(void);

/* prctl(OPTION, ARG2, ARG3, 0, 0) for the mtag arm64 kernel's MTE
 * options (report mode, the exec default, the timed upgrade): its result
 * (>= 0) or -errno; -EINVAL on another architecture, where those numbers
 * mean nothing. */
long mte_prctl(int option, unsigned long arg2, unsigned long arg3);

/* The preferred tag-check mode of every CPU under CPU_DIR (normally
 * SYSFS_CPU_DIR): counts of CPUs preferring each mode.  Returns the number
 * of CPUs that have an mte_tcf_preferred file (0: kernel has none). */
struct cpu_pref_count {
	unsigned sync, async, asymm, other;
};
unsigned mte_cpu_preferred(const char *cpu_dir, struct cpu_pref_count *c);

/* Write MODE ("async", "sync" or "asymm") to every CPU's mte_tcf_preferred.
 * Returns the number of CPUs written, or -errno (ERRBUF gets the path). */
int mte_set_cpu_preferred(const char *cpu_dir, const char *mode, char *errbuf, size_t errlen);

#endif
