/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-sd.h -- what mtagctl asks systemd: units over D-Bus, entries in
 * the journal. */
#ifndef MTAG_MTAGCTL_SD_H
#define MTAG_MTAGCTL_SD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-journal.h>

#include "trust.h"

struct unit_info {
	char *name;
	char *load_state, *active_state, *sub_state;
	char *cgroup;          /* ControlGroup, "" when not running */
	pid_t main_pid;
	char invocation[33];   /* InvocationID as hex, "" if none */
	uint64_t start_usec;   /* ExecMainStartTimestamp, realtime us, 0: none */
	bool wrapped;          /* mtag-generator's drop-in is loaded */
	char *dropin;          /* its path, or NULL */
	char *unwrapped_by;    /* loaded, but ExecStart= does not run the launcher: the
	                        * drop-ins after it that set ExecStart= ("" unknown); or NULL */
	bool need_reload;      /* NeedDaemonReload */
};

/* Connect to the system manager.  0 or -errno. */
int sd_ctl_open(void);
void sd_ctl_close(void);

/* The loaded service units (ListUnits), sorted by name: *OUT, *N.
 * Returns 0 or -errno. */
int sd_ctl_list_services(struct unit_info **out, size_t *n);

/* One unit by name ("nginx" means "nginx.service").  Returns 0, -ENOENT
 * when systemd does not know it, or another -errno. */
int sd_ctl_get_unit(const char *name, struct unit_info *u);

void unit_info_free(struct unit_info *u);

/* FIELD's value in the current entry of J into BUF of LEN bytes, cut to
 * fit; "" if the entry has no such field. */
void sd_ctl_field(sd_journal *j, const char *name, char *buf, size_t len);

/* Whether the current entry of J was written by W (trust.h); UNIT for
 * JW_LAUNCHER. */
bool sd_ctl_trusted(sd_journal *j, enum jwriter w, const char *unit);
/* trust.h's fields of the entry J is on (jentry_field()); free() it. */
struct jentry *sd_ctl_entry(sd_journal *j);

/* The unit PID runs in (sd_pid_get_unit), malloc'ed, or NULL. */
char *sd_ctl_pid_unit(pid_t pid);

/* The launcher's entry (MESSAGE_ID=bf385b8a...) of a unit's invocation,
 * the first one of the invocation that passes the trust rules (trust.h):
 * its MTAG_MODE, MTAG_POLICY_SOURCE, MTAG_HEAP, MTAG_REPORT, the time.
 * Returns 1 found, 0 none, -errno. */
struct launcher_entry {
	char mode[16];
	char source[512];
	char heap[8];
	char report[16];
	uint64_t usec;
};
int sd_ctl_launcher_entry(const char *invocation, const char *unit, struct launcher_entry *e);

/* Count MSGID_FAULT entries of this boot per unit (mtag-faultd's only).  UNIT NULL: all.  BY
 * CAUSE: counts[mte_cause] (MTE_CAUSE_* of cause.h, 5 entries).  Returns
 * the total or -errno. */
int sd_ctl_count_faults(const char *unit, unsigned counts[5]);

/* Upgraded starts of UNIT this boot: mtag-faultd's own entries of the
 * unit's async faults that recorded one (MTAG_UPGRADE_NEXT=yes), each
 * counted once when a launcher entry of the unit (MSGID_UPGRADED_START)
 * names its kernel cursor (trust.h, upgrade_tally).  Count or -errno. */
int sd_ctl_count_upgrades(const char *unit);

#endif
