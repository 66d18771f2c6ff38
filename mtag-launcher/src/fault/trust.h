/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trust.h -- which journal entries mtagctl believes.
 *
 * Any process can write an entry with any MESSAGE_ID and any field of its
 * own (sd_journal_send, logger --journald).  Only the fields journald adds
 * itself, those whose names begin with '_', tell who really wrote it: a
 * client cannot set them.  An entry counts only when they name its real
 * writer (the _UID of a system user, not a login user's):
 *
 *   writer            _TRANSPORT  _UID  _COMM (when journald has it)
 *   mtag-faultd       journal     0     mtag-faultd
 *   systemd-coredump  journal     0 or  systemd-coredum (15 bytes: comm)
 *                                 the systemd-coredump user's (it drops
 *                                 to that user before it writes)
 *   mtag-launcher     journal     -     -  and _SYSTEMD_UNIT is the unit
 *                                          it speaks of (it execs the
 *                                          service at once: journald may
 *                                          see the service's comm)
 *
 * _COMM may be missing when the writer exited before journald read
 * /proc (systemd-coredump does); _UID and _TRANSPORT never are.  The
 * launcher runs as the service's user, so a compromised service can write
 * entries that pass these rules for its own unit: mtagctl uses only the
 * first entry of an invocation, which the launcher wrote before the
 * service's code ran (same socket, in order), and never decides a verdict
 * from it (/proc says what runs).
 */
#ifndef MTAG_TRUST_H
#define MTAG_TRUST_H

#include <stdbool.h>
#include <stddef.h>

enum jwriter { JW_FAULTD, JW_COREDUMP, JW_LAUNCHER };

/* The value of trusted field NAME of the entry, or NULL if it has none. */
typedef const char *(*jfield_fn)(void *ctx, const char *name);

/* Whether the entry (fields through GET) was written by W.  UNIT: with
 * JW_LAUNCHER, the unit the entry must come from.  WHY (may be NULL): the
 * reason it is refused. */
bool jwriter_trusted(enum jwriter w, jfield_fn get, void *ctx, const char *unit, const char **why);

/* The fields of the journal entry a reader is on, as a jfield_fn
 * (jentry_field(), CTX a struct jentry): GET_DATA is
 * sd_journal_get_data() of J (this file does without libsystemd).  A
 * value is cut to 4095 bytes; one with a NUL is none.  Four values at a
 * time stay valid. */
struct jentry {
	int (*get_data)(void *j, const char *field, const void **data, size_t *len);
	void *j;
	char buf[4][4096];
	unsigned next;
};
const char *jentry_field(void *ctx, const char *name);

/* Positive proof that mtag-faultd wrote an entry that passes
 * jwriter_trusted(JW_FAULTD): one of the fields journald adds itself
 * names it (_COMM "mtag-faultd", _EXE ".../mtag-faultd" or _SYSTEMD_UNIT
 * "mtag-faultd.service").  jwriter_trusted() lets an entry without _COMM
 * pass (journald may miss a writer that exited at once); a root program
 * that logs one forged entry and exits is such a writer, mtag-faultd (a
 * daemon) is not.  "mtagctl faults" and "mtagctl bugs" ask both: the
 * bug signature groups hosts, a forged one must not join them. */
bool jwriter_names_faultd(jfield_fn get, void *ctx);

/*
 * Upgraded starts of a unit (mtag_upgrades_total).  The launcher's entry of
 * an upgraded start (MSGID_UPGRADED_START) comes from the unit's cgroup and
 * its user: any process of the unit can write one.  What counts is the
 * entries mtag-faultd itself wrote (JW_FAULTD: _UID=0, _COMM mtag-faultd)
 * for an async fault of the unit after which it recorded an upgraded start
 * (MTAG_UPGRADE_NEXT=yes, MTAG_KERNEL_CURSOR), each once, and only when
 * the unit's launcher entry names that fault (MTAG_UPGRADE_FAULT_CURSOR):
 * a start that happened.  A forged entry can neither add a start faultd
 * did not record nor count one twice.  Feed every entry of both kinds of
 * this boot, in any order, then count.
 */
struct upgrade_tally {
	char **faultd, **launcher;   /* kernel cursors */
	size_t nf, nl, capf, capl;
};
void upgrade_tally_add(struct upgrade_tally *t, jfield_fn get, void *ctx, const char *unit);
unsigned upgrade_tally_count(const struct upgrade_tally *t);
void upgrade_tally_free(struct upgrade_tally *t);

#endif
